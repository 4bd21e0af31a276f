"""`ofc-stats score`: JSON Lines of finished hands in, one result line per hand out.

Input line::

    {"boards": [{"top": "Qs Qd 5c", "middle": "...", "bottom": "..."}, ...],
     "stacks": [50, 50], "in_fantasy": [false, true], "fantasy_cards": [null, 15]}

Valid lines are scored in chunks through the batch engine; a bad line is
reported with its line number and the rest are still scored.  With JSON out
(:func:`score_lines`) the core reads, scores and writes every line in the
usual shape (``rust/ofc-core/src/score_text.rs``); any other line is read by
:func:`parse_hand`, the definition, so errors read as they always did.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.core.scoring import BatchResult, score_seat_lists
from ofc_stats.engine.board import ROWS, Board, check_hand
from ofc_stats.engine.cards import format_cards
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import HandError, NotText, OfcError
from ofc_stats.wording import plural

CHUNK = 10_000
SHOWN_ERRORS = 10  # bad lines named one by one; past these a count (a wrong file has thousands)


@dataclass(frozen=True)
class HandInput:
    line: int
    boards: tuple[Board, ...]
    stacks: tuple[float, ...] | None
    in_fantasy: tuple[bool, ...]
    fantasy_cards: tuple[int, ...]


@dataclass(frozen=True)
class LineError:
    line: int
    message: str


class InputLines:
    """The lines of a JSON Lines input, read as bytes: each is text or a :class:`LineError`.

    A line that is not UTF-8 is a :class:`LineError` ("line is not UTF-8", as
    `import` says it) and the rest are still read; when the first line that is
    not blank is not text (not UTF-8, or holding a NUL byte), the input is not
    JSON Lines at all and iterating raises :class:`NotText`, one line naming
    what it looks like.  A UTF-8 byte-order mark on the first line is allowed.
    The first bytes are kept (:attr:`head`) to say which format a wrong file is in.
    """

    def __init__(self, stream: BinaryIO, source: str) -> None:
        self.stream = stream
        self.source = source
        self.head = b""

    def __iter__(self) -> Iterator[str | LineError]:
        from parsers.base import SNIFF_BYTES

        seen_text = False
        for number, raw in enumerate(self._read(), start=1):
            if len(self.head) < SNIFF_BYTES:
                self.head += raw[: SNIFF_BYTES - len(self.head)]
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as error:
                if not seen_text:
                    raise self._not_text(error, number) from None
                why = f"line is not UTF-8 ({error.reason} at byte {error.start})"
                yield LineError(number, f"{self.source}:{number}: {why}")
                continue
            if not seen_text and text.strip():
                if "\x00" in text:
                    raise self._not_text(None, number)
                seen_text = True
            yield text

    def _read(self) -> Iterator[bytes]:
        """The stream's lines; a read the system refuses names the input (it said only
        "Input/output error" of ``score /proc/self/mem``)."""
        lines = iter(self.stream)
        while True:
            try:
                raw = next(lines)
            except StopIteration:
                return
            except OSError as error:
                if error.filename is None:
                    error.filename = "stdin" if self.source == "-" else self.source
                raise
            yield raw

    def _not_text(self, error: UnicodeDecodeError | None, number: int) -> NotText:
        from parsers.base import SNIFF_BYTES
        from parsers.registry import detect

        self.head += self.stream.read(max(0, SNIFF_BYTES - len(self.head)))
        start = self.head.lstrip(b" \t\r\n")
        if start.startswith((b"\xff\xfe", b"\xfe\xff")):
            return NotText(f"{self.source}: UTF-16 text, not UTF-8: save it as UTF-8")
        looks = detect(self.head, self.source)
        if looks is not None:
            return NotText(f"{self.source}: not UTF-8 text; {looks_like(looks.name)}")
        where = "a NUL byte" if error is None else f"{error.reason} at byte {error.start}"
        return NotText(
            f"{self.source}: not UTF-8 text ({where} on line {number}); JSON Lines expected"
        )

    def looks_like(self) -> str | None:
        """What a hand-history format sniffer makes of the input's head (None: no known format)."""
        from parsers.registry import detect

        looks = detect(self.head, self.source)
        return None if looks is None else f"{self.source}: {looks_like(looks.name)}"


def looks_like(name: str) -> str:
    """The hint for a hand-history file given where JSON Lines of finished boards belong."""
    return f"looks like a hand history (format {name}); read it with `ofc-stats import`"


class LineErrors:
    """Bad input lines on stderr, as they come: the first :data:`SHOWN_ERRORS`, then
    only counted, so a wrong file is a screenful, not a line for each of its lines."""

    def __init__(self) -> None:
        self.count = 0

    def add(self, error: LineError) -> None:
        from ofc_stats.cli.text import say

        self.count += 1
        if self.count <= SHOWN_ERRORS:
            say(error.message, err=True)

    def summary(self, lines: InputLines, done: str) -> list[str]:
        """The closing lines: how many more were not shown, how many failed, and what the
        input looks like when it is a hand history (``done``: "scored", "solved")."""
        if not self.count:
            return []
        out = []
        if self.count > SHOWN_ERRORS:
            out.append(f"… and {self.count - SHOWN_ERRORS:,} more")
        out.append(f"{plural(self.count, 'line')} could not be {done}")
        hint = lines.looks_like()
        if hint is not None:
            out.append(hint)
        return out


