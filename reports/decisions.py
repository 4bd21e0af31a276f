"""Points won per street decision, and the leaks: decisions that cost the most.

Every street of a normal (not Fantasyland) hand is sorted into classes, in
SQL over the placements: where the cards went, a queen or better to the top,
what happened to a dealt pair, what was discarded.  Each class gets its count
and the average final points of the hands it occurred in, with a 95%
interval, against the player's own average and against every other player's
hands with the same decision.  Streets that match the room's timeout
auto-placement are counted apart and kept out of the classes.

Other players' numbers come from a hash sample of their hands when the
dataset is large (``OTHERS_SEATS`` seats at most), so a report stays fast on
a million hands; the sample share is reported.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ofc_stats.db import OfcData
from reports.base import Report
from reports.charts import bars_with_ci
from reports.filters import Filters
from reports.stats import Z95

OTHERS_SEATS = 250_000

STREETS_SQL = """
WITH scope AS (
  SELECT s.hand_key, s.seat, s.net_capped AS points, s.timeout_streets
  FROM seat_results s WHERE {where} AND NOT s.in_fantasy
), cards AS (
  SELECT p.hand_key, p.seat, p.street, p.card // 4 AS rank, p.destination::VARCHAR AS dest
  FROM placements p SEMI JOIN scope c ON c.hand_key = p.hand_key AND c.seat = p.seat
), ranks AS (
  SELECT hand_key, seat, street, rank, count(*) AS n,
         count(DISTINCT dest) FILTER (WHERE dest <> 'discard') AS rows_used,
         count(*) FILTER (WHERE dest = 'discard') AS discarded
  FROM cards GROUP BY ALL
), pairs AS (
  SELECT hand_key, seat, street,
    CASE WHEN bool_or(n >= 2 AND discarded > 0) THEN 'broke a dealt pair by discarding'
         WHEN bool_or(n >= 2 AND rows_used > 1) THEN 'split a dealt pair across rows'
         WHEN bool_or(n >= 2) THEN 'kept a dealt pair in one row' END AS pair
  FROM ranks GROUP BY ALL
), streets AS (
  SELECT hand_key, seat, street,
    count(*) FILTER (WHERE dest = 'top') AS t,
    count(*) FILTER (WHERE dest = 'middle') AS m,
    count(*) FILTER (WHERE dest = 'bottom') AS b,
    bool_or(dest = 'top' AND rank >= 10) AS queen_up,
    max(rank) FILTER (WHERE dest = 'discard') AS discard_rank,
    string_agg(dest, ' + ' ORDER BY CASE dest WHEN 'top' THEN 0 WHEN 'middle' THEN 1 ELSE 2 END)
      FILTER (WHERE dest <> 'discard') AS placed_to
  FROM cards GROUP BY ALL
)
SELECT st.street, c.points,
  ((c.timeout_streets >> st.street) & 1) = 1 AS timeout,
  CASE WHEN st.street = 0 THEN 'first five as ' || st.t || '-' || st.m || '-' || st.b
       ELSE 'to ' || st.placed_to END AS placement,
  CASE WHEN st.queen_up THEN 'Q, K or A to the top' END AS top,
  pr.pair,
  CASE WHEN st.discard_rank >= 10 THEN 'discarded a Q, K or A'
       WHEN st.discard_rank IS NOT NULL THEN 'discarded a T or lower' END AS discard
