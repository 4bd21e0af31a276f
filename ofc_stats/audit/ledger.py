"""What does the room owe me?  A ledger per player × room × currency.

For each seat with reported money the audit knows what the rules say it
should have got (points × stakes, the room's rake and short-stack
settlement, :mod:`ofc_stats.audit.money`).  The ledger sums both per player,
room and currency, and lists the hands behind the difference, so a player
can take the numbers to the room.  A player is named by name, by the
room's player id, or ``hero`` (the player who recorded the files); several
names can be summed as one person's aliases.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ofc_stats.audit.money import TOLERANCE, room_money
from ofc_stats.audit.room_rules import RoomRules
from ofc_stats.store.views import OfcData

HERO = "hero"
LEDGER_COLUMNS = [
    "player",
    "room",
    "currency",
    "hands",
    "money_rules",
    "money_paid",
    "difference",
    "hands_off",
    "off_hand_keys",
]


def _matches(seats: pd.DataFrame, key: str) -> pd.Series:
    if key == HERO:
        return seats["hero"].fillna(False).astype(bool)
    return (seats["player"] == key) | (seats["player_key"] == key)


def ledger(
    data: OfcData,
    player_keys: Sequence[str],
    *,
    alias: str | None = None,
    rules: RoomRules | None = None,
) -> pd.DataFrame:
    """One row per player (or ``alias`` for all of them) × room × currency.

    ``money_rules`` is what the rules give, ``money_paid`` what the room
    reported, ``difference`` = paid − rules (negative: the room owes the
    player), ``off_hand_keys`` the hands whose money differs by more than a
    cent, largest difference first.
    """
    seats = room_money(data, rules).seats
    parts = []
    for key in player_keys:
        mine = seats[_matches(seats, key) & seats["reported_money"].notna()].copy()
        mine["who"] = alias or key
        parts.append(mine)
    if not parts or all(p.empty for p in parts):
        return pd.DataFrame(columns=LEDGER_COLUMNS)
    frame = pd.concat(parts, ignore_index=True).drop_duplicates(["who", "hand_key", "seat"])
    frame["diff"] = frame["reported_money"] - frame["expected_money"]
    rows = []
    for (who, room, currency), group in frame.groupby(["who", "room", "currency"], sort=True):
        off = group[group["diff"].abs() > TOLERANCE]
        off = off.reindex(off["diff"].abs().sort_values(ascending=False).index)
        rows.append(
            {
                "player": who,
                "room": room,
                "currency": currency,
                "hands": int(group["hand_key"].nunique()),
                "money_rules": float(np.round(group["expected_money"].sum(), 6)),
                "money_paid": float(np.round(group["reported_money"].sum(), 6)),
                "difference": float(np.round(group["diff"].sum(), 6)) + 0.0,  # no -0
                "hands_off": len(off),
                "off_hand_keys": list(off["hand_key"]),
            }
        )
    return pd.DataFrame(rows, columns=LEDGER_COLUMNS)


def ledger_lines(frame: pd.DataFrame, shown: int = 5) -> list[str]:
    """The ledger for a terminal: one line per row, then the hands behind a difference."""
    if frame.empty:
        return ["ledger: no seat of these players has reported money"]
    out = []
    for row in frame.to_dict("records"):
        currency, difference = str(row["currency"]), float(row["difference"])
        unit = f" {currency}" if currency else ""
        owe = (
            f"the room owes {-difference:g}{unit}"
            if difference < -TOLERANCE
            else f"the room paid {difference:g}{unit} more than the rules"
            if difference > TOLERANCE
            else "settled as the rules say"
        )
        out.append(
            f"{row['player']} · {row['room']}{unit}: {int(row['hands']):,} hands, "
            f"rules {float(row['money_rules']):g}, paid {float(row['money_paid']):g}, "
            f"difference {difference:+g} ({owe})"
        )
        if row["hands_off"]:
            keys = [str(k) for k in row["off_hand_keys"]]
            more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
            out.append(f"  {row['hands_off']} hand(s) differ: {', '.join(keys[:shown])}{more}")
    return out
