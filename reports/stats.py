"""Confidence intervals for report numbers: means of points and rates of events."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pandas as pd

Z95 = 1.959963984540054


def mean_ci(values: npt.ArrayLike) -> tuple[float, float, float]:
    """(mean, low, high): the normal-approximation 95% interval of a mean.

    Points per hand are sums of many row results, so the normal interval is
    the usual choice; with fewer than 2 values the interval is the point.
    """
    array = np.asarray(values, dtype=np.float64)
    array = array[~np.isnan(array)]
    if len(array) == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(array.mean())
    if len(array) < 2:
        return (mean, mean, mean)
    half = abs(Z95 * float(array.std(ddof=1)) / math.sqrt(len(array)))
    return (mean, mean - half, mean + half)


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


def grouped_mean_ci(frame: pd.DataFrame, by: str | list[str], column: str) -> pd.DataFrame:
    """Per group: n, mean and 95% interval of ``column``, from sums (no per-group Python)."""
    groups = frame.groupby(by, observed=True, sort=True)[column]
    out = groups.agg(n="count", mean="mean", sd="std").reset_index()
    half = Z95 * out["sd"].fillna(0.0) / np.sqrt(out["n"].clip(lower=1))
    out["low"] = out["mean"] - half
    out["high"] = out["mean"] + half
    return out.drop(columns="sd")


def moments_ci(
    n: npt.ArrayLike, total: npt.ArrayLike, squares: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(mean, low, high) per group from count, sum and sum of squares (SQL aggregates).

    The variance is floored at 0 (rounding can make it a hair negative) and a
    group of one has the point as its interval, as in :func:`mean_ci`.
    """
    count = np.asarray(n, dtype=np.float64)
    sums = np.asarray(total, dtype=np.float64)
    sq = np.asarray(squares, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, sums / count, np.nan)
        var = np.where(count > 1, (sq - count * mean * mean) / (count - 1), 0.0)
        half = Z95 * np.sqrt(np.maximum(var, 0.0)) / np.sqrt(np.maximum(count, 1.0))
    return mean, mean - half, mean + half
