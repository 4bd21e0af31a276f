"""The data the page carries so that its filter bar recomputes everything it shows.

One row per hand of the report's player (the scope the command line chose),
kept column by column and small: times as seconds, rooms, currencies,
accounts and opponents as indexes into short name lists.  The page's script
(``assets/report.js``) filters these rows by room, stakes with their
currency, dates, table size and opponent, and recomputes from them the
results, the charts over dates, sessions and hours of play, the tables by
stakes, room and opponent, the hand browser, the opponent pages and the
room ledger.  Money is summed only within one currency.

Hands the room paid but the rules could not score (another seat's board
incomplete) are carried too, with no points: the ledger counts their money
as paid and apart, as :mod:`reports.ledger` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ofc_stats.audit.ledger import book
from ofc_stats.store.views import OfcData
from reports.base import ORDER, SEATS, VERSUS, prepare, shared_hands
from reports.filters import Filters
from reports.ledger import money_seats
from reports.replay import hand_details

REPLAYS = 2_000  # hands carried with their replayer data (the biggest pots and the newest)

HANDS_SQL = f"""
SELECT s.hand_id, s.hand_key, epoch(s.played_at)::BIGINT AS t, s.room, s.table_id,
       s.stakes, coalesce(s.currency, '') AS currency, s.seat_count, s.player_key,
       s.net_capped AS points, s.reported_money AS money, s.fouled, s.in_fantasy,
       s.royalties, coalesce(s.fantasy_entry > 0 OR s.fantasy_stays, false) AS earns_fantasy
FROM {SEATS} s ORDER BY {ORDER}
"""

OPPONENTS_SQL = f"""
SELECT hand_id, list(opponent ORDER BY opponent) AS names, list(points ORDER BY opponent) AS pts
FROM {VERSUS} GROUP BY hand_id
"""

GRADED_SQL = f"""
SELECT m.hand_id, sum(g.loss) AS loss
FROM grades g JOIN (SELECT hand_id, hand_key, seat FROM {SEATS}) m
  ON g.hand_key = m.hand_key AND g.seat = m.seat
WHERE g.loss IS NOT NULL GROUP BY m.hand_id
"""

UNSCORED_SQL = """
SELECT h.hand_id, h.hand_key, epoch(h.played_at)::BIGINT AS t, h.room, h.table_id, h.stakes,
       coalesce(h.currency, '') AS currency, h.seat_count
