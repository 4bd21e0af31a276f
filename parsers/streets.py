"""The street rule the SwC and fpdb readers share: both see a seat's placed cards grow, never
the street itself."""

from __future__ import annotations


def street_of(placed: int, pineapple: bool, fantasy: bool) -> int:
    """The OFC street (0-based) on which a player's placed-card count was reached.

    >>> [street_of(n, True, False) for n in (5, 7, 13)], street_of(8, False, False)
    ([0, 1, 4], 3)
    """
    if fantasy or placed <= 5:
        return 0
    return (placed - 4) // 2 if pineapple else placed - 5


def fantasy_jump(placed_now: int) -> bool:
    """Whether placing this many cards at once is a Fantasyland deal (a street places 5 at most)."""
    return placed_now > 5
