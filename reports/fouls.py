"""Fouls: how often, since when, in which setups, and when a foul became certain."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ofc_stats.engine.vector.rank_tables import tables
from ofc_stats.store.views import OfcData
from reports.base import Report, player_cards, player_seats
from reports.charts import bars_with_ci, line
from reports.filters import Filters
from reports.stats import plural, wilson
from reports.streetwise import first_street, queen_up

QUEEN = 10  # rank index: 2 = 0 ... Q = 10, K = 11, A = 12


def top_labels(rank: np.ndarray, pair: np.ndarray) -> np.ndarray:
    """What the first street put on top, in words."""
    return np.select(
        [rank < 0, pair, rank >= QUEEN, rank >= 8],
        ["nothing on top", "a pair on top", "Q, K or A on top", "T or J on top"],
        "2 to 9 on top",
    )


def rate_table(frame: pd.DataFrame, by: str, flag: str = "fouled") -> pd.DataFrame:
    """Per group: hands, events, rate and Wilson 95% interval, average points."""
    rows = []
    for value, group in frame.groupby(by, sort=True, observed=True):
        rate, low, high = wilson(int(group[flag].sum()), len(group))
        rows.append(
            {
                by: value,
                "hands": len(group),
                flag: int(group[flag].sum()),
                "rate": rate,
                "low": low,
                "high": high,
                "points_per_hand": float(group["points"].mean()),
            }
        )
    return pd.DataFrame(rows)


def locked_street(
    streets: np.ndarray, top: np.ndarray, middle: np.ndarray, bottom: np.ndarray
) -> np.ndarray:
    """The street after which a fouled board's foul was certain, -1 where unknown.

    A foul is certain once both rows of a violated pair are complete: top over
    middle, or middle over bottom (the earlier if both).  The street of a row's
    last card comes from the board streets (-1 = unknown).
    """
    done = [streets[:, 0:3].max(axis=1), streets[:, 3:8].max(axis=1), streets[:, 8:13].max(axis=1)]
    unknown = (streets < 0).any(axis=1)
    limit = tables().top_limit
    top_over = top > limit[middle]
    middle_over = middle > bottom
    first = np.where(top_over, np.maximum(done[0], done[1]), 99)
    second = np.where(middle_over, np.maximum(done[1], done[2]), 99)
    street = np.minimum(first, second).astype(np.int16)
    street[unknown | (street == 99)] = -1
    return street


def build(data: OfcData, filters: Filters) -> Report:
    report = Report("fouls", "Fouls")
    seats = player_seats(
        data,
        filters,
        "s.hand_key, s.seat, s.played_at, s.seat_count, s.in_fantasy, s.fouled, "
        "s.net_capped AS points, s.top_class, s.middle_class, s.bottom_class",
    )
    normal = seats[~seats["in_fantasy"].astype(bool)].copy()
    fouls = int(normal["fouled"].sum())
    rate, low, high = wilson(fouls, len(normal))
    fl = seats[seats["in_fantasy"].astype(bool)]
    fl_rate = wilson(int(fl["fouled"].sum()), len(fl))
    report.tables["summary"] = pd.DataFrame(
        [
            {
                "hands": "normal hands",
                "count": len(normal),
                "fouls": fouls,
                "rate": rate,
                "low": low,
                "high": high,
            },
            {
                "hands": "Fantasyland hands",
                "count": len(fl),
                "fouls": int(fl["fouled"].sum()),
                "rate": fl_rate[0],
                "low": fl_rate[1],
                "high": fl_rate[2],
            },
        ]
    )
    if normal.empty:
        report.notes.append("No normal hands match these filters.")
        return report
    report.notes.append(
        f"You fouled {rate:.1%} of {plural(len(normal), 'normal hand')} "
        f"(95% interval {low:.1%} to {high:.1%})."
    )

    window = int(min(200, max(20, len(normal) // 10)))
    rolling = normal["fouled"].astype(float).rolling(window, min_periods=window).mean()
    report.tables["over_time"] = pd.DataFrame(
        {
            "hand": np.arange(1, len(normal) + 1),
            "played_at": normal["played_at"].to_numpy(),
            "rolling_rate": rolling.to_numpy(),
        }
    )
    report.figures["over_time"] = line(
        np.arange(1, len(normal) + 1),
        {f"foul rate, last {window} hands": rolling.to_numpy()},
        "Foul rate over time",
        "hand",
        "foul rate",
        percent=True,
    )

    by_players = rate_table(normal, "seat_count")
    report.tables["by_players"] = by_players

    cards = player_cards(data, filters, "NOT s.in_fantasy")
    first = first_street(cards)
    normal["setup"] = (
        first["to_top"].astype(str)
        + np.char.add("-", first["to_middle"].astype(str)).astype(object)
        + np.char.add("-", first["to_bottom"].astype(str)).astype(object)
    )
    normal["on_top"] = top_labels(first["top_rank"], first["top_pair"])
    normal["chasing"] = np.where(
        queen_up(cards, 1), "chasing (Q+ on top by street 2)", "not chasing"
    )
    known = normal[first["known"]].copy()
    if len(known):
        setup = rate_table(known, "setup").sort_values("hands", ascending=False)
        report.tables["by_setup"] = setup.reset_index(drop=True)
        report.captions["by_setup"] = "first five cards as top-middle-bottom counts"
        on_top = rate_table(known, "on_top").sort_values("rate", ascending=False)
        report.tables["by_top_card"] = on_top.reset_index(drop=True)
        shown = setup.head(10).assign(
            label=lambda f: f["setup"] + " (" + f["hands"].astype(str) + ")"
        )
        report.figures["by_setup"] = bars_with_ci(
            shown,
            "label",
            "rate",
            "low",
            "high",
            "Foul rate by first-street setup (top-middle-bottom)",
            "foul rate",
            percent=True,
        )

    report.tables["by_chasing"] = rate_table(known, "chasing")

    fouled = normal["fouled"].to_numpy(dtype=bool)
    if fouled.any():
        report.tables["locked_street"] = _locked(normal[fouled], cards.streets[fouled])
        report.captions["locked_street"] = (
            "the street after which the foul was certain: both rows it compares were complete"
        )
    return report


def _locked(fouled: pd.DataFrame, streets: np.ndarray) -> pd.DataFrame:
    """Fouled boards by the street their foul became certain (``streets`` aligned rows)."""
    street = locked_street(
        streets,
        fouled["top_class"].to_numpy(dtype=np.int64),
        fouled["middle_class"].to_numpy(dtype=np.int64),
        fouled["bottom_class"].to_numpy(dtype=np.int64),
    )
    labels = np.where(street < 0, "unknown", np.char.add("street ", (street + 1).astype(str)))
    counts = pd.Series(labels).value_counts().rename_axis("certain after").reset_index(name="fouls")
    counts["share"] = counts["fouls"] / counts["fouls"].sum()
    return counts.sort_values("certain after").reset_index(drop=True)
