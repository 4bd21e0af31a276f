"""Report speed and memory at growing sizes, with the floor measured in the same run.

    .venv/bin/python bench/report.py [--sizes 1000000] [--player-seats 200000] [--repeat 3]
                                     [--base 10000] [--keep DIR]
    .venv/bin/python bench/report.py --sizes 1000000,10000000 --keep /tmp/ofc-report

For each size a dataset is built by ``bench/report_data.py`` (simulated
hands copied under new keys; the chosen player has ``--player-seats`` seats
whatever the size, marked as the hero's, the rest are other players), or
reused from ``--keep DIR`` (``DIR/n<size>/data``).  Then, per size, runs
interleaved so host noise hits each size alike:

* ``ofc-stats report`` for the hero (the CLI's default player), the whole
  CLI run in a child process: wall and CPU seconds (user + system, DuckDB's
  threads included) and that run's peak resident memory; medians of
  ``--repeat``;
* the floor: one DuckDB query reading the player's scored seats with their
  results and hands, joined on ``hand_id`` (the least any report must
  read), in this process;
* the ratio of the two wall times, and of the report's CPU seconds to the
  floor's (the floor's CPU seconds, DuckDB's threads included, in this
  process).

Each size's wall and CPU figures are recorded (``bench/record.py``) with their
floor and ratio against the goals: at 1M hands <= 10 s wall and <= 6 s CPU, at
10M < 60 s wall and < 1.5 GB.

For the first size it also prints each section's CPU seconds in this
process (the scope, every report, the page) and the hand view: opening one
hand (``reports.replay.find_hand``) against finding its row in ``hands``.
The machine is shared: read the ratios, and the CPU seconds, which load
inflates less than wall time.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's reports, also in this process
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402
from record import record  # noqa: E402
from report_data import build  # noqa: E402

# The least any report of the player must read: their seats with their results and hands,
# joined on hand_id (the seat_results view joins every hand's string key: 10x slower at 10M).
FLOOR_SQL = """
SELECT count(*), sum(r.net_capped), count(s.board), count(s.discards), max(h.played_at)
FROM (SELECT hand_id, seat, board, discards FROM seats WHERE {mine}) s
JOIN (SELECT hand_id, seat, net_capped FROM results_stored WHERE status = 'scored') r
  USING (hand_id, seat)
JOIN (SELECT hand_id, played_at FROM hands) h USING (hand_id)
"""
GOALS = {1_000_000: 10.0, 10_000_000: 60.0}  # issue 13: seconds for the whole report
CPU_GOALS = {1_000_000: 6.0}  # issue 29: CPU seconds for the whole report
MEMORY_GOAL_MIB = 1536  # issue 13: under 1.5 GB at 10M hands

# One CLI run in a child of a child, so the peak memory read is that run's alone.
CHILD = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, capture_output=True)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_mib": usage.ru_maxrss / 1024}))
"""


