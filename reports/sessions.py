"""Results as a tracker shows them: by session, day, stakes, room and currency.

A session is the player's consecutive hands of one format at one room's table
with no gap longer than ``Filters.session_gap`` minutes; it lasts from its first
hand to its last plus a minute.  A table's hands without a time (an SwC capture
has none) are one "no time" row: when they were played, and so their sessions,
cannot be told, and a session each made every one of them a session.  Everything is
aggregated in DuckDB over the report's scope (count, sum and sum of squares per group), so the
player's seats never come into Python one by one.  Money is summed only
within one currency: a group that mixes currencies shows none.
"""

from __future__ import annotations

import pandas as pd

from ofc_stats.wording import plural
from reports.base import SEATS, Report, Scope
from reports.charts import bars_with_ci
from reports.ledger import money_seats, paid_not_scored, paid_text
from reports.stats import TOO_FEW, moments_ci

# A hand begins a session when it is the table's first, the first without a time (they
# sort last: a table's hands without a time are one group, "no time", not a session
# each), or more than the gap after the one before.  A table is the store's: one of a
# format and room, and one per file where its hand ids were reused (its run, the
# ``table_runs`` view; two simulations' T0000 are two tables, never one session).
MARKED = f"""
WITH marked AS (
  SELECT s.format, s.room, s.table_id, r.run, s.played_at, s.hand_key, s.stakes, s.currency,
         s.net_capped AS points, s.reported_money AS money,
         CASE WHEN lag(s.hand_key) OVER w IS NULL THEN 1
              WHEN s.played_at IS NULL THEN CASE WHEN lag(s.played_at) OVER w IS NULL
                                                 THEN 0 ELSE 1 END
              WHEN s.played_at - lag(s.played_at) OVER w > to_minutes($gap::BIGINT) THEN 1
              ELSE 0 END AS fresh
  FROM {SEATS} s LEFT JOIN table_runs r USING (hand_id)
  WINDOW w AS (PARTITION BY s.format, s.room, s.table_id, r.run
               ORDER BY s.played_at, s.hand_key)
)
SELECT *, sum(fresh) OVER (PARTITION BY format, room, table_id, run
                           ORDER BY played_at, hand_key ROWS UNBOUNDED PRECEDING) AS session
FROM marked
"""

MOMENTS = """count(*) AS hands, sum(points) AS net_points, sum(points * points) AS points_sq,
  CASE WHEN count(DISTINCT currency) <= 1 THEN any_value(currency) END AS currency,
  CASE WHEN count(DISTINCT currency) <= 1 THEN count(money) END AS money_hands,
  CASE WHEN count(DISTINCT currency) <= 1 THEN money_shown(sum(money)) END AS net_money,
  CASE WHEN count(DISTINCT currency) <= 1 THEN sum(money * money) END AS money_sq"""

# A session's minutes: its first hand to its last, plus a minute (a hand takes about one);
# none for a table's hands without a time, one row with no start.  The page's script (sessionsOf in
# assets/report.js) keeps the same definition for the hands its filter bar keeps.
SESSIONS_SQL = f"""
SELECT min(played_at) AS start,
       (epoch(max(played_at)) - epoch(min(played_at))) / 60 + 1 AS minutes,
       room, table_id AS "table", any_value(stakes) AS stakes, {MOMENTS}
FROM ({MARKED}) GROUP BY format, room, table_id, run, session
ORDER BY start, room, "table", run
"""

GROUPS = {
    "day": "CAST(played_at AS DATE)",
    "stakes": "stakes",
    "room": "room",
    "currency": "coalesce(currency, '(none)')",
}


def _unscored_money(scope: Scope) -> str:
    """The player's hands with paid money that were not scored, per currency ('' if none)."""
    unscored = paid_not_scored(money_seats(scope))
    return ", ".join(
        f"{plural(count, 'hand')} ({paid_text(paid, currency)})"
        for currency, (count, paid) in unscored.items()
    )


