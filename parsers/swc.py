"""SwC Poker browser captures: GameState snapshot streams (shared/formats/SWC.md §2-§4).

Accepts decoded proxy messages (one ``{"t": "GameState", ...}`` per line) and
fpdb-3 raw archives (``raw_messages.jsonl``, the Socket.IO frame in
``payload``).  Snapshots are grouped by hand id (``gi``) per table (``ti``),
exact resends are dropped, a placed card never leaves its row, and each
placement is assigned to an OFC street by counting the player's placed cards.

This reader is the definition.  ``parse_columnar`` lets the core
(``rust/ofc-core/src/decode/swc.rs``) fold the capture straight into columns;
where the core is unsure it stops, and this reader goes on from there
(:func:`_resume`) as if it had read the file from the start.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, BinaryIO

from ofc_stats.engine.board import ROWS
from ofc_stats.errors import SwcError
from ofc_stats.records import HandRecord, Partial, Placement, Quarantined, SeatRecord, storable_text
from parsers import core_lane
from parsers.base import BAD_INPUT, ParseItem, Parser, finite_number, head_lines, reason_of
from parsers.streets import fantasy_jump, street_of

PINEAPPLE_CODES = {74: "pineapple", 75: "pineapple-progressive", 77: "pineapple"}
CLASSIC_CODES = {70: "classic-american", 73: "classic-american", 84: "classic-american"}
UNKNOWN_TABLE = "__unknown_table__"
FORMAT = "swc"
ROOM = "SwC"
FRAME_PREFIX = "42/poker/,"  # a socket.io frame of the poker namespace, before its JSON
FANTASY_TEXT = "is in fantasy land"
__all__ = ["SwcParser", "parse_layout", "ruleset_for_code", "street_of"]


def ruleset_for_code(code: int, played_under: str | None = None) -> str:
    """The preset of a game type (``played_under``: the ruleset of ``import --rules``, for
    OFC/P 2-7, whose rules SwC does not say)."""
    if code in PINEAPPLE_CODES:
        return PINEAPPLE_CODES[code]
    if code in CLASSIC_CODES:
        return CLASSIC_CODES[code]
    if code == 76 and played_under is not None:
        return played_under
    if code == 76:
        raise SwcError("game type 76 (OFC/P 2-7): its rules are unknown; import with --rules")
    raise SwcError(f"game type {code} is not an OFC game")


def played_at(captured_at: str | None) -> datetime | None:
    """A hand's time: its first line's capture time as naive UTC, None if unreadable."""
    if not captured_at:
        return None
    try:
        return datetime.fromisoformat(captured_at.replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        return None


def parse_layout(text: Any) -> tuple[list[list[int]], list[int]] | None:
    """A seat ``d`` string as ([top, middle, bottom], active); None if no cards show.

    ``ids-T-M-B``: the first T ids are the top row, the next M the middle, the
    next B the bottom, the rest the cards dealt but not placed; without counts
    every id is unplaced.  Ids outside 0-51 are hidden cards, left out.
    """
    if not isinstance(text, str) or not text:
        return None
    parts = text.split("-")
    try:
        ids = [int(item) for item in parts[0].split(";") if item != ""]
        counts = list(map(int, parts[1:4])) if len(parts) >= 4 else None
    except ValueError:
        return None  # invalid: treat as if the player were absent (SWC.md §4.8)
    if not ids:
        return None
    if counts is None:
        return [[], [], []], _cards(ids)
    top, middle, bottom = counts
    second, third = top + middle, top + middle + bottom
    rows = [_cards(ids[0:top]), _cards(ids[top:second]), _cards(ids[second:third])]
    return rows, _cards(ids[third:])


def _cards(ids: list[int]) -> list[int]:
    return [i for i in ids if 0 <= i < 52]


@dataclass
class Seat:
    name: str
    rows: list[list[int]] = field(default_factory=lambda: [[], [], []])
    active: list[int] = field(default_factory=list)
    seen_active: bool = False
    discards: list[int] = field(default_factory=list)
    placements: list[tuple[int, int, str]] = field(default_factory=list)  # (street, card, dest)
    fantasy: bool = False
    points: float | None = None
    last_d: str | None = None  # the d string last applied: the same again changes nothing


@dataclass
class Hand:
    gi: str
    ti: str
    code: int
    start_line: int
    captured_at: str | None
    seats: list[Seat | None]
    lines: list[str] = field(default_factory=list)
    keys: set[object] = field(default_factory=set)
    snapshots: int = 0
    settled: bool = False
    fantasy_names: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)  # lines that added a state key

    def raw_text(self) -> str:
        """Every line of the hand, in file order."""
        return "".join(self.lines)


@dataclass
class Tables:
    """The open hand of every table, and what the fold remembers between lines."""

    open_hands: dict[str, Hand] = field(default_factory=dict)  # by table
    closed: set[tuple[str, str]] = field(default_factory=set)
    owner: dict[str, Hand] = field(default_factory=dict)  # line text -> the hand that folded it
    finished: list[Hand] = field(default_factory=list)  # the hand a line closed
    played_under: str | None = None  # import --rules

    def hand_for(self, gi: str, ti: str) -> Hand | None:
        """The table's open hand for ``gi``, closing the table's other hand; None if none is."""
        hand = self.open_hands.get(ti)
        if hand is not None and hand.gi != gi:
            self.finished.append(hand)
            self.closed.add((ti, hand.gi))
            del self.open_hands[ti]
            for line in hand.texts:
                self.owner.pop(line, None)
            return None
        return hand


def part_of(state: dict[str, Any], name: str) -> dict[str, Any]:
    """The snapshot's object ``name`` ({} when absent); any other value refuses the line.

    >>> part_of({"ss": {"hc": "x"}}, "ss")
    {'hc': 'x'}
    >>> part_of({"ss": [1]}, "ss")
    Traceback (most recent call last):
    ...
    ofc_stats.errors.SwcError: gameState.ss is not an object
    """
    value = state.get(name) or {}
    if not isinstance(value, dict):
        raise SwcError(f"gameState.{name} is not an object")
    return value


def seats_of(state: dict[str, Any]) -> list[Any]:
    """The snapshot's seat list ([] when absent); any other value refuses the line.

    >>> seats_of({"s": [{"n": "ann"}, None]})
    [{'n': 'ann'}, None]
    >>> seats_of({"s": 7})
    Traceback (most recent call last):
    ...
    ofc_stats.errors.SwcError: gameState.s is not a list of seats
    """
    value = state.get("s") or []
    if not isinstance(value, list):
        raise SwcError("gameState.s is not a list of seats")
    return value


def state_key(state: dict[str, Any]) -> str:
    """What tells two snapshots apart: the JSON text of the fields that change in a hand."""
    table = part_of(state, "d")
    seats = [
        [s.get("n"), s.get("c"), s.get("b"), s.get("d")] if isinstance(s, dict) else None
        for s in seats_of(state)
    ]
    hc = part_of(state, "ss").get("hc")
    return json.dumps([table.get("c"), table.get("p"), state.get("ts"), hc, seats])


def added_cards(new: list[int], old: list[int]) -> list[int]:
    """The cards of ``new`` not in ``old`` (multiset difference)."""
    return list((Counter(new) - Counter(old)).elements())


def snapshot(
    tables: Tables, found: tuple[dict[str, Any], list[Any], str | None], text: str, number: int
) -> None:
    """Fold one decoded capture line into its table's hand; a new hand id closes the last one."""
    state, events, captured_at = found
    gi, ti = state.get("gi"), state.get("ti")
    if not gi:
        return
    gi, ti = str(gi), str(ti if ti is not None else UNKNOWN_TABLE)
    if (ti, gi) in tables.closed:
        return  # an old hand's snapshot arriving late (SWC.md §4.8)
    hand = tables.hand_for(gi, ti)
    if hand is None:
        code = state.get("gt", 74)
        if isinstance(code, bool) or not isinstance(code, int):
            raise SwcError(f"game type {str(code)[:40]!r} is not a number")
        names = [
            str(s["n"]) if isinstance(s, dict) and s.get("n") else None for s in seats_of(state)
        ]  # the roster is fixed by the first snapshot (SWC.md §3.2)
        hand = Hand(
            gi, ti, code, number, captured_at, [None if n is None else Seat(n) for n in names]
        )
        tables.open_hands[ti] = hand
    hand.lines.append(text)
    key = state_key(state)
    if key in hand.keys:
        return
    hand.keys.add(key)
    hand.texts.add(text)
    tables.owner[text] = hand
    hand.snapshots += 1
    _apply(hand, state, events)


