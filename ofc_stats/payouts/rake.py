"""The rake: the share of a winner's money a room keeps, rounded to its currency's tick,
and at most a cap where the room has one."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

MODES = ("nearest", "down", "up")


def rounded(values: npt.NDArray[np.float64], tick: float, mode: str) -> npt.NDArray[np.float64]:
    """Round to a multiple of ``tick``; the 1e-9 absorbs binary fractions like 0.1.

    >>> rounded(np.array([0.25, 0.35]), 0.1, "nearest").round(2).tolist()
    [0.3, 0.4]
    """
    scaled = values / tick
    if mode == "nearest":
        steps = np.floor(scaled + 0.5 + 1e-9)
    elif mode == "down":
        steps = np.floor(scaled + 1e-9)
    else:
        steps = np.ceil(scaled - 1e-9)
    return np.asarray(steps * tick, dtype=np.float64)


def rake_taken(
    winnings: npt.NDArray[np.float64],
    rate: float,
    tick: float,
    mode: str,
    cap: float | None = None,
) -> npt.NDArray[np.float64]:
    """The rake on each winner's gross ``winnings``: ``rate`` of it, rounded, at most ``cap``.

    >>> rake_taken(np.array([92.0, 20.0]), 0.05, 0.1, "nearest", cap=2.0).tolist()
    [2.0, 1.0]
    """
    rake = rounded(np.asarray(winnings, dtype=np.float64) * rate, tick, mode)
    if cap is not None:
        rake = np.minimum(rake, cap)
    return rake
