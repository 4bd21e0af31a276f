"""Timeout auto-placement (RULES.md §2).

When a player's time runs out the room places the cards itself, in the order
received, filling the bottom first, then the middle, then the top; from the
second street on in Pineapple it places the first two cards and discards the
third.  A street whose placement matches this exactly is a *possible timeout*:
reports count those apart from real decisions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ofc_stats.engine.board import ROW_SIZES, ROWS
from ofc_stats.engine.rules import Variant
from ofc_stats.errors import BoardError

DISCARD = "discard"
DESTINATIONS = (*ROWS, DISCARD)
_FILL_ORDER = ("bottom", "middle", "top")


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


def auto_placement(variant: Variant, street: int, filled: Sequence[int], dealt: int) -> list[str]:
    """Destinations the room gives ``dealt`` cards on ``street`` (0 = first).

    ``filled`` is the (top, middle, bottom) card count before the street.
    """
    room = {row: size - count for row, size, count in zip(ROWS, ROW_SIZES, filled, strict=True)}
    placed = dealt
    if variant is Variant.PINEAPPLE and street > 0:
        placed = dealt - 1
    out: list[str] = []
    for _ in range(placed):
        row = next((r for r in _FILL_ORDER if room[r] > 0), None)
        if row is None:
            raise BoardError(f"street {street}: no room left for {placed} cards")
        room[row] -= 1
        out.append(row)
    return out + [DISCARD] * (dealt - placed)


def timeout_streets(
    variant: Variant, streets: Sequence[Street], *, ordered: bool = True
) -> list[bool]:
    """For each street of one seat, whether it matches the auto-placement rule.

    With ``ordered=False`` (rooms that do not record the order cards arrived
    in) a street matches when each row got as many cards as the rule gives it.
    """
    filled = [0, 0, 0]
    result = []
    for index, street in enumerate(streets):
        expected = auto_placement(variant, index, filled, len(street.cards))
        actual = list(street.destinations)
        match = actual == expected if ordered else Counter(actual) == Counter(expected)
        result.append(match)
        for destination in actual:
            if destination != DISCARD:
                filled[ROWS.index(destination)] += 1
    return result
