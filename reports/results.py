"""Results: how much the player won, how steadily, where and against whom."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ofc_stats.wording import plural, signed
from reports.base import (
    MINE,
    ORDER,
    PERSON,
    ROW_POINTS,
    SEATS,
    TABLE_ROYALTIES,
    VERSUS,
    Report,
    Scope,
)
from reports.charts import bars_with_ci, line
from reports.ledger import money_seats, paid_not_scored, paid_text
from reports.live_figures import signed_interval
from reports.stats import TOO_FEW, grouped_mean_ci, mean_ci, moments_ci

SEATS_SQL = f"""
SELECT s.hand_key, s.played_at, s.seat, s.seat_count, s.net_capped AS points, s.in_fantasy,
       s.reported_money, s.currency, {ROW_POINTS} AS row_points
FROM {SEATS} s {TABLE_ROYALTIES}
ORDER BY {ORDER}
"""

# The player's seats under the filters that were not scored but carry the room's points
# (a dealer chat's hand has no cards; a board left incomplete): a chat hand that repeats a
# captured one is the capture's, scored, so it is not one of them (store.views.chat_repeats).
UNSCORED_POINTS = """
SELECT count(*) AS hands, coalesce(sum(p.reported_points), 0) AS points
FROM (SELECT * FROM {person} m WHERE {mine} AND reported_points IS NOT NULL) p
JOIN (SELECT hand_id, hand_key, played_at, room, ruleset, seat_count, 'scored' AS status
      FROM {hands} WHERE hand_id IN (SELECT hand_id FROM {person})) s USING (hand_id)
ANTI JOIN {scored} k ON k.hand_id = p.hand_id AND k.seat = p.seat
WHERE {where} AND s.hand_key NOT IN (SELECT chat_key FROM chat_repeats)
"""

WORST = 12  # opponents the chart shows: those the player lost most points to


def positions(seat: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Seats act in order: 0 first, the last to act holds the button."""
    return np.select(
        [seat == seats - 1, seat == 0], ["button (acts last)", "first to act"], "middle"
    )


