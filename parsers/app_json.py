"""Mobile-app JSON (`.hh`): Pokerrrr 2, Upoker, Spartan.

A file is a sequence of pretty-printed JSON objects separated by blank lines,
one hand each (see ``shared/samples/apps/README.md``).  Cards carry a trailing
street digit: ``As1`` is the ace of spades placed on street 1; a Fantasyland
board is all street 0.  Objects are read one at a time, so memory stays
bounded by the largest hand, and a broken object is quarantined on its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any, BinaryIO

from ofc_stats.engine.cards import parse_card
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import AppFormatError, OfcError, RulesetError
from ofc_stats.records import HandRecord, Placement, Quarantined, SeatRecord
from parsers.base import ParseItem, Parser

FORMAT = "app-json"
DEFAULT_APP = "Ppp"  # files without appName come from Pokerrrr 2 (README)
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


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AppFormatError(f"expected a number, got {value!r}")
    return float(value)


def ruleset_for(rules_text: str | None) -> str:
    """The preset a room's rule string maps to; RulesetError if there is none."""
    if not rules_text:
        raise RulesetError("the hand has no rule string; import it with --rules NAME")
    try:
        return get_ruleset(rules_text).name
    except RulesetError:
        raise RulesetError(
            f"unknown rule string {rules_text!r}; import it with --rules NAME"
        ) from None


def hand_from_object(data: Any, source: str, line: int, offset: int, raw: str) -> HandRecord:
    """One decoded app object as a HandRecord (AppFormatError/OfcError if impossible)."""
    where = f"{source}:{line}"
    if not isinstance(data, dict) or not isinstance(data.get("handData"), dict):
        raise AppFormatError("not an app hand: no handData object")
    if len(data["handData"]) != 1:
        raise AppFormatError(f"handData has {len(data['handData'])} hands, expected 1")
    ((hand_id, seats_data),) = data["handData"].items()
    if not isinstance(seats_data, list) or not seats_data:
        raise AppFormatError("handData holds no seats")
    seats = []
    placements = []
    for index, seat in enumerate(sorted(seats_data, key=lambda s: s.get("orderIndex", 0))):
        if not isinstance(seat, dict) or "rows" not in seat:
            raise AppFormatError(f"seat {index} has no rows")
        order = seat.get("orderIndex", index)
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
                reported_points=_number(seat.get("result")),
                reported_money=_number(seat.get("win")),
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
        ruleset=ruleset_for(rules_text),
        seats=tuple(seats),
        placements=tuple(placements),
        played_at=played_at,
        rules_text=None if rules_text is None else str(rules_text),
        stakes=_number(data.get("stakes")),
        currency=currency,
        source_file=source,
        source_line=line,
        source_offset=offset,
        raw_text=raw,
    )


def _objects(stream: BinaryIO, source: str) -> Iterator[tuple[int, int, str] | Quarantined]:
    """(first line, byte offset, text) of each blank-line-separated chunk."""
    lines: list[str] = []
    start_line = start_offset = 0
    offset = 0
    bad_encoding: str | None = None
    for number, raw in enumerate(stream, start=1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as error:
            bad_encoding = f"line {number} is not UTF-8 ({error.reason} at byte {error.start})"
            text = raw.decode("utf-8", errors="replace")
        if text.strip():
            if not lines:
                start_line, start_offset = number, offset
            lines.append(text)
        elif lines:
            yield _chunk(lines, start_line, start_offset, bad_encoding, source)
            lines, bad_encoding = [], None
        offset += len(raw)
    if lines:
        yield _chunk(lines, start_line, start_offset, bad_encoding, source)


def _chunk(
    lines: list[str], line: int, offset: int, bad_encoding: str | None, source: str
) -> tuple[int, int, str] | Quarantined:
    text = "".join(lines)
    if bad_encoding:
        return Quarantined(source, f"wrong encoding: {bad_encoding}", text, line, offset)
    return (line, offset, text)


class AppJsonParser(Parser):
    name = FORMAT
    description = "Pokerrrr 2 / Upoker / Spartan app exports (.hh, blank-line separated JSON)"

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        return text.startswith(b"{") and b'"handData"' in head

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        decoder = json.JSONDecoder()
        for item in _objects(stream, source):
            if isinstance(item, Quarantined):
                yield item
                continue
            line, offset, text = item
            position = 0
            while position < len(text):
                while position < len(text) and text[position].isspace():
                    position += 1
                if position >= len(text):
                    break
                try:
                    data, end = decoder.raw_decode(text, position)
                except json.JSONDecodeError as error:
                    reason = "truncated JSON" if error.pos >= len(text.rstrip()) else "bad JSON"
                    yield Quarantined(
                        source,
                        f"{reason}: {error.msg} (line {line + error.lineno - 1})",
                        text[position:],
                        line,
                        offset,
                    )
                    break
                raw = text[position:end]
                position = end
                hand_id = _hand_id(data)
                try:
                    yield hand_from_object(data, source, line, offset, raw)
                except OfcError as error:
                    yield Quarantined(source, str(error), raw, line, offset, hand_id)


def _hand_id(data: Any) -> str | None:
    if isinstance(data, dict) and isinstance(data.get("handData"), dict):
        keys = list(data["handData"])
        return str(keys[0]) if len(keys) == 1 else None
    return None


APP_RULES = {
    "pineapple-ultimate": "progressive17_nojokers",
    "pineapple-progressive-16": "progressive16_refant14_nojokers",
}


def hand_to_app_object(hand: HandRecord) -> dict[str, Any]:
    """A hand as the apps write it (cards carry their street digit)."""
    from ofc_stats.engine.cards import format_card

    def cards(seat: int, destination: str) -> str:
        placed = [p for p in hand.placements if p.seat == seat and p.destination == destination]
        return " ".join(f"{format_card(p.card)}{p.street}" for p in placed)

    seats = []
    for seat in hand.seats:
        entry: dict[str, Any] = {
            "inFantasy": seat.in_fantasy,
            "playerName": seat.player,
            "orderIndex": seat.seat,
            "hero": seat.hero,
            "dead": cards(seat.seat, "discard") if seat.discards is not None else "",
            "rows": "/".join(cards(seat.seat, row) for row in ("top", "middle", "bottom")),
            "playerId": seat.player_id or seat.player,
        }
        if seat.reported_points is not None:
            entry["result"] = seat.reported_points
        if seat.reported_money is not None:
            entry["win"] = seat.reported_money
        seats.append(entry)
    out: dict[str, Any] = {
        "stakes": hand.stakes if hand.stakes is not None else 1,
        "handData": {hand.room_hand_id: seats},
        "joined": True,
        "clubId": "0",
        "rules": hand.rules_text or APP_RULES.get(hand.ruleset, hand.ruleset),
        "appName": hand.room,
        "roomId": hand.table_id,
    }
    if hand.played_at is not None:
        out["endDateTime"] = hand.played_at.strftime("%Y-%m-%d %H:%M:%S")
    if hand.currency and hand.stakes is not None:
        out["price"] = f"{hand.stakes:g}{hand.currency}"
    return out


def dumps_app(hand: HandRecord) -> str:
    """One pretty-printed app object followed by the blank-line separator."""
    return json.dumps(hand_to_app_object(hand), indent=4, ensure_ascii=False) + "\n\n\n"
