"""What the room owes you: the audit's ledger for the report's player.

Per room and currency: the hands with money, the money the rules give
(points × stakes less the room's rake and short-stack settlement), the money
the room paid, the difference, and the hands behind it, each opening the
replayer.  What the rules give is read from the store's ``ledger`` view, which
the audit prices (``ofc-stats report`` prices it first when the hands
changed), and summed by the store's ``LEDGER_SQL``, the sum ``audit --player``
prints.  The money the room paid is a fact, so
the section (and the results' money won, :func:`money_seats`) counts it on
every hand, scored or not; what the rules give needs a scored hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ofc_stats.store.views import (
    LEDGER_OF_SEATS,
    LEDGER_TOLERANCE,
    OfcData,
    ledger_of,
    owed_text,
)
from ofc_stats.wording import plural
from reports.base import MINE, PERSON, Report, Scope
from reports.replay import hand_details

LINKED = 30  # hands behind a difference carried with their replayer data
LISTED = 200  # hands behind a difference listed

# The player's seats with money under the filters, scored or not: the filters are the
# report's (over seat_results' columns), with every seat's status read as scored, since
# a hand the rules could not score was still paid.  Seats first, then their hands.  A seat
# is scored when it is one of the person's scored seats ({scored}: every seat of theirs,
# also where two of their accounts met); {skip} leaves out the hands where they met.
MONEY_SEATS = """
WITH person AS (
  SELECT * FROM (SELECT hand_id, seat, coalesce(player_id, player) AS player_key, hero,
                        reported_money FROM {seats}) m
  WHERE {mine}
), mine AS (
  SELECT * FROM person WHERE reported_money IS NOT NULL {skip}
)
SELECT s.hand_id, s.hand_key, s.seat, s.player_key AS who, s.currency, s.reported_money,
       k.hand_id IS NOT NULL AS scored, s.played_at
FROM (SELECT h.hand_id, h.hand_key, h.played_at, h.room, h.ruleset, h.seat_count,
             coalesce(h.currency, '') AS currency, m.seat, m.player_key, m.reported_money,
             'scored' AS status
      FROM (SELECT * FROM {hands} WHERE hand_id IN (SELECT hand_id FROM mine)) h
      JOIN mine m USING (hand_id)) s
LEFT JOIN {scored} k ON k.hand_id = s.hand_id AND k.seat = s.seat
WHERE {where}
ORDER BY s.hand_id, s.seat
"""

NOT_PRICED = (
    "The room's money has not been priced against the rules for these hands yet: "
    "`ofc-stats report` and `ofc-stats audit` price it."
)
NO_MONEY = (
    "No money is recorded for these hands (simulated hands, or an app that does not "
    "write what each seat won), so there is no ledger to show."
)


def build(scope: Scope) -> Report:
    report = Report("ledger", "What the room owes you")
    data = scope.data
    seats = money_seats(scope)
    if seats.empty:
        report.notes.append(NO_MONEY)
        return report
    rows, behind = _summed(data, seats, scope_ledger(scope))
    if rows.empty:
        report.notes.append(NOT_PRICED)
        return report
    for row in rows.to_dict("records"):
        currency = str(row["currency"])
        where = f"{row['room']} {currency}".strip()
        hands, unscored = int(row["hands"]), int(row["hands_not_scored"])
        paid, unscored_paid = float(row["money_paid"]), float(row["money_not_scored"])
        over = f"over {plural(hands, 'hand')}"
        if unscored:
            over = f"over the {hands - unscored:,} scored of {plural(hands, 'hand')}"
        report.notes.append(
            f"{where}: {over} the rules give "
            f"{float(row['money_rules']):,.2f}, the room paid {paid:,.2f}; "
            f"{owed_text(row, currency)}"
            + _differ(int(row["hands_off"]))
            + _not_scored(unscored, unscored_paid, currency)
        )
    report.tables["ledger"] = pd.DataFrame(
        {
            "room": rows["room"],
            "currency": rows["currency"],
            "hands": rows["hands"],
            "money_by_the_rules": rows["money_rules"],
            "money_paid": rows["money_paid"],
            "money_difference": rows["difference"],
            "overpaid": rows["overpaid"],
            "underpaid": rows["underpaid"],
            "hands_that_differ": rows["hands_off"],
            "hands_not_scored": rows["hands_not_scored"],
            "money_paid_not_scored": rows["money_not_scored"],
        }
    )
    report.captions["ledger"] = (
        "every money column is over the scored hands; money difference = paid − what the "
        "rules give (negative: the room owes you) = overpaid − underpaid, which a hand "
        "list below names one by one; a difference with no hand that differs (by over a "
        "cent) is roundings of under a cent a hand, owed by nobody; money paid on hands "
        "not scored is apart; "
        + "; ".join(
            f"{r['room']} {r['currency']}: {r['rules']} ({r['rules_source']}; out of sample: "
            f"{r['out_of_sample']})".replace("  ", " ")
            for r in rows.to_dict("records")
        )
    )
    off = behind[behind["difference"].abs() > LEDGER_TOLERANCE].head(LISTED)
    if len(off):
        listed = off.reset_index(drop=True)
        report.tables["hands_behind_it"] = pd.DataFrame(
            {
                "hand_key": listed["hand_key"],
                "played_at": listed["played_at"],
                "room": listed["room"],
                "currency": listed["currency"],
                "money_by_the_rules": listed["money_rules"],
                "money_paid": listed["money_paid"],
                "money_difference": listed["difference"],
            }
        )
        report.captions["hands_behind_it"] = "largest difference first; open a hand to replay it"
        report.hands.add("hands_behind_it")
        report.replays = hand_details(data, listed["hand_key"].head(LINKED).tolist())
    return report


def _summed(data: OfcData, seats: pd.DataFrame, ledger: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The store's ledger sums (``LEDGER_SQL``) and hands of the report's seats."""
    who = pa.table(
        {
            "who": pa.array(["you"] * len(seats), pa.string()),
            "hand_id": pa.array(seats["hand_id"].to_numpy(dtype="int64")),
            "seat": pa.array(seats["seat"].to_numpy(dtype="int8")),
        }
    )
    return ledger_of(data, who, ledger)