def build(scope: Scope) -> Report:
    report = Report("results", "Results")
    data = scope.data
    seats = data.df(SEATS_SQL)
    hands = len(seats)
    mean, low, high = mean_ci(seats["points"])
    money = money_seats(scope)  # paid money counts on hands not scored too
    summary = pd.DataFrame(
        [
            {"measure": "hands", "value": hands},
            {"measure": "net points", "value": float(seats["points"].sum())},
            {"measure": "points per hand", "value": mean},
            {"measure": "95% interval, low", "value": low},
            {"measure": "95% interval, high", "value": high},
            {"measure": "Fantasyland hands", "value": int(seats["in_fantasy"].sum())},
            {"measure": "points per hand without royalties", "value": _mean(seats["row_points"])},
        ],
        dtype=object,  # counts stay integers beside the means (CSV "hands,1083", not 1083.0)
    )
    unscored = paid_not_scored(money)
    for name, group in money.groupby("currency"):
        currency = str(name)
        label = f"money won ({currency})" if currency else "money won"
        summary.loc[len(summary)] = {
            "measure": label,
            "value": float(group["reported_money"].sum()),
        }
        if currency in unscored:
            count, paid = unscored[currency]
            report.notes.append(
                f"{label} counts {plural(count, 'hand')} not scored "
                f"({paid_text(paid, currency)}), which the points leave out."
            )
    unscored_hands, unscored_points = points_not_scored(scope)
    if unscored_hands:
        report.notes.append(
            f"The points leave out {plural(unscored_hands, 'hand')} not scored (no board to "
            f"score: a dealer chat's, or left incomplete), where the room reported "
            f"{unscored_points:+,g} points."
        )
    report.tables["summary"] = summary
    report.captions["summary"] = (
        f"per hand: over all {plural(hands, 'hand')}, Fantasyland hands included; without "
        "royalties: the row points alone, as the ruleset pays them (rows won and lost and "
        "any scoop or majority bonus against each opponent; a fouled board loses every row "
        "to a live one), summed, before stack caps"
    )
    if hands == 0:
        report.notes.append("No hands match these filters.")
        return report

    order = np.arange(1, hands + 1)
    cumulative = seats["points"].cumsum().to_numpy()
    without = seats["row_points"].fillna(0).cumsum().to_numpy()
    fantasy = seats["in_fantasy"].to_numpy(dtype=bool)
    report.figures["cumulative"] = line(
        order,
        {"points": cumulative, "without royalties": without},
        "Cumulative points",
        "hand",
        "points",
        marks=(order[fantasy], cumulative[fantasy], "Fantasyland hand"),
    )
    report.tables["cumulative"] = pd.DataFrame(
        {
            "hand": order,
            "hand_key": seats["hand_key"],
            "points": cumulative,
            "without_royalties": without,
            "fantasyland": fantasy,
        }
    )

    seats["position"] = positions(seats["seat"].to_numpy(), seats["seat_count"].to_numpy())
    by_position = grouped_mean_ci(seats, ["seat_count", "position"], "points")
    report.tables["by_position"] = by_position
    by_players = grouped_mean_ci(seats, "seat_count", "points")
    report.tables["by_players"] = by_players
    for name in ("by_position", "by_players"):
        report.captions[name] = f"points per hand; 95% intervals {TOO_FEW}"
    labelled = by_position.assign(
        label=[
            f"{n}-handed, {p}"
            for n, p in zip(by_position["seat_count"], by_position["position"], strict=True)
        ]
    )
    report.figures["by_position"] = bars_with_ci(
        labelled, "label", "mean", "low", "high", "Points per hand by seat", "points per hand"
    )

    # Aggregated in DuckDB: the player's points against each opponent never come to pandas.
    by_opponent = data.df(
        "SELECT opponent, count(*) AS n, sum(points) AS total, "
        f"sum(points::DOUBLE * points) AS squares FROM {VERSUS} GROUP BY opponent"
    )
    centre, below, above = moments_ci(
        by_opponent["n"], by_opponent["total"], by_opponent["squares"]
    )
    by_opponent = by_opponent.assign(mean=centre, low=below, high=above)[
        ["opponent", "n", "mean", "low", "high", "total"]
    ].sort_values(["total", "opponent"])
    report.tables["by_opponent"] = by_opponent.reset_index(drop=True)
    report.captions["by_opponent"] = (
        f"n: hands against the opponent; points per hand before caps; 95% intervals {TOO_FEW}"
    )
    # Those the player lost points to, the most first, as the page's live chart draws them
    # (the 9 of 9 opponents a player beat 7 of were "the 9 you lost most to").
    shown = by_opponent[by_opponent["total"] < 0].head(WORST)
    if len(shown):
        report.figures["by_opponent"] = bars_with_ci(
            shown,
            "opponent",
            "mean",
            "low",
            "high",
            f"Points per hand against the {plural(len(shown), 'opponent')} you lost most to "
            f"(of {len(by_opponent):,})",
            "points per hand (before caps)",
        )
    # Signed as every point figure of the summary (the page's live line beside it wrote
    # "0.30 to 2.07" where this wrote "+0.30 to +2.07").
    report.notes.append(
        f"Over {plural(hands, 'hand')} you averaged {signed(mean, 2)} points per hand "
        f"({signed_interval(low, high)})."
    )
    return report


def _mean(values: pd.Series) -> float:
    clean = values.dropna()
    return float(clean.mean()) if len(clean) else float("nan")


def points_not_scored(scope: Scope) -> tuple[int, float]:
    """The player's seats under the filters that carry reported points but were not scored,
    and those points (a chat hand counted as its capture left out)."""
    filters = scope.filters
    where, params = filters.where("s")
    mine, mine_params = filters.me("m")
    query = UNSCORED_POINTS.format(
        person=PERSON, mine=mine, hands=scope.sources["hands"], scored=MINE, where=where
    )
    hands, points = scope.data.sql(query, {**params, **mine_params}).fetchall()[0]
    return int(hands), float(points)