def cli_run(root: Path, out: Path) -> dict[str, float]:
    """One ``ofc-stats report`` of this checkout (its tree first on the path, any venv)."""
    command = [sys.executable, "-m", "ofc_stats", "report", "--data", str(root)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return run_child(CHILD, *command, "--out", str(out), env=env, cwd=None)


def timed(run: Callable[[], object], repeat: int) -> float:
    return timed_both(run, repeat)[0]


def timed_both(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds (this process, every thread) of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def floor(root: Path, repeat: int) -> tuple[float, float, int, int]:
    """(median wall and CPU seconds of the floor query, hands, the player's scored seats)."""
    import ofc_stats
    from reports import Filters, checked, choose_player

    with ofc_stats.open(root) as db:
        hands = int(db.sql("SELECT count(*) FROM hands").fetchall()[0][0])
        filters = checked(db, choose_player(db, None).scope(Filters()))
        mine, params = filters.me("seats")
        query = FLOOR_SQL.format(
            mine=mine.replace("seats.player_key", "coalesce(player_id, player)")
        )
        seats = int(db.sql(query, params).fetchall()[0][0])
        wall, cpu = timed_both(lambda: db.sql(query, params).fetchall(), repeat)
        return wall, cpu, hands, seats


def sections(root: Path) -> None:
    """Each part of the report's CPU seconds, in this process (the cycle collector paused,
    as ``ofc-stats report`` pauses it)."""
    gc.disable()
    try:
        _sections(root)
    finally:
        gc.enable()


def _sections(root: Path) -> None:
    import ofc_stats
    from reports import BUILDERS, Filters, checked, choose_player, leak_summary
    from reports.base import prepare
    from reports.html import render

    def cpu(label: str, run: Callable[[], Any]) -> Any:
        start = time.process_time()
        value = run()
        print(f"  {label:28} {time.process_time() - start:6.2f} s CPU")
        return value

    with ofc_stats.open(root) as db:
        me = choose_player(db, None)
        filters = checked(db, me.scope(Filters()))
        scope = cpu("scope (prepare: temp tables)", lambda: prepare(db, filters))
        from ofc_stats.audit.ledger import ensure_ledger
        from reports.ledger import money_seats

        cpu(  # as the CLI does before the sections
            "ledger priced (ensure_ledger)",
            lambda: ensure_ledger(db, money_seats(scope)["hand_id"].tolist()),
        )
        built = []
        for build_section in BUILDERS:
            built.append(
                cpu(build_section.__module__.split(".")[-1], lambda b=build_section: b(scope))
            )
        from reports.explore import page_data, replays

        live = cpu("page data (explore)", lambda: page_data(scope))
        known = {key for report in built for key in report.replays}
        carried = cpu("replayer data", lambda: replays(db, live, known))
        page = cpu(
            "page (render HTML)",
            lambda: render(
                me.name,
                "all hands",
                built,
                leak_summary(built),
                live=live,
                carried=carried,
            ),
        )
        print(f"  page size {len(str(page)) / 1e6:.1f} MB")


def hand_view(root: Path, repeat: int) -> None:
    import ofc_stats
    from reports.replay import find_hand

    with ofc_stats.open(root) as db:
        sample = [r[0] for r in db.sql("SELECT hand_key FROM hands USING SAMPLE 5 ROWS").fetchall()]
    cli = [sys.executable, "-m", "ofc_stats", "hand", sample[0], "--data", str(root)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    whole = timed(lambda: subprocess.run(cli, check=True, capture_output=True, env=env), repeat)
    opened, found = [], []
    for hand_key in sample:
        start = time.perf_counter()
        with ofc_stats.open(root) as db:
            find_hand(db, hand_key)
            opened.append(time.perf_counter() - start)
            start = time.perf_counter()
            db.sql("SELECT * FROM hands WHERE hand_key = $k", {"k": hand_key}).fetchall()
            found.append(time.perf_counter() - start)
    view, row = statistics.median(opened), statistics.median(found)
    print(f"ofc-stats hand KEY, whole CLI run (Python start included), median: {whole:.2f} s")
    print(
        f"hand view in process (open the dataset + the hand), median of {len(sample)}: "
        f"{view:.2f} s; floor (the hand's row in hands) {row:.2f} s; ratio {view / row:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000", help="Hands per dataset, comma-separated.")
    parser.add_argument("--player-seats", type=int, default=200_000)
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--keep", type=Path, default=None, help="Build the datasets here, keep them."
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    work = args.keep or Path(tempfile.mkdtemp(prefix="ofc-bench-report-"))
    roots = {size: work / f"n{size}" / "data" for size in sizes}
    try:
        for size, root in roots.items():
            if not (root / "dataset.json").exists():
                built = build(root, size, args.player_seats, args.base, source=work)
                print(f"built {root}: {built}")
        runs: dict[int, list[dict[str, float]]] = {size: [] for size in sizes}
        for _ in range(args.repeat):
            for size, root in roots.items():
                runs[size].append(cli_run(root, root.parent / "report.html"))
        floors = {size: floor(root, args.repeat) for size, root in roots.items()}
        load = os.getloadavg()
        print(
            f"\nofc-stats report, whole CLI run, medians of {args.repeat}; load average "
            f"{load[0]:.1f} / {load[1]:.1f} on {os.cpu_count()} cores"
        )
        print(
            f"{'hands':>11} {'seats':>8} {'wall s':>7} {'CPU s':>6} {'peak MiB':>9} "
            f"{'floor s':>8} {'ratio':>6} {'floor CPU':>9} {'ratio':>6}  goals"
        )
        for size in sizes:
            wall = statistics.median(r["wall"] for r in runs[size])
            cpu = statistics.median(r["cpu"] for r in runs[size])
            peak = max(r["peak_mib"] for r in runs[size])
            seconds, floor_cpu, hands, seats = floors[size]
            goal, cpu_goal = GOALS.get(size), CPU_GOALS.get(size)
            verdicts = []
            if goal is not None:
                verdicts.append(f"<= {goal:g} s wall: {'met' if wall <= goal else 'NOT met'}")
            if cpu_goal is not None:
                verdicts.append(f"<= {cpu_goal:g} s CPU: {'met' if cpu <= cpu_goal else 'NOT met'}")
            if size >= 10_000_000:
                met = peak < MEMORY_GOAL_MIB
                verdicts.append(f"< {MEMORY_GOAL_MIB} MiB: {'met' if met else 'NOT met'}")
            print(
                f"{hands:11,} {seats:8,} {wall:7.2f} {cpu:6.2f} {peak:9,.0f} "
                f"{seconds:8.2f} {wall / seconds:6.1f} {floor_cpu:9.2f} "
                f"{cpu / max(floor_cpu, 1e-9):6.1f}  {', '.join(verdicts)}"
            )
            label = f"{size:,} hands, {seats:,} of the player's seats"
            record(
                "report",
                f"report wall, {size:,} hands",
                figure=wall,
                unit="s",
                reference=seconds,
                reference_name="floor query (the player's seats, results and hands), wall",
                goal="" if goal is None else f"<= {goal:g} s",
                met=None if goal is None else wall <= goal,
                note=f"{label}; median of {args.repeat}; load {load[0]:.1f}",
            )
            record(
                "report",
                f"report CPU, {size:,} hands",
                figure=cpu,
                unit="s CPU",
                reference=floor_cpu,
                reference_name="floor query, CPU seconds",
                goal="" if cpu_goal is None else f"<= {cpu_goal:g} s CPU",
                met=None if cpu_goal is None else cpu <= cpu_goal,
                note=f"{label}; peak {peak:,.0f} MiB; median of {args.repeat}",
            )
        first = roots[sizes[0]]
        print(f"\nwhere the CPU goes at {sizes[0]:,} hands (in this process):")
        sections(first)
        hand_view(first, args.repeat)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
