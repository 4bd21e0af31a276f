"""The ofc-stats open format: JSON Lines, one hand per line (docs/format.md).

It carries everything the model holds, so any room, app or the simulator can
write it and nothing is lost on the way in: the ruleset, seats in order of
action, every street's cards in the order dealt with where each went, and
the room's reported results.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, BinaryIO

from ofc_stats.engine.board import DESTINATIONS, ROWS
from ofc_stats.engine.cards import format_card, parse_card
from ofc_stats.errors import OpenFormatError
from ofc_stats.records import HandRecord, Partial, Placement, Quarantined, SeatRecord
from parsers import core_lane
from parsers.base import (
    BAD_INPUT,
    ParseItem,
    Parser,
    finite_number,
    head_lines,
    json_message,
    preset_name,
    reason_of,
)

FORMAT = "open"
VERSION = 1


def _card(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= 53:
            raise OpenFormatError(f"card id {value} out of range")
        return value
    if isinstance(value, str):
        return parse_card(value, where)
    raise OpenFormatError(f"bad card {value!r}")


def _list(value: Any, what: str) -> list[Any]:
    """A list field (null, absent or another empty value: none); anything else is refused."""
    if not value:
        return []
    if not isinstance(value, list):
        raise OpenFormatError(f"{what} must be a list, not {str(value)[:40]!r}")
    return value


def _seat(index: int, data: Any) -> tuple[SeatRecord, list[Placement]]:
    if not isinstance(data, dict):
        raise OpenFormatError(f"seat {index} is not an object")
    placements: list[Placement] = []
    rows: dict[str, list[int]] = {name: [] for name in ROWS}
    discards: list[int] | None = []
    for street, step in enumerate(_list(data.get("streets"), f"seat {index}: streets")):
        if not isinstance(step, dict):
            raise OpenFormatError(f"seat {index} street {street} is not an object")
        cards, to = step.get("cards"), step.get("to")
        if not isinstance(cards, list) or not isinstance(to, list) or len(cards) != len(to):
            raise OpenFormatError(f"seat {index} street {street}: cards and to must pair up")
        for value, destination in zip(cards, to, strict=True):
            if destination not in DESTINATIONS:
                raise OpenFormatError(
                    f"seat {index} street {street}: bad destination {destination!r}"
                )
            card = _card(value, f"seat {index} street {street}")  # the row names file, line
            if card is None:
                if destination != "discard":
                    raise OpenFormatError(f"seat {index} street {street}: a placed card is hidden")
                discards = None  # the room hid at least one discard
                continue
            placements.append(Placement(index, street, card, destination))
            if destination == "discard":
                if discards is not None:
                    discards.append(card)
            else:
                rows[destination].append(card)
    final = data.get("rows")
    if final is not None:
        if not isinstance(final, dict):
            raise OpenFormatError(f"seat {index}: rows must be an object")
        given = {
            name: [
                _card(c, f"seat {index}") for c in _list(final.get(name), f"seat {index}: {name}")
            ]
            for name in ROWS
        }
        if placements and any(sorted(rows[n]) != sorted(given[n]) for n in ROWS):  # type: ignore[type-var]
            raise OpenFormatError(f"seat {index}: rows do not match the streets")
        if not placements:
            rows = {n: [c for c in given[n] if c is not None] for n in ROWS}
            if "discards" in data and data["discards"] is not None:
                discards = [
                    c
                    for c in (
                        _card(v, f"seat {index}")
                        for v in _list(data["discards"], f"seat {index}: discards")
                    )
                    if c is not None
                ]
            else:
                discards = None
    result = data.get("result") or {}
    if not isinstance(result, dict):
        raise OpenFormatError(f"seat {index}: result must be an object")
    seat = SeatRecord(
        seat=index,
        player=str(data.get("player", "")),
        player_id=None if data.get("player_id") is None else str(data["player_id"]),
        hero=bool(data.get("hero", False)),
        in_fantasy=bool(data.get("in_fantasy", False)),
        top=tuple(rows["top"]),
        middle=tuple(rows["middle"]),
        bottom=tuple(rows["bottom"]),
        discards=None if discards is None else tuple(discards),
        reported_points=finite_number(result.get("points"), "points", OpenFormatError),
        reported_money=finite_number(result.get("money"), "money", OpenFormatError),
        stack=finite_number(data.get("stack"), "stack", OpenFormatError),
    )
    return seat, placements


def played_at_of(value: Any) -> datetime:
    """An ISO 8601 time as the room's local time: as written, an offset dropped.

    The offset is not converted to this machine's zone: the same file must give the
    same hands wherever it is imported (a hand at 17:04+02:00 was played at 17:04).

    >>> played_at_of("2026-11-29T17:04:00+02:00"), played_at_of("2026-11-29 17:04Z")
    (datetime.datetime(2026, 11, 29, 17, 4), datetime.datetime(2026, 11, 29, 17, 4))
    """
    try:
        played_at = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise OpenFormatError(f"played_at {value!r} is not ISO 8601") from None
    return played_at.replace(tzinfo=None)


def hand_from_json(
    data: Any, source: str, line: int, offset: int, raw: str, played_under: str | None = None
) -> HandRecord:
    """One open-format object as a HandRecord (``played_under``: ``import --rules``)."""
    if not isinstance(data, dict) or data.get("ofc_format") != VERSION:
        raise OpenFormatError(f"not an open-format hand (ofc_format must be {VERSION})")
    for key in ("room", "table", "hand_id", "ruleset", "seats"):
        if key not in data:
            raise OpenFormatError(f"missing {key!r}")
    if not isinstance(data["seats"], list):
        raise OpenFormatError("seats must be a list")
    seats, placements = [], []
    for index, seat_data in enumerate(data["seats"]):
        seat, seat_placements = _seat(index, seat_data)
        seats.append(seat)
        placements += seat_placements
    played_at = played_at_of(data["played_at"]) if data.get("played_at") else None
    return HandRecord(
        format=FORMAT,
        room=str(data["room"]),
        table_id=str(data["table"]),
        room_hand_id=str(data["hand_id"]),
        ruleset=preset_name(str(data["ruleset"]), played_under),
        seats=tuple(seats),
        placements=tuple(placements),
        played_at=played_at,
        rules_text=None if data.get("rules_text") is None else str(data["rules_text"]),
        stakes=finite_number(data.get("stakes"), "stakes", OpenFormatError),
        currency=None if data.get("currency") is None else str(data["currency"]),
        source_file=source,
        source_line=line,
        source_offset=offset,
        raw_text=raw,
    )


def hand_to_json(hand: HandRecord) -> dict[str, Any]:
    """The open-format object of a hand record (streets from its placements)."""
    seats = []
    for seat in hand.seats:
        streets: dict[int, dict[str, list[Any]]] = {}
        for placement in hand.placements:
            if placement.seat != seat.seat:
                continue
            step = streets.setdefault(placement.street, {"cards": [], "to": []})
            step["cards"].append(format_card(placement.card))
            step["to"].append(placement.destination)
        entry: dict[str, Any] = {"player": seat.player}
        if seat.player_id is not None:
            entry["player_id"] = seat.player_id
        if seat.hero:
            entry["hero"] = True
        if seat.in_fantasy:
            entry["in_fantasy"] = True
        if seat.stack is not None:
            entry["stack"] = seat.stack
        if streets:
            entry["streets"] = [streets[s] for s in sorted(streets)]
        else:
            entry["rows"] = {
                name: [format_card(c) for c in row]
                for name, row in zip(ROWS, (seat.top, seat.middle, seat.bottom), strict=True)
            }
            if seat.discards is not None:
                entry["discards"] = [format_card(c) for c in seat.discards]
        result = {}
        if seat.reported_points is not None:
            result["points"] = seat.reported_points
        if seat.reported_money is not None:
            result["money"] = seat.reported_money
        if result:
            entry["result"] = result
        seats.append(entry)
    out: dict[str, Any] = {
        "ofc_format": VERSION,
        "room": hand.room,
        "table": hand.table_id,
        "hand_id": hand.room_hand_id,
        "ruleset": hand.ruleset,
    }
    if hand.played_at is not None:
        out["played_at"] = hand.played_at.isoformat()
    for key, value in (
        ("rules_text", hand.rules_text),
        ("stakes", hand.stakes),
        ("currency", hand.currency),
    ):
        if value is not None:
            out[key] = value
    out["seats"] = seats
    return out


def dumps(hand: HandRecord) -> str:
    """One open-format line (no newline), compact and with a stable key order."""
    return json.dumps(hand_to_json(hand), separators=(",", ":"), ensure_ascii=False)


class _Lines:
    """The per-line parser as the import lane feeds it (no state between lines)."""

    idle = True

    def __init__(self, parser: OpenFormatParser, source: str) -> None:
        self.parser, self.source = parser, source

    def feed(self, lines: Iterable[tuple[int, int, bytes]]) -> Iterator[ParseItem]:
        return self.parser.parse_lines(lines, self.source)

    def end(self) -> Iterator[ParseItem]:
        return iter(())


class OpenFormatParser(Parser):
    name = FORMAT
    description = "ofc-stats open format: JSON Lines, one hand per line (docs/format.md)"

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        return any(line.startswith(b"{") and b'"ofc_format"' in line for line in head_lines(head))

    columnar = True

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        yield from self.parse_lines(core_lane.numbered(stream), source)

    def hand_from_raw(self, raw_text: str, source: str, line: int, offset: int) -> ParseItem:
        data = json.loads(raw_text)
        return hand_from_json(data, source, line, offset, raw_text, self.played_under)

    def parse_columnar(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        resolve = core_lane.resolving(lambda text: preset_name(text, self.played_under))
        yield from core_lane.read(stream, source, FORMAT, _Lines(self, source), resolve)

    def parse_lines(
        self, lines: Iterable[tuple[int, int, bytes]], source: str
    ) -> Iterator[ParseItem]:
        """The per-line Python parser: (line number, byte offset, raw bytes) in."""
        for number, start, raw in lines:
            if not raw.strip():
                continue
            # Only a file's last line can lack its newline: one that does not
            # read yet is still being written, and the next import reads it.
            cut = not raw.endswith(b"\n")
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as error:
                if cut:
                    yield Partial(source, number, start, "a line cut off at the end of the file")
                    continue
                yield Quarantined(
                    source,
                    f"wrong encoding: line is not UTF-8 ({error.reason} at byte {error.start})",
                    raw.decode("utf-8", errors="replace"),
                    number,
                    start,
                )
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError as error:
                if cut:
                    yield Partial(source, number, start, "a line cut off at the end of the file")
                    continue
                kind = "truncated JSON" if error.pos >= len(text.rstrip()) else "bad JSON"
                yield Quarantined(source, f"{kind}: {json_message(error)}", text, number, start)
                continue
            except BAD_INPUT as error:  # nested too deep, a number too long
                yield Quarantined(source, reason_of(error), text, number, start)
                continue
            try:
                line_text = text.rstrip("\r\n")
                yield hand_from_json(data, source, number, start, line_text, self.played_under)
            except BAD_INPUT as error:
                hand_id = data.get("hand_id") if isinstance(data, dict) else None
                yield Quarantined(
                    source,
                    reason_of(error),
                    text,
                    number,
                    start,
                    None if hand_id is None else str(hand_id)[:200],
                )
