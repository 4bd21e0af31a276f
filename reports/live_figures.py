"""The fouls and Fantasyland sections' headline figures, for the hands the filter bar keeps.

The page's script (``foulFigures`` and ``fantasyFigures`` in ``assets/report.js``)
recomputes them from the filter bar's rows (:func:`reports.explore.page_data`) whenever
the bar changes; this module draws them, from the same rows and with the same
arithmetic in the same order, for every hand of the report, so that the page before
its rows are in (or in a browser that cannot read them) says what the script says
unfiltered, character for character.  Numbers are written as the script's
``Intl.NumberFormat`` and ``toFixed`` write them (:func:`fixed`, :func:`percent`): rounded
half away from zero, where Python's ``format`` rounds the exact binary value half to even.

The figures, over the scored hands kept: the player's foul rate of normal hands with
its count and Wilson 95% interval (as :mod:`reports.fouls`), the field's beside it
(the opponents' scored normal seats at those hands), the Fantasyland entry rate of
normal hands (as :mod:`reports.fantasy`) and the Fantasyland hands' points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from reports.stats import MIN_HANDS, NO_INTERVAL, Z95, wilson


@dataclass(frozen=True)
class Figures:
    """Counts over the scored hands kept, and the Fantasyland hands' points in hand order."""

    normal: int  # the player's normal (not Fantasyland) hands
    fouls: int  # of those, fouled
    entries: int  # of those, earning Fantasyland
    field_seats: int  # the opponents' scored normal seats at the hands
    field_fouls: int  # of those, fouled
    fantasy_points: list[float]  # the player's points in each Fantasyland hand, oldest first


def figures(hands: dict[str, Any], kept: Sequence[int] | None = None) -> Figures:
    """The counts over the scored hands among ``kept`` (positions in the rows; all: None)."""
    scored = np.asarray(hands["scored"], dtype=bool)
    at = np.arange(len(scored)) if kept is None else np.asarray(kept, dtype=np.int64)
    at = at[scored[at]]
    fantasy = np.asarray(hands["fl"], dtype=bool)[at]
    normal = at[~fantasy]
    points = np.asarray(hands["points"], dtype=np.float64)[at[fantasy]]
    return Figures(
        normal=len(normal),
        fouls=int(np.asarray(hands["foul"], dtype=bool)[normal].sum()),
        entries=int(np.asarray(hands["earns"], dtype=bool)[normal].sum()),
        field_seats=int(np.asarray(hands["f_seats"], dtype=np.int64)[at].sum()),
        field_fouls=int(np.asarray(hands["f_fouls"], dtype=np.int64)[at].sum()),
        fantasy_points=[float(p) for p in points if not math.isnan(p)],  # (the script: not null)
    )


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals and thousands separators, as the page's script
    writes it (``Intl.NumberFormat("en")``: the shortest decimal that reads back as the
    number, ``repr``'s, rounded half away from zero: 1.005 is 1.01)."""
    quantum = Decimal(1).scaleb(-digits)
    return f"{Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP):,}"


def plus(text: str, value: object) -> str:
    """A number's text with a + when it is above zero and shows a digit other than 0
    (``+1.19``; ``0.00``, never ``-0.00`` or ``+0.00``: as the page's script's ``plusNum``).

    >>> plus("1.19", 1.19), plus("-0.00", -0.001), plus("–", None)
    ('+1.19', '0.00', '–')
    """
    if not any(c in "123456789" for c in text):
        return text.replace("-", "", 1) if text.startswith("-") else text
    return "+" + text if isinstance(value, int | float | np.number) and value > 0 else text


def signed(value: float, digits: int) -> str:
    """Points with their sign, as the summary writes them: ``+1.19``, ``-0.30``, ``0.00``."""
    return plus(fixed(value, digits), value)


def signed_interval(low: float | None, high: float | None) -> str:
    """``95% interval +0.30 to +2.07`` (:func:`signed`), or why there is none (None or NaN)."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return NO_INTERVAL
    return f"95% interval {signed(low, 2)} to {signed(high, 2)}"


def percent(value: float) -> str:
    """A share as the script's ``pct`` writes it, ``(100 * v).toFixed(1) + "%"``: toFixed
    rounds the exact binary value, half up (not the shortest decimal, as Intl does)."""
    exact = Decimal(float(100 * value))
    return f"{exact.quantize(Decimal('0.1'), rounding=ROUND_HALF_UP)}%"


def moments(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """(mean, low, high) as the script's ``moments``: sums in order, no interval under
    :data:`reports.stats.MIN_HANDS` values."""
    total = squares = 0.0
    for v in values:
        total += v
        squares += v * v
    n = len(values)
    mean = total / n
    if n < max(2, MIN_HANDS):
        return mean, None, None
    sd = math.sqrt(max(0.0, (squares - n * mean * mean) / (n - 1)))
    half = Z95 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def rate_text(events: int, trials: int) -> str:
    """``30.4% (427 of 1,403; 95% interval 28.1% to 32.9%)``."""
    rate, low, high = wilson(events, trials)
    return (
        f"{percent(rate)} ({events:,} of {trials:,}; 95% interval {percent(low)} to "
        f"{percent(high)})"
    )


def fouls_text(f: Figures) -> str:
    """The fouls section's live line (``#live-fouls``)."""
    if not f.normal:
        mine = "Your foul rate: no normal hand among these hands."
    else:
        mine = f"Your foul rate over these normal hands: {rate_text(f.fouls, f.normal)}."
    if not f.field_seats:
        return mine + " The field's: no opponent's normal hand in these hands."
    return (
        mine + " The field's, over your opponents' normal hands in these hands: "
        f"{rate_text(f.field_fouls, f.field_seats)}."
    )


def fantasy_text(f: Figures) -> str:
    """The Fantasyland section's live line (``#live-fantasy``)."""
    if not f.normal:
        entry = "Your Fantasyland entry rate: no normal hand among these hands."
    else:
        entry = (
            "Your Fantasyland entry rate over these normal hands: "
            f"{rate_text(f.entries, f.normal)}."
        )
    count = len(f.fantasy_points)
    if not count:
        return entry + " No Fantasyland hand among these hands."
    total = 0.0
    for p in f.fantasy_points:  # in order, as the script sums them
        total += p
    mean, low, high = moments(f.fantasy_points)
    interval = signed_interval(low, high)
    hands = "1 Fantasyland hand" if count == 1 else f"{count:,} Fantasyland hands"
    return f"{entry} {hands}: {signed(total, 0)} points, {signed(mean, 2)} per hand ({interval})."
