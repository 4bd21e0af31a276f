"""What does the room owe me?  A ledger per player × room × currency.

For each seat with reported money the audit knows what the rules say it
should have got (points × stakes, the room's rake and short-stack
settlement, :mod:`ofc_stats.audit.money`).  The ledger sums both per player,
room and currency, and lists the hands behind the difference, so a player
can take the numbers to the room.  What the room paid is a fact and is
always counted; what the rules give needs a scored hand, so a hand that
could not be scored (another seat's board incomplete) has its paid money
in ``money_paid`` and is counted apart as not checked.  A player is named by name, by the
room's player id, by an alias stored with ``ofc-stats players alias``, or
``hero`` (the player who recorded the files); several names can be summed as
one person's aliases.

Only the player's hands are read (and every seat of them, which the
short-stack settlement needs), and the room's rake and settlement are
inferred from those hands: a ledger costs the player's hands, not the
dataset's, so the report can show one on a million hands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
    "overpaid",
    "underpaid",
    "hands_off",
    "off_hand_keys",
    "overpaid_hand_keys",
    "underpaid_hand_keys",
    "net_hand_keys",
    "hands_not_scored",
    "money_not_scored",
    "not_scored_hand_keys",
]
CENT = 0.005  # a difference that rounds to a cent or more is behind a ledger's net
HAND_COLUMNS = ["player", "hand_key", "room", "currency", "money_rules", "money_paid", "difference"]
KEYS_TABLE = "ledger_keys"  # the ledger's hand keys, registered while its money is read
UNSCORED_TABLE = "ledger_unscored"  # hands with money the rules could not price

# The paid money, room and currency of seats whose hand was not scored: MONEY_SQL
# reads scored hands only, and a fact the room reported must not be dropped.
UNSCORED_SQL = f"""
SELECT s.hand_id, s.seat, h.room, coalesce(h.currency, '') AS currency, s.reported_money
FROM (SELECT hand_id, seat, reported_money FROM seats
      WHERE hand_id IN (SELECT hand_id FROM {UNSCORED_TABLE})) s
JOIN (SELECT hand_id, room, currency FROM hands
      WHERE hand_id IN (SELECT hand_id FROM {UNSCORED_TABLE})) h USING (hand_id)
"""

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
    frame = seats[["who", "hand_id", "seat"]].merge(priced, on=["hand_id", "seat"], how="left")
    frame = pd.concat([frame[frame["room"].notna()], _unscored(data, frame)], ignore_index=True)
    frame = frame[frame["reported_money"].notna()]
    frame["scored"] = frame["expected_money"].notna()
    frame["room"] = frame["room"].astype(str)
    frame["currency"] = frame["currency"].astype(str)
    per_hand = (
        frame.groupby(["who", "room", "currency", "hand_id"], sort=True, observed=True)
        .agg(
            money_rules=("expected_money", "sum"),
            money_paid=("reported_money", "sum"),
            scored=("scored", "all"),
        )
        .reset_index()
    )
    per_hand.loc[~per_hand["scored"], "money_rules"] = np.nan
    names = seats.drop_duplicates("hand_id").set_index("hand_id")["hand_key"]
    per_hand["hand_key"] = names.reindex(per_hand["hand_id"]).to_numpy()
    per_hand["difference"] = per_hand["money_paid"] - per_hand["money_rules"]
    order = per_hand["difference"].abs().sort_values(ascending=False, kind="stable").index
    per_hand = per_hand.reindex(order)
    rows = []
    groups = per_hand.groupby(["who", "room", "currency"], sort=True, observed=True)
    for (who, room, currency), group in groups:
        scored = group[group["scored"]]
        unscored = group[~group["scored"]]
        difference = scored["difference"]
        over = scored[difference > TOLERANCE]
        under = scored[difference < -TOLERANCE]
        rows.append(
            {
                "player": who,
                "room": str(room),
                "currency": str(currency),
                "hands": len(group),
                # Every money column is over the same hands, the scored ones: a hand
                # the rules cannot price has its paid money in money_not_scored.
                "money_rules": _cents(scored["money_rules"].sum()),
                "money_paid": _cents(scored["money_paid"].sum()),
                "difference": _cents(difference.sum()),
                "overpaid": _cents(over["difference"].sum()),
                "underpaid": _cents(-under["difference"].sum()),
                "hands_off": len(over) + len(under),
                "off_hand_keys": _keys(scored[difference.abs() > TOLERANCE]),
                "overpaid_hand_keys": _keys(over),
                "underpaid_hand_keys": _keys(under),
                "net_hand_keys": _keys(scored[difference.abs() >= CENT]),
                "hands_not_scored": len(unscored),
                "money_not_scored": _cents(unscored["money_paid"].sum()),
                "not_scored_hand_keys": _keys(unscored),
            }
        )
    hands = per_hand.rename(columns={"who": "player"})[HAND_COLUMNS].reset_index(drop=True)
    hands["room"] = hands["room"].astype(str)
    hands["currency"] = hands["currency"].astype(str)
    return Ledger(pd.DataFrame(rows, columns=LEDGER_COLUMNS), hands, money.rakes, money.settlements)


def _unscored(data: OfcData, frame: pd.DataFrame) -> pd.DataFrame:
    """The ledger's seats (who, hand_id, seat) that ``room_money`` did not price, with
    their paid money, room and currency and no expected money."""
    missing = frame.loc[frame["room"].isna(), ["who", "hand_id", "seat"]]
    if missing.empty:
        return missing.assign(room="", currency="", expected_money=np.nan, reported_money=np.nan)
    ids = pd.unique(missing["hand_id"].to_numpy(dtype=np.int64))
    data.connection.register(UNSCORED_TABLE, pa.table({"hand_id": pa.array(ids, pa.int64())}))
    try:
        paid = data.df(UNSCORED_SQL)
    finally:
        data.connection.unregister(UNSCORED_TABLE)
    return missing.merge(paid, on=["hand_id", "seat"]).assign(expected_money=np.nan)


def _keys(hands: pd.DataFrame) -> list[str]:
    """The hand keys of some per-hand rows, largest difference first (their order)."""
    return [str(k) for k in hands["hand_key"]]


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

    ``money_rules`` and ``money_paid`` are what the rules give and what the
    room paid on the same hands, the scored ones; ``difference`` = paid − rules
    (negative: the room owes the player) is the net of ``overpaid`` and
    ``underpaid``, the gross amounts of the hands paid more and less than the
    rules by over a cent (each with its hands, largest first); errors that
    net to zero are still errors.  ``net_hand_keys`` lists every hand whose
    difference rounds to a cent, so a net made of small roundings has hands
    too.  ``hands_not_scored`` hands (``money_not_scored`` paid,
    ``not_scored_hand_keys``) could not be checked: the rules cannot price a
    hand that was not scored.
    """
    return book(data, player_seats(data, player_keys, alias), rules).rows


