"""The audit's money rows: each says what it is judged by and how well that holds.

The rake and the short-stack settlement are inferred from the very hands the
audit judges, so a row against them may be the inference's error, not the
room's: every row names the rule, where it comes from and how much of the
room it explains (the ``basis`` column and the explanation), and what the room
kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ofc_stats.audit.explain import money_text
from ofc_stats.audit.money import Rake, RoomMoney, money_mismatches
from ofc_stats.audit.settle import Settlement


def money_rows(money: RoomMoney) -> pd.DataFrame:
    """One row per seat whose money differs from the rules' under its room's rake and
    settlement, with class, cause, values, explanation and basis."""
    seats = money.seats
    parts = []
    groups = list(seats.groupby(["room", "currency"], sort=True)) if len(seats) else []
    rules = zip(groups, money.rakes, money.settlements, strict=True)
    for (_, group), rake, settlement in rules:
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
        off["basis"] = [money_basis(row, rake, settlement) for row in records]
        off["ruleset"] = off["scored_with"]
        parts.append(off)
    return pd.concat(parts) if parts else pd.DataFrame()


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
