"""Fouls: how often, since when, in which setups, and when a foul became unavoidable."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pandas as pd

from ofc_stats.core.certain import foul_unavoidable_after
from ofc_stats.engine.cards import Rank
from ofc_stats.wording import plural
from reports.base import Report, Scope
from reports.charts import bars_with_ci, line
from reports.stats import wilson
from reports.streetwise import SeatCards, first_street, queen_up

TOP_LABELS = (
    "nothing on top",
    "a pair on top",
    "Q, K or A on top",
    "T or J on top",
    "2 to 9 on top",
)
CHASING = ("not chasing", "chasing (Q+ on top by street 2)")


def rate_table(frame: pd.DataFrame, by: str, flag: str = "fouled") -> pd.DataFrame:
    """Per group: hands, events, rate and Wilson 95% interval, average points.

    Groups come out in the order of their values (a categorical ``by`` in the
    order of its categories) and as plain values, not categories.
    """
    sums = frame.groupby(by, sort=True, observed=True).agg(
        hands=(flag, "size"), events=(flag, "sum"), points=("points", "mean")
    )
    rows = []
    for value, hands, events, points in zip(
        sums.index.tolist(), sums["hands"], sums["events"], sums["points"], strict=True
    ):
        rate, low, high = wilson(int(events), int(hands))
        rows.append(
            {
                by: value,
                "hands": int(hands),
                flag: int(events),
                "rate": rate,
                "low": low,
                "high": high,
                "points_per_hand": float(points),
            }
        )
    return pd.DataFrame(rows)


def labelled(codes: npt.NDArray[np.integer], label: Callable[[int], str]) -> pd.Categorical:
    """Per-seat labels as a categorical, categories in the labels' string order.

    One string per distinct code instead of one per seat; grouping on it
    gives the groups in the order grouping the strings would.
    """
    distinct = np.unique(codes)
    names = np.array([label(int(c)) for c in distinct], dtype=object)
    order = np.argsort(names, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return pd.Categorical.from_codes(
        rank[np.searchsorted(distinct, codes)], categories=names[order].tolist()
    )


def build(scope: Scope) -> Report:
    report = Report("fouls", "Fouls")
    seats = scope.seats(
        "s.played_at, s.seat_count, s.in_fantasy, s.fouled, "
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
        f"Foul rate over time: each point the last {window} normal hands (the first at hand "
        f"{window})",
        "hand",
        "foul rate",
        percent=True,
    )

    by_players = rate_table(normal, "seat_count")
    report.tables["by_players"] = by_players

    cards = scope.cards("NOT s.in_fantasy")
    first = first_street(cards)
    size = 14  # counts of one street's cards in a row: 0 to 13
    top, middle, bottom = (
        np.asarray(first[k], dtype=np.int64) for k in ("to_top", "to_middle", "to_bottom")
    )
    normal["setup"] = labelled(
        (top * size + middle) * size + bottom,
        lambda c: f"{c // (size * size)}-{c // size % size}-{c % size}",
    )
    # which of TOP_LABELS: nothing, a pair, Q+, T or J, 2 to 9 on top
    rank = np.asarray(first["top_rank"], dtype=np.int64)
    pair = np.asarray(first["top_pair"], dtype=bool)
    case = np.select([rank < 0, pair, rank >= Rank.QUEEN, rank >= Rank.TEN], [0, 1, 2, 3], 4)
    normal["on_top"] = labelled(np.asarray(case, dtype=np.int64), lambda c: TOP_LABELS[c])
    normal["chasing"] = labelled(queen_up(cards, 1).astype(np.int64), lambda c: CHASING[c])
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

    fouled = np.flatnonzero(normal["fouled"].to_numpy(dtype=bool))
    if fouled.size:
        report.tables["locked_street"] = _locked(
            SeatCards(cards.cards[fouled], cards.streets[fouled], cards.discards[fouled])
        )
        report.captions["locked_street"] = (
            "the street after which the foul was unavoidable: no way of playing the cards that "
            "came next (which to discard, where to place the rest) finished the board unfouled; "
            "unknown where a discard was not recorded"
        )
    return report


def _locked(cards: SeatCards) -> pd.DataFrame:
    """Fouled boards by the street their foul became unavoidable."""
    street = foul_unavoidable_after(cards.cards, cards.streets, cards.discards)
    labels = np.where(street < 0, "unknown", np.char.add("street ", (street + 1).astype(str)))
    counts = (
        pd.Series(labels).value_counts().rename_axis("unavoidable after").reset_index(name="fouls")
    )
    counts["share"] = counts["fouls"] / counts["fouls"].sum()
    return counts.sort_values("unavoidable after").reset_index(drop=True)
