"""Simulation speed: hands per CPU-second of ``simulate``, the core against the previous commit.

    .venv/bin/python bench/simulate.py [--hands 6000] [--reference /work/main] [--runs 3]

Each figure is the median of ``--runs`` runs, each in a fresh subprocess
that warms up (class tables, rulesets) and then times ``simulate`` making
HandRecords for pineapple-progressive, 3 seats, the default pool.  CPU time
is the process's (every thread's); the reference is the checkout at
``--reference`` (the NumPy simulator before the core), run the same way in
the same run.  The core is also timed on 1 and 2 threads (CPU and wall), and
its part alone (``play_session``: every hand but its record) on 1 and 2 threads.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from record import record

HERE = Path(__file__).resolve().parent.parent

RUN = """
import inspect, json, sys, time
import ofc_stats.sim.tables as tables
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.sim.rooms import simulate
hands, threads = int(sys.argv[1]), int(sys.argv[2])
ruleset = get_ruleset("pineapple-progressive")
options = {"threads": threads} if "threads" in inspect.signature(simulate).parameters else {}
parts, walls = {}, {}
def timed(name, f):
    def run(*a, **k):
        start, wall = time.process_time(), time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            parts[name] = parts.get(name, 0.0) + time.process_time() - start
            walls[name] = walls.get(name, 0.0) + time.perf_counter() - wall
    return run
for name in ("play_session", "play_streets", "solve_fantasy_batch", "score_batch"):
    if hasattr(tables, name):
        setattr(tables, name, timed(name, getattr(tables, name)))
for _ in simulate(60, ruleset, seats=3, seed=99, **options):  # warm-up: tables, rulesets
    pass
parts.clear()
walls.clear()
cpu, wall = time.process_time(), time.perf_counter()
made = sum(1 for _ in simulate(hands, ruleset, seats=3, seed=1, **options))
print(json.dumps({"hands": made, "cpu": time.process_time() - cpu,
                  "wall": time.perf_counter() - wall, "parts": parts, "walls": walls}))
"""


def measure(checkout: Path, hands: int, threads: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(hands), str(threads)],
        cwd=checkout,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    figures: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    return figures


def median_rates(
    checkout: Path, hands: int, threads: int, runs: int
) -> tuple[float, float, dict[str, float], float]:
    """Median hands per CPU-second and per wall-second over ``runs`` runs, the
    median CPU microseconds a hand of each timed part, and the median wall
    microseconds a hand of the core's part (``play_session``: the whole hand; before it
    ``play_streets``, the streets alone), the part on threads."""
    results = [measure(checkout, hands, threads) for _ in range(runs)]
    cpu = statistics.median(r["hands"] / r["cpu"] for r in results)
    wall = statistics.median(r["hands"] / r["wall"] for r in results)
    names = set().union(*(r["parts"] for r in results))
    parts = {
        name: statistics.median(r["parts"].get(name, 0.0) / r["hands"] * 1e6 for r in results)
        for name in sorted(names)
    }
    walls = [r.get("walls", {}) for r in results]
    streets = statistics.median(
        w.get("play_session", w.get("play_streets", 0.0)) / r["hands"] * 1e6
        for w, r in zip(walls, results, strict=True)
    )
    return cpu, wall, parts, streets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=6000)
    parser.add_argument("--reference-hands", type=int, default=1500)
    parser.add_argument("--reference", type=Path, default=Path("/work/main"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    loads = [os.getloadavg()[0]]
    core = {t: median_rates(HERE, args.hands, t, args.runs) for t in (1, 2)}
    loads.append(os.getloadavg()[0])
    reference, _, _, _ = median_rates(args.reference, args.reference_hands, 1, args.runs)
    loads.append(os.getloadavg()[0])
    load = f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores"
    print(f"medians of {args.runs} runs, pineapple-progressive, 3 seats; {load}")
    for threads, (cpu, wall, parts, _) in core.items():
        print(
            f"core, {threads} thread(s): {cpu:10,.0f} hands per CPU-second "
            f"({wall:,.0f} per wall-second)"
        )
        spent = ", ".join(f"{name} {us:,.0f}" for name, us in parts.items())
        print(f"  CPU microseconds a hand: {1e6 / cpu:,.0f} in all; {spent}")
    print(f"reference ({args.reference}): {reference:10,.0f} hands per CPU-second")
    print(f"ratio core (1 thread) / reference: {core[1][0] / reference:.1f}x")
    print(f"ratio 2 threads / 1 thread, wall: {core[2][1] / core[1][1]:.2f}x")
    streets = core[1][3] / core[2][3] if core[2][3] else float("nan")
    print(
        f"ratio 2 threads / 1 thread, wall, the core's part alone (play_session): "
        f"{streets:.2f}x ({core[1][3]:,.0f} against {core[2][3]:,.0f} wall-us a hand)"
    )
    record(
        "simulate",
        "hands per CPU-second, 1 thread",
        figure=core[1][0],
        unit="hands/CPU-s",
        reference=reference,
        reference_name=f"the checkout at {args.reference}",
        goal="≥ 20,000",
        met=core[1][0] >= 20_000,
        note=load,
    )
    record(
        "simulate",
        "2 threads against 1, wall",
        figure=core[2][1] / core[1][1],
        unit="×",
        goal="≥ 1.8×",
        met=core[2][1] / core[1][1] >= 1.8,
        note=load,
    )
    record(
        "simulate",
        "2 threads against 1, wall, the core's part",
        figure=streets,
        unit="×",
        goal="≥ 1.8×",
        met=streets >= 1.8,
        note=f"play_session alone (the whole hand but its record; on threads); {load}",
    )


if __name__ == "__main__":
    main()