def _board(value: Any, where: str) -> Board:
    if not isinstance(value, dict):
        raise HandError(f"{where}: a board is an object with top, middle and bottom")
    rows = []
    for row in ROWS:
        cards = value.get(row)
        if isinstance(cards, list):
            cards = " ".join(str(card) for card in cards)
        if not isinstance(cards, str):
            raise HandError(f"{where}: board has no {row} row")
        rows.append(cards)
    return Board.parse(rows[0], rows[1], rows[2], where=where)


def json_line(text: str, where: str) -> Any:
    """One line's JSON value; HandError naming ``where`` for anything unreadable, so one
    bad line is reported and the next still read (nesting past Python's recursion limit
    and a number of over 4,300 digits raised past the line and stopped the run).

    >>> json_line('{"boards": ' + "[" * 100_000 + "]" * 100_000 + "}", "-:1")
    Traceback (most recent call last):
    ...
    ofc_stats.errors.HandError: -:1: not JSON we can read: nested too deep
    >>> json_line('{"boards": ' + "1" * 5_000 + "}", "-:2")
    Traceback (most recent call last):
    ...
    ofc_stats.errors.HandError: -:2: not JSON we can read: a number too long
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise HandError(f"{where}: not JSON: {error.msg} at column {error.colno}") from None
    except RecursionError:
        raise HandError(f"{where}: not JSON we can read: nested too deep") from None
    except ValueError:  # int() past sys.get_int_max_str_digits()
        raise HandError(f"{where}: not JSON we can read: a number too long") from None


def parse_hand(text: str, line: int, ruleset: Ruleset, source: str = "-") -> HandInput:
    """One input line as a validated hand; raises OfcError naming ``source:line``."""
    where = f"{source}:{line}"
    data = json_line(text, where)
    if not isinstance(data, dict) or not isinstance(data.get("boards"), list):
        raise HandError(f"{where}: expected an object with a list of boards")
    boards = tuple(_board(value, where) for value in data["boards"])
    check_hand(boards, ruleset.deck, ruleset.max_seats, where)
    seats = len(boards)
    stacks, flags, counts = seat_options(data, seats, where)
    return HandInput(
        line=line,
        boards=boards,
        stacks=stacks,
        in_fantasy=flags,
        fantasy_cards=counts,
    )


SeatOptions = tuple[tuple[float, ...] | None, tuple[bool, ...], tuple[int, ...]]


def seat_options(data: dict[str, Any], seats: int, where: str) -> SeatOptions:
    """Stacks (None = uncapped), Fantasyland flags and their card counts, checked."""

    def per_seat(key: str, default: Any) -> list[Any]:
        values = data.get(key)
        if values is None:
            return [default] * seats
        if not isinstance(values, list) or len(values) != seats:
            raise HandError(f"{where}: {key} needs one entry per seat ({seats})")
        return values

    stacks = data.get("stacks")
    if stacks is not None:
        stacks = per_seat("stacks", None)
        if not all(isinstance(s, int | float) and not isinstance(s, bool) for s in stacks):
            raise HandError(f"{where}: stacks must be numbers")
        if any(s < 0 for s in stacks):
            raise HandError(f"{where}: stacks must not be negative")
    flags = per_seat("in_fantasy", False)
    if not all(isinstance(flag, bool) for flag in flags):
        raise HandError(f"{where}: in_fantasy must be true or false per seat")
    counts = [count or 0 for count in per_seat("fantasy_cards", None)]
    if not all(isinstance(count, int) and 0 <= count <= 18 for count in counts):
        raise HandError(f"{where}: fantasy_cards must be card counts or null")
    return (
        tuple(float(s) for s in stacks) if stacks is not None else None,
        tuple(flags),
        tuple(counts),
    )


def read_hands(
    lines: Iterable[str | LineError], ruleset: Ruleset, source: str = "-"
) -> Iterator[HandInput | LineError]:
    for number, text in enumerate(lines, start=1):
        if isinstance(text, LineError):
            yield text
            continue
        if not text.strip():
            continue
        try:
            yield parse_hand(text, number, ruleset, source)
        except OfcError as error:
            yield LineError(number, str(error))


def score_hands(hands: list[HandInput], ruleset: Ruleset) -> BatchResult:
    """Score parsed hands together (seat counts may differ) through the batch engine."""
    seat_lists = [
        [
            (board.cards, flag, count, None if hand.stacks is None else hand.stacks[seat])
            for seat, (board, flag, count) in enumerate(
                zip(hand.boards, hand.in_fantasy, hand.fantasy_cards, strict=True)
            )
        ]
        for hand in hands
    ]
    return score_seat_lists(seat_lists, ruleset)  # parse_hand validated every hand


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(float(value), 6)


def result_record(result: BatchResult, index: int, seats: int) -> dict[str, Any]:
    """The JSON object for one hand of a batch."""
    boards = []
    for seat in range(seats):
        qualifies = bool(result.fantasy_qualifies[index, seat])
        stays = bool(result.fantasy_stays[index, seat])
        repeat = int(result.repeat_cards[index, seat])
        royalties = {
            "top": int(result.royalty_top[index, seat]),
            "middle": int(result.royalty_middle[index, seat]),
            "bottom": int(result.royalty_bottom[index, seat]),
        }
        royalties["total"] = sum(royalties.values())
        boards.append(
            {
                "fouled": bool(result.fouled[index, seat]),
                "royalties": royalties,
                "fantasyland": {
                    "qualifies": qualifies,
                    "cards": int(result.fantasy_cards[index, seat]) if qualifies else None,
                    "stays": stays,
                    "repeat_cards": repeat if stays and repeat else None,
                },
            }
        )
    return {
        "net": [int(v) for v in result.net[index, :seats]],
        "net_capped": [_number(v) for v in result.net_capped[index, :seats]],
        "points": [[int(v) for v in row[:seats]] for row in result.points[index, :seats]],
        "boards": boards,
    }


def format_table(hand: HandInput, record: dict[str, Any], result: BatchResult, index: int) -> str:
    """A hand's result laid out for a person."""
    header = [
        "seat",
        "top",
        "middle",
        "bottom",
        "foul",
        "royalties",
        "fantasyland",
        "net",
        "capped",
    ]
    rows = [header]
    for seat, board in enumerate(record["boards"]):
        played = result.boards[index, seat]
        fl = board["fantasyland"]
        fantasy = "-"
        if fl["qualifies"]:
            fantasy = f"enters ({fl['cards']})"
        elif fl["stays"]:
            fantasy = f"stays ({fl['repeat_cards'] or '?'})"
        royalties = board["royalties"]
        rows.append(
            [
                str(seat),
                format_cards(played[0:3].tolist()),
                format_cards(played[3:8].tolist()),
                format_cards(played[8:13].tolist()),
                "FOUL" if board["fouled"] else "",
                f"{royalties['total']} ({royalties['top']}/{royalties['middle']}/"
                f"{royalties['bottom']})",
                fantasy,
                f"{record['net'][seat]:+d}",
                f"{record['net_capped'][seat]:+g}",
            ]
        )
    widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
    lines = [f"hand at line {hand.line}"]
    for row in rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    return "\n".join(line.rstrip() for line in lines)