def _with_intervals(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-hand means and 95% intervals, points and money, from the SQL moments."""
    mean, low, high = moments_ci(frame["hands"], frame["net_points"], frame["points_sq"])
    frame["points_per_hand"], frame["low"], frame["high"] = mean, low, high
    money = frame["money_hands"].fillna(0)
    mmean, mlow, mhigh = moments_ci(money, frame["net_money"], frame["money_sq"])
    frame["money_per_hand"], frame["money_low"], frame["money_high"] = mmean, mlow, mhigh
    return frame.drop(columns=["points_sq", "money_sq", "money_hands"])


COLUMNS = [
    "hands",
    "net_points",
    "points_per_hand",
    "low",
    "high",
    "currency",
    "net_money",
    "money_per_hand",
    "money_low",
    "money_high",
]


def build(scope: Scope) -> Report:
    report = Report("sessions", "Sessions, days and stakes")
    data, filters = scope.data, scope.filters
    gap = {"gap": filters.session_gap}
    sessions = _with_intervals(data.df(SESSIONS_SQL, gap))
    report.tables["sessions"] = sessions[
        [
            "start",
            "minutes",
            "room",
            "table",
            "stakes",
            "hands",
            "net_points",
            "currency",
            "net_money",
        ]
    ]
    report.captions["sessions"] = (
        f"a session: consecutive hands at one table, no gap over {filters.session_gap} "
        "minutes; a table's hands without a time are one row with no start and no minutes "
        "(not a session: when they were played cannot be told)"
    )
    for name, expression in GROUPS.items():
        frame = _with_intervals(
            data.df(
                f"SELECT {expression} AS grp, {MOMENTS} FROM (SELECT *, net_capped AS points, "
                f"reported_money AS money FROM {SEATS}) GROUP BY 1 ORDER BY 1"
            )
        )
        if name == "currency":
            frame = frame.drop(columns="currency")
        report.tables[f"by_{name}"] = frame.rename(columns={"grp": name})[
            [name, *[c for c in COLUMNS if c in frame.columns]]
        ]
        report.captions[f"by_{name}"] = f"per-hand means; 95% intervals {TOO_FEW}"
    unscored = _unscored_money(scope)
    if unscored:
        report.notes.append(
            f"These tables hold scored hands only: {unscored} not scored, with money the "
            "room paid, are left out of them (the ledger, “What the room owes you”, "
            "lists them and counts their money as paid)."
        )
    if sessions.empty:
        report.notes.append("No sessions match these filters.")
        return report
    timed, untimed = sessions[sessions["start"].notna()], sessions[sessions["start"].isna()]
    if len(timed) == 1:  # "1 of them winning; the best +322, the worst +322" said it thrice
        report.notes.append(f"1 session: {timed['net_points'].iloc[0]:+,.0f} points.")
    elif len(timed):
        winning = int((timed["net_points"] > 0).sum())
        report.notes.append(
            f"{plural(len(timed), 'session')}, {winning:,} of them winning; "
            f"the best {timed['net_points'].max():+,.0f} points, "
            f"the worst {timed['net_points'].min():+,.0f}."
        )
    if len(untimed):
        report.notes.append(
            f"{plural(int(untimed['hands'].sum()), 'hand')} without a time, "
            f"{untimed['net_points'].sum():+,.0f} points: one row a table "
            f"({plural(len(untimed), 'table')}), not sessions, since when they were played "
            "cannot be told."
        )
    days = report.tables["by_day"].tail(30).assign(day=lambda f: f["day"].astype(str))
    report.figures["by_day"] = bars_with_ci(
        days, "day", "points_per_hand", "low", "high", "Points per hand by day", "points per hand"
    )
    stakes = report.tables["by_stakes"].dropna(subset=["stakes"])
    if len(stakes):
        report.figures["by_stakes"] = bars_with_ci(
            stakes.assign(label=stakes["stakes"].map(lambda v: f"{v:g} a point")),
            "label",
            "points_per_hand",
            "low",
            "high",
            "Points per hand by stakes",
            "points per hand",
        )
    return report
