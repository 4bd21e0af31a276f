"""SwC Poker browser captures: GameState snapshot streams (shared/formats/SWC.md §2-§4).

Accepts decoded proxy messages (one ``{"t": "GameState", ...}`` per line) and
fpdb-3 raw archives (``raw_messages.jsonl``, the Socket.IO frame in
``payload``).  Snapshots are grouped by hand id (``gi``) per table (``ti``),
exact resends are dropped, a placed card never leaves its row, and each
placement is assigned to an OFC street by counting the player's placed cards.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, BinaryIO

from ofc_stats.errors import OfcError, SwcError
from ofc_stats.records import HandRecord, Placement, Quarantined, SeatRecord
from parsers.base import ParseItem, Parser, first_line

FORMAT = "swc"
ROOM = "SwC"
FRAME_PREFIX = "42/poker/,"
PINEAPPLE_CODES = {74: "pineapple", 75: "pineapple-progressive", 77: "pineapple"}
CLASSIC_CODES = {70: "classic-american", 73: "classic-american", 84: "classic-american"}
ROW_NAMES = ("top", "middle", "bottom")


def ruleset_for_code(code: int) -> str:
    if code in PINEAPPLE_CODES:
        return PINEAPPLE_CODES[code]
    if code in CLASSIC_CODES:
        return CLASSIC_CODES[code]
    if code == 76:
        raise SwcError("game type 76 (OFC/P 2-7): its rules are unknown; import with --rules")
    raise SwcError(f"game type {code} is not an OFC game")


def street_of(placed: int, pineapple: bool, fantasy: bool) -> int:
    """The OFC street (0-based) on which a player's placed-card count was reached."""
    if fantasy or placed <= 5:
        return 0
    return (placed - 4) // 2 if pineapple else placed - 5


def parse_layout(text: Any) -> tuple[list[list[int]], list[int]] | None:
    """A seat ``d`` string as ([top, middle, bottom], active); None if no cards show."""
    if not isinstance(text, str) or not text:
        return None
    parts = text.split("-")
    try:
        ids = [int(item) for item in parts[0].split(";") if item != ""]
        counts = [int(p) for p in parts[1:4]] if len(parts) >= 4 else None
    except ValueError:
        return None  # invalid: treat as if the player were absent (SWC.md §4.8)
    if not ids:
        return None
    if counts is None:
        return [[], [], []], [i for i in ids if 0 <= i < 52]
    rows, position = [], 0
    for count in counts:
        rows.append([i for i in ids[position : position + count] if 0 <= i < 52])
        position += count
    return rows, [i for i in ids[position:] if 0 <= i < 52]


@dataclass
class _Seat:
    name: str
    rows: list[list[int]] = field(default_factory=lambda: [[], [], []])
    active: list[int] = field(default_factory=list)
    seen_active: bool = False
    discards: list[int] = field(default_factory=list)
    placements: list[tuple[int, int, str]] = field(default_factory=list)  # (street, card, dest)
    fantasy: bool = False
    points: float | None = None

    @property
    def placed(self) -> int:
        return sum(len(row) for row in self.rows)


@dataclass
class _Hand:
    gi: str
    ti: str
    code: int
    start_line: int
    captured_at: str | None
    seats: list[_Seat | None]
    lines: list[str] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    snapshots: int = 0
    settled: bool = False
    started_late: bool = False
    fantasy_names: set[str] = field(default_factory=set)


def _state_key(state: dict[str, Any]) -> str:
    table = state.get("d") or {}
    seats = [
        (s.get("n"), s.get("c"), s.get("b"), s.get("d")) if isinstance(s, dict) else None
        for s in state.get("s") or []
    ]
    hc = (state.get("ss") or {}).get("hc")
    return json.dumps([table.get("c"), table.get("p"), state.get("ts"), hc, seats])


def _apply(hand: _Hand, state: dict[str, Any], events: list[Any]) -> None:
    """Fold one distinct snapshot into the hand."""
    pineapple = hand.code in PINEAPPLE_CODES or hand.code == 76
    for event in events:
        text = event.get("table-msg") if isinstance(event, dict) else None
        if isinstance(text, str) and "is in fantasy land" in text:
            hand.fantasy_names.add(text.split(" is in fantasy land", 1)[0].strip())
    for index, seat_data in enumerate(state.get("s") or []):
        if index >= len(hand.seats) or not isinstance(seat_data, dict):
            continue
        seat = hand.seats[index]
        if seat is None or seat_data.get("n") != seat.name:
            continue
        if "p" in seat_data and isinstance(seat_data["p"], int | float):
            seat.points = float(seat_data["p"])
        layout = parse_layout(seat_data.get("d"))
        if layout is None:
            continue  # nothing visible: keep the previous layout (SWC.md §4.3)
        rows, active = layout
        if hand.snapshots == 1 and any(rows):
            hand.started_late = True
        new_rows = []
        placed_now: list[tuple[int, str]] = []
        for name, old, new in zip(ROW_NAMES, seat.rows, rows, strict=True):
            added = list((Counter(new) - Counter(old)).elements())
            new_rows.append(old + added)  # a placed card never leaves its row
            placed_now += [(card, name) for card in added]
        if active:
            seat.seen_active = True
        gone = [c for c in seat.active if c not in active and all(c != p for p, _ in placed_now)]
        if placed_now or gone:
            jump = len(placed_now) > 5
            seat.fantasy = seat.fantasy or jump
            seat.rows = new_rows
            street = street_of(seat.placed, pineapple, seat.fantasy)
            order = {card: i for i, card in enumerate(seat.active)}
            for card, name in sorted(placed_now, key=lambda item: order.get(item[0], 99)):
                seat.placements.append((street, card, name))
            for card in gone:
                seat.placements.append((street, card, "discard"))
                seat.discards.append(card)
        seat.active = active
    hc = (state.get("ss") or {}).get("hc")
    if isinstance(hc, str) and hc.strip():
        hand.settled = True