LEDGER_ROWS = "report_ledger"  # the ledger view's rows of the scope's money hands


def scope_ledger(scope: Scope) -> str:
    """The table of the ledger view's rows for the scope's money seats, made once per scope
    (after the CLI priced the ledger): the section's sums and hands and the page's hands
    read it (they read the player's seats only), not the view's join over every hand and
    seat three times; their keys and times are the money seats' own."""
    if scope.ledger is None:
        seats = money_seats(scope)
        mine = pa.table(
            {
                "hand_id": pa.array(seats["hand_id"].to_numpy(np.int64)),
                "seat": pa.array(seats["seat"].to_numpy(np.int64).astype(np.int8)),
                "hand_key": pa.array(seats["hand_key"].astype(str).tolist(), pa.string()),
                "played_at": pa.Array.from_pandas(seats["played_at"]),
            }
        )
        con = scope.data.connection
        con.register("report_money_seats", mine)
        try:
            rows = LEDGER_OF_SEATS.format(seats="report_money_seats")
            con.sql(f"CREATE OR REPLACE TEMP TABLE {LEDGER_ROWS} AS {rows}")
        finally:
            con.unregister("report_money_seats")
        scope.ledger = LEDGER_ROWS
    return scope.ledger


def money_seats(scope: Scope) -> pd.DataFrame:
    """hand_id, hand_key, seat, who (the account), currency, reported_money, ``scored`` and
    played_at of the report player's seats with money under the scope's filters, hands not
    scored included.

    Read once per scope and kept on it (the ledger, the results, the sessions
    and the page all ask); each caller gets its own copy.
    """
    if scope.money is None:
        filters = scope.filters
        where, params = filters.where("s")
        mine, mine_params = filters.me("m")
        skip = (
            "AND hand_id NOT IN (SELECT hand_id FROM person GROUP BY hand_id HAVING count(*) > 1)"
            if filters.self_play == "skip"
            else ""
        )
        query = MONEY_SEATS.format(
            mine=mine,
            scored=MINE,
            where=where,
            skip=skip,
            seats=PERSON,  # every seat of the player, read once by prepare()
            hands=scope.sources["hands"],  # the batches that hold the player's seats
        )
        scope.money = scope.data.df(query, {**params, **mine_params})
    return scope.money.copy()


def paid_not_scored(seats: pd.DataFrame) -> dict[str, tuple[int, float]]:
    """Per currency ('' for none) of :func:`money_seats` rows: the seats not scored and
    the money the room paid them."""
    left = seats[~seats["scored"].astype(bool)]
    return {
        str(currency): (len(group), float(group["reported_money"].sum()))
        for currency, group in left.groupby("currency", sort=True)
    }


def paid_text(paid: float, currency: str) -> str:
    """``+7.00 USD paid``: money the room paid, as the notes on hands not scored say it."""
    return f"{paid:+,.2f}{f' {currency}' if currency else ''} paid"


def _differ(count: int) -> str:
    if not count:
        return "."
    return f" ({plural(count, 'hand')} {'differs' if count == 1 else 'differ'})."


def _not_scored(count: int, paid: float, currency: str) -> str:
    if not count:
        return ""
    return f" {plural(count, 'hand')} not scored ({paid_text(paid, currency)}, not checked)."