FROM hands h WHERE h.hand_id IN (SELECT hand_id FROM explore_unscored)
"""


@dataclass(frozen=True)
class LedgerHands:
    """Per hand of the player: money the rules give (None where not scored) and money paid."""

    hand_ids: np.ndarray
    accounts: list[str]
    rules: list[float | None]
    paid: list[float]


def ledger_hands(data: OfcData, filters: Filters) -> LedgerHands:
    """The room ledger's hands for the report's player: one switch point.

    Today from :func:`ofc_stats.audit.ledger.book` over the player's seats with
    money (its per-hand rows); the audit's store view of the ledger replaces
    this body when it lands, with the same answer.
    """
    seats = money_seats(data, filters)
    if seats.empty:
        return LedgerHands(np.zeros(0, np.int64), [], [], [])
    ids = pa.table({"hand_id": pa.array(seats["hand_id"].to_numpy(np.int64))})
    data.connection.register("explore_money_ids", ids)
    try:
        whose = data.df(
            "SELECT hand_id, seat, coalesce(player_id, player) AS who FROM seats "
            "WHERE hand_id IN (SELECT hand_id FROM explore_money_ids)"
        )
    finally:
        data.connection.unregister("explore_money_ids")
    seats = seats.merge(whose, on=["hand_id", "seat"], how="left")
    seats["who"] = seats["who"].fillna("")
    hands = book(data, seats).hands
    keyed = seats.drop_duplicates("hand_key").set_index("hand_key")["hand_id"]
    hand_ids = keyed.reindex(hands["hand_key"]).to_numpy(dtype=np.int64)
    return LedgerHands(
        hand_ids,
        [str(w) for w in hands["player"]],
        [_number(v) for v in hands["money_rules"]],
        [float(v) for v in hands["money_paid"]],
    )


def page_data(data: OfcData, filters: Filters) -> dict[str, Any]:
    """Everything the page's script recomputes from, as JSON-ready columns (see module doc)."""
    prepare(data, filters)
    mine = data.arrow(HANDS_SQL)
    frame = mine.to_pandas()
    frame["scored"] = True
    ledger = ledger_hands(data, filters)
    unscored_ids = np.setdiff1d(ledger.hand_ids, frame["hand_id"].to_numpy(np.int64))
    if len(unscored_ids):
        data.connection.register(
            "explore_unscored", pa.table({"hand_id": pa.array(unscored_ids, pa.int64())})
        )
        try:
            extra = data.df(UNSCORED_SQL)
        finally:
            data.connection.unregister("explore_unscored")
        first = pd.Series(ledger.accounts, index=ledger.hand_ids)
        first = first[~first.index.duplicated()]
        extra["player_key"] = first.reindex(extra["hand_id"]).to_numpy()
        extra["scored"] = False
        frame = pd.concat([frame, extra], ignore_index=True).sort_values(
            ["t", "hand_key"], kind="stable", na_position="first"
        )
    frame = frame.reset_index(drop=True)
    position = pd.Series(np.arange(len(frame)), index=frame["hand_id"].to_numpy())
    position = position[~position.index.duplicated()]

    opponents = data.arrow(OPPONENTS_SQL).to_pydict()
    names: dict[str, int] = {}
    opp: list[list[int]] = [[] for _ in range(len(frame))]
    vs: list[list[float]] = [[] for _ in range(len(frame))]
    for hand_id, who, pts in zip(
        opponents["hand_id"], opponents["names"], opponents["pts"], strict=True
    ):
        at = int(position[hand_id])
        opp[at] = [names.setdefault(str(n), len(names)) for n in who]
        vs[at] = [round(float(p), 2) for p in pts]

    rules: list[float | None] = [None] * len(frame)
    paid: list[float | None] = [None] * len(frame)
    for hand_id, value, money in zip(ledger.hand_ids, ledger.rules, ledger.paid, strict=True):
        at = int(position[hand_id])  # one person's seats in one hand: summed
        before, before_paid = rules[at], paid[at]
        rules[at] = value if before is None or value is None else before + value
        paid[at] = money if before_paid is None else before_paid + money

    loss: list[float | None] = [None] * len(frame)
    if int(data.sql("SELECT count(*) FROM grades").fetchall()[0][0]):
        for hand_id, value in data.sql(GRADED_SQL).fetchall():
            loss[int(position[hand_id])] = round(float(value), 3)

    rooms, room_index = _codes(frame["room"])
    currencies, currency_index = _codes(frame["currency"])
    accounts, account_index = _codes(frame["player_key"])
    tables, table_index = _codes(frame["table_id"])
    shared = shared_hands(data)
    return {
        "rooms": rooms,
        "currencies": currencies,
        "accounts": accounts,
        "tables": tables,
        "opponents": list(names),
        "session_gap": filters.session_gap,
        "shared": shared,
        "hand_ids": frame["hand_id"].tolist(),  # not carried: finds the replayed hands' files
        "hands": {
            "key": frame["hand_key"].tolist(),
            "t": _ints(frame["t"]),
            "room": room_index,
            "table": table_index,
            "stakes": [_number(v) for v in frame["stakes"]],
            "cur": currency_index,
            "seats": _ints(frame["seat_count"]),
            "acct": account_index,
            "scored": [int(bool(v)) for v in frame["scored"]],
            "points": [_number(v) for v in frame["points"]],
            "money": [_number(v) for v in frame["money"]],
            "foul": _flags(frame["fouled"]),
            "fl": _flags(frame["in_fantasy"]),
            "earns": _flags(frame["earns_fantasy"]),
            "roy": [_number(v) for v in frame["royalties"]],
            "opp": opp,
            "vs": vs,
            "rules": rules,
            "paid": paid,
            "loss": loss,
        },
    }


def replays(data: OfcData, carried: dict[str, Any], known: set[str]) -> dict[str, dict[str, Any]]:
    """The replayer data the page carries besides ``known``: the biggest pots, then the
    newest hands, :data:`REPLAYS` in all (every hand of a small report)."""
    hands = carried["hands"]
    keys: list[str] = hands["key"]
    ids: list[int] = carried["hand_ids"]
    points = np.array([abs(p) if p is not None else 0.0 for p in hands["points"]])
    chosen: dict[int, None] = {}
    for at in np.argsort(-points, kind="stable")[: REPLAYS // 3]:
        chosen.setdefault(int(at))
    for at in range(len(keys) - 1, -1, -1):
        if len(chosen) >= REPLAYS:
            break
        chosen.setdefault(at)
    wanted = [at for at in chosen if keys[at] not in known]
    if not wanted:
        return {}
    return hand_details(data, [keys[at] for at in wanted], [ids[at] for at in wanted])


def _codes(values: pd.Series) -> tuple[list[str], list[int]]:
    """Distinct values (sorted, missing as '') and each row's index into them."""
    text = values.fillna("").astype(str)
    codes, uniques = pd.factorize(text, sort=True)
    return [str(u) for u in uniques], codes.tolist()


def _number(value: object) -> float | None:
    if value is None or value is pd.NA:
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if math.isnan(number) else round(number, 4)


def _ints(values: pd.Series) -> list[int | None]:
    return [None if v is None or v is pd.NA or v != v else int(v) for v in values.tolist()]


def _flags(values: pd.Series) -> list[int]:
    return [1 if v is True or v == 1 else 0 for v in values.tolist()]
