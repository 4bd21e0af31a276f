"""Grading speed on the real-sample mix: decisions per second on one core and on two.

    .venv/bin/python bench/grade.py [--hands 60] [--rollouts 32] [--repeat 3]

Imports ``../shared/samples/apps`` (about 1,900 real Pineapple hands) into a
temporary dataset and takes the street decisions of the first ``--hands``
gradable seats' hands (every street of each, so the mix of streets is the
real one).  Then, repeated, medians reported:

* **plain** (the peer): every legal candidate gets the whole rollout budget,
  no screening, no race: the straightforward Monte Carlo grader;
* **race, 1 core**: the grader as ``ofc-stats grade`` runs it, one process;
* **race, 2 cores**: the same decisions split over two worker processes.

It prints decisions/s, the ratio race/plain and 2 cores/1 core, the SE the
losses reach (median over decisions with a loss), the SE two independent
estimates would have had (the common random numbers' gain), and what 50,000
decisions (one player's 10,000 hands) would take on two cores against the
issue's goal of two minutes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ofc_stats.engine.presets import get_ruleset  # noqa: E402
from ofc_stats.grade import race  # noqa: E402
from ofc_stats.grade.position import (  # noqa: E402
    HAND_COLUMNS,
    PLACEMENT_COLUMNS,
    SEAT_COLUMNS,
    Decision,
    read_positions,
)
from ofc_stats.grade.rollout import setup, simulate  # noqa: E402
from ofc_stats.grade.run import GradeOptions, grade_chunk  # noqa: E402
from ofc_stats.store.dataset import Dataset  # noqa: E402
from ofc_stats.store.importer import import_paths  # noqa: E402

SAMPLES = ROOT.parent.parent / "shared" / "samples" / "apps"
GOAL_DECISIONS, GOAL_SECONDS = 50_000, 120.0


def sample(data: Path, hands: int) -> list[Decision]:
    dataset = Dataset(data)
    batch = dataset.batches()[0]
    positions = read_positions(
        pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS),
        pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS),
        pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS),
        get_ruleset,
    )
    keys: list[str] = []
    for decision in positions.decisions:
        if decision.hand_key not in keys:
            keys.append(decision.hand_key)
    chosen = set(keys[:hands])
    return [d for d in positions.decisions if d.hand_key in chosen]


def plain(decisions: list[Decision], rollouts: int) -> list[tuple[float, float]]:
    """The peer: every legal candidate, the whole budget, loss on the same rollouts."""
    out = []
    for decision in decisions:
        plan = setup(decision)
        seed = race.decision_seed(0, decision.hand_key, decision.seat, decision.street)
        values = simulate(plan, plan.legal, rollouts, np.random.default_rng(seed)).total
        mine = int(np.flatnonzero(plan.legal == plan.chosen)[0])
        diff = values[int(values.mean(axis=1).argmax())] - values[mine]
        out.append((float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(rollouts))))
    return out


def timed(run, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        import_paths([SAMPLES], data)
        decisions = sample(data, args.hands)
    options = GradeOptions(rollouts=args.rollouts)
    count = len(decisions)
    by_street = np.bincount([d.street for d in decisions])
    print(
        f"{count} decisions of the graded seats of {args.hands} real hands "
        f"(by street: {by_street.tolist()}), "
        f"budget {args.rollouts} rollouts a candidate, median of {args.repeat} runs"
    )
    grade_chunk(decisions[:5], options)  # rank tables and layouts built once, as in a long run

    peer_time, peer = timed(lambda: plain(decisions, args.rollouts), 1)
    one_time, one = timed(lambda: grade_chunk(decisions, options), args.repeat)
    half = count // 2
    while half < count and decisions[half].hand_key == decisions[half - 1].hand_key:
        half += 1
    parts = [decisions[:half], decisions[half:]]
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(grade_chunk, [decisions[:3]] * 2, [options] * 2))  # warm both workers

        def both() -> list[object]:
            return list(pool.map(grade_chunk, parts, [options] * 2))

        two_time, _ = timed(both, args.repeat)
    grades = one["grades"].to_pandas()  # type: ignore[index]
    lost = grades[grades["loss"] > 0]
    peer_se = np.median([se for loss, se in peer if loss > 0]) if peer else float("nan")
    rate_peer, rate_one, rate_two = count / peer_time, count / one_time, count / two_time
    print(f"plain (peer), 1 core:  {rate_peer:7.1f} decisions/s  ({peer_time:.1f} s, 1 run)")
    print(
        f"race, 1 core:          {rate_one:7.1f} decisions/s  ({one_time:.1f} s)  "
        f"race/plain {rate_one / rate_peer:.2f}x"
    )
    print(
        f"race, 2 cores:         {rate_two:7.1f} decisions/s  ({two_time:.1f} s)  "
        f"2 cores/1 core {rate_two / rate_one:.2f}x"
    )
    print(
        f"loss SE, median over the {len(lost)} decisions with a loss: race "
        f"{lost['loss_se'].median():.2f} (independent estimates would give "
        f"{lost['loss_se_independent'].median():.2f}: CRN shrink the SE "
        f"{lost['loss_se_independent'].median() / lost['loss_se'].median():.2f}x), "
        f"plain {peer_se:.2f}"
    )
    seats = grades.groupby(["hand_key", "seat"]).ngroups
    print(
        f"mean loss {grades['loss'].mean():.2f} points a decision, "
        f"{grades['loss'].sum() / seats:.2f} a seat and hand ({seats} seats)"
    )
    goal = GOAL_DECISIONS / rate_two
    verdict = "met" if goal <= GOAL_SECONDS else "NOT met"
    print(
        f"50,000 decisions on 2 cores: {goal:,.0f} s ({goal / 60:.1f} min); "
        f"goal {GOAL_SECONDS:.0f} s: {verdict} (ratio {goal / GOAL_SECONDS:.1f}x the goal)"
    )


if __name__ == "__main__":
    main()