def _apply(hand: Hand, state: dict[str, Any], events: list[Any]) -> None:
    """Fold one distinct snapshot into the hand."""
    for event in events:  # a dealer line naming a player in Fantasyland
        text = event.get("table-msg") if isinstance(event, dict) else None
        if isinstance(text, str) and FANTASY_TEXT in text:
            hand.fantasy_names.add(text.split(" is in fantasy land", 1)[0].strip())
    for seat, seat_data in zip(hand.seats, seats_of(state), strict=False):
        if seat is None or not isinstance(seat_data, dict) or seat_data.get("n") != seat.name:
            continue
        points = seat_data.get("p")
        if isinstance(points, bool):
            seat.points = float(points)
        elif isinstance(points, int | float):  # past a float's range: refused, never infinity
            seat.points = finite_number(points, f"{seat.name}'s points", SwcError)
        d = seat_data.get("d")
        if not d or not isinstance(d, str) or d == seat.last_d:
            continue  # no cards show, or the layout last applied: keep it (SWC.md §4.3)
        fold_layout(hand, seat, d)
    hc = part_of(state, "ss").get("hc")
    if isinstance(hc, str) and hc.strip():
        hand.settled = True


def fold_layout(hand: Hand, seat: Seat, d: str) -> None:
    """One seat's new ``d`` string: the cards that reached a row, the ones discarded."""
    layout = parse_layout(d)
    if layout is None:
        return  # nothing visible: keep the previous layout (SWC.md §4.3)
    rows, active = layout
    placed_now: list[tuple[int, str]] = []
    new_rows = []
    for name, old, new in zip(ROWS, seat.rows, rows, strict=True):
        added = added_cards(new, old)
        new_rows.append(old + added)  # a placed card never leaves its row
        placed_now += [(card, name) for card in added]
    if active:
        seat.seen_active = True
    placed = {card for card, _ in placed_now}
    gone = [c for c in seat.active if c not in active and c not in placed]
    if placed_now or gone:
        pineapple = hand.code in PINEAPPLE_CODES or hand.code == 76
        seat.fantasy = seat.fantasy or fantasy_jump(len(placed_now))
        seat.rows = new_rows
        street = street_of(sum(map(len, new_rows)), pineapple, seat.fantasy)
        order = {card: i for i, card in enumerate(seat.active)}
        for card, name in sorted(placed_now, key=lambda item: order.get(item[0], 99)):
            seat.placements.append((street, card, name))
        for card in gone:
            seat.placements.append((street, card, "discard"))
            seat.discards.append(card)
    seat.active = active
    seat.last_d = d