def ledger_lines(frame: pd.DataFrame, shown: int = 5) -> list[str]:
    """The ledger for a terminal: one line per row, then the hands behind each amount."""
    if frame.empty:
        return ["ledger: no seat of these players has reported money"]
    out = []
    for row in frame.to_dict("records"):
        currency, difference = str(row["currency"]), float(row["difference"])
        unit = f" {currency}" if currency else ""
        hands, unscored = int(row["hands"]), int(row["hands_not_scored"])
        checked = f"rules {float(row['money_rules']):g}, paid {float(row['money_paid']):g}"
        if unscored:
            checked = f"on the {hands - unscored:,} scored: {checked}"
        out.append(
            f"{row['player']} · {row['room']}{unit}: {hands:,} hands, {checked}, "
            f"difference {difference:+g} ({owed_text(row, currency)})"
        )

        def listed(keys: list[str]) -> str:
            more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
            return ", ".join(keys[:shown]) + more

        for column, amount, what in (
            ("overpaid_hand_keys", float(row["overpaid"]), "paid more than the rules"),
            ("underpaid_hand_keys", float(row["underpaid"]), "paid less than the rules"),
        ):
            keys = [str(k) for k in row[column]]
            if keys:
                out.append(f"  {len(keys)} hand(s) {what} ({amount:g}{unit}): {listed(keys)}")
        if not row["hands_off"] and abs(difference) > 0:
            keys = [str(k) for k in row["net_hand_keys"]]
            out.append(f"  the {difference:+g}{unit} is roundings of under a cent: {listed(keys)}")
        if unscored:
            keys = [str(k) for k in row["not_scored_hand_keys"]]
            paid = float(row["money_not_scored"])
            out.append(
                f"  {unscored} hand(s) not scored ({paid:+g}{unit} paid, not checked): "
                f"{listed(keys)}"
            )
    return out


def owed_text(row: Mapping[Any, Any], currency: str = "") -> str:
    """Who owes whom on a ledger row, in words; "settled" only when every hand matches.

    >>> owed_text({"difference": -1.0, "hands_off": 1, "overpaid": 0, "underpaid": 1}, "USD")
    'the room owes 1 USD'
    >>> owed_text({"difference": 0.0, "hands_off": 2, "overpaid": 40, "underpaid": 40}, "INR")
    'not settled: 40 INR overpaid and 40 INR underpaid net to 0'
    >>> owed_text({"difference": 0.0, "hands_off": 0, "overpaid": 0, "underpaid": 0})
    'settled as the rules say'
    """
    unit = f" {currency}" if currency else ""
    difference = float(row["difference"])
    if difference < -TOLERANCE:
        return f"the room owes {-difference:g}{unit}"
    if difference > TOLERANCE:
        return f"the room paid {difference:g}{unit} more than the rules"
    if int(row["hands_off"]):
        over, under = float(row["overpaid"]), float(row["underpaid"])
        return f"not settled: {over:g}{unit} overpaid and {under:g}{unit} underpaid net to 0"
    return "settled as the rules say"
