"""What the room owes you: the audit's ledger for the report's player.

Per room and currency: the hands with money, the money the rules give
(points × stakes less the room's rake and short-stack settlement, inferred
from these hands by :mod:`ofc_stats.audit.ledger`), the money the room paid,
the difference, and the hands behind it, each opening the replayer.  Only
the report's own seats and their hands are read, so the section costs the
player's hands, not the dataset's.
"""

from __future__ import annotations

import pandas as pd

from ofc_stats.audit.ledger import book, owed_text
from ofc_stats.audit.money import TOLERANCE
from ofc_stats.store.views import OfcData
from reports.base import SEATS, Report, prepare
from reports.filters import Filters
from reports.replay import hand_details
from reports.stats import plural

LINKED = 30  # hands behind a difference carried with their replayer data
LISTED = 200  # hands behind a difference listed

NO_MONEY = (
    "No money is recorded for these hands (simulated hands, or an app that does not "
    "write what each seat won), so there is no ledger to show."
)


def build(data: OfcData, filters: Filters) -> Report:
    report = Report("ledger", "What the room owes you")
    prepare(data, filters)
    seats = data.df(f"SELECT hand_id, hand_key, seat FROM {SEATS} WHERE reported_money IS NOT NULL")
    if seats.empty:
        report.notes.append(NO_MONEY)
        return report
    seats["who"] = "you"
    ledger = book(data, seats)
    rows = ledger.rows
    for row in rows.to_dict("records"):
        currency = str(row["currency"])
        where = f"{row['room']} {currency}".strip()
        report.notes.append(
            f"{where}: over {plural(int(row['hands']), 'hand')} the rules give "
            f"{float(row['money_rules']):,.2f}, the room paid {float(row['money_paid']):,.2f}; "
            f"{owed_text(float(row['difference']), currency)}" + _differ(int(row["hands_off"]))
        )
    report.tables["ledger"] = pd.DataFrame(
        {
            "room": rows["room"],
            "currency": rows["currency"],
            "hands": rows["hands"],
            "money_by_the_rules": rows["money_rules"],
            "money_paid": rows["money_paid"],
            "money_difference": rows["difference"],
            "hands_that_differ": rows["hands_off"],
        }
    )
    report.captions["ledger"] = (
        "money difference = paid − what the rules give (negative: the room owes you); "
        + "; ".join(r.describe() for r in ledger.rakes)
    )
    off = ledger.hands[ledger.hands["difference"].abs() > TOLERANCE].head(LISTED)
    if len(off):
        played = data.df(
            f"SELECT DISTINCT hand_key, played_at FROM {SEATS} "
            "WHERE list_contains($keys, hand_key)",
            {"keys": off["hand_key"].tolist()},
        )
        listed = off.merge(played, on="hand_key", how="left")
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


def _differ(count: int) -> str:
    if not count:
        return "."
    return f" ({plural(count, 'hand')} {'differs' if count == 1 else 'differ'})."