def _record(hand: Hand, source: str, played_under: str | None) -> HandRecord:
    """A finished hand as a record; SwcError if its game is refused or it shows no card."""
    ruleset = ruleset_for_code(hand.code, played_under)
    seats = [seat for seat in hand.seats if seat is not None]
    if not any(sum(map(len, seat.rows)) or seat.active for seat in seats):
        raise SwcError(f"the capture ends before any card of hand {hand.gi} was seen")
    records = tuple(
        SeatRecord(
            seat=index,
            player=seat.name,
            top=tuple(seat.rows[0]),
            middle=tuple(seat.rows[1]),
            bottom=tuple(seat.rows[2]),
            discards=tuple(seat.discards) if seat.seen_active else None,
            hero=seat.seen_active,
            in_fantasy=seat.fantasy or seat.name in hand.fantasy_names,
            reported_points=seat.points if hand.settled else None,
        )
        for index, seat in enumerate(seats)
    )
    moves = tuple(
        Placement(index, street, card, dest)
        for index, seat in enumerate(seats)
        for street, card, dest in seat.placements
    )
    return HandRecord(
        format=FORMAT,
        room=ROOM,
        table_id=hand.ti,
        room_hand_id=hand.gi,
        ruleset=ruleset,
        seats=records,
        placements=moves,
        played_at=played_at(hand.captured_at),
        rules_text=f"gt={hand.code}",
        source_file=source,
        source_line=hand.start_line,
        raw_text=hand.raw_text(),
    )


def _closed(hand: Hand, tables: Tables, source: str) -> ParseItem:
    try:
        return _record(hand, source, tables.played_under)
    except BAD_INPUT as error:
        return Quarantined(
            source, reason_of(error), hand.raw_text(), hand.start_line, hand_id=hand.gi
        )


