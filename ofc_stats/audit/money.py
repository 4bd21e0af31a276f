"""Money against points × stakes, and each room's rake rule inferred from its hands.

Rooms pay winners the points times the stake minus a rake, and losers pay
points times the stake, or less when their chips run out.  Rather than assume
a rake, :func:`infer_rake` tries rates from 0 to 10% and four rounding rules
on every winning seat and keeps the rule that explains the most of them.
Money actually paid is shared among winners in proportion to their points,
so a short-stacked loser does not make every winner look wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

RATES = np.round(np.arange(0, 0.1001, 0.0025), 4)
TICKS = (0.01, 0.1, 1.0)
MODES = ("nearest", "down", "up")
TOLERANCE = 0.011


@dataclass(frozen=True)
class Rake:
    room: str
    rate: float
    tick: float
    mode: str
    winners: int
    explained: int
    multiplier: float = 1.0  # money per point is stakes × this (1 unless the data says else)

    def describe(self) -> str:
        share = self.explained / self.winners if self.winners else 0.0
        rule = f"{self.rate:.2%} of the winnings, rounded {self.mode} to {self.tick:g}"
        if self.rate == 0:
            rule = "no rake"
        if self.multiplier != 1:
            rule += f"; money = points × stakes × {self.multiplier:g}"
        counts = f"explains {self.explained} of {self.winners} winning seats, {share:.1%}"
        return f"{self.room}: {rule} ({counts})"


def _rounded(values: npt.NDArray[np.float64], tick: float, mode: str) -> npt.NDArray[np.float64]:
    """Round to a multiple of ``tick``; the 1e-9 absorbs binary fractions like 0.1."""
    scaled = values / tick
    if mode == "nearest":
        steps = np.floor(scaled + 0.5 + 1e-9)
    elif mode == "down":
        steps = np.floor(scaled + 1e-9)
    else:
        steps = np.ceil(scaled - 1e-9)
    return np.asarray(steps * tick, dtype=np.float64)


def money_multiplier(seats: pd.DataFrame) -> float:
    """How many times points × stakes the losers of a room pay, by majority (usually 1)."""
    losers = seats[(seats["net_capped"] < 0) & seats["reported_money"].notna()]
    if losers.empty:
        return 1.0
    owed = losers["net_capped"] * losers["stakes"].fillna(1.0)
    ratios = (losers["reported_money"] / owed).round(3)
    common = ratios.mode()
    if common.empty or common.iloc[0] <= 0 or (ratios == common.iloc[0]).mean() < 0.5:
        return 1.0
    return float(common.iloc[0])


def expected_money(seats: pd.DataFrame, multiplier: float = 1.0) -> pd.DataFrame:
    """Add ``owed`` (points × stakes × multiplier), ``paid_share`` and ``gross`` to a seat frame.

    Needs columns hand_key, net_capped, stakes, reported_money.
    """
    frame = seats.copy()
    stakes = frame["stakes"].fillna(1.0)
    frame["owed"] = frame["net_capped"] * stakes * multiplier
    losing = frame["owed"] < 0
    paid = (-frame["reported_money"].where(losing, 0.0)).groupby(frame["hand_key"]).transform("sum")
    owed_wins = frame["owed"].where(~losing, 0.0).groupby(frame["hand_key"]).transform("sum")
    owed_losses = (-frame["owed"].where(losing, 0.0)).groupby(frame["hand_key"]).transform("sum")
    share = np.where(
        owed_wins > 0, np.minimum(paid / owed_wins.where(owed_wins > 0, 1.0), 1.0), 1.0
    )
    # Every loser reported: winners share what was paid; else assume payment in full.
    complete = owed_losses > 0
    frame["paid_share"] = np.where(complete, share, 1.0)
    frame["gross"] = np.where(frame["owed"] > 0, frame["owed"] * frame["paid_share"], frame["owed"])
    return frame


def infer_rake(room: str, seats: pd.DataFrame, multiplier: float = 1.0) -> Rake:
    """The (rate, rounding) that explains the most winning seats of one room.

    ``room`` labels the group: the audit infers one rule per room and currency,
    since one app rounds dollars to 0.1 and pesos to 1.
    """
    winners = seats[(seats["gross"] > 0) & seats["reported_money"].notna()]
    gross = winners["gross"].to_numpy(dtype=np.float64)
    money = winners["reported_money"].to_numpy(dtype=np.float64)
    best = Rake(room, 0.0, 0.01, "nearest", len(winners), 0, multiplier)
    for tick in TICKS:
        for mode in MODES:
            for rate in RATES.tolist():
                rake = _rounded(gross * rate, tick, mode)
                explained = int((np.abs(gross - rake - money) <= TOLERANCE).sum())
                if explained > best.explained:
                    best = Rake(room, float(rate), tick, mode, len(winners), explained, multiplier)
    return best


def money_mismatches(seats: pd.DataFrame, rake: Rake) -> pd.DataFrame:
    """Seats of one room whose money differs from points × stakes under ``rake``."""
    frame = seats[seats["reported_money"].notna()].copy()
    expected = frame["gross"].to_numpy(dtype=np.float64).copy()
    winning = expected > 0
    expected[winning] -= _rounded(expected[winning] * rake.rate, rake.tick, rake.mode)
    frame["expected_money"] = expected
    short = (frame["owed"] < 0) & (frame["reported_money"] > frame["owed"] + TOLERANCE)
    frame["short_paid"] = short & (frame["reported_money"] <= 0)
    off = np.abs(frame["reported_money"] - expected) > TOLERANCE
    result: pd.DataFrame = frame[off]
    return result
