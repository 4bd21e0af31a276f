"""Points won per street decision, and the decisions whose hands did worst (results, not leaks).

Every street of a normal (not Fantasyland) hand is sorted into classes, in
NumPy from each seat's board and board streets (:mod:`reports.streetwise`):
where the cards went, a queen or better to the top,
what happened to a dealt pair, what was discarded.  Each class gets its count
and the average final points of the hands it occurred in, with a 95%
interval, against the player's own average and against every other player's
hands with the same decision.  Streets the format records as timeouts (the
results' ``recorded_timeouts``, by the store's macro ``flagged_timeouts``) are counted apart and
kept out of the classes; in a format that cannot tell a timeout from the same
placement chosen, every street stays in the classes and the page says so.

A decision is *worse than the field* when after it the player does worse *relative to their own
average* than other players do relative to theirs: shortfall = count ×
((own average − mean) − (others' average − others' mean)), positive when the
hands came out worse.  A decision nearly every hand contains (a low discard
on the last street) then shows none however the player's session went; one
the player handles worse than the field does.  The shortfall describes
results, it is not what the decision cost (bad cards lead to bad decisions
and to bad results alike): only graded expected-points loss
(``ofc-stats grade``, :mod:`reports.regret`) is a cost, so the notes say so.

Other players' numbers come from a sample of their hands when the dataset
is large (about :data:`reports.base.OTHERS_SEATS` seats, runs of consecutive
hands spread over the whole dataset, :func:`reports.base.others_sample`), so
a report costs the same on ten million hands as on one; the share is shown.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural
from reports.base import OTHERS, SAMPLE_RUNS, SEATS, Report, Scope
from reports.charts import bars_with_ci
from reports.stats import MIN_HANDS, TOO_FEW, Z95
from reports.streetwise import summarise


def _with_interval(frame: pd.DataFrame) -> pd.DataFrame:
    """The mean's 95% interval, none under MIN_HANDS hands (as every table of the page:
    one hand gave "19 to 19")."""
    half = Z95 * frame["sd"].fillna(0.0) / np.sqrt(frame["count"].clip(lower=1))
    half = half.where(frame["count"] >= MIN_HANDS)
    out = frame.assign(low=frame["mean"] - half, high=frame["mean"] + half)
    return out.drop(columns=["sd"])


# The streets each seat's format recorded as timed out: the stored results' bits, read from
# the hand's text once when it was scored (never the text at report time).
STREET_COLUMNS = (
    "board, board_streets, discards, net_capped, "
    "flagged_timeouts(format, recorded_timeouts) AS flagged_timeouts"
)


WORSE = "worse_than_the_field"  # the decisions whose hands did worst: a description, no leak


def build(scope: Scope) -> Report:
    report = Report(
        "decisions", "Points won per street decision (description: results, not expected loss)"
    )
    data = scope.data
    mine = pd.DataFrame(
        summarise(data.arrow(f"SELECT {STREET_COLUMNS} FROM {SEATS} WHERE NOT in_fantasy"))
    )
    if mine.empty:
        report.notes.append("No street-by-street placements for these hands.")
        report.tables["decisions"] = pd.DataFrame()
        return report
    normal, points = _normal_points(data, SEATS)
    baseline = points / max(normal, 1)
    table = _with_interval(mine)
    table["mean_otherwise"] = _otherwise(points, normal, table["mean"], table["count"])
    permille = scope.sample_permille
    others = pd.DataFrame(
        summarise(data.arrow(f"SELECT {STREET_COLUMNS} FROM {OTHERS} WHERE NOT in_fantasy"))
    )
    if len(others):
        theirs = others[["street", "kind", "decision", "count", "mean"]].rename(
            columns={"count": "others_count", "mean": "others_mean"}
        )
        table = table.merge(theirs, on=["street", "kind", "decision"], how="left")
        table["others_count"] = table["others_count"].fillna(0).astype(np.int64)
    else:
        table["others_count"], table["others_mean"] = 0, np.nan
    others_normal, others_points = _normal_points(data, OTHERS)
    field = others_points / others_normal if others_normal else baseline
    table["others_otherwise"] = _otherwise(
        others_points, others_normal, table["others_mean"], table["others_count"]
    )
    table["vs_baseline"] = table["mean"] - baseline
    table["vs_others"] = table["mean"] - table["others_mean"]
    others_effect = (table["others_mean"] - field).fillna(0.0)
    table["shortfall"] = (others_effect - table["vs_baseline"]) * table["count"]
    table.insert(0, "street_name", "street " + (table["street"] + 1).astype(str))
    report.tables["decisions"] = table.sort_values(
        ["street", "kind", "count"], ascending=[True, True, False]
    ).reset_index(drop=True)
    decided = table[table["kind"] != "timeout"]
    # Below the field: the 95% interval of the player's mean lies wholly below what the
    # field's own effect predicts.  A description of results (bad cards explain them as
    # often as bad play), so neither the table nor its column is called a leak.
    expected = baseline + others_effect[decided.index]
    decided = decided.assign(below_field=decided["high"] < expected)
    worse = decided[(decided["count"] >= 5) & (decided["shortfall"] > 0)]
    worse = worse.sort_values(["below_field", "shortfall"], ascending=[False, False])
    report.tables[WORSE] = worse.drop(columns="street").reset_index(drop=True)
    timeouts = table[table["kind"] == "timeout"]
    report.tables["timeouts"] = timeouts.drop(columns="street").reset_index(drop=True)
    report.captions["decisions"] = (
        (
            f"others: a {permille / 10:.3g}% sample of other players' hands "
            f"({SAMPLE_RUNS} runs of consecutive hands spread over the dataset)"
            if permille < 1000
            else "others: every other player's hands"
        )
        + f"; 95% intervals {TOO_FEW}"
        + _unflaggable_text(data)
    )
    report.captions["timeouts"] = (
        "streets that match the room's timeout auto-placement, in formats that record the "
        "deal order within a street; kept out of the classes above"
    )
    report.captions[WORSE] = (
        "results, not costs: shortfall is the points these hands came out below your "
        "average, beyond what other players' same decision predicts; below field: beyond "
        "chance (95%); a bad run of cards makes the decisions it forces look bad, so only "
        "`ofc-stats grade` says what a decision cost"
    )
    shown = worse.head(10).assign(label=lambda f: f["street_name"] + ": " + f["decision"])
    if len(shown):
        report.figures[WORSE] = bars_with_ci(
            shown.assign(lo=shown["shortfall"], hi=shown["shortfall"]),
            "label",
            "shortfall",
            "lo",
            "hi",
            "Decisions whose hands fell furthest below what the field's same decision "
            "predicts (results, not costs)",
            "shortfall (points, in total)",
        )
    tail = _not_a_cost(data)
    report.notes += [_note(row, tail) for row in worse.head(3).to_dict("records")]
    return report


NOT_A_COST = "(not a cost: run `ofc-stats grade` for expected-points loss)"


def _not_a_cost(data: OfcData) -> str:
    """How a note says its averages are no cost: the hint to grade only where nothing is
    graded; otherwise where the cost is, or why these hands have none."""
    if not data.sql("SELECT count(*) FROM grades").fetchall()[0][0]:
        return NOT_A_COST
    mine = data.sql(
        f"SELECT count(*) FROM grades g JOIN {SEATS} s USING (hand_key, seat) "
        "WHERE g.status IN ('graded', 'forced')"
    ).fetchall()[0][0]
    if mine:
        return "(not a cost: the regret section gives the graded expected-points loss)"
    return (
        "(not a cost, and these hands have no graded expected-points loss: the regret "
        "section says why)"
    )


def _normal_points(data: OfcData, table: str) -> tuple[int, float]:
    """How many seats of ``table`` were normal (not Fantasyland) hands, and their points."""
    count, total = data.sql(
        f"SELECT count(net_capped), sum(net_capped) FROM {table} WHERE NOT in_fantasy"
    ).fetchall()[0]
    return int(count), float(total or 0.0)


def _unflaggable_text(data: OfcData) -> str:
    """The player's normal hands whose format cannot tell a timeout, for the caption."""
    rows = data.sql(
        f"SELECT format, count(*) FROM {SEATS} "
        "WHERE NOT in_fantasy AND NOT records_deal_order(format) GROUP BY format ORDER BY format"
    ).fetchall()
    if not rows:
        return ""
    formats = " and ".join(f"{name} ({plural(int(count), 'hand')})" for name, count in rows)
    which = "the format records" if len(rows) == 1 else "these formats record"
    return (
        f"; timeouts: none told in {formats}: {which} no deal order within a street, so a "
        "street the room auto-placed cannot be told from the same placement chosen, and "
        "every street is in these classes"
    )


def _otherwise(total: float, hands: int, mean: pd.Series, count: pd.Series) -> pd.Series:
    """The average of the other hands: (all points − these hands' points) / the rest."""
    rest = (hands - count).astype(np.float64)
    return (total - mean * count) / rest.where(rest > 0)


def _note(row: dict[Hashable, Any], tail: str = NOT_A_COST) -> str:
    """A decision that did worse, in words: plain averages, named as results, not a cost."""
    theirs, theirs_else = row["others_mean"], row["others_otherwise"]
    field_text = (
        ""
        if pd.isna(theirs) or pd.isna(theirs_else)
        else f"; other players {float(theirs):+.1f} vs {float(theirs_else):+.1f}"
    )
    return (
        f"Street {int(row['street']) + 1}, {row['decision']}: your {int(row['count']):,} hands "
        f"with this decision averaged {float(row['mean']):+.1f} points vs "
        f"{float(row['mean_otherwise']):+.1f} otherwise{field_text} {tail}."
    )