def _game_state(data: Any) -> tuple[dict[str, Any], list[Any], str | None] | None:
    """(gameState, events, captured_at) of a decoded message or a raw archive record."""
    if not isinstance(data, dict):
        return None
    captured_at = data.get("captured_at")
    if "payload" in data:  # an fpdb-3 archive record: the Socket.IO frame, JSON twice
        payload = data["payload"]
        if data.get("message_type") != "GameState" or not isinstance(payload, str):
            return None
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


def _line(tables: Tables, source: str, number: int, raw: bytes) -> Iterator[ParseItem]:
    """One capture line decoded and folded; the hands it closed come out."""
    if not raw or raw.isspace():
        return
    try:
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        hand = tables.owner.get(text)
        if hand is not None:  # an exact resend of a state this open hand already folded
            hand.lines.append(text)
            return
        found = _game_state(json.loads(text))
    except BAD_INPUT as error:
        if not raw.endswith(b"\n"):  # the capture is still being written
            yield Partial(source, number, None, "a line cut off at the end of the file")
            return
        why = reason_of(error) if isinstance(error, RecursionError) else str(error)[:200]
        reason = f"unreadable capture line: {why}"
        yield Quarantined(source, reason, repr(raw[:2000]), number, hand=False)
        return
    if found is None:
        return
    try:
        snapshot(tables, found, text, number)
    except BAD_INPUT as error:
        yield from _take_finished(tables, source)
        gi = found[0].get("gi")
        hand_id = None if gi is None else str(gi)[:200]
        reason = f"bad snapshot: {reason_of(error)}"
        yield Quarantined(source, reason, text, number, hand_id=hand_id, hand=False)
        return
    yield from _take_finished(tables, source)


def _take_finished(tables: Tables, source: str) -> Iterator[ParseItem]:
    yield from (_closed(hand, tables, source) for hand in tables.finished)
    tables.finished.clear()


def _fold(tables: Tables, source: str, lines: Iterable[tuple[int, bytes]]) -> Iterator[ParseItem]:
    """Every line folded; the hands still open at the end come out last, table by table."""
    for number, raw in lines:
        yield from _line(tables, source, number, raw)
    yield from (_closed(hand, tables, source) for hand in tables.open_hands.values())


def _resume(stop: core_lane.Stop, tail: bytes, rest: BinaryIO, source: str) -> Iterator[ParseItem]:
    """The definition from where the core stopped: the hands it closed stay closed, the
    lines of the hands it left open are read again, then ``tail`` and ``rest``."""
    line, _, closed, replay = stop
    tables = Tables(closed=set(closed))
    for number, raw in replay:  # (the core closed no hand among them: nothing comes out)
        yield from _line(tables, source, number, raw)
    yield from _fold(tables, source, enumerate(_joined(io.BytesIO(tail), rest), start=line))


def _joined(head: BinaryIO, rest: BinaryIO) -> Iterator[bytes]:
    """The lines of ``head`` then ``rest``, a line cut between them joined."""
    cut = b""
    for raw in head:
        if raw.endswith(b"\n"):
            yield raw
        else:
            cut = raw
    for raw in rest:
        yield cut + raw
        cut = b""
    if cut:
        yield cut


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
        tables = Tables(played_under=self.played_under)
        yield from _fold(tables, source, enumerate(stream, start=1))

    def parse_columnar(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        """The same items, most hands folded by the core (see the module's docstring)."""
        # Every hand of an unstorable name is refused (the definition says why); a
        # ruleset played under is the definition's to apply.
        if not storable_text(source) or self.played_under is not None:
            yield from self.parse(stream, source)
            return
        resolve = core_lane.resolving(lambda text: ruleset_for_code(int(text[3:])))
        yield from core_lane.read_swc(stream, source, resolve, _resume)

    def hand_from_raw(self, raw_text: str, source: str, line: int, offset: int) -> ParseItem:
        """One hand again from its own capture lines (the record path), at its first line."""
        items = list(self.parse(io.BytesIO(raw_text.encode("utf-8")), source))
        hands = [i for i in items if isinstance(i, HandRecord)]
        if hands:
            return replace(hands[-1], source_line=line)
        last = items[-1]
        assert isinstance(last, Quarantined)
        return replace(last, line=line)
