"""What the SwC and fpdb readers share: a seat and a move as plain tuples, the record
path's objects made of them, and the NumPy pass that lays out a chunk's board streets
and discards.

Each reader has one columnar builder (``parsers/swc_columns.py``,
``parsers/fpdb_columns.py``) for the hands it can prove validate_hand passes;
every other hand goes through the record path, the definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.records import SMALL_INT, Placement, SeatRecord

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
