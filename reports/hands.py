"""Hands to look at: the biggest wins and losses, the fouls, the Fantasyland hands.

Each listed hand links to the page's replayer, whose data
(:func:`reports.replay.hand_details`) the report carries for exactly these
hands, so the page stays small on a million hands.
"""

from __future__ import annotations

import pandas as pd

from reports.base import SEATS, Report, Scope
from reports.replay import hand_details

PER_KIND = 10  # hands listed of each kind

LISTS = {
    "biggest wins": "net_capped DESC",
    "biggest losses": "net_capped ASC",
    "fouls": "played_at DESC",
    "Fantasyland hands": "net_capped DESC",
}
WHERE = {"fouls": "fouled", "Fantasyland hands": "in_fantasy"}

LIST_SQL = """
SELECT $kind AS kind, s.hand_id, s.hand_key, s.played_at, s.room, s.player, s.net_capped AS points,
       s.reported_money AS money, s.currency, s.royalties, s.fouled
FROM {seats} s WHERE {where} ORDER BY {order}, s.hand_key LIMIT {limit}
"""


def build(scope: Scope) -> Report:
    report = Report("hands", "Hands to look at")
    data = scope.data
    parts = []
    for kind, order in LISTS.items():
        where = WHERE.get(kind, "true")
        if kind == "biggest wins":
            where = "net_capped > 0"
        elif kind == "biggest losses":
            where = "net_capped < 0"
        sql = LIST_SQL.format(seats=SEATS, where=where, order=order, limit=PER_KIND)
        parts.append(data.df(sql, {"kind": kind}))
    kept = [p for p in parts if len(p)]
    listed = pd.concat(kept, ignore_index=True) if kept else parts[0]
    ids = listed.pop("hand_id").tolist()  # finds the hands' files; not shown
    report.tables["hands"] = listed.reset_index(drop=True)
    report.captions["hands"] = "open a hand to replay it street by street"
    report.hands.add("hands")
    report.replays = hand_details(data, listed["hand_key"].tolist(), ids)
    if listed.empty:
        report.notes.append("No hands match these filters.")
    return report
