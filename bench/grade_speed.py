"""The grader's speed goals like for like: a rollout's cost by policy, and the second core.

    .venv/bin/python bench/grade_speed.py [--hands 40] [--rollouts 32] [--repeat 3]
        [--reference /work/ref-old]

The issue's goal is "rollouts at 8x the pre-core grader's street decisions per
CPU-second on the same 40 real hands"; but the grader now plays its rollouts by
a costlier policy than the pre-core one (two imaginations and four plans, or
the learned value, against one imagination and one plan), and it cannot be
told to play the old one.  So this script measures, on the 40 real hands'
street decisions (``bench/reference_grader.sample``), in one run:

* the pre-core checkout's rollouts alone (``--reference``, NumPy
  ``simulate_many`` batched by shape as its grader ran them): CPU microseconds
  a rollout of the first policy for every legal candidate, 32 each -- the
  like-for-like reference; and its whole grader (race, screens, Python) over
  the rollouts its race counted, for scale;
* the core (``rust/ofc-core/examples/rollout_cost.rs``, one thread): CPU
  microseconds a rollout of every legal candidate of the same decisions under
  the first policy (``Policy::classic``), today's imagination policy and
  today's default (the learned value) -- the first against the pre-core figure
  is the like-for-like ratio of the goal -- and a digest of every value each
  policy played (two versions of the core with the same digests played the same
  rollouts bit for bit: a speed-up must not change it);
* today's grader as ``ofc-stats grade`` runs it (``grade_chunk``) on 1 and 2
  threads, interleaved: decisions per CPU-second, and the wall-clock speed of
  two threads against one (goal 1.8x), with the load average before and after
  each run (the machine is shared).

Medians of ``--repeat`` runs; figures recorded in ``bench/results/grade_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import reference_grader  # noqa: E402
from child import run_child  # noqa: E402
from record import record  # noqa: E402
from reference_grader import SAMPLES, previous_grader, sample  # noqa: E402

from ofc_stats.grade.race import decision_seed  # noqa: E402
from ofc_stats.grade.rollout import core_decision, fantasy_values, streets  # noqa: E402
from ofc_stats.grade.tasks import GradeOptions, grade_chunk  # noqa: E402
from ofc_stats.grade.train import WEIGHTS  # noqa: E402

GOAL_CPU, GOAL_THREADS = 8.0, 1.8

# The pre-core checkout's own rollouts alone (no race, no screen): every legal
# candidate of the same decisions, ROLLOUTS common rollouts each, batched by shape
# as its grader ran them in lockstep (``simulate_many``); CPU seconds, median of REPEAT.
ROLLOUTS_CHILD = """
import json, sys, tempfile, time
from pathlib import Path
import numpy as np
import pyarrow.parquet as pq
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.grade.position import HAND_COLUMNS, PLACEMENT_COLUMNS, SEAT_COLUMNS, read_positions
from ofc_stats.grade.rollout import setup, shape, simulate_many
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths

samples, keys_file, rollouts, repeat = sys.argv[1:5]
wanted = set(json.loads(Path(keys_file).read_text()))
with tempfile.TemporaryDirectory() as tmp:
    data = Path(tmp) / "data"
    import_paths([Path(samples)], data)
    dataset = Dataset(data)
    batch = dataset.batches()[0]
    positions = read_positions(
        pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS),
        pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS),
        pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS),
        get_ruleset,
    )
plans = [setup(d) for d in positions.decisions if d.hand_key in wanted]
groups = {}
for p in plans:
    groups.setdefault(shape(p), []).append(p)
cpu, played = [], 0
for _ in range(int(repeat)):
    played = 0
    start = time.process_time()
    for members in groups.values():
        rngs = [np.random.default_rng(i) for i in range(len(members))]
        outs = simulate_many(members, [p.legal for p in members], int(rollouts), rngs)
        played += sum(o.total.size for o in outs)
    cpu.append(time.process_time() - start)
