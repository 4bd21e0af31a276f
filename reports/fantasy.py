"""Fantasyland: how often the player gets there, stays, and what it is worth."""

from __future__ import annotations

import pandas as pd

from ofc_stats.wording import plural
from reports.base import VERSUS, Report, Scope
from reports.charts import bars_with_ci
from reports.stats import TOO_FEW, mean_ci, wilson
from reports.streetwise import queen_up


def _rate(count: int, trials: int) -> dict[str, float | int]:
    rate, low, high = wilson(count, trials)
    return {"rate": rate, "low": low, "high": high, "count": count, "of": trials}


def build(scope: Scope) -> Report:
    report = Report("fantasyland", "Fantasyland")
    data = scope.data
    seats = scope.seats(
        "s.hand_key, s.seat, s.in_fantasy, s.fantasy_cards, s.fouled, s.fantasy_entry, "
        "s.fantasy_stays, s.net_capped AS points",
    )
    in_fl = seats["in_fantasy"].astype(bool)
    normal, fantasy = seats[~in_fl], seats[in_fl]
    entries = int((normal["fantasy_entry"] > 0).sum())
    stays = int(fantasy["fantasy_stays"].astype(bool).sum())
    entry = wilson(entries, len(normal))
    stay = wilson(stays, len(fantasy))
    fl_points = mean_ci(fantasy["points"])
    normal_points = mean_ci(normal["points"])

    tried = normal[queen_up(scope.cards("NOT s.in_fantasy"), 1)]
    made = int((tried["fantasy_entry"] > 0).sum())
    fouled = int(tried["fouled"].astype(bool).sum())

    lost_to_fl, hands_against_fl = data.sql(
        f"SELECT coalesce(-sum(points), 0), count(DISTINCT hand_id) FROM {VERSUS} "
        "WHERE opponent_in_fantasy"
    ).fetchall()[0]
    report.tables["rates"] = pd.DataFrame(
        [
            {
                "measure": "entry (of normal hands)",
                "rate": entry[0],
                "low": entry[1],
                "high": entry[2],
                "count": entries,
                "of": len(normal),
            },
            {
                "measure": "stay (of Fantasyland hands)",
                "rate": stay[0],
                "low": stay[1],
                "high": stay[2],
                "count": stays,
                "of": len(fantasy),
            },
            {"measure": "attempts reaching Fantasyland", **_rate(made, len(tried))},
            {"measure": "attempts ending in a foul", **_rate(fouled, len(tried))},
        ]
    )
    report.captions["rates"] = "an attempt: a queen or better on top in the first two streets"
    report.tables["points"] = pd.DataFrame(
        [
            {
                "measure": "per Fantasyland hand",
                "points": fl_points[0],
                "low": fl_points[1],
                "high": fl_points[2],
                "hands": len(fantasy),
            },
            {
                "measure": "per normal hand",
                "points": normal_points[0],
                "low": normal_points[1],
                "high": normal_points[2],
                "hands": len(normal),
            },
            {
                "measure": "lost to opponents in Fantasyland",
                "points": float(lost_to_fl),
                "low": None,
                "high": None,
                "hands": int(hands_against_fl),
            },
        ]
    )
    report.captions["points"] = f"95% intervals {TOO_FEW}"
    played = fantasy["fantasy_cards"].fillna(0).astype(int).replace(0, -1)
    cards = (
        pd.concat(
            [
                played.map(lambda c: "unknown" if c < 0 else str(c))
                .value_counts()
                .rename("played"),
                normal.loc[normal["fantasy_entry"] > 0, "fantasy_entry"]
                .astype(int)
                .astype(str)
                .value_counts()
                .rename("earned"),
            ],
            axis=1,
        )
        .fillna(0)
        .astype(int)
    )
    cards.index.name = "cards"
    report.tables["card_counts"] = cards.reset_index().sort_values("cards").reset_index(drop=True)
    compare = pd.DataFrame(
        [
            {
                "hands": "Fantasyland",
                "mean": fl_points[0],
                "low": fl_points[1],
                "high": fl_points[2],
            },
            {
                "hands": "normal",
                "mean": normal_points[0],
                "low": normal_points[1],
                "high": normal_points[2],
            },
        ]
    ).dropna(subset=["mean"])  # a mean over too few hands has no interval, but is drawn
    if len(compare):
        report.figures["points"] = bars_with_ci(
            compare,
            "hands",
            "mean",
            "low",
            "high",
            "Points per hand: Fantasyland or not",
            "points per hand",
        )
    if len(normal):
        report.notes.append(
            f"You reached Fantasyland from {entry[0]:.1%} of {plural(len(normal), 'normal hand')} "
            + (
                f"and stayed in {stay[0]:.1%} of {plural(len(fantasy), 'Fantasyland hand')}"
                if len(fantasy)
                else "and played no Fantasyland hand"
            )
            + (
                f"; {fouled:,} of {plural(len(tried), 'attempt')} with a queen or better "
                "on top fouled."
                if tried.size
                else "."
            )
        )
    return report
