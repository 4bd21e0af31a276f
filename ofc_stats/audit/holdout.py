"""Money rules validated out of sample: inferred on one half of a room's hands, judged on
the other.

The rake and the short-stack settlement are inferred from the very hands the
audit then judges; a rule that only fits the hands it came from would call
the room right (or wrong) for the inference's sake.  Per room and currency,
the hands are split by date at the middle (the earlier half, the later half)
and the rules are inferred on each half and applied to the other: two folds.
A rule *holds out of sample* when the hands it was not inferred from are
explained as well as by rules inferred on all of them.  The runner-up rake
is judged the same way, with its own figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt
import pandas as pd

from ofc_stats.audit.money import (
    MONEY_SQL,
    TOLERANCE,
    Rake,
    after_rake,
    expected_money,
    infer_rake,
    money_multiplier,
    short_stacks,
)
from ofc_stats.payouts.settle import ALL_KINDS, explained_short, gross_by_kind, infer_settlement
from ofc_stats.store.views import OfcData

# What the halves are inferred and judged from (MONEY_SQL's names): no text per seat.
FOLD_COLUMNS = ["hand_key", "seat", "net_capped", "stakes", "reported_money", "stack"]
HOLD_SQL = f"""
SELECT m.*, h.played_at FROM ({MONEY_SQL}) m JOIN hands h USING (hand_key)
ORDER BY m.hand_key, m.seat
"""


UNTOLD = "proportional"  # a settlement no hand tells: the default, named as assumed


def _named(kind: str, told: bool) -> str:
    return kind if told else f"{kind} (assumed: no short-stack hand tells)"


@dataclass(frozen=True)
class Holdout:
    """One room and currency: money hands explained by rules inferred on the other half
    (out of sample) against rules inferred on all the hands (in sample)."""

    room: str
    hands: int
    in_sample: int  # hands explained by rules inferred on all the hands
    out_of_sample: int  # hands explained by rules inferred on the other half (both folds)
    rules: tuple[str, str]  # the rake and settlement inferred on each half
    agree: bool  # both halves infer the rule inferred on all
    runner_up: str = ""  # the rake runner-up and the hands it explains out of sample
    folds: int = 2  # halves judged: 0 when the room has too few money hands to split

    @property
    def allowed(self) -> int:
        """Hands out of sample may explain fewer than in sample: 1 money hand in 100,
        rounded down (none under 100)."""
        return self.hands // 100

    @property
    def fewer(self) -> int:
        """Hands in sample explains that out of sample does not (negative: more)."""
        return self.in_sample - self.out_of_sample

    @property
    def holds(self) -> bool:
        """Out of sample explains as many hands as in sample, :attr:`allowed` fewer at most
        (:data:`CRITERION`)."""
        return self.folds == 2 and self.fewer <= self.allowed

    @property
    def verdict(self) -> str:
        """holds | does not hold | not checked (a room of one money hand has no halves)."""
        if self.folds < 2:
            return "not checked (too few money hands to split)"
        return "holds" if self.holds else "does not hold"

    def figures(self) -> str:
        """Hands explained out of and in sample, in hands and percent, against the allowance.

        >>> Holdout("R USD", 148, 148, 146, ("", ""), False).figures()
        '146 of 148 money hands (98.6%) out of sample, 148 (100.0%) in sample: 2 fewer, 1 allowed'
        >>> Holdout("R BRL", 10, 10, 10, ("", ""), True).figures()
        '10 of 10 money hands (100.0%) out of sample, 10 (100.0%) in sample: 0 fewer, 0 allowed'
        """

        def share(count: int) -> str:
            return f"{count / self.hands:.1%}" if self.hands else "-"

        fewer = f"{self.fewer:,} fewer" if self.fewer >= 0 else f"{-self.fewer:,} more"
        return (
            f"{self.out_of_sample:,} of {self.hands:,} money hands ({share(self.out_of_sample)}) "
            f"out of sample, {self.in_sample:,} ({share(self.in_sample)}) in sample: "
            f"{fewer}, {self.allowed:,} allowed"
        )

    def describe(self) -> str:
        """One line: the verdict, the figures (:data:`CRITERION` says what they are judged
        by, once, above the rooms' lines), what the halves infer and the runner-up."""
        same = (
            "both halves infer the same rule"
            if self.agree
            else "the halves infer " + (" and ".join(f"'{r}'" for r in self.rules))
        )
        if self.folds < 2:
            return f"{self.room}: the money rule is {self.verdict} out of sample"
        text = (
            f"{self.room}: the money rule {self.verdict} out of sample — {self.figures()}; {same}"
        )
        return text + (f"; runner-up {self.runner_up}" if self.runner_up else "")


# What "holds out of sample" means, said once above the rooms' lines.
CRITERION = (
    "each room's money rule (rake and short-stack settlement) is inferred again from the "
    "earlier half of its money hands (by date) and tried on the later half, then the other way "
    "round ('out of sample'), and compared with the rule inferred from all of them ('in "
    "sample'); it holds when out of sample explains at most 1 money hand in 100 fewer than in "
    "sample, rounded down (a room with under 100 money hands may not explain even one fewer); "
    "a rule that does not hold may fit these hands only, so that room's money verdicts lean "
    "on the inference"
)


# When each money hand was played: room_money's seats, dated without reading them again.
PLAYED_SQL = """
SELECT hand_key, played_at FROM hands
WHERE hand_key IN (SELECT hand_key FROM seats WHERE reported_money IS NOT NULL)
"""


def holdout(
    data: OfcData,
    pairwise: Mapping[str, Mapping[str, npt.NDArray[np.float64]]] | None = None,
    seats: pd.DataFrame | None = None,
) -> list[Holdout]:
    """Two-fold by date, per room and currency (``pairwise``: room_money's, by label).

    ``seats``: room_money's seats of these very hands (MONEY_SQL's rows, in its order),
    each dated here by its hand's ``played_at``: reading every money seat again, with
    its names, held the audit's peak memory at three times the seats'."""
    if seats is None:
        seats = data.df(HOLD_SQL)
        when = None
    else:
        seats = seats[["room", "currency", *FOLD_COLUMNS]]
        played = data.df(PLAYED_SQL)
        when = pd.Series(played["played_at"].to_numpy(), index=pd.Index(played["hand_key"]))
    out = []
    for (room, currency), group in seats.groupby(["room", "currency"], sort=True, observed=True):
        label = f"{room} {currency or '(no currency)'}"
        pairs = dict((pairwise or {}).get(label, {}))
        if when is not None:
            at = when.index.get_indexer(pd.Index(group["hand_key"]))
            group = group[FOLD_COLUMNS].assign(played_at=when.to_numpy()[at])[at >= 0]
        out.append(_fold(label, group.reset_index(drop=True), pairs))
        del group
    return out


def _infer(
    label: str, frame: pd.DataFrame, pairs: dict[str, npt.NDArray[np.float64]]
) -> tuple[Rake, str, bool]:
    """The rake and settlement kind inferred on ``frame``, and the kind as the halves are
    named (a half no short-stack hand tells about assumes proportional, and says so)."""
    frame = frame.copy()  # its own short-stack hands, as room_money finds them
    rake = short_stacks(
        frame, partial(infer_rake, label, multiplier=frame["multiplier"].iloc[0]), pairs
    )
    if frame["short"].any():
        net = {k: after_rake(gross_by_kind(frame, k, pairs), rake) for k in ALL_KINDS}
        settlement = infer_settlement(label, frame, net)
        if settlement.telling:
            return rake, settlement.kind, True
    return rake, UNTOLD, False


def _explained(
    frame: pd.DataFrame, rake: Rake, kind: str, pairs: dict[str, npt.NDArray[np.float64]]
) -> pd.Series:
    """Per hand of ``frame``: every seat's money as the rule gives it."""
    short = explained_short(frame, partial(after_rake, rake=rake), pairs)
    expected = after_rake(gross_by_kind(frame.assign(short=short), kind, pairs), rake)
    ok = (expected - frame["reported_money"]).abs() <= TOLERANCE
    return ok.groupby(frame["hand_key"]).all()


def _fold(label: str, group: pd.DataFrame, pairs: dict[str, npt.NDArray[np.float64]]) -> Holdout:
    multiplier = money_multiplier(group)
    frame = expected_money(group, multiplier).assign(multiplier=multiplier)
    frame = frame[frame["reported_money"].notna() | (frame["owed"] >= 0)]
    played = frame.groupby("hand_key")["played_at"].min().sort_values(kind="stable")
    hands = played.index.to_numpy()
    half = len(hands) // 2
    halves = (set(hands[:half]), set(hands[half:]))
    whole_rake, whole_kind, _ = _infer(label, frame, pairs)
    in_sample = int(_explained(frame, whole_rake, whole_kind, pairs).sum())
    out, rules, agree, runner, folds = 0, [], True, 0, 0
    for train, test in (halves, halves[::-1]):
        fit = frame[frame["hand_key"].isin(train)]
        judged = frame[frame["hand_key"].isin(test)]
        if fit.empty or judged.empty:
            continue
        rake, kind, told = _infer(label, fit, pairs)
        folds += 1
        out += int(_explained(judged, rake, kind, pairs).sum())
        rules.append(f"{rake.rule()}, settlement {_named(kind, told)}")
        agree &= (rake.rate, rake.tick, rake.mode, rake.cap, kind) == (
            whole_rake.rate, whole_rake.tick, whole_rake.mode, whole_rake.cap, whole_kind,
        )  # fmt: skip
        if rake.runner_up is not None:
            rate, tick, mode, _ = rake.runner_up
            other = Rake(label, rate, tick, mode, 0, 0, multiplier)
            runner += int(_explained(judged, other, kind, pairs).sum())
    shown = ""
    if whole_rake.runner_up is not None:
        rate, tick, mode, count = whole_rake.runner_up
        name = Rake(label, rate, tick, mode, 0, 0).rule()
        shown = (
            f"'{name}' explains {count:,} of {whole_rake.winners:,} winning seats in sample, "
            f"{runner:,} money hands out of sample"
        )
    pair = [*rules, "", ""][:2]
    return Holdout(label, len(hands), in_sample, out, (pair[0], pair[1]), agree, shown, folds)


__all__ = ["CRITERION", "Holdout", "holdout"]
