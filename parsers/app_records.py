"""App JSON's record path, the definition: objects split line by line, each read as a HandRecord.

A file is a sequence of pretty-printed JSON objects separated by blank lines,
one hand each (see ``shared/samples/apps/README.md``).  Cards carry a trailing
street digit: ``As1`` is the ace of spades placed on street 1; a Fantasyland
board is all street 0.  Objects are read one at a time, so memory stays
bounded by the largest hand, and a broken object is quarantined on its own.
The core's decoder (``rust/ofc-core/src/decode/app.rs``, the import lane
:mod:`parsers.core_lane`) is proven equal to this.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ofc_stats.engine.cards import parse_card
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import AppFormatError, RulesetError
from ofc_stats.records import HandRecord, Partial, Placement, Quarantined, SeatRecord
from parsers.base import BAD_INPUT, ParseItem, finite_number, json_message, reason_of

FORMAT = "app-json"
DEFAULT_APP = "Ppp"  # files without appName come from Pokerrrr 2 (README)
# The apps' own names for themselves (appName) beside the names people know them by.
APP_NAMES = {"Ppp": "Pokerrrr 2"}
_PRICE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]{3})\s*$")


def _cards(text: str, where: str) -> list[tuple[int, int]]:
    """``"As1 Jd3"`` as [(card, street), ...]."""
    out = []
    for token in text.split():
        street = token[-1]
        if not street.isdigit():
            raise AppFormatError(f"card {token!r} has no street digit")
        out.append((parse_card(token[:-1], where), int(street)))
    return out


def _rows(text: str, where: str) -> list[list[tuple[int, int]]]:
    parts = text.split("/")
    if len(parts) != 3:
        raise AppFormatError(f"rows {text!r} do not have three parts top/middle/bottom")
    return [_cards(part, where) for part in parts]


def ruleset_for(rules_text: object, played_under: str | None = None) -> str:
    """The preset a room's rule string maps to; RulesetError if there is none.

    ``played_under`` (``import --rules``): that ruleset instead, whatever the string.
    """
    if played_under:
        return played_under
    if not rules_text:
        raise RulesetError("the hand has no rule string; import it with --rules NAME")
    if not isinstance(rules_text, str):
        raise AppFormatError(f"rules must be a string, not {repr(rules_text)[:40]}")
    try:
        return get_ruleset(rules_text).name
    except RulesetError:
        raise RulesetError(
            f"unknown rule string {rules_text!r}; import it with --rules NAME"
        ) from None


def hand_from_object(
    data: Any, source: str, line: int, offset: int, raw: str, played_under: str | None = None
) -> HandRecord:
    """One decoded app object as a HandRecord (AppFormatError/OfcError if impossible)."""
    if not isinstance(data, dict) or not isinstance(data.get("handData"), dict):
        raise AppFormatError("not an app hand: no handData object")
    if len(data["handData"]) != 1:
        raise AppFormatError(f"handData has {len(data['handData'])} hands, expected 1")
    ((hand_id, seats_data),) = data["handData"].items()
    if not isinstance(seats_data, list) or not seats_data:
        raise AppFormatError("handData holds no seats")
    for index, seat in enumerate(seats_data):
        if not isinstance(seat, dict) or "rows" not in seat:
            raise AppFormatError(f"seat {index} has no rows")
        order = seat.get("orderIndex", index)
        if isinstance(order, bool) or not isinstance(order, int) or not 0 <= order <= 127:
            raise AppFormatError(f"seat {index}: orderIndex {repr(order)[:40]} is not 0 to 127")
    seats = []
    placements = []
    in_order = sorted(enumerate(seats_data), key=lambda s: s[1].get("orderIndex", s[0]))
    for index, seat in in_order:
        order = seat.get("orderIndex", index)
        where = f"seat {index}"  # the quarantine row names the file and line
        rows = _rows(str(seat["rows"]), where)
        dead_text = str(seat.get("dead") or "")
        dead = _cards(dead_text, where)
        for row_name, row in zip(("top", "middle", "bottom"), rows, strict=True):
            placements += [Placement(order, street, card, row_name) for card, street in row]
        placements += [Placement(order, street, card, "discard") for card, street in dead]
        seats.append(
            SeatRecord(
                seat=int(order),
                player=str(seat.get("playerName", "")),
                player_id=None if seat.get("playerId") is None else str(seat["playerId"]),
                hero=bool(seat.get("hero", False)),
                in_fantasy=bool(seat.get("inFantasy", False)),
                top=tuple(card for card, _ in rows[0]),
                middle=tuple(card for card, _ in rows[1]),
                bottom=tuple(card for card, _ in rows[2]),
                discards=tuple(card for card, _ in dead) if dead_text.strip() else None,
                reported_points=finite_number(seat.get("result"), "result", AppFormatError),
                reported_money=finite_number(seat.get("win"), "win", AppFormatError),
            )
        )
    played_at = None
    if data.get("endDateTime"):
        try:
            played_at = datetime.strptime(str(data["endDateTime"]), "%Y-%m-%d %H:%M:%S")
        except ValueError:
            raise AppFormatError(f"endDateTime {data['endDateTime']!r} is not a date") from None
    currency = None
    price = data.get("price")
    if isinstance(price, str) and (match := _PRICE.match(price)):
        currency = match.group(2).upper()
    rules_text = data.get("rules")
    return HandRecord(
        format=FORMAT,
        room=str(data.get("appName") or DEFAULT_APP),
        table_id=str(data.get("roomId", "")),
        room_hand_id=str(hand_id),
        ruleset=ruleset_for(rules_text, played_under),
        seats=tuple(seats),
        placements=tuple(placements),
        played_at=played_at,
        rules_text=None if rules_text is None else str(rules_text),
        stakes=finite_number(data.get("stakes"), "stakes", AppFormatError),
        currency=currency,
        source_file=source,
        source_line=line,
        source_offset=offset,
        raw_text=raw,
    )


MAX_OBJECT_BYTES = 64 << 20  # one hand is a few KiB; past this the object is junk


@dataclass
class _Pending:
    """Lines read but not yet decoded into whole objects."""

    lines: list[str] = field(default_factory=list)
    line: int = 0  # first line number of lines[0]
    offset: int = 0  # its byte offset
    size: int = 0
    bad_lines: list[tuple[int, str]] = field(default_factory=list)  # (line, why) not UTF-8


_Item = tuple[int, int, Any, str] | Quarantined | Partial


class Splitter:
    """The record path's reading of a file, one line at a time: whole JSON values out.

    Values end where the JSON ends, not at blank lines, so a file written one
    object per line is read one object at a time (memory bounded by the
    largest object).  A value that cannot be decoded ends at the next line
    that starts with ``{`` after a blank line, or at the next line starting
    ``{`` at all, and is quarantined alone; one cut off at the end of a file
    that does not end with a newline (still being written) is a
    :class:`Partial`, left for the next import.  The import lane
    (:mod:`parsers.core_lane`) hands it the lines the core does not take,
    and lets the core take over again once :attr:`idle` says no object is open.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.decoder = json.JSONDecoder()
        self.pending = _Pending()
        self.blank_before = False
        self.cut = False  # the last line read has no newline: the writer may not be done

    @property
    def idle(self) -> bool:
        """No object is open: the next non-blank line starts one."""
        return not self.pending.lines

    def line(self, number: int, offset: int, raw: bytes) -> Iterator[_Item]:
        """Read one line (``raw`` with its newline) that starts at byte ``offset``."""
        pending = self.pending
        self.cut = not raw.endswith(b"\n")
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as error:
            why = f"line {number} is not UTF-8 ({error.reason} at byte {error.start})"
            pending.bad_lines.append((number, why))
            text = raw.decode("utf-8", errors="replace")
        if not text.strip():
            self.blank_before = True
            return
        if pending.lines and self.blank_before and text.startswith("{"):
            yield from _decode(self.decoder, pending, self.source, final=True)
        if not pending.lines:
            pending.line, pending.offset = number, offset
        pending.lines.append(text)
        pending.size += len(raw)
        stripped = text.rstrip()
        if stripped.endswith("}") and (text[0] in "{}" or len(pending.lines) == 1):
            yield from _decode(self.decoder, pending, self.source, final=False)
        elif pending.size > MAX_OBJECT_BYTES:
            yield from _decode(self.decoder, pending, self.source, final=True)
        self.blank_before = False

    def end(self) -> Iterator[_Item]:
        """The end of the file: what is still open is decoded, quarantined or Partial."""
        if self.pending.lines:
            yield from _decode(self.decoder, self.pending, self.source, final=True, cut=self.cut)


def _decode(
    decoder: json.JSONDecoder,
    pending: _Pending,
    source: str,
    *,
    final: bool,
    cut: bool = False,
) -> Iterator[_Item]:
    """Yield the whole values at the start of ``pending``; keep an unfinished rest unless final.

    ``cut``: this is the end of a file that ends without a newline (blank
    lines are not kept in ``pending``, so its own text cannot tell), so a
    value open at the end is Partial.
    """
    text = "".join(pending.lines)
    position, line, offset = 0, pending.line, pending.offset

    def advance(to: int) -> None:
        nonlocal position, line, offset
        line += text.count("\n", position, to)
        offset += len(text[position:to].encode("utf-8", "surrogatepass"))
        position = to

    while True:
        stripped = len(text) - len(text[position:].lstrip())
        advance(stripped)
        if position >= len(text):
            pending.lines, pending.size, pending.bad_lines = [], 0, []
            return
        try:
            data, end = decoder.raw_decode(text, position)
            error = None
        except json.JSONDecodeError as caught:
            error, end = caught, -1
        except BAD_INPUT as caught:  # nested too deep, a number too long to read
            yield Quarantined(
                source, reason_of(caught), text[position : _next_start(text, position)], line
            )
            advance(_next_start(text, position))
            continue
        if error is None:
            last = line + text.count("\n", position, end)
            bad = [why for number, why in pending.bad_lines if line <= number <= last]
            if bad:
                yield Quarantined(
                    source, f"wrong encoding: {bad[0]}", text[position:end], line, offset
                )
            else:
                yield (line, offset, data, text[position:end])
            advance(end)
            continue
        at_end = _stopped_by_the_end(text, error)
        restart = _next_start(text, position)
        if not final and (at_end or restart == len(text)):
            _keep(pending, text[position:], line, offset)  # the rest may still come
            return
        if cut and at_end and restart == len(text):
            yield Partial(source, line, offset, "an object cut off at the end of the file")
        else:
            kind = "truncated JSON" if error.pos >= restart - 1 else "bad JSON"
            where = error.lineno - 1 + pending.line
            yield Quarantined(
                source,
                f"{kind}: {json_message(error)} (line {where})",
                text[position:restart],
                line,
                offset,
            )
        advance(restart)


# The last token of a text cut anywhere: part of a number or of true/false/null, or
# a string's escape begun (a string left open the decoder reports where it began).
_CUT_TOKEN = re.compile(r"(?:[-+.0-9eE]+|[a-z]+|\\u[0-9a-fA-F]{0,4}|\\)$")


def _stopped_by_the_end(text: str, error: json.JSONDecodeError) -> bool:
    """Whether only the end of ``text`` stopped the decoder: more text could complete it.

    >>> import json
    >>> def why(text):
    ...     try:
    ...         json.loads(text)
    ...     except json.JSONDecodeError as error:
    ...         return _stopped_by_the_end(text, error)
    >>> why('{"a": 0.'), why('{"a": tr'), why('{"a": "Qh'), why('{"a": 1, '), why('{"a" 1}')
    (True, True, True, True, False)
    >>> why(r'{"a": "p\\u00e9'), why(r'{"a": "p\\ud83d'), why(r'{"a": "p\\u00zz"}')
    (True, True, False)
    """
    if error.msg == "Unterminated string starting at":
        return True
    body = text.rstrip()
    token = _CUT_TOKEN.search(body)
    return error.pos >= (token.start() if token else len(body))


def _next_start(text: str, position: int) -> int:
    """Where the next line starting with ``{`` begins after ``position`` (or the end)."""
    found = text.find("\n{", position + 1)
    return len(text) if found < 0 else found + 1


def _keep(pending: _Pending, rest: str, line: int, offset: int) -> None:
    pending.lines = [rest]
    pending.line, pending.offset = line, offset
    pending.size = len(rest)
    pending.bad_lines = [(n, why) for n, why in pending.bad_lines if n >= line]


def record_item(
    line: int, offset: int, data: Any, raw: str, source: str, played_under: str | None = None
) -> ParseItem:
    """What the record path makes of one decoded object: a hand, or its quarantine entry."""
    try:
        return hand_from_object(data, source, line, offset, raw, played_under)
    except BAD_INPUT as error:
        return Quarantined(source, reason_of(error), raw, line, offset, _hand_id(data))


def _hand_id(data: Any) -> str | None:
    if isinstance(data, dict) and isinstance(data.get("handData"), dict):
        keys = list(data["handData"])
        return str(keys[0]) if len(keys) == 1 else None
    return None
