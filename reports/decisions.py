"""Points won per street decision, and the leaks: decisions that cost the most.

Every street of a normal (not Fantasyland) hand is sorted into classes, in
NumPy from each seat's board and board streets (:mod:`reports.streetwise`):
where the cards went, a queen or better to the top,
what happened to a dealt pair, what was discarded.  Each class gets its count
and the average final points of the hands it occurred in, with a 95%
interval, against the player's own average and against every other player's
hands with the same decision.  Streets that match the room's timeout
auto-placement are counted apart and kept out of the classes.

A leak is a decision after which the player does worse *relative to their own
average* than other players do relative to theirs: cost = count × ((mean −
own average) − (others' mean − others' average)).  A decision nearly every
hand contains (a low discard on the last street) then costs nothing however
the player's session went; one the player handles worse than the field does.

Other players' numbers come from a sample of their hands when the dataset
is large (about :data:`reports.base.OTHERS_SEATS` seats, runs of consecutive
hands spread over the whole dataset, :func:`reports.base.others_sample`), so
a report costs the same on ten million hands as on one; the share is shown.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ofc_stats.store.views import OfcData
from reports.base import OTHERS, SAMPLE_RUNS, SEATS, Report, prepare
from reports.charts import bars_with_ci
from reports.filters import Filters
from reports.stats import Z95
from reports.streetwise import summarise


def _with_interval(frame: pd.DataFrame) -> pd.DataFrame:
    half = Z95 * frame["sd"].fillna(0.0) / np.sqrt(frame["count"].clip(lower=1))
    out = frame.assign(low=frame["mean"] - half, high=frame["mean"] + half)
    return out.drop(columns=["sd"])


STREET_COLUMNS = "board, board_streets, discards, net_capped, timeout_streets"


def build(data: OfcData, filters: Filters) -> Report:
    report = Report(
        "decisions", "Points won per street decision (description: results, not expected loss)"
    )
    scope = prepare(data, filters)
    mine = pd.DataFrame(
        summarise(data.arrow(f"SELECT {STREET_COLUMNS} FROM {SEATS} WHERE NOT in_fantasy"))
    )
    if mine.empty:
        report.notes.append("No street-by-street placements for these hands.")
        report.tables["decisions"] = pd.DataFrame()
        return report
    baseline = float(
        data.sql(f"SELECT avg(net_capped) FROM {SEATS} WHERE NOT in_fantasy").fetchall()[0][0]
    )
    table = _with_interval(mine)
    permille = scope.sample_permille
    others = pd.DataFrame(
        summarise(data.arrow(f"SELECT {STREET_COLUMNS} FROM {OTHERS} WHERE NOT in_fantasy"))
    )
    if len(others):
        theirs = others[["street", "kind", "decision", "count", "mean"]].rename(
            columns={"count": "others_count", "mean": "others_mean"}
        )
        table = table.merge(theirs, on=["street", "kind", "decision"], how="left")
    else:
        table["others_count"], table["others_mean"] = 0, np.nan
    others_baseline = data.sql(
        f"SELECT avg(net_capped) FROM {OTHERS} WHERE NOT in_fantasy"
    ).fetchall()[0][0]
    field = baseline if others_baseline is None else float(others_baseline)
    table["vs_baseline"] = table["mean"] - baseline
    table["vs_others"] = table["mean"] - table["others_mean"]
    others_effect = (table["others_mean"] - field).fillna(0.0)
    table["cost"] = (table["vs_baseline"] - others_effect) * table["count"]
    table.insert(0, "street_name", "street " + (table["street"] + 1).astype(str))
    report.tables["decisions"] = table.sort_values(
        ["street", "kind", "count"], ascending=[True, True, False]
    ).reset_index(drop=True)
    decided = table[table["kind"] != "timeout"]
    # A clear leak: the 95% interval of the player's mean lies wholly below what the
    # field's own effect predicts; clear ones come first, then by cost.
    expected = baseline + others_effect[decided.index]
    decided = decided.assign(clear=decided["high"] < expected)
    leaks = decided[(decided["count"] >= 5) & (decided["cost"] < 0)]
    leaks = leaks.sort_values(["clear", "cost"], ascending=[False, True])
    report.tables["leaks"] = leaks.drop(columns="street").reset_index(drop=True)
    timeouts = table[table["kind"] == "timeout"]
    report.tables["timeouts"] = timeouts.drop(columns="street").reset_index(drop=True)
    report.captions["decisions"] = (
        f"others: a {permille / 10:.3g}% sample of other players' hands "
        f"({SAMPLE_RUNS} runs of consecutive hands spread over the dataset)"
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
            "Costliest decisions (against your average, compared with other players)",
            "points lost in total",
        )
    for row in leaks.head(3).to_dict("records"):
        theirs = row["others_mean"]
        field_text = (
            ""
            if pd.isna(theirs)
            else f"; other players {float(theirs) - field:+.1f} against theirs"
        )
        report.notes.append(
            f"Street {int(row['street']) + 1}, {row['decision']}: {int(row['count']):,} times, "
            f"{float(row['vs_baseline']):+.1f} points per hand against your average"
            f"{field_text}: about {-float(row['cost']):,.0f} points lost."
        )
    return report