FROM streets st
JOIN pairs pr USING (hand_key, seat, street)
JOIN scope c USING (hand_key, seat)
"""

KINDS = ("placement", "top", "pair", "discard")


def _classes(streets: pd.DataFrame) -> pd.DataFrame:
    """One row per (street, decision class) occurrence; timeout streets apart."""
    decided = streets[~streets["timeout"].astype(bool)]
    parts = []
    for kind in KINDS:
        part = decided[["street", "points", kind]].dropna(subset=[kind])
        parts.append(part.rename(columns={kind: "decision"}).assign(kind=kind))
    timeouts = streets[streets["timeout"].astype(bool)][["street", "points"]]
    parts.append(timeouts.assign(decision="matches the timeout auto-placement", kind="timeout"))
    return pd.concat(parts, ignore_index=True)


def _summarise(classes: pd.DataFrame) -> pd.DataFrame:
    grouped = classes.groupby(["street", "kind", "decision"], sort=True)["points"]
    out = grouped.agg(count="count", mean="mean", sd="std").reset_index()
    half = Z95 * out["sd"].fillna(0.0) / np.sqrt(out["count"].clip(lower=1))
    out["low"], out["high"] = out["mean"] - half, out["mean"] + half
    return out.drop(columns="sd")


def build(data: OfcData, filters: Filters) -> Report:
    report = Report("decisions", "Points won per street decision")
    where, params = filters.player_where("s")
    mine = data.df(STREETS_SQL.format(where=where), params)
    if mine.empty:
        report.notes.append("No street-by-street placements for these hands.")
        report.tables["decisions"] = pd.DataFrame()
        return report
    baseline = float(
        data.sql(
            f"SELECT avg(net_capped) FROM seat_results s WHERE {where} AND NOT s.in_fantasy", params
        ).fetchall()[0][0]
    )
    table = _summarise(_classes(mine))

    others_where, others_params = filters.where("s")
    total = data.sql(
        f"SELECT count(*) FROM seat_results s WHERE {others_where}", others_params
    ).fetchall()[0][0]
    permille = int(min(1000, max(1, 1000 * OTHERS_SEATS // max(int(total), 1))))
    others_params = {**others_params, "player": filters.player, "permille": permille}
    others_where += " AND s.player_key <> $player AND hash(s.hand_key) % 1000 < $permille"
    others = data.df(STREETS_SQL.format(where=others_where), others_params)
    if len(others):
        theirs = _summarise(_classes(others))[["street", "kind", "decision", "count", "mean"]]
        table = table.merge(
            theirs.rename(columns={"count": "others_count", "mean": "others_mean"}),
            on=["street", "kind", "decision"],
            how="left",
        )
    else:
        table["others_count"], table["others_mean"] = 0, np.nan
    table["vs_baseline"] = table["mean"] - baseline
    table["vs_others"] = table["mean"] - table["others_mean"]
    reference = table["others_mean"].fillna(baseline)
    table["cost"] = (table["mean"] - reference) * table["count"]
    table.insert(0, "street_name", "street " + (table["street"] + 1).astype(str))
    report.tables["decisions"] = table.sort_values(
        ["street", "kind", "count"], ascending=[True, True, False]
    ).reset_index(drop=True)
    decided = table[table["kind"] != "timeout"]
    leaks = decided[(decided["count"] >= 5) & (decided["cost"] < 0)].sort_values("cost")
    report.tables["leaks"] = leaks.drop(columns="street").reset_index(drop=True)
    timeouts = table[table["kind"] == "timeout"]
    report.tables["timeouts"] = timeouts.drop(columns="street").reset_index(drop=True)
    report.captions["decisions"] = (
        f"others: {permille / 10:g}% hash sample of other players' hands"
        if permille < 1000
        else "others: every other player's hands"
    )
    shown = leaks.head(10).assign(label=lambda f: f["street_name"] + ": " + f["decision"])
    if len(shown):
        report.figures["leaks"] = bars_with_ci(
            shown.assign(lo=shown["cost"], hi=shown["cost"]),
            "label",
            "cost",
            "lo",
            "hi",
            "Costliest decisions (points against other players' average)",
            "points lost in total",
        )
    for row in leaks.head(3).to_dict("records"):
        theirs = row["others_mean"]
        others_mean = baseline if pd.isna(theirs) else float(theirs)
        who = "your average" if pd.isna(theirs) else "other players"
        report.notes.append(
            f"Street {int(row['street']) + 1}, {row['decision']}: {int(row['count'])} times, "
            f"{float(row['mean']):+.1f} points per hand against {others_mean:+.1f} for {who}: "
            f"about {-float(row['cost']):.0f} points lost."
        )
    return report