def _record(hand: _Hand, source: str) -> HandRecord:
    ruleset = ruleset_for_code(hand.code)
    if not any(seat.placed or seat.active for seat in hand.seats if seat is not None):
        raise SwcError(f"the capture ends before any card of hand {hand.gi} was seen")
    seats, placements = [], []
    for index, seat in enumerate(s for s in hand.seats if s is not None):
        in_fantasy = seat.fantasy or seat.name in hand.fantasy_names
        seats.append(
            SeatRecord(
                seat=index,
                player=seat.name,
                top=tuple(seat.rows[0]),
                middle=tuple(seat.rows[1]),
                bottom=tuple(seat.rows[2]),
                discards=tuple(seat.discards) if seat.seen_active else None,
                hero=seat.seen_active,
                in_fantasy=in_fantasy,
                reported_points=seat.points if hand.settled else None,
            )
        )
        placements += [
            Placement(index, street, card, dest) for street, card, dest in seat.placements
        ]
    played_at = None
    if hand.captured_at:
        try:
            played_at = datetime.fromisoformat(hand.captured_at.replace("Z", "+00:00"))
            played_at = played_at.replace(tzinfo=None)
        except ValueError:
            played_at = None
    return HandRecord(
        format=FORMAT,
        room=ROOM,
        table_id=hand.ti,
        room_hand_id=hand.gi,
        ruleset=ruleset,
        seats=tuple(seats),
        placements=tuple(placements),
        played_at=played_at,
        rules_text=f"gt={hand.code}",
        source_file=source,
        source_line=hand.start_line,
        raw_text="".join(hand.lines),
    )


def _game_state(data: Any) -> tuple[dict[str, Any], list[Any], str | None] | None:
    """(gameState, events, captured_at) of a decoded message or a raw archive record."""
    if not isinstance(data, dict):
        return None
    captured_at = data.get("captured_at")
    if "payload" in data:
        if data.get("message_type") != "GameState" or not isinstance(data["payload"], str):
            return None
        payload = data["payload"]
        if not payload.startswith(FRAME_PREFIX):
            return None
        frame = json.loads(payload[len(FRAME_PREFIX) :])
        if not isinstance(frame, list) or len(frame) < 2 or frame[0] != "proxy-message":
            return None
        data = json.loads(frame[1])
        if not isinstance(data, dict):
            return None
    if data.get("t") != "GameState" or not isinstance(data.get("gameState"), dict):
        return None
    events = data.get("events")
    return data["gameState"], events if isinstance(events, list) else [], captured_at


class SwcParser(Parser):
    name = FORMAT
    description = "SwC Poker GameState captures (decoded messages or fpdb-3 raw_messages.jsonl)"

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        first = first_line(head)
        return first.startswith(b"{") and (
            b'"gameState"' in first or b'"site": "SealsWithClubs"' in first
        )

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        open_hands: dict[str, _Hand] = {}  # by table
        closed: set[tuple[str, str]] = set()
        for number, raw in enumerate(stream, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
                found = _game_state(json.loads(text))
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                yield Quarantined(
                    source, f"unreadable capture line: {error}", repr(raw[:2000]), number
                )
                continue
            if found is None:
                continue
            state, events, captured_at = found
            gi, ti = state.get("gi"), state.get("ti")
            if not gi:
                continue
            gi, ti = str(gi), str(ti if ti is not None else "__unknown_table__")
            if (ti, gi) in closed:
                continue  # an old hand's snapshot arriving late (SWC.md §4.8)
            hand = open_hands.get(ti)
            if hand is not None and hand.gi != gi:
                yield from self._close(hand, source)
                closed.add((ti, hand.gi))
                hand = None
            if hand is None:
                seats = [
                    _Seat(str(s["n"])) if isinstance(s, dict) and s.get("n") else None
                    for s in state.get("s") or []
                ]
                hand = _Hand(gi, ti, int(state.get("gt", 74)), number, captured_at, seats)
                open_hands[ti] = hand
            hand.lines.append(text)
            key = _state_key(state)
            if key in hand.keys:
                continue
            hand.keys.add(key)
            hand.snapshots += 1
            try:
                _apply(hand, state, events)
            except (TypeError, ValueError, AttributeError) as error:
                yield Quarantined(source, f"bad snapshot: {error}", text, number, hand_id=gi)
        for hand in open_hands.values():
            yield from self._close(hand, source)

    def _close(self, hand: _Hand, source: str) -> Iterator[ParseItem]:
        try:
            yield _record(hand, source)
        except OfcError as error:
            yield Quarantined(
                source, str(error), "".join(hand.lines), hand.start_line, hand_id=hand.gi
            )
