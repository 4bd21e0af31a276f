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

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ofc_stats.audit.explain import follows_text, money_text
from ofc_stats.audit.money import (
    TOLERANCE,
    Rake,
    RoomMoney,
    Winners,
    after_rake,
    by_room,
    money_mismatches,
)
from ofc_stats.audit.patterns import NOTHING, HandPattern, hand_patterns
from ofc_stats.payouts.settle import Settlement

FOLLOWS = "follows the room's points"


def money_rows(
    money: RoomMoney,
    shares: Iterable[pd.DataFrame] | None = None,
    seen: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """One row per seat whose money differs from the rules' under its room's rake and
    settlement, with class, cause, values, explanation, basis and ``own_money``.

    The seats are ``money.seats``, or each of ``shares`` (a share of the tables' seats
    priced by ``money.rooms``: :func:`~ofc_stats.audit.money.priced_shares`) shown to
    ``seen`` then let go: kept are the rows, their hands' seats and each room's winners
    paid in full as counts, what the patterns across a hand are judged by."""
    if shares is None:
        seats = money.seats
        groups = list(seats.groupby(["room", "currency"], sort=True)) if len(seats) else []
        rules = enumerate(zip(groups, money.rakes, money.settlements, strict=True))
        parts = [_named(_room_rows(g, i, money), g, i, money) for i, ((_, g), *_) in rules]
        found = [part for part in parts if not part.empty]
        return pd.concat(found) if found else pd.DataFrame()
    index = {(t.room, t.currency): i for i, t in enumerate(money.rooms)}
    rows: dict[int, list[pd.DataFrame]] = {}
    hands: dict[int, list[pd.DataFrame]] = {}
    winners: dict[int, Winners] = {}
    for seats in shares:
        if seen is not None:
            seen(seats)
        for key, group in by_room(seats):
            at = index[key]
            winners[at] = (
                winners[at].plus(Winners.of(group)) if at in winners else Winners.of(group)
            )
            off = _room_rows(group, at, money)
            if not off.empty:
                rows.setdefault(at, []).append(off)
                hands.setdefault(at, []).append(group[group["hand_key"].isin(off["hand_key"])])
        del seats
    found = [
        _named(
            pd.concat(rows[at], ignore_index=True),
            pd.concat(hands[at], ignore_index=True),
            at,
            money,
            winners[at],
        )
        for at in sorted(rows)
    ]
    return pd.concat(found, ignore_index=True) if found else pd.DataFrame()


def _room_rows(group: pd.DataFrame, index: int, money: RoomMoney) -> pd.DataFrame:
    """:func:`money_rows` of one room and currency's seats, its rules the ``index``-th,
    but for the patterns across their hands (:func:`_named`)."""
    rake, settlement = money.rakes[index], money.settlements[index]
    off = money_mismatches(group, rake)
    if off.empty:
        return off
    off = off.copy()
    off["class"] = "money"
    off["cause"] = np.where(off["short_paid"], "loser paid less than owed", "amount")
    off["room_value"] = off["reported_money"]
    off["recomputed_value"] = off["expected_money"]
    off["unit"] = off["currency"]
    records = off.to_dict("records")
    off["explanation"] = [money_text(row, rake, settlement) for row in records]
    off["basis"] = [money_basis(row, rake, settlement) for row in records]
    own = off["reported_points"] * off["stakes"].fillna(1.0) * rake.multiplier
    off["own_money"] = after_rake(own.astype(float), rake)
    off["rake_index"] = index
    off["ruleset"] = off["scored_with"]
    return off


def _named(
    off: pd.DataFrame,
    seats: pd.DataFrame,
    index: int,
    money: RoomMoney,
    winners: Winners | None = None,
) -> pd.DataFrame:
    """``off`` with the pattern across each hand named (``seats``: the room's, or at least
    those hands' with ``winners`` the room's winning seats paid in full)."""
    if off.empty:
        return off
    rake, settlement = money.rakes[index], money.settlements[index]
    pairwise = money.pairwise[index] if index < len(money.pairwise) else {}
    keys = off["hand_key"].unique()
    _name_patterns(off, hand_patterns(seats, keys, rake, settlement, pairwise, winners))
    return off


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
