"""Simulation speed: hands per CPU-second of the file ``ofc-stats simulate`` writes,
the core against the previous commit.

    .venv/bin/python bench/simulate.py [--hands 6000] [--reference /work/main] [--runs 3]

Each figure is the median of ``--runs`` runs, each in a fresh subprocess
that warms up (class tables, rulesets) and then times, for
pineapple-progressive, 3 seats, the default pool:

* the simulator's figure: ``write_simulation`` writing the open-format file
  the user gets, on 1 thread, against the same call in the checkout at
  ``--reference`` (the NumPy simulator before the core: one worker process,
  whose CPU time is counted with the parent's), and against this checkout
  writing every hand through its record (``simulate_parts`` without the core's
  lines: the writer before the core wrote the lines);
* the same file on 2 threads against 1, wall time;
* ``simulate`` making HandRecords (the API), on 1 and 2 threads (CPU and
  wall), and its part in the core alone (``play_session``) on 1 and 2 threads.

CPU time is the process's (every thread's) plus its finished children's.
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


WRITE = """
import inspect, json, resource, sys, tempfile, time
from pathlib import Path
import ofc_stats.sim.tables as tables
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.sim import rooms
hands, mode = int(sys.argv[1]), sys.argv[2]
threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
ruleset = get_ruleset("pineapple-progressive")
options = (
    {"threads": threads} if "threads" in inspect.signature(rooms.write_simulation).parameters
    else {"workers": threads}
)
if mode == "records":  # every hand through its record, as before the core wrote the lines
    parts = rooms.simulate_parts
    rooms.simulate_parts = lambda *a, **k: parts(*a, **{**k, "lines": False})
def cpu():
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime
core = [0.0]
if hasattr(tables, "play_session"):
    play = tables.play_session
    def timed(*a, **k):
        start = time.process_time()
        try:
            return play(*a, **k)
        finally:
            core[0] += time.process_time() - start
    tables.play_session = timed
with tempfile.TemporaryDirectory() as folder:
    out = Path(folder) / "sim.jsonl"
    rooms.write_simulation(out, 60, ruleset, seats=3, seed=99, **options)  # warm-up
    core[0] = 0.0
    start, wall = cpu(), time.perf_counter()
    summary = rooms.write_simulation(out, hands, ruleset, seats=3, seed=1, **options)
    spent, wall = cpu() - start, time.perf_counter() - wall
    print(json.dumps({"hands": summary.hands, "cpu": spent, "wall": wall, "core": core[0],
                      "bytes": out.stat().st_size}))
"""


def written(
    checkout: Path, hands: int, mode: str, runs: int, threads: int = 1
) -> tuple[float, float, float]:
    """Median hands per CPU-second of writing the file on ``threads`` threads, median
    CPU microseconds a hand spent in the core's ``play_session`` (0 where there is
    none), and median hands per wall-second."""
    results = [measure(checkout, hands, mode, script=WRITE, threads=threads) for _ in range(runs)]
    rate = statistics.median(r["hands"] / r["cpu"] for r in results)
    core = statistics.median(r["core"] / r["hands"] * 1e6 for r in results)
    wall = statistics.median(r["hands"] / r["wall"] for r in results)
    return rate, core, wall


def measure(
    checkout: Path, hands: int, mode: int | str, script: str = RUN, threads: int = 1
) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [sys.executable, "-c", script, str(hands), str(mode), str(threads)],
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
    file, file_core, file_wall = written(HERE, args.hands, "file", args.runs)
    loads.append(os.getloadavg()[0])
    _, _, file_wall2 = written(HERE, args.hands, "file", args.runs, threads=2)
    loads.append(os.getloadavg()[0])
    records, records_core, _ = written(HERE, args.hands, "records", args.runs)
    loads.append(os.getloadavg()[0])
    file_reference, _, _ = written(args.reference, args.reference_hands, "file", args.runs)
    loads.append(os.getloadavg()[0])
    core = {t: median_rates(HERE, args.hands, t, args.runs) for t in (1, 2)}
    loads.append(os.getloadavg()[0])
    reference, _, _, _ = median_rates(args.reference, args.reference_hands, 1, args.runs)
    loads.append(os.getloadavg()[0])
    load = f"load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores"
    print(f"medians of {args.runs} runs, pineapple-progressive, 3 seats; {load}")
    print(
        f"the file (write_simulation, open format, 1 thread): {file:10,.0f} hands per CPU-second"
        f" ({1e6 / file:,.0f} CPU-us a hand, {file_core:,.0f} of them in play_session)"
    )
    print(
        f"  through records (this checkout, no core lines): {records:10,.0f} hands per "
        f"CPU-second ({1e6 / records:,.0f} CPU-us a hand, {records_core:,.0f} in play_session)"
    )
    print(f"  reference ({args.reference}): {file_reference:10,.0f} hands per CPU-second")
    print(f"  ratio the file / reference: {file / file_reference:.1f}x")
    print(f"  ratio the core's lines / through records: {file / records:.2f}x")
    print(
        f"  2 threads / 1 thread, wall: {file_wall2 / file_wall:.2f}x "
        f"({file_wall:,.0f} against {file_wall2:,.0f} hands per wall-second)"
    )
    print("simulate() making HandRecords:")
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
        "the file, hands per CPU-second, 1 thread",
        figure=file,
        unit="hands/CPU-s",
        reference=file_reference,
        reference_name=f"write_simulation in the checkout at {args.reference}",
        goal="≥ 20,000",
        met=file >= 20_000,
        note=(
            f"write_simulation, the open-format file ofc-stats simulate writes: "
            f"{1e6 / file:,.0f} CPU-us a hand, {file_core:,.0f} in play_session; "
            f"every hand through its record, this checkout: {records:,.0f} hands/CPU-s "
            f"({file / records:.2f}x); {load}"
        ),
    )
    record(
        "simulate",
        "the file, 2 threads against 1, wall",
        figure=file_wall2 / file_wall,
        unit="×",
        goal="≥ 1.8×",
        met=file_wall2 / file_wall >= 1.8,
        note=(
            f"write_simulation on 2 threads against 1: "
            f"{file_wall:,.0f} and {file_wall2:,.0f} hands per wall-second; {load}"
        ),
    )
    record(
        "simulate",
        "hands per CPU-second, 1 thread",
        figure=core[1][0],
        unit="hands/CPU-s",
        reference=reference,
        reference_name=f"the checkout at {args.reference}",
        note=f"simulate(), HandRecords for the API, no file (the goal is the file's); {load}",
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
