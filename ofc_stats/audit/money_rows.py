"""The audit's money rows: each says what it is judged by and how well that holds.

The rake and the short-stack settlement are inferred from the very hands the
audit judges, so a row against them may be the inference's error, not the
room's: every row names the rule, where it comes from and how much of the
room it explains (the ``basis`` column and the explanation), and what the room
kept.  A seat paid exactly the money of the points the room reported is not a
second, money error when that hand's points are off: its row says the money
follows the points row instead of guessing at a short stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ofc_stats.audit.explain import follows_text, money_text
from ofc_stats.audit.money import TOLERANCE, Rake, RoomMoney, after_rake, money_mismatches
from ofc_stats.audit.patterns import NOTHING, HandPattern, hand_patterns
from ofc_stats.payouts.settle import Settlement

FOLLOWS = "follows the room's points"


def money_rows(money: RoomMoney) -> pd.DataFrame:
    """One row per seat whose money differs from the rules' under its room's rake and
    settlement, with class, cause, values, explanation, basis and ``own_money``."""
    seats = money.seats
    parts = []
    groups = list(seats.groupby(["room", "currency"], sort=True)) if len(seats) else []
    rules = enumerate(zip(groups, money.rakes, money.settlements, strict=True))
    for index, ((_, group), rake, settlement) in rules:
        off = money_mismatches(group, rake)
        if off.empty:
            continue
        off = off.copy()
        off["class"] = "money"
        off["cause"] = np.where(off["short_paid"], "loser paid less than owed", "amount")
        off["room_value"] = off["reported_money"]
        off["recomputed_value"] = off["expected_money"]
        off["unit"] = off["currency"]
        records = off.to_dict("records")
        off["explanation"] = [money_text(row, rake, settlement) for row in records]
        pairwise = money.pairwise[index] if index < len(money.pairwise) else {}
        found = hand_patterns(group, off["hand_key"].unique(), rake, settlement, pairwise)
        _name_patterns(off, found)
        off["basis"] = [money_basis(row, rake, settlement) for row in records]
        own = off["reported_points"] * off["stakes"].fillna(1.0) * rake.multiplier
        off["own_money"] = after_rake(own.astype(float), rake)
        off["rake_index"] = index
        off["ruleset"] = off["scored_with"]
        parts.append(off)
    return pd.concat(parts) if parts else pd.DataFrame()


def _name_patterns(off: pd.DataFrame, found: Mapping[str, HandPattern]) -> None:
    """Every money row of a hand a pattern explains takes the pattern as its cause, and its
    explanation leads with the pattern's evidence; a hand none explains says so plainly."""
    patterns = [found[str(key)] for key in off["hand_key"]]
    off["cause"] = [
        p.name if p.explained else f"{cause}; {NOTHING}"
        for p, cause in zip(patterns, off["cause"], strict=True)
    ]
    off["explanation"] = [
        f"{p.name} across the hand: {p.evidence}{_also(p)}; this seat: "
        + text.replace(" (a short stack?)", "")
        if p.explained
        else f"{text}; across the hand, {p.evidence}"
        for p, text in zip(patterns, off["explanation"], strict=True)
    ]


def _also(pattern: HandPattern) -> str:
    return f" (also fits: {', '.join(pattern.also)})" if pattern.also else ""


def money_basis(row: Mapping[Any, Any], rake: Rake, settlement: Settlement) -> str:
    """What a money row is judged by: points × stakes for a loser; the rake (and, in a
    short-stack hand, the settlement) for a winner, with where it comes from and its fit."""
    if float(row["owed"]) < 0:
        times = f" × {rake.multiplier:g} ({rake.source})" if rake.multiplier != 1 else ""
        return f"points × stakes{times}"
    text = f"rake {rake.source}, {rake.support()}"
    if bool(row.get("short", False)):
        text += f"; settlement {settlement.source}, {settlement.support()}"
    return text


def follow_points(
    money: pd.DataFrame, points: pd.DataFrame, rakes: tuple[Rake, ...]
) -> pd.DataFrame:
    """Money rows of seats with a points mismatch that got exactly the money of the room's
    own points: the cause and explanation say the money follows the points row.  A seat
    whose own points the room reported right keeps its money row as it is, even in a hand
    where another seat's points are off."""
    if money.empty or points.empty:
        return money
    seats = pd.MultiIndex.from_frame(money[["hand_key", "seat"]].astype({"seat": "int64"}))
    off = pd.MultiIndex.from_frame(points[["hand_key", "seat"]].astype({"seat": "int64"}))
    follows = pd.Series(seats.isin(off), index=money.index) & (
        (money["own_money"] - money["reported_money"]).abs() <= TOLERANCE
    )
    if not follows.any():
        return money
    money = money.copy()
    records = money[follows].to_dict("records")
    money.loc[follows, "cause"] = FOLLOWS
    money.loc[follows, "explanation"] = [
        follows_text(row, rakes[int(row["rake_index"])]) for row in records
    ]
    money.loc[follows, "basis"] = "the room's own points (see this hand's points rows)"
    return money
