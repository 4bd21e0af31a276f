"""The SwC snapshot fold: capture lines grouped into hands, each seat's layout grown card by card.

Shared by both readers of ``parsers/swc.py``: the record path feeds it lines
decoded to dicts (:func:`snapshot`), the columnar path typed structs
(``parsers/swc_fast.py``); both fold into the same :class:`Hand` state, so a
capture may switch between them line by line.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ofc_stats.errors import SwcError
from parsers.hand_columns import fantasy_jump as fantasy_jump
from parsers.hand_columns import street_of as street_of

PINEAPPLE_CODES = {74: "pineapple", 75: "pineapple-progressive", 77: "pineapple"}
CLASSIC_CODES = {70: "classic-american", 73: "classic-american", 84: "classic-american"}
ROW_NAMES = ("top", "middle", "bottom")
NUMBER = (int, float)
UNKNOWN_TABLE = "__unknown_table__"
FORMAT = "swc"
ROOM = "SwC"
FRAME_PREFIX = "42/poker/,"  # a socket.io frame of the poker namespace, before its JSON
FANTASY_TEXT = "is in fantasy land"


def played_at(captured_at: str | None) -> datetime | None:
    """A hand's time: its first line's capture time as naive UTC, None if unreadable."""
    if not captured_at:
        return None
    try:
        return datetime.fromisoformat(captured_at.replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        return None


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

    @property
    def placed(self) -> int:
        return sum(len(row) for row in self.rows)


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
    started_late: bool = False
    fantasy_names: set[str] = field(default_factory=set)
    texts: set[str] = field(default_factory=set)  # lines whose state key is already in keys
    # The last lines added as one run of a block's text (``lines`` holds the rest):
    # consecutive lines of one hand cost no string of their own until the hand closes.
    run_text: str | bytes = ""  # a block's text, or its UTF-8 bytes
    run_start: int = 0
    run_end: int = 0

    def add_line(self, text: str) -> None:
        if self.run_end:
            self.end_run()
        self.lines.append(text)

    def add_span(self, text: str | bytes, start: int, end: int) -> None:
        """Add the line ``text[start:end]``."""
        if self.run_end == start and self.run_text is text:
            self.run_end = end
            return
        if self.run_end:
            self.end_run()
        self.run_text, self.run_start, self.run_end = text, start, end

    def end_run(self) -> None:
        """Keep the run's lines as their own string (the block's text may then go)."""
        if not self.run_end:
            return
        run = self.run_text[self.run_start : self.run_end]
        self.lines.append(run if isinstance(run, str) else run.decode("utf-8"))
        self.run_text, self.run_start, self.run_end = "", 0, 0

    def raw_text(self) -> str:
        """Every line of the hand, in file order."""
        if self.run_end:
            self.end_run()
        return "".join(self.lines)


@dataclass
class Tables:
    """The open hand of every table, and what the fold remembers between lines."""

    open_hands: dict[str, Hand] = field(default_factory=dict)  # by table
    closed: set[tuple[str, str]] = field(default_factory=set)
    owner: dict[str, Hand] = field(default_factory=dict)  # line text -> the hand that folded it
    finished: list[Hand] = field(default_factory=list)  # the hand a line closed

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

    def open(self, gi: str, ti: str, code: Any, number: int, captured_at: str | None,
             names: list[Any]) -> Hand:  # fmt: skip
        """A new hand on table ``ti``; its roster (``names``, None for an empty seat) is fixed."""
        if isinstance(code, bool) or not isinstance(code, int):
            raise SwcError(f"game type {str(code)[:40]!r} is not a number")
        seats = [None if name is None else Seat(name) for name in names]
        hand = Hand(gi, ti, code, number, captured_at, seats)
        self.open_hands[ti] = hand
        return hand


_PLAIN = frozenset({int, str, type(None)})  # JSON values whose == matches their text's


def state_key(state: dict[str, Any]) -> object:
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


def added_cards(new: list[int], old: list[int]) -> list[int]:
    """The cards of ``new`` not in ``old`` (multiset difference, in ``new``'s order)."""
    if new == old:
        return []
    if len(set(new)) == len(new):  # distinct cards: what Counter subtraction keeps, in order
        before = set(old)
        return [card for card in new if card not in before]
    return list((Counter(new) - Counter(old)).elements())


def fantasy_names(hand: Hand, events: list[Any]) -> None:
    """Players a dealer line of these events names as playing in Fantasyland."""
    for event in events:
        text = event.get("table-msg") if isinstance(event, dict) else None
        if isinstance(text, str) and FANTASY_TEXT in text:
            hand.fantasy_names.add(text.split(" is in fantasy land", 1)[0].strip())


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
        names = [
            str(s["n"]) if isinstance(s, dict) and s.get("n") else None
            for s in _list(state.get("s"))
        ]
        hand = tables.open(gi, ti, state.get("gt", 74), number, captured_at, names)
    hand.add_line(text)
    key = state_key(state)
    if key in hand.keys:
        return
    hand.keys.add(key)
    hand.texts.add(text)
    tables.owner[text] = hand
    hand.snapshots += 1
    _apply(hand, state, events)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _apply(hand: Hand, state: dict[str, Any], events: list[Any]) -> None:
    """Fold one distinct snapshot into the hand."""
    fantasy_names(hand, events)
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
        fold_layout(hand, seat, d)
    hc = (state.get("ss") or {}).get("hc")
    if isinstance(hc, str) and hc.strip():
        hand.settled = True


def fold_layout(hand: Hand, seat: Seat, d: str) -> None:
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
        added = added_cards(new, old) if new != old else None
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
        seat.fantasy = seat.fantasy or fantasy_jump(len(placed_now))
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
