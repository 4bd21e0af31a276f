"""How stable the grader is across seeds, on real decisions (issue 26's stability goals).

    .venv/bin/python bench/grade_stability.py [--hands 200] [--rollouts 32] [--threads 2]

Takes the street decisions of the first ``--hands`` real hands of
``../shared/samples/apps`` (every street of each seat) and grades them twice,
with seeds 0 and 1.  Printed:

* **best play across seeds**: the share of decisions whose best play is the
  same in both runs, by street (goal: >= 90% on street 1);
* **the loss charged to a player who plays the advice**: every decision's
  play made replaced by seed 0's best play, then graded with seed 1; the loss
  charged a seat-hand, mean +- SE over seats (goal: <= 0.2);
* **consistency**: candidates valued above their decision's ev_best (goal 0),
  positions with nothing left to deal and how many rollouts they took (goal 1);
* **screening**: on ``--screen-check`` decisions of each screened street, every
  legal candidate valued on 256 fresh common rollouts: how often the best of
  them was screened out and beats the best screened-in candidate by more than
  2 SE on another 256 rollouts, and by how much.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from record import record  # noqa: E402
from reference_grader import sample  # noqa: E402

from ofc_stats.errors import UnplayablePosition  # noqa: E402
from ofc_stats.grade.race import Graded, decision_seed, grade_many  # noqa: E402
from ofc_stats.grade.rollout import simulate  # noqa: E402

FAR = 1_000_000  # the screen check's first rollout: far from any race's

GOAL_SAME, GOAL_CHARGED = 0.90, 0.2


def graded(decisions, rollouts: int, seed: int, threads: int) -> list[Graded | None]:  # type: ignore[no-untyped-def]
    keys = [decision_seed(seed, d.hand_key, d.seat, d.street) for d in decisions]
    out = grade_many(decisions, rollouts, keys, threads)
    return [None if isinstance(g, UnplayablePosition) else g for g in out]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--screen-check", type=int, default=40)
    args = parser.parse_args()
    decisions = sample(args.hands)
    started = time.process_time()
    first = graded(decisions, args.rollouts, 0, args.threads)
    second = graded(decisions, args.rollouts, 1, args.threads)
    print(
        f"{len(decisions)} street decisions of {args.hands} real hands, "
        f"{args.rollouts} rollouts, seeds 0 and 1"
    )
    same: dict[int, list[bool]] = defaultdict(list)
    for d, a, b in zip(decisions, first, second, strict=True):
        if a is None or b is None or a.forced:
            continue
        same[d.street].append(bool(np.array_equal(a.destinations[a.best], b.destinations[b.best])))
    for street in sorted(same):
        share = statistics.mean(same[street])
        goal = f" (goal >= {GOAL_SAME:.0%})" if street == 0 else ""
        print(
            f"  street {street + 1}: the same best play with both seeds on {share:.1%} "
            f"of {len(same[street])} decisions{goal}"
        )
        record(
            "grade_stability",
            f"street {street + 1}: the same best play with seeds 0 and 1",
            figure=100 * share,
            unit="%",
            goal=f"≥ {GOAL_SAME:.0%}" if street == 0 else "",
            met=share >= GOAL_SAME if street == 0 else None,
            note=f"{len(same[street])} decisions of {args.hands} real hands, "
            f"{args.rollouts} rollouts",
        )
    # A player who plays seed 0's advice, graded by seed 1.
    advised = [
        replace(d, chosen=tuple(int(x) for x in g.destinations[g.best])) if g else d
        for d, g in zip(decisions, first, strict=True)
    ]
    charged = graded(advised, args.rollouts, 1, args.threads)
    by_seat: dict[tuple[str, int], float] = defaultdict(float)
    by_street: dict[int, float] = defaultdict(float)
    for d, g in zip(advised, charged, strict=True):
        by_seat[(d.hand_key, d.seat)] += g.loss if g is not None else 0.0
        by_street[d.street] += g.loss if g is not None else 0.0
    losses = np.array(list(by_seat.values()))
    se = losses.std(ddof=1) / np.sqrt(len(losses))
    verdict = "met" if losses.mean() <= GOAL_CHARGED else "NOT met"
    print(
        f"  a player playing seed 0's advice is charged {losses.mean():.3f} +- {se:.3f} a "
        f"seat-hand by seed 1 over {len(losses)} seats (goal <= {GOAL_CHARGED}: {verdict})"
    )
    record(
        "grade_stability",
        "loss charged to a player who plays the advice, a seat-hand",
        figure=float(losses.mean()),
        unit="points",
        goal=f"≤ {GOAL_CHARGED}",
        met=bool(losses.mean() <= GOAL_CHARGED),
        note=f"± {se:.3f} (SE) over {len(losses)} seats",
    )
    shares = ", ".join(
        f"street {s + 1} {v / len(losses):.3f}" for s, v in sorted(by_street.items())
    )
    print(f"    of which, a seat-hand: {shares}")
    above = exact = exact_rollouts = 0
    for g in first:
        if g is None:
            continue
        valued = g.ev[~np.isnan(g.ev)]
        above += int((valued > g.ev[g.best] + 1e-9).sum())
        if (g.se == 0).all() and (g.rollouts == 1).all():
            exact += 1
            exact_rollouts += int(g.rollouts.max())
    print(f"  candidates valued above their decision's ev_best: {above} (goal 0)")
    print(f"  positions valued exactly: {exact}, one rollout each")
    record(
        "grade_stability",
        "candidates valued above their decision's best",
        figure=above,
        unit="candidates",
        goal="0",
        met=above == 0,
    )
    screen_check(decisions, first, args.screen_check)
    print(f"  {time.process_time() - started:.0f} CPU s")


def screen_check(decisions, grades, per_street: int) -> None:  # type: ignore[no-untyped-def]
    """Whether the screen dropped the best play, judged on fresh rollouts of every candidate."""
    for street in range(5):
        cases = [
            (d, g)
            for d, g in zip(decisions, grades, strict=True)
            if g is not None and d.street == street and np.isnan(g.ev).any()
        ][:per_street]
        if not cases:
            continue
        dropped, costs = 0, []
        for d, g in cases:
            key = decision_seed(7, d.hand_key, d.seat, d.street)
            values = simulate(d, list(g.candidates), 256, key, phase=1, first=FAR).total
            means = values.mean(axis=1)
            kept = ~np.isnan(g.ev)
            best_all = int(np.argmax(means))
            best_kept = int(np.flatnonzero(kept)[np.argmax(means[kept])])
            # Judged on other rollouts than the ones that picked the two (no max bias).
            rows = [int(g.candidates[best_all]), int(g.candidates[best_kept])]
            again = simulate(d, rows, 256, key, phase=1, first=2 * FAR).total
            diff = again[0] - again[1]
            if not kept[best_all] and diff.mean() > 2 * diff.std(ddof=1) / np.sqrt(len(diff)):
                dropped += 1
                costs.append(float(diff.mean()))
        cost = f", {np.mean(costs):.2f} points on average" if costs else ""
        print(
            f"  screen, street {street + 1}: the best play screened out (beyond 2 SE) in "
            f"{dropped} of {len(cases)} decisions{cost}"
        )


if __name__ == "__main__":
    main()
