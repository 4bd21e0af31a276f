"""SwC Poker browser captures: GameState snapshot streams (shared/formats/SWC.md §2-§4).

Accepts decoded proxy messages (one ``{"t": "GameState", ...}`` per line) and
fpdb-3 raw archives (``raw_messages.jsonl``, the Socket.IO frame in
``payload``).  Snapshots are grouped by hand id (``gi``) per table (``ti``),
exact resends are dropped, a placed card never leaves its row, and each
placement is assigned to an OFC street by counting the player's placed cards.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, BinaryIO

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.errors import SwcError
from ofc_stats.records import HandRecord, Partial, Quarantined
from parsers import fast_json
from parsers.base import BAD_INPUT, ParseItem, Parser, head_lines, reason_of
from parsers.hand_columns import HandColumns, Move, SeatRow, placements, seat_records

FORMAT = "swc"
ROOM = "SwC"
FRAME_PREFIX = "42/poker/,"
PINEAPPLE_CODES = {74: "pineapple", 75: "pineapple-progressive", 77: "pineapple"}
CLASSIC_CODES = {70: "classic-american", 73: "classic-american", 84: "classic-american"}
ROW_NAMES = ("top", "middle", "bottom")
DESTINATION_CODE = {name: DESTINATIONS.index(name) for name in DESTINATIONS}
CHUNK_HANDS = 2_000  # hands per columnar chunk
Loads = Callable[[str], Any]
NUMBER = (int, float)


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
    head, _, tail = text.partition("-")
    counts_text = tail.split("-")
    if len(counts_text) == 3:  # "ids-T-M-B": one pass, and any odd item takes the long way
        try:
            ids = list(map(int, head.split(";")))
            top, middle, bottom = map(int, counts_text)
        except ValueError:
            ids = []
        if ids and min(ids) >= 0 and max(ids) < 52:
            second, third = top + middle, top + middle + bottom
            return [ids[0:top], ids[top:second], ids[second:third]], ids[third:]
    parts = text.split("-")
    items = parts[0].split(";")
    try:
        ids = [int(i) for i in items if i != ""] if "" in items else list(map(int, items))
        counts = list(map(int, parts[1:4])) if len(parts) >= 4 else None
    except ValueError:
        return None  # invalid: treat as if the player were absent (SWC.md §4.8)
    if not ids:
        return None
    if counts is None:
        return [[], [], []], [i for i in ids if 0 <= i < 52]
    top, middle, bottom = counts
    second, third = top + middle, top + middle + bottom
    if min(ids) >= 0 and max(ids) < 52:  # every id a card: nothing to drop
        return [ids[0:top], ids[top:second], ids[second:third]], ids[third:]
    rows = [
        [i for i in ids[start:stop] if 0 <= i < 52]
        for start, stop in ((0, top), (top, second), (second, third))
    ]
    return rows, [i for i in ids[third:] if 0 <= i < 52]


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
    last_d: str | None = None  # the d string last applied: the same again changes nothing

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
    keys: set[object] = field(default_factory=set)
    snapshots: int = 0
    settled: bool = False
    started_late: bool = False
    fantasy_names: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)  # lines whose state key is already in keys


_PLAIN = frozenset({int, str, type(None)})  # JSON values whose == matches their text's


def _state_key(state: dict[str, Any]) -> object:
    """What tells two snapshots apart: equal keys are equal JSON texts of these fields.

    A tuple when every field is an integer (not a bool), a string or null, where
    tuple equality is text equality; the JSON text otherwise (which no such
    tuple can equal, so both kinds of key live in one set).
    """
    table = state.get("d") or {}
    seats = [
        (s.get("n"), s.get("c"), s.get("b"), s.get("d")) if isinstance(s, dict) else None
        for s in state.get("s") or []
    ]
    hc = (state.get("ss") or {}).get("hc")
    head = (table.get("c"), table.get("p"), state.get("ts"), hc)
    plain = _PLAIN
    if (
        type(head[0]) in plain
        and type(head[1]) in plain
        and type(head[2]) in plain
        and type(hc) in plain
    ) and all(
        seat is None
        or (
            type(seat[0]) in plain
            and type(seat[1]) in plain
            and type(seat[2]) in plain
            and type(seat[3]) in plain
        )
        for seat in seats
    ):
        return (*head, *seats)
    return json.dumps([*head[:3], hc, seats])


def _added(new: list[int], old: list[int]) -> list[int]:
    """The cards of ``new`` not in ``old`` (multiset difference, in ``new``'s order)."""
    if new == old:
        return []
    if len(set(new)) == len(new):  # distinct cards: what Counter subtraction keeps, in order
        before = set(old)
        return [card for card in new if card not in before]
    return list((Counter(new) - Counter(old)).elements())


def _apply(hand: _Hand, state: dict[str, Any], events: list[Any]) -> None:
    """Fold one distinct snapshot into the hand."""
    for event in events:
        text = event.get("table-msg") if isinstance(event, dict) else None
        if isinstance(text, str) and "is in fantasy land" in text:
            hand.fantasy_names.add(text.split(" is in fantasy land", 1)[0].strip())
    # zip stops at the roster's end, as the first snapshot fixed the seats (SWC.md §3.2);
    # the state key has already iterated state["s"], so it is iterable.
    for seat, seat_data in zip(hand.seats, state.get("s") or [], strict=False):
        if seat is None or not isinstance(seat_data, dict) or seat_data.get("n") != seat.name:
            continue
        points = seat_data.get("p")
        if points is not None and isinstance(points, NUMBER):
            seat.points = float(points)
        d = seat_data.get("d")
        if not d or not isinstance(d, str):
            continue  # no cards show (parse_layout's None): keep the layout (SWC.md §4.3)
        if d == seat.last_d:
            # The layout last applied, again: every card is already in its row and
            # the active cards are the same, so folding it would change nothing.
            continue
        _fold_layout(hand, seat, d)
    hc = (state.get("ss") or {}).get("hc")
    if isinstance(hc, str) and hc.strip():
        hand.settled = True


def _fold_layout(hand: _Hand, seat: _Seat, d: str) -> None:
    """One seat's new ``d`` string: the cards that reached a row, the ones discarded."""
    layout = parse_layout(d)
    if layout is None:
        return  # nothing visible: keep the previous layout (SWC.md §4.3)
    rows, active = layout
    if hand.snapshots == 1 and any(rows):
        hand.started_late = True
    new_rows = []
    placed_now: list[tuple[int, str]] = []
    for name, old, new in zip(ROW_NAMES, seat.rows, rows, strict=True):
        added = _added(new, old) if new != old else None
        if added:
            new_rows.append(old + added)  # a placed card never leaves its row
            placed_now += [(card, name) for card in added]
        else:
            new_rows.append(old)
    if active:
        seat.seen_active = True
    if placed_now:
        placed = {card for card, _ in placed_now}
        gone = [c for c in seat.active if c not in active and c not in placed]
    else:
        gone = [c for c in seat.active if c not in active]
    if placed_now or gone:
        pineapple = hand.code in PINEAPPLE_CODES or hand.code == 76
        jump = len(placed_now) > 5
        seat.fantasy = seat.fantasy or jump
        seat.rows = new_rows
        count = len(new_rows[0]) + len(new_rows[1]) + len(new_rows[2])
        street = street_of(count, pineapple, seat.fantasy)
        order = {card: i for i, card in enumerate(seat.active)}
        for card, name in sorted(placed_now, key=lambda item: order.get(item[0], 99)):
            seat.placements.append((street, card, name))
        for card in gone:
            seat.placements.append((street, card, "discard"))
            seat.discards.append(card)
    seat.active = active
    seat.last_d = d


def _parts(hand: _Hand) -> tuple[str, list[SeatRow], list[Move], datetime | None]:
    """(ruleset, seats, placements, played_at) of a finished hand; SwcError if it has none."""
    ruleset = ruleset_for_code(hand.code)
    if not any(seat.placed or seat.active for seat in hand.seats if seat is not None):
        raise SwcError(f"the capture ends before any card of hand {hand.gi} was seen")
    seats, moves = [], []
    for index, seat in enumerate(s for s in hand.seats if s is not None):
        seats.append(
            SeatRow(
                player=seat.name,
                top=tuple(seat.rows[0]),
                middle=tuple(seat.rows[1]),
                bottom=tuple(seat.rows[2]),
                discards=tuple(seat.discards) if seat.seen_active else None,
                hero=seat.seen_active,
                in_fantasy=seat.fantasy or seat.name in hand.fantasy_names,
                reported_points=seat.points if hand.settled else None,
            )
        )
        moves += [
            (index, street, card, DESTINATION_CODE[dest]) for street, card, dest in seat.placements
        ]
    played_at = None
    if hand.captured_at:
        try:
            played_at = datetime.fromisoformat(hand.captured_at.replace("Z", "+00:00"))
            played_at = played_at.replace(tzinfo=None)
        except ValueError:
            played_at = None
    return ruleset, seats, moves, played_at


def _record(hand: _Hand, source: str) -> HandRecord:
    ruleset, seats, moves, played_at = _parts(hand)
    return HandRecord(
        format=FORMAT,
        room=ROOM,
        table_id=hand.ti,
        room_hand_id=hand.gi,
        ruleset=ruleset,
        seats=seat_records(seats),
        placements=placements(moves),
        played_at=played_at,
        rules_text=f"gt={hand.code}",
        source_file=source,
        source_line=hand.start_line,
        raw_text="".join(hand.lines),
    )


def _game_state(
    data: Any, loads: Loads = json.loads
) -> tuple[dict[str, Any], list[Any], str | None] | None:
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
        frame = loads(payload[len(FRAME_PREFIX) :])
        if not isinstance(frame, list) or len(frame) < 2 or frame[0] != "proxy-message":
            return None
        data = loads(frame[1])
        if not isinstance(data, dict):
            return None
    if data.get("t") != "GameState" or not isinstance(data.get("gameState"), dict):
        return None
    events = data.get("events")
    return data["gameState"], events if isinstance(events, list) else [], captured_at


class SwcParser(Parser):
    name = FORMAT
    description = "SwC Poker GameState captures (decoded messages or fpdb-3 raw_messages.jsonl)"
    columnar = True

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        return any(
            line.startswith(b"{")
            and (b'"gameState"' in line or b'"site": "SealsWithClubs"' in line)
            for line in head_lines(head)
        )

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        for item in _read(stream, source, json.loads):
            yield _closed(item, source) if isinstance(item, _Hand) else item

    def parse_columnar(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        """The same hands, read with orjson and laid out as columns.

        A hand the columns cannot surely hold (one validate_hand may refuse,
        or one whose record cannot be built) comes out of the record path
        instead; columns gathered so far are sent first, so the importer sees
        every hand in file order.
        """
        columns = HandColumns(FORMAT, source)
        for item in _read(stream, source, fast_json.loads):
            if isinstance(item, _Hand) and _add(columns, item):
                if len(columns) >= CHUNK_HANDS:
                    yield columns.take()
                continue
            if len(columns) and not isinstance(item, Quarantined | Partial):
                yield columns.take()
            yield _closed(item, source) if isinstance(item, _Hand) else item
        if len(columns):
            yield columns.take()

    def hand_from_raw(self, raw_text: str, source: str, line: int, offset: int) -> ParseItem:
        """One hand again from its own capture lines (the record path), at its first line."""
        items = list(self.parse(io.BytesIO(raw_text.encode("utf-8")), source))
        hands = [i for i in items if isinstance(i, HandRecord)]
        if hands:
            return replace(hands[-1], source_line=line)
        last = items[-1]
        assert isinstance(last, Quarantined)
        return replace(last, line=line)


def _closed(hand: _Hand, source: str) -> ParseItem:
    try:
        return _record(hand, source)
    except BAD_INPUT as error:
        return Quarantined(
            source, reason_of(error), "".join(hand.lines), hand.start_line, hand_id=hand.gi
        )


def _add(columns: HandColumns, hand: _Hand) -> bool:
    """Put a finished hand in the columns; False if the record path must take it."""
    try:
        ruleset, seats, moves, played_at = _parts(hand)
    except BAD_INPUT:
        return False
    return columns.add(
        room=ROOM,
        table_id=hand.ti,
        room_hand_id=hand.gi,
        ruleset=ruleset,
        played_at=played_at,
        rules_text=f"gt={hand.code}",
        source_line=hand.start_line,
        raw_text="".join(hand.lines),
        seats=seats,
        moves=moves,
    )


def _read(stream: BinaryIO, source: str, loads: Loads) -> Iterator[ParseItem | _Hand]:
    """Every capture line folded into its hand; finished hands come out as they close."""
    open_hands: dict[str, _Hand] = {}  # by table
    closed: set[tuple[str, str]] = set()
    owner: dict[str, _Hand] = {}  # line text -> the open hand that already folded it
    finished: list[_Hand] = []  # the hand a line closed
    for number, raw in enumerate(stream, start=1):
        if not raw or raw.isspace():
            continue
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            hand = owner.get(text)
            if hand is not None and open_hands.get(hand.ti) is hand:
                # An exact resend: it decodes to a state this hand already folded.
                hand.lines.append(text)
                continue
            found = _game_state(loads(text), loads)
        except BAD_INPUT as error:
            if not raw.endswith(b"\n"):  # the capture is still being written
                yield Partial(source, number, None, "a line cut off at the end of the file")
                continue
            why = reason_of(error) if isinstance(error, RecursionError) else str(error)[:200]
            yield Quarantined(source, f"unreadable capture line: {why}", repr(raw[:2000]), number)
            continue
        if found is None:
            continue
        try:
            _snapshot(found, text, number, open_hands, closed, owner, finished)
        except BAD_INPUT as error:
            yield from finished
            finished.clear()
            gi = found[0].get("gi")
            yield Quarantined(
                source,
                f"bad snapshot: {reason_of(error)}",
                text,
                number,
                hand_id=None if gi is None else str(gi)[:200],
            )
            continue
        if finished:
            yield from finished
            finished.clear()
    yield from open_hands.values()


def _snapshot(
    found: tuple[dict[str, Any], list[Any], str | None],
    text: str,
    number: int,
    open_hands: dict[str, _Hand],
    closed: set[tuple[str, str]],
    owner: dict[str, _Hand],
    finished: list[_Hand],
) -> None:
    """Fold one capture line into its table's hand; a new hand id closes the last one."""
    state, events, captured_at = found
    gi, ti = state.get("gi"), state.get("ti")
    if not gi:
        return
    gi, ti = str(gi), str(ti if ti is not None else "__unknown_table__")
    if (ti, gi) in closed:
        return  # an old hand's snapshot arriving late (SWC.md §4.8)
    hand = open_hands.get(ti)
    if hand is not None and hand.gi != gi:
        finished.append(hand)
        closed.add((ti, hand.gi))
        del open_hands[ti]
        for line in hand.texts:
            owner.pop(line, None)
        hand = None
    if hand is None:
        seats = [
            _Seat(str(s["n"])) if isinstance(s, dict) and s.get("n") else None
            for s in _list(state.get("s"))
        ]
        code = state.get("gt", 74)
        if isinstance(code, bool) or not isinstance(code, int):
            raise SwcError(f"game type {str(code)[:40]!r} is not a number")
        hand = _Hand(gi, ti, code, number, captured_at, seats)
        open_hands[ti] = hand
    hand.lines.append(text)
    key = _state_key(state)
    if key in hand.keys:
        return
    hand.keys.add(key)
    hand.texts.add(text)
    owner[text] = hand
    hand.snapshots += 1
    _apply(hand, state, events)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