print(json.dumps({"decisions": len(plans), "cpu": sorted(cpu)[len(cpu) // 2], "rollouts": played}))
"""


def pre_core_rollouts(decisions: list, reference: Path, rollouts: int, repeat: int) -> dict:  # type: ignore[type-arg]
    """The pre-core checkout's NumPy rollouts of every legal candidate (see ROLLOUTS_CHILD)."""
    keys = sorted({d.hand_key for d in decisions})
    with tempfile.TemporaryDirectory() as tmp:
        keys_file = Path(tmp) / "keys.json"
        keys_file.write_text(json.dumps(keys))
        env = {**os.environ, "PYTHONPATH": str(reference)}
        return run_child(
            ROLLOUTS_CHILD, str(SAMPLES), str(keys_file), str(rollouts), str(repeat),
            env=env, cwd=reference,
        )  # fmt: skip


def rollout_cost(decisions: list, options: GradeOptions, rollouts: int, repeat: int) -> dict:  # type: ignore[type-arg]
    """The core example's figures: per policy, CPU seconds and candidate-rollouts."""
    first = decisions[0].ruleset
    doc = {
        "streets": [list(s) for s in streets(first)],
        "fantasy_values": [float(v) for v in fantasy_values(first.deck)],
        "positions": [
            core_decision(d, decision_seed(options.seed, d.hand_key, d.seat, d.street))
            for d in decisions
        ],
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "positions.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        out = subprocess.run(
            ["cargo", "run", "-q", "--profile", "dev-release", "-p", "ofc-core",
             "--example", "rollout_cost", "--", str(path), str(WEIGHTS), str(rollouts),
             str(repeat)],
            cwd=ROOT, check=True, capture_output=True, text=True,
        )  # fmt: skip
    figures: dict = json.loads(out.stdout.splitlines()[-1])  # type: ignore[type-arg]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference", type=Path, default=reference_grader.REFERENCE)
    args = parser.parse_args()
    reference_grader.REFERENCE = args.reference
    decisions = sample(args.hands)
    count = len(decisions)
    options = GradeOptions(rollouts=args.rollouts)
    print(f"{count} street decisions of {args.hands} real hands, medians of {args.repeat} runs")

    old, ref = previous_grader(decisions, args.rollouts, options.seed, args.repeat)
    ref_cpu = statistics.median(ref["cpu"])
    ref_rollouts = int(sum(old["grade_candidates"].column("rollouts").to_pylist()))
    ref_us = ref_cpu / ref_rollouts * 1e6

    pure = pre_core_rollouts(decisions, args.reference, args.rollouts, args.repeat)
    pure_us = pure["cpu"] / pure["rollouts"] * 1e6
    core = rollout_cost(decisions, options, args.rollouts, args.repeat)
    us = {name: f["cpu"] / f["rollouts"] * 1e6 for name, f in core.items()}

    grade_chunk(decisions[:5], options, threads=1)  # tables built once, as in a long run
    runs: dict[int, list[tuple[float, float, float, float]]] = {1: [], 2: []}
    rolled = 0
    for _ in range(args.repeat):
        for threads in (1, 2):
            load = os.getloadavg()[0]
            cpu, wall = time.process_time(), time.perf_counter()
            tables = grade_chunk(decisions, options, threads=threads)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            runs[threads].append((cpu, wall, load, os.getloadavg()[0]))
            rolled = int(sum(tables["grade_candidates"].column("rollouts").to_pylist()))
    med = {t: [statistics.median(r[i] for r in runs[t]) for i in range(2)] for t in (1, 2)}
    loads = [x for t in (1, 2) for r in runs[t] for x in r[2:]]
    today_us = med[1][0] / rolled * 1e6

    print(f"pre-core grader ({args.reference}), first policy in NumPy: {ref_us:8.1f} CPU-us a "
          f"rollout counted by its race ({ref_rollouts:,} candidate-rollouts in {ref_cpu:.2f} "
          f"CPU s, its screens and Python included; {count / ref_cpu:.1f} decisions per "
          f"CPU-second)")  # fmt: skip
    print(f"pre-core rollouts alone (simulate_many, every legal candidate): {pure_us:8.2f} "
          f"CPU-us a rollout ({pure['rollouts']:,} candidate-rollouts of "
          f"{pure['decisions']} decisions)")  # fmt: skip
    for name, label in (
        ("classic", "first policy (Policy::classic)"),
        ("imagination", "imagination policy (no learned value)"),
        ("learned", "today's default (learned value)"),
    ):
        print(f"core, {label}: {us[name]:8.2f} CPU-us a rollout "
              f"({core[name]['rollouts']:,} candidate-rollouts, {args.rollouts} a candidate; "
              f"digest of every value {core[name]['digest']}); "
              f"pre-core rollouts alone / core {pure_us / us[name]:.1f}x")  # fmt: skip
    print(f"today's grader (grade_chunk, 1 thread): {count / med[1][0]:.1f} decisions per "
          f"CPU-second, {today_us:.2f} CPU-us a rollout ({rolled:,} candidate-rollouts); "
          f"against the pre-core grader {ref_cpu / med[1][0]:.2f}x in decisions")  # fmt: skip
    print(f"2 threads against 1, wall: {med[1][1] / med[2][1]:.2f}x ({med[1][1]:.2f} s against "
          f"{med[2][1]:.2f} s; goal {GOAL_THREADS}x); load average {min(loads):.1f}-"
          f"{max(loads):.1f} on {os.cpu_count()} cores during the runs")  # fmt: skip
    like = pure_us / us["classic"]
    record(
        "grade_speed",
        "rollout CPU-us, first policy: core against pre-core",
        figure=us["classic"],
        unit="CPU-us/rollout",
        reference=pure_us,
        reference_name=f"the pre-core rollouts (simulate_many) at {args.reference}",
        ratio=like,
        goal=f"≥ {GOAL_CPU:.0f}× (like for like)",
        met=like >= GOAL_CPU,
        note=f"{count} decisions of {args.hands} real hands, every legal candidate, "
        f"{args.rollouts} rollouts each; the pre-core grader as a whole: {ref_us:.1f} "
        f"CPU-us a rollout its race counted",
    )
    record(
        "grade_speed",
        "rollout CPU-us, today's policy (learned value)",
        figure=us["learned"],
        unit="CPU-us/rollout",
        reference=us["classic"],
        reference_name="the first policy in the core, same run",
        ratio=us["learned"] / us["classic"],
        note="what a rollout of today's policy costs against the first policy's; digests "
        + ", ".join(f"{name} {f['digest']}" for name, f in core.items()),
    )
    record(
        "grade_speed",
        "2 threads against 1, wall",
        figure=med[1][1] / med[2][1],
        unit="×",
        goal=f"≥ {GOAL_THREADS}×",
        met=med[1][1] / med[2][1] >= GOAL_THREADS,
        note=f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores",
    )


if __name__ == "__main__":
    main()
