"""Regret: the expected points the player's decisions lost, from the stored grades.

Reads the ``grades`` view (written by ``ofc-stats grade``) for the player's
seats under the filters.  A rate is points lost per 100 graded hands: each
hand contributes the losses of its decisions in the group (0 if it has none),
so the SE (the spread of those per-hand sums over the root of the hands)
includes both the cards' variation and the rollouts' noise.  A leak is called
clear only when its loss exceeds twice its SE.  Fantasyland sets are judged
by the exact solver, per set and by card count.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural
from reports.base import SEATS, Report, prepare
from reports.filters import Filters
from reports.replay import hand_details
from reports.stats import Z95

CLEAR = 2.0  # a leak is clear when its loss exceeds this many SEs
MISTAKES = 15
GRADE_COLUMNS = (
    "g.hand_key, g.seat, g.street, g.kind, g.decision, g.status, g.loss, g.loss_se, "
    "g.chosen_play, g.best_play, g.ev_chosen, g.ev_best, g.fantasy_cards, g.missed_repeat, "
    "g.loss_rows, g.loss_fouls, g.loss_royalties, g.loss_fantasy, s.played_at"
)
PART_COLUMNS = ("loss_rows", "loss_fouls", "loss_royalties", "loss_fantasy")


def _grades(data: OfcData, filters: Filters) -> pd.DataFrame:
    """The grades of the report's seats (its scope holds the player and the filters)."""
    prepare(data, filters)
    return data.df(
        f"SELECT {GRADE_COLUMNS} FROM grades g JOIN {SEATS} s USING (hand_key, seat) "
        "ORDER BY s.played_at, g.hand_key, g.street"
    )


def per_100(frame: pd.DataFrame, hands: pd.Index, keys: list[str]) -> pd.DataFrame:
    """Points lost per 100 hands for each group of ``keys``, with its SE and a 95% interval."""
    rows = []
    count = len(hands)
    for group, part in frame.groupby(keys, sort=True):
        per_hand = part.groupby("hand")["loss"].sum().reindex(hands, fill_value=0.0)
        values = per_hand.to_numpy(dtype=np.float64)
        mean = float(values.mean()) * 100
        se = float(values.std(ddof=1) / np.sqrt(count)) * 100 if count > 1 else float("nan")
        labels = group if isinstance(group, tuple) else (group,)
        rows.append(
            {
                **dict(zip(keys, labels, strict=True)),
                "decisions": len(part),
                "per_100_hands": mean,
                "se": se,
                "low": mean - Z95 * se,
                "high": mean + Z95 * se,
                "clear": bool(mean > CLEAR * se) if se == se else False,
            }
        )
    return pd.DataFrame(rows)


def _normal_hands(data: OfcData) -> int:
    """The player's normal (not Fantasyland) hands in the scope: what could be graded."""
    return int(data.sql(f"SELECT count(*) FROM {SEATS} WHERE NOT in_fantasy").fetchall()[0][0])


def build(data: OfcData, filters: Filters) -> Report:
    report = Report("regret", "Regret: expected points lost per decision")
    frame = _grades(data, filters)
    graded = frame[frame["status"].isin(["graded", "forced"])]
    if graded.empty:
        report.notes.append(
            "No graded decisions for these hands yet: run `ofc-stats grade` to grade them."
        )
        return report
    graded = graded.assign(
        hand=graded["hand_key"] + "#" + graded["seat"].astype(str),
        loss=graded["loss"].astype(np.float64),
    )
    streets = graded[graded["kind"] == "street"].assign(
        street_name=lambda f: "street " + (f["street"] + 1).astype(str)
    )
    hands = pd.Index(streets["hand"].unique())
    # Every rate says what it is over: `ofc-stats grade` prints the same measure.
    over = f"over {plural(len(hands), 'graded hand')} of {_normal_hands(data):,} normal hands"
    if len(streets):
        by_street = per_100(streets, hands, ["street_name"])
        by_type = per_100(streets, hands, ["street_name", "decision"])
        by_type = by_type[by_type["decision"] != "none"]
        report.tables["by_street"] = by_street
        report.tables["by_decision"] = by_type.sort_values("per_100_hands", ascending=False)
        parts = {
            name.removeprefix("loss_"): float(streets[name].sum()) / len(hands) * 100
            for name in PART_COLUMNS
        }
        report.tables["loss_parts"] = pd.DataFrame(
            [{"part": k, "per_100_hands": v} for k, v in parts.items()]
        )
        for row in report.tables["by_decision"].head(3).to_dict("records"):
            verdict = "a clear leak" if row["clear"] else "not clear yet (under 2 SE)"
            report.notes.append(
                f"Street {row['street_name'].split()[-1]}, {row['decision']}: "
                f"{row['per_100_hands']:.1f} ± {row['se']:.1f} expected points lost per 100 "
                f"hands {over} ({plural(row['decisions'], 'decision')}; {verdict})."
            )
        total = per_100(streets.assign(all="all"), hands, ["all"]).iloc[0]
        report.notes.append(
            f"Street decisions {over}: "
            f"{total['per_100_hands']:.0f} ± {total['se']:.0f} expected points lost per 100 "
            "hands against the best legal play."
        )
        for key in ("by_street", "by_decision", "loss_parts"):
            report.captions[key] = f"per 100 hands: {over}, a hand with no such loss counting 0"
    worst = graded.sort_values("loss", ascending=False).head(MISTAKES)
    worst = worst.assign(street=worst["street"] + 1)
    report.tables["biggest_mistakes"] = worst[
        ["hand_key", "played_at", "kind", "street", "chosen_play", "best_play", "loss", "loss_se"]
    ].reset_index(drop=True)
    report.hands.add("biggest_mistakes")  # each mistake opens its hand in the replayer
    report.replays = hand_details(data, worst["hand_key"].drop_duplicates().tolist())
    fantasy = graded[graded["kind"] == "fantasy"]
    if len(fantasy):
        rows = []
        for cards, part in fantasy.groupby("fantasy_cards"):
            loss = part["loss"].to_numpy(dtype=np.float64)
            se = float(loss.std(ddof=1) / np.sqrt(len(loss))) if len(loss) > 1 else float("nan")
            rows.append(
                {
                    "cards": int(cast(float, cards)),
                    "sets": len(part),
                    "loss_per_set": float(loss.mean()),
                    "se": se,
                    "optimal": float((loss <= 1e-9).mean()),
                    "missed_repeats": int(part["missed_repeat"].fillna(False).astype(bool).sum()),
                }
            )
        report.tables["fantasy_sets"] = pd.DataFrame(rows)
        report.captions["fantasy_sets"] = (
            f"per set, over {plural(len(fantasy), 'graded Fantasyland set')}; optimal: the "
            "share of sets the solver's set does not beat"
        )
    return report
