"""Timeout auto-placement (RULES.md §2): the scalar definition.

When a player's time runs out the room places the cards itself, in the order
received, filling the bottom first, then the middle, then the top; from the
second street on in Pineapple it places the first two cards and discards the
third.  A street whose placement matches this is a *possible timeout*.  A
*forced* street (the rows leave one way to split the cards: all free slots
get filled, or only one row is open) is no decision, so it is never flagged.

:mod:`ofc_stats.core.timeout` is the compiled twin; the recompute's stored
flags, the ``streets`` view and the simulator's timeouts all come from it
(``rust/ofc-core/src/timeout.rs``), and tests hold it equal to this module.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ofc_stats.engine.board import DESTINATIONS, DISCARD, ROW_SIZES, ROWS
from ofc_stats.engine.rules import Variant
from ofc_stats.errors import BoardError

FILL_ORDER = ("bottom", "middle", "top")


@dataclass(frozen=True)
class Street:
    """One street of one seat: cards in the order received and where each went."""

    cards: tuple[int, ...]
    destinations: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.cards) != len(self.destinations):
            raise BoardError(
                f"street has {len(self.cards)} cards but {len(self.destinations)} destinations"
            )
        for destination in self.destinations:
            if destination not in DESTINATIONS:
                raise BoardError(f"unknown destination {destination!r}; use {DESTINATIONS}")


def placed_on(variant: Variant, street: int, dealt: int) -> int:
    """How many of ``dealt`` cards a street places (the rest are discarded).

    >>> placed_on(Variant.PINEAPPLE, 0, 5), placed_on(Variant.PINEAPPLE, 1, 3)
    (5, 2)
    """
    plan = variant.streets
    if street < len(plan) and plan[street][0] == dealt:
        return plan[street][1]
    return dealt


def auto_placement(variant: Variant, street: int, filled: Sequence[int], dealt: int) -> list[str]:
    """Destinations the room gives ``dealt`` cards on ``street`` (0 = first).

    ``filled`` is the (top, middle, bottom) card count before the street.

    >>> auto_placement(Variant.PINEAPPLE, 1, (0, 0, 5), 3)
    ['middle', 'middle', 'discard']
    """
    room = {row: size - count for row, size, count in zip(ROWS, ROW_SIZES, filled, strict=True)}
    placed = placed_on(variant, street, dealt)
    out: list[str] = []
    for _ in range(placed):
        row = next((r for r in FILL_ORDER if room[r] > 0), None)
        if row is None:
            raise BoardError(f"street {street}: no room left for {placed} cards")
        room[row] -= 1
        out.append(row)
    return out + [DISCARD] * (dealt - placed)


def forced_street(variant: Variant, street: int, filled: Sequence[int], dealt: int) -> bool:
    """Whether the rows leave one way to split the street's cards between them.

    >>> forced_street(Variant.PINEAPPLE, 4, (1, 5, 5), 3)  # only the top is open
    True
    >>> forced_street(Variant.PINEAPPLE, 4, (2, 4, 5), 3)  # one slot each: all get filled
    True
    >>> forced_street(Variant.PINEAPPLE, 3, (1, 4, 5), 3)
    False
    """
    free = [size - count for size, count in zip(ROW_SIZES, filled, strict=True)]
    placed = placed_on(variant, street, dealt)
    return sum(free) == placed or sum(1 for f in free if f > 0) <= 1


def timeout_streets(
    variant: Variant, streets: Sequence[Street], *, ordered: bool = True
) -> list[bool]:
    """For each street of one seat, whether it matches the auto-placement rule.

    With ``ordered=False`` (rooms that do not record the order cards arrived
    in) a street matches when each row got as many cards as the rule gives it.
    Forced streets are never flagged.
    """
    filled = [0, 0, 0]
    result = []
    for index, street in enumerate(streets):
        dealt = len(street.cards)
        expected = auto_placement(variant, index, filled, dealt)
        actual = list(street.destinations)
        match = actual == expected if ordered else Counter(actual) == Counter(expected)
        result.append(match and not forced_street(variant, index, filled, dealt))
        for destination in actual:
            if destination != DISCARD:
                filled[ROWS.index(destination)] += 1
    return result
