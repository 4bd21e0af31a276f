"""Hands laid out straight into the dataset's columns, for parsers' columnar paths.

A parser that has a hand's seats and placements as plain tuples adds them
here instead of building a :class:`~ofc_stats.records.HandRecord`; the rows
are those :func:`ofc_stats.store.rows.hands_table` would write for that
record.  :meth:`HandColumns.add` takes only hands that surely pass
:func:`ofc_stats.records.validate_hand`; it refuses the rest, which the parser
then sends through the record path so the importer quarantines them with the
exact reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from itertools import chain
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ofc_stats.engine.board import DESTINATIONS, ROW_SIZES
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.records import SMALL_INT, Placement, SeatRecord, fingerprint_of, storable_text
from parsers.base import ColumnarHands

Cards = tuple[int, ...]
DISCARD = DESTINATIONS.index("discard")
CARD_LIST = pa.list_(pa.int8())


class SeatRow(NamedTuple):
    """One seat as the columns need it (the fields of a SeatRecord these formats set)."""

    player: str
    top: Cards
    middle: Cards
    bottom: Cards
    discards: Cards | None
    hero: bool
    in_fantasy: bool
    reported_points: float | None


Move = tuple[int, int, int, int]  # (seat, street, card, index in DESTINATIONS)


def seat_records(seats: Sequence[SeatRow]) -> tuple[SeatRecord, ...]:
    """The record path's seats of these rows (seat numbers in order)."""
    return tuple(
        SeatRecord(
            seat=index,
            player=seat.player,
            top=seat.top,
            middle=seat.middle,
            bottom=seat.bottom,
            discards=seat.discards,
            hero=seat.hero,
            in_fantasy=seat.in_fantasy,
            reported_points=seat.reported_points,
        )
        for index, seat in enumerate(seats)
    )


def placements(moves: Sequence[Move]) -> tuple[Placement, ...]:
    """The record path's placements of these moves."""
    return tuple(
        Placement(seat, street, card, DESTINATIONS[dest]) for seat, street, card, dest in moves
    )


_LIMITS: dict[str, tuple[int, int]] = {}  # ruleset -> (most seats, deck size)


def limits(ruleset: str) -> tuple[int, int]:
    """The most seats a hand of this ruleset may store, and its deck's size."""
    if ruleset not in _LIMITS:
        rules = get_ruleset(ruleset)
        _LIMITS[ruleset] = (min(rules.max_seats, SMALL_INT + 1), rules.deck.size)
    return _LIMITS[ruleset]


def surely_valid(
    ruleset: str,
    texts: Sequence[str],
    seats: Sequence[SeatRow],
    moves: Sequence[Move],
    columns: Sequence[Sequence[int]] = (),
) -> bool:
    """Whether validate_hand passes: a False sends the hand to the record path, never loses it.

    ``columns``: the moves as (seats, streets, cards, destinations), if the caller has them.
    """
    most, deck = limits(ruleset)
    if not 2 <= len(seats) <= most:
        return False
    names = [s.player for s in seats]
    ascii_only = "".join(texts).isascii() and "".join(names).isascii()
    if not ascii_only and not all(storable_text(t) for t in [*texts, *names]):
        return False
    seen: set[int] = set()
    count = 0
    for seat in seats:
        points = seat.reported_points
        if points is not None and not math.isfinite(points):
            return False
        if len(seat.top) > ROW_SIZES[0] or len(seat.middle) > ROW_SIZES[1]:
            return False
        if len(seat.bottom) > ROW_SIZES[2]:
            return False
        cards = seat.top + seat.middle + seat.bottom + (seat.discards or ())
        seen.update(cards)
        count += len(cards)
        if cards and not (min(cards) >= 0 and max(cards) < deck):
            return False
    if len(seen) != count:
        return False
    if not moves:
        return True
    streets, placed = columns[1:3] if columns else list(zip(*moves, strict=True))[1:3]
    if min(streets) < 0 or max(streets) > SMALL_INT:
        return False
    return min(placed) >= 0 and max(placed) < deck


