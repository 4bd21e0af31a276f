"""What the SwC and fpdb readers share: a seat and a move as plain tuples, and the record
path's objects made of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import pyarrow as pa

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.records import Placement, SeatRecord

Cards = tuple[int, ...]
DISCARD = DESTINATIONS.index("discard")
CARD_LIST = pa.list_(pa.int8())


def street_of(placed: int, pineapple: bool, fantasy: bool) -> int:
    """The OFC street (0-based) on which a player's placed-card count was reached."""
    if fantasy or placed <= 5:
        return 0
    return (placed - 4) // 2 if pineapple else placed - 5


def fantasy_jump(placed_now: int) -> bool:
    """Whether placing this many cards at once is a Fantasyland deal (a street places 5 at most)."""
    return placed_now > 5


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
