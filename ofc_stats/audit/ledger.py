"""What does the room owe me?  A ledger per player × room × currency.

For each seat with reported money the audit knows what the rules say it
should have got (points × stakes, the room's rake and short-stack
settlement, :mod:`ofc_stats.audit.money`).  The ledger sums both per player,
room and currency, and lists the hands behind the difference, so a player
can take the numbers to the room.  A player is named by name, by the
room's player id, by an alias stored with ``ofc-stats players alias``, or
``hero`` (the player who recorded the files); several names can be summed as
one person's aliases.

Only the player's hands are read (and every seat of them, which the
short-stack settlement needs), and the room's rake and settlement are
inferred from those hands: a ledger costs the player's hands, not the
dataset's, so the report can show one on a million hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from ofc_stats.audit.money import TOLERANCE, MoneyRules, Rake, room_money
from ofc_stats.audit.settle import Settlement
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
HAND_COLUMNS = ["player", "hand_key", "room", "currency", "money_rules", "money_paid", "difference"]
KEYS_TABLE = "ledger_keys"  # the ledger's hand keys, registered while its money is read

SEATS_SQL = """
SELECT hand_id, hand_key, seat FROM seats WHERE reported_money IS NOT NULL AND ({who})
"""


@dataclass(frozen=True)
class Ledger:
    """The ledger rows, the hands behind them, and the room rules they were settled by."""

    rows: pd.DataFrame  # LEDGER_COLUMNS
    hands: pd.DataFrame  # HAND_COLUMNS, one row per player and hand, largest difference first
    rakes: tuple[Rake, ...]
    settlements: tuple[Settlement, ...]


def _who(data: OfcData, key: str) -> tuple[str, dict[str, object]]:
    """The seats of ``key``: the hero's, a stored alias's accounts, else a name or id."""
    if key == HERO:
        return "coalesce(hero, false)", {}
    aliased = data.sql(
        "SELECT count(*) FROM player_aliases WHERE name = $key", {"key": key}
    ).fetchall()
    if aliased[0][0]:
        return (
            "coalesce(player_id, player) IN (SELECT account FROM player_aliases WHERE name = $key)",
            {"key": key},
        )
    return "player = $key OR coalesce(player_id, player) = $key", {"key": key}


def player_seats(
    data: OfcData, player_keys: Sequence[str], alias: str | None = None
) -> pd.DataFrame:
    """who, hand_id, hand_key, seat of every seat with money of these players
    (``alias`` names them all)."""
    parts = []
    for key in player_keys:
        who, params = _who(data, key)
        mine = data.df(SEATS_SQL.format(who=who), params)
        mine["who"] = alias or key
        parts.append(mine)
    if not parts:
        return pd.DataFrame(columns=["who", "hand_id", "hand_key", "seat"])
    return pd.concat(parts, ignore_index=True)[["who", "hand_id", "hand_key", "seat"]]


def book(data: OfcData, seats: pd.DataFrame, rules: MoneyRules = None) -> Ledger:
    """The ledger of ``seats`` (columns who, hand_id, hand_key, seat), settled from their
    hands only."""
    seats = seats.drop_duplicates(["who", "hand_id", "seat"])
    if seats.empty:
        return Ledger(
            pd.DataFrame(columns=LEDGER_COLUMNS), pd.DataFrame(columns=HAND_COLUMNS), (), ()
        )
    ids = pd.unique(seats["hand_id"].to_numpy(dtype=np.int64))
    data.connection.register(KEYS_TABLE, pa.table({"hand_id": pa.array(ids, pa.int64())}))
    try:
        money = room_money(data, rules, hands=KEYS_TABLE)
    finally:
        data.connection.unregister(KEYS_TABLE)
    priced = money.seats[
        ["hand_id", "seat", "room", "currency", "expected_money", "reported_money"]
    ]
    frame = seats[["who", "hand_id", "seat"]].merge(priced, on=["hand_id", "seat"])
    frame = frame[frame["reported_money"].notna()]
    per_hand = (
        frame.groupby(["who", "room", "currency", "hand_id"], sort=True, observed=True)
        .agg(money_rules=("expected_money", "sum"), money_paid=("reported_money", "sum"))
        .reset_index()
    )
    names = seats.drop_duplicates("hand_id").set_index("hand_id")["hand_key"]
    per_hand["hand_key"] = names.reindex(per_hand["hand_id"]).to_numpy()
    per_hand["difference"] = per_hand["money_paid"] - per_hand["money_rules"]
    order = per_hand["difference"].abs().sort_values(ascending=False, kind="stable").index
    per_hand = per_hand.reindex(order)
    rows = []
    groups = per_hand.groupby(["who", "room", "currency"], sort=True, observed=True)
    for (who, room, currency), group in groups:
        off = group[group["difference"].abs() > TOLERANCE]
        rows.append(
            {
                "player": who,
                "room": str(room),
                "currency": str(currency),
                "hands": len(group),
                "money_rules": _cents(group["money_rules"].sum()),
                "money_paid": _cents(group["money_paid"].sum()),
                "difference": _cents(group["difference"].sum()),
                "hands_off": len(off),
                "off_hand_keys": [str(k) for k in off["hand_key"]],
            }
        )
    hands = per_hand.rename(columns={"who": "player"})[HAND_COLUMNS].reset_index(drop=True)
    hands["room"] = hands["room"].astype(str)
    hands["currency"] = hands["currency"].astype(str)
    return Ledger(pd.DataFrame(rows, columns=LEDGER_COLUMNS), hands, money.rakes, money.settlements)


def _cents(value: float) -> float:
    return float(np.round(value, 6)) + 0.0  # + 0.0: no -0


def ledger(
    data: OfcData,
    player_keys: Sequence[str],
    *,
    alias: str | None = None,
    rules: MoneyRules = None,
) -> pd.DataFrame:
    """One row per player (or ``alias`` for all of them) × room × currency.

    ``money_rules`` is what the rules give, ``money_paid`` what the room
    reported, ``difference`` = paid − rules (negative: the room owes the
    player), ``off_hand_keys`` the hands whose money differs by more than a
    cent, largest difference first.
    """
    return book(data, player_seats(data, player_keys, alias), rules).rows


def ledger_lines(frame: pd.DataFrame, shown: int = 5) -> list[str]:
    """The ledger for a terminal: one line per row, then the hands behind a difference."""
    if frame.empty:
        return ["ledger: no seat of these players has reported money"]
    out = []
    for row in frame.to_dict("records"):
        currency, difference = str(row["currency"]), float(row["difference"])
        unit = f" {currency}" if currency else ""
        out.append(
            f"{row['player']} · {row['room']}{unit}: {int(row['hands']):,} hands, "
            f"rules {float(row['money_rules']):g}, paid {float(row['money_paid']):g}, "
            f"difference {difference:+g} ({owed_text(difference, currency)})"
        )
        if row["hands_off"]:
            keys = [str(k) for k in row["off_hand_keys"]]
            more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
            out.append(f"  {row['hands_off']} hand(s) differ: {', '.join(keys[:shown])}{more}")
    return out


def owed_text(difference: float, currency: str = "") -> str:
    """Who owes whom, in words: "the room owes 1 USD" for a difference of -1."""
    unit = f" {currency}" if currency else ""
    if difference < -TOLERANCE:
        return f"the room owes {-difference:g}{unit}"
    if difference > TOLERANCE:
        return f"the room paid {difference:g}{unit} more than the rules"
    return "settled as the rules say"