def _last(keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64]) -> tuple[Any, Any]:
    """Each distinct key (sorted) with the value of its last occurrence."""
    distinct, first = np.unique(keys[::-1], return_index=True)
    return distinct, values[::-1][first]


def _lookup(
    distinct: npt.NDArray[np.int64], values: Any, keys: npt.NDArray[np.int64], missing: int
) -> npt.NDArray[np.int64]:
    """``values`` at each key's place in ``distinct``; ``missing`` for keys not there."""
    if not len(distinct):
        return np.full(len(keys), missing, dtype=np.int64)
    where = np.minimum(np.searchsorted(distinct, keys), len(distinct) - 1)
    return np.where(distinct[where] == keys, values[where], missing)


def streets_and_discards(
    seat_counts: list[int],
    move_counts: list[int],
    boards: list[Cards | None],
    discards: list[Cards | None],
    moves: dict[str, npt.NDArray[np.int64]],
) -> tuple[pa.Array, pa.Array]:
    """:func:`street_columns` of seats as lists: 13 cards (or None) and discards a seat."""
    total = len(boards)
    full = np.fromiter((b is not None for b in boards), bool, total)
    cards = chain.from_iterable(b for b in boards if b is not None)
    board_cards = np.fromiter(cards, np.int64, 13 * int(full.sum())).reshape(-1, 13)
    lengths = np.fromiter((0 if d is None else len(d) for d in discards), np.int64, total)
    values = np.fromiter(
        chain.from_iterable(d for d in discards if d), np.int64, int(lengths.sum())
    )
    hidden = np.fromiter((d is None for d in discards), bool, total)
    return street_columns(
        np.asarray(seat_counts, dtype=np.int64),
        np.asarray(move_counts, dtype=np.int64),
        full,
        board_cards,
        (lengths, values, hidden),
        moves,
    )