def score_stream(
    lines: Iterable[str | LineError], ruleset: Ruleset, source: str = "-"
) -> Iterator[tuple[HandInput, dict[str, Any], BatchResult, int] | LineError]:
    """Scored hands and line errors, in input order, scoring CHUNK hands at a time."""
    pending: list[HandInput | LineError] = []

    def flush() -> Iterator[tuple[HandInput, dict[str, Any], BatchResult, int] | LineError]:
        hands = [item for item in pending if isinstance(item, HandInput)]
        result = score_hands(hands, ruleset) if hands else None
        position = 0
        for item in pending:
            if isinstance(item, LineError):
                yield item
                continue
            assert result is not None
            record = result_record(result, position, len(item.boards))
            yield item, record, result, position
            position += 1
        pending.clear()

    for item in read_hands(lines, ruleset, source):
        pending.append(item)
        if len(pending) >= CHUNK:
            yield from flush()
    yield from flush()


def score_lines(
    lines: Iterable[str | LineError], ruleset: Ruleset, source: str = "-", chunk: int = CHUNK
) -> Iterator[str | LineError]:
    """JSON result lines (``json.dumps`` of :func:`result_record`) and line errors, in order."""
    numbered: list[tuple[int, str | LineError]] = []
    for number, text in enumerate(lines, start=1):
        if isinstance(text, LineError) or text.strip():
            numbered.append((number, text))
        if len(numbered) >= chunk:
            yield from _score_chunk(numbered, ruleset, source)
            numbered = []
    if numbered:
        yield from _score_chunk(numbered, ruleset, source)


def _score_chunk(
    numbered: list[tuple[int, str | LineError]], ruleset: Ruleset, source: str
) -> Iterator[str | LineError]:
    plain = [text for _, text in numbered if isinstance(text, str)]
    scored = iter(_core.score_lines(core_rules(ruleset), plain))
    # A line that was not text (a LineError already) stands for itself.
    texts = [text if isinstance(text, LineError) else next(scored) for _, text in numbered]
    others: list[HandInput | LineError] = []
    for (number, text), out in zip(numbered, texts, strict=True):
        # not the usual shape: the definition reads it, or says why not
        if out is None and isinstance(text, str):
            try:
                others.append(parse_hand(text, number, ruleset, source))
            except OfcError as error:
                others.append(LineError(number, str(error)))
    hands = [item for item in others if isinstance(item, HandInput)]
    result = score_hands(hands, ruleset) if hands else None
    written: list[str | LineError] = []
    position = 0
    for item in others:
        if isinstance(item, LineError):
            written.append(item)
        else:
            assert result is not None
            written.append(json.dumps(result_record(result, position, len(item.boards))))
            position += 1
    read_there = iter(written)
    for out in texts:
        yield out if out is not None else next(read_there)
