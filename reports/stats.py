"""Confidence intervals for report numbers: means of points and rates of events."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pandas as pd

Z95 = 1.959963984540054
# The fewest hands a mean's 95% interval, or a rate per hour of play, is given for (the
# page's script reads it as ``min_hands``).  Below it neither says anything: one hand's
# "interval" is the point itself, two hands' spans whatever they happened to be, and an
# hour's rate from a hand or two is its points times 30 or 60.  The normal interval of a
# mean wants some 30 values, and 30 hands are about half an hour at one table.
MIN_HANDS = 30
TOO_FEW = f"from {MIN_HANDS} hands up (fewer say nothing)"
NO_INTERVAL = f"no 95% interval under {MIN_HANDS} hands: fewer say nothing"


def mean_ci(values: npt.ArrayLike, least: int = MIN_HANDS) -> tuple[float, float, float]:
    """(mean, low, high): the normal-approximation 95% interval of a mean.

    Points per hand are sums of many row results, so the normal interval is
    the usual choice; with fewer than ``least`` values there is no interval (NaN).
    """
    array = np.asarray(values, dtype=np.float64)
    array = array[~np.isnan(array)]
    if len(array) == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(array.mean())
    if len(array) < max(least, 2):
        return (mean, math.nan, math.nan)
    half = abs(Z95 * float(array.std(ddof=1)) / math.sqrt(len(array)))
    return (mean, mean - half, mean + half)


def interval_text(low: float, high: float, fmt: str = "+.2f") -> str:
    """``95% interval -1.20 to +3.40``, or why there is none."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return NO_INTERVAL
    return f"95% interval {low:{fmt}} to {high:{fmt}}"


def wilson(successes: int, trials: int) -> tuple[float, float, float]:
    """(rate, low, high): the Wilson 95% interval, sound near 0% and 100%."""
    if trials == 0:
        return (math.nan, math.nan, math.nan)
    rate = successes / trials
    z2 = Z95 * Z95
    centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials * trials))
    half /= 1 + z2 / trials
    return clamp_interval(rate, centre - half, centre + half)


def clamp_interval(estimate: float, low: float, high: float) -> tuple[float, float, float]:
    """(estimate, low, high) with low <= estimate <= high, all in [0, 1].

    Rounding puts Wilson's bound for 0 of 3 at 5.6e-17 and for 10 of 10 at
    0.9999999999999999: a bound past its estimate makes negative error bars.
    """
    low = min(max(0.0, low), estimate)
    high = max(min(1.0, high), estimate)
    return (estimate, low, high)


def grouped_mean_ci(
    frame: pd.DataFrame, by: str | list[str], column: str, least: int = MIN_HANDS
) -> pd.DataFrame:
    """Per group: n, mean and 95% interval of ``column``, from sums (no per-group Python);
    no interval (NaN) for a group of fewer than ``least`` values."""
    groups = frame.groupby(by, observed=True, sort=True)[column]
    out = groups.agg(n="count", mean="mean", sd="std").reset_index()
    half = Z95 * out["sd"].fillna(0.0) / np.sqrt(out["n"].clip(lower=1))
    half = half.where(out["n"] >= max(least, 2))
    out["low"] = out["mean"] - half
    out["high"] = out["mean"] + half
    return out.drop(columns="sd")


def moments_ci(
    n: npt.ArrayLike, total: npt.ArrayLike, squares: npt.ArrayLike, least: int = MIN_HANDS
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(mean, low, high) per group from count, sum and sum of squares (SQL aggregates).

    The variance is floored at 0 (rounding can make it a hair negative); a group
    of fewer than ``least`` values has no interval (NaN), as in :func:`mean_ci`.
    """
    count = np.asarray(n, dtype=np.float64)
    sums = np.asarray(total, dtype=np.float64)
    sq = np.asarray(squares, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, sums / count, np.nan)
        var = np.where(count > 1, (sq - count * mean * mean) / (count - 1), 0.0)
        half = Z95 * np.sqrt(np.maximum(var, 0.0)) / np.sqrt(np.maximum(count, 1.0))
    half = np.where(count >= max(least, 2), half, np.nan)
    return mean, mean - half, mean + half