def street_columns(
    seat_counts: npt.NDArray[np.int64],
    move_counts: npt.NDArray[np.int64],
    full: npt.NDArray[np.bool_],
    board_cards: npt.NDArray[Any],
    discards: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]],
    moves: dict[str, npt.NDArray[np.int64]],
) -> tuple[pa.Array, pa.Array]:
    """A chunk's ``board_streets`` and its ``discards`` in street order, in one NumPy pass.

    ``full``: the seats with 13 cards, whose cards ``board_cards`` holds (a row
    each); ``discards``: each seat's count, all seats' cards one after the
    other, and which seats have none stored (null).  A seat's board streets
    are, card by card, the street of the card's last placement in a row (255
    for none), for a seat of 13 placed cards with at least one such
    placement; its discards are sorted (stably) by the street of each card's
    last discard, 99 for none.  Cards are below 256, so ``seat * 256 + card``
    names one card of one seat in the chunk.
    """
    total = len(full)
    starts = np.zeros(len(seat_counts), dtype=np.int64)
    np.cumsum(seat_counts[:-1], out=starts[1:])
    hand = np.repeat(np.arange(len(move_counts)), move_counts)
    position, card, street = moves["seat"], moves["card"], moves["street"]
    discard = moves["destination"] == DISCARD
    real = (position >= 0) & (position < seat_counts[hand])  # moves of seats the hand has
    seat = starts[hand] + position
    key = seat * 256 + card
    rows = real & ~discard
    placed_keys, placed_streets = _last(key[rows], street[rows])
    placed_any = np.zeros(total, dtype=bool)
    placed_any[seat[rows]] = True

    with_board = full & placed_any
    board_seat = np.repeat(np.flatnonzero(with_board), 13)
    chosen = board_cards[placed_any[full]].astype(np.int64).reshape(-1)
    data = np.zeros((total, 13), dtype=np.uint8)
    data[with_board] = _lookup(placed_keys, placed_streets, board_seat * 256 + chosen, 255).reshape(
        -1, 13
    )
    board_streets = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(13),
        total,
        [pa.array(with_board).buffers()[1], pa.py_buffer(data.tobytes())],
        null_count=total - int(with_board.sum()),
    )

    lengths, values, hidden = discards
    owner = np.repeat(np.arange(total), lengths)
    gone = real & discard
    gone_keys, gone_streets = _last(key[gone], street[gone])
    when = _lookup(gone_keys, gone_streets, owner * 256 + values, 99)
    order = np.lexsort((np.arange(len(values)), when, owner))
    offsets = np.zeros(total + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    in_order = pa.ListArray.from_arrays(
        pa.array(offsets), pa.array(values[order], pa.int8()), mask=pa.array(hidden)
    )
    return board_streets, in_order


class HandColumns:
    """Hands of one format gathered as column lists, turned into Arrow tables a chunk at a time."""

    def __init__(self, format_name: str, source: str) -> None:
        self.format = format_name
        self.source = source
        self._clear()

    def _clear(self) -> None:
        self.hands: dict[str, list[Any]] = {
            name: []
            for name in (
                "hand_key", "room", "table_id", "room_hand_id", "played_at", "rules_text",
                "ruleset", "seat_count", "complete", "source_line", "raw_text", "fingerprint",
                "moves",
            )
        }  # fmt: skip
        self.seats: dict[str, list[Any]] = {
            name: []
            for name in (
                "hand_key", "seat", "player", "hero", "in_fantasy", "fantasy_cards", "top",
                "middle", "bottom", "board", "discards", "reported_points", "source_line",
                "cards",
            )
        }  # fmt: skip
        moves = ("hand_key", "seat", "street", "card", "destination", "source_line")
        self.moves: dict[str, list[Any]] = {name: [] for name in moves}
        self.lines: set[int] = set()  # source lines tie seats and placements to their hand

    def __len__(self) -> int:
        return len(self.hands["hand_key"])

    def add(
        self,
        *,
        room: str,
        table_id: str,
        room_hand_id: str,
        ruleset: str,
        played_at: datetime | None,
        rules_text: str,
        source_line: int | None,
        raw_text: str,
        seats: Sequence[SeatRow],
        moves: Sequence[Move],
    ) -> bool:
        """Add one hand; False (and nothing added) unless it surely passes validate_hand."""
        if source_line is None or source_line in self.lines:
            return False
        texts = (room, table_id, room_hand_id, rules_text, raw_text, self.source)
        columns = list(zip(*moves, strict=True)) if moves else []
        if not surely_valid(ruleset, texts, seats, moves, columns):
            return False
        self.lines.add(source_line)
        key = f"{self.format}:{room}:{table_id}:{room_hand_id}"
        h = self.hands
        h["hand_key"].append(key)
        h["room"].append(room)
        h["table_id"].append(table_id)
        h["room_hand_id"].append(room_hand_id)
        h["played_at"].append(played_at)
        h["rules_text"].append(rules_text)
        h["ruleset"].append(ruleset)
        h["seat_count"].append(len(seats))
        fulls = [(len(s.top), len(s.middle), len(s.bottom)) == ROW_SIZES for s in seats]
        h["complete"].append(all(fulls))
        h["source_line"].append(source_line)
        h["raw_text"].append(raw_text)
        h["fingerprint"].append(fingerprint_of(seats))
        h["moves"].append(len(moves))
        if moves:
            m = self.moves
            positions, streets, cards, destinations = columns
            m["hand_key"] += [key] * len(moves)
            m["seat"] += positions
            m["street"] += streets
            m["card"] += cards
            m["destination"] += destinations
            m["source_line"] += [source_line] * len(moves)
        c = self.seats
        for index, seat in enumerate(seats):
            board = seat.top + seat.middle + seat.bottom
            discards = seat.discards
            c["hand_key"].append(key)
            c["seat"].append(index)
            c["player"].append(seat.player)
            c["hero"].append(seat.hero)
            c["in_fantasy"].append(seat.in_fantasy)
            c["fantasy_cards"].append(
                len(board) + len(discards) if seat.in_fantasy and discards is not None else None
            )
            c["top"].append(seat.top)
            c["middle"].append(seat.middle)
            c["bottom"].append(seat.bottom)
            c["board"].append(bytes(board) if fulls[index] else None)
            c["cards"].append(board if len(board) == 13 else None)  # board_streets' cards
            c["discards"].append(discards)
            c["reported_points"].append(seat.reported_points)
            c["source_line"].append(source_line)
        return True

    def take(self) -> ColumnarHands:
        """The gathered hands as tables in the dataset's column order; starts a new chunk."""
        h, s, m = self.hands, self.seats, self.moves
        count, seat_count = len(h["hand_key"]), len(s["hand_key"])

        def nulls(n: int, kind: pa.DataType) -> pa.Array:
            return pa.nulls(n, kind)

        numbers = {
            name: np.asarray(m[name], dtype=np.int64)
            for name in ("seat", "street", "card", "destination")
        }
        board_streets, discards = streets_and_discards(
            h["seat_count"], h["moves"], s["cards"], s["discards"], numbers
        )

        hands = pa.table(
            {
                "hand_key": pa.array(h["hand_key"], pa.string()),
                "format": pa.array([self.format] * count, pa.string()),
                "room": pa.array(h["room"], pa.string()),
                "table_id": pa.array(h["table_id"], pa.string()),
                "room_hand_id": pa.array(h["room_hand_id"], pa.string()),
                "played_at": pa.array(h["played_at"], pa.timestamp("us")),
                "rules_text": pa.array(h["rules_text"], pa.string()),
                "ruleset": pa.array(h["ruleset"], pa.string()),
                "seat_count": pa.array(h["seat_count"], pa.int8()),
                "complete": pa.array(h["complete"], pa.bool_()),
                "stakes": nulls(count, pa.float64()),
                "currency": nulls(count, pa.string()),
                "source_file": pa.array([self.source] * count, pa.string()),
                "source_line": pa.array(h["source_line"], pa.int64()),
                "source_offset": nulls(count, pa.int64()),
                "raw_text": pa.array(h["raw_text"], pa.string()),
                "fingerprint": pa.array(h["fingerprint"], pa.string()),
                "batch": pa.array([""] * count, pa.string()),
            }
        )
        seats = pa.table(
            {
                "hand_key": pa.array(s["hand_key"], pa.string()),
                "seat": pa.array(s["seat"], pa.int8()),
                "player": pa.array(s["player"], pa.string()),
                "player_id": nulls(seat_count, pa.string()),
                "hero": pa.array(s["hero"], pa.bool_()),
                "in_fantasy": pa.array(s["in_fantasy"], pa.bool_()),
                "fantasy_cards": pa.array(s["fantasy_cards"], pa.int8()),
                "top": pa.array(s["top"], CARD_LIST),
                "middle": pa.array(s["middle"], CARD_LIST),
                "bottom": pa.array(s["bottom"], CARD_LIST),
                "board": pa.array(s["board"], pa.binary(13)),
                "board_streets": board_streets,
                "discards": discards,
                "reported_points": pa.array(s["reported_points"], pa.float64()),
                "reported_money": nulls(seat_count, pa.float64()),
                "stack": nulls(seat_count, pa.float64()),
                "source_line": pa.array(s["source_line"], pa.int64()),
            }
        )
        destination = pa.DictionaryArray.from_arrays(
            pa.array(numbers["destination"], pa.int8()), pa.array(DESTINATIONS)
        )
        placements = pa.table(
            {
                "hand_key": pa.array(m["hand_key"], pa.string()),
                "seat": pa.array(numbers["seat"], pa.int8()),
                "street": pa.array(numbers["street"], pa.int8()),
                "card": pa.array(numbers["card"], pa.int8()),
                "destination": destination,
                "source_line": pa.array(m["source_line"], pa.int64()),
            }
        )
        self._clear()
        return ColumnarHands(hands=hands, seats=seats, placements=placements)
