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
    half = Z95 * float(array.std(ddof=1)) / math.sqrt(len(array))
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
    return (rate, max(0.0, centre - half), min(1.0, centre + half))


def grouped_mean_ci(frame: pd.DataFrame, by: str | list[str], column: str) -> pd.DataFrame:
    """Per group: n, mean and 95% interval of ``column``, from sums (no per-group Python)."""
    groups = frame.groupby(by, observed=True, sort=True)[column]
    out = groups.agg(n="count", mean="mean", sd="std").reset_index()
    half = Z95 * out["sd"].fillna(0.0) / np.sqrt(out["n"].clip(lower=1))
    out["low"] = out["mean"] - half
    out["high"] = out["mean"] + half
    return out.drop(columns="sd")
