"""Report and hand-view speed on a large dataset, with the floor measured in the same run.

    .venv/bin/python bench/report.py [--hands 1000000] [--base 10000] [--repeat 3] [--keep DIR]

Builds the dataset as bench/recompute.py does (``--base`` simulated hands,
batches copied under new keys up to ``--hands``, recomputed) unless
``--keep DIR`` already holds one.  Then, for the player the CLI picks by
default (the hero when the files mark one, else the most frequent player):

* ``ofc-stats report`` end to end in a child process (open, every section,
  charts, HTML), median of ``--repeat`` runs, and the children's peak memory;
* the floor: one DuckDB query reading the player's scored seats joined with
  their hands and results (what any report must read), median in this run;
* each section alone, in this process;
* the hand view: ``ofc-stats hand KEY`` end to end, and opening a hand in
  this process (``reports.replay.find_hand``), against the floor of finding
  that hand's row in ``hands``.

Times are wall-clock medians; the machine is shared, so read the ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from recompute import build  # noqa: E402

FLOOR_SQL = """
SELECT count(*), sum(net_capped), count(board), count(discards), max(played_at)
FROM seat_results s WHERE {where}
"""


def median_time(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_children_mib() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="Build the dataset here, keep it.")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="ofc-bench-report-"))
    root = work / "data"
    try:
        if not (root / "dataset.json").exists():
            build(root, args.hands, args.base)
        import ofc_stats
        from reports import BUILDERS, Filters, checked, choose_player
        from reports.base import prepare
        from reports.replay import find_hand

        with ofc_stats.open(root) as db:
            hands = db.sql("SELECT count(*) FROM hands").fetchall()[0][0]
            me = choose_player(db, None)
            filters = checked(db, me.scope(Filters()))
            where, params = filters.player_where("s")
            seats = db.sql(f"SELECT count(*) FROM seat_results s WHERE {where}", params).fetchall()[
                0
            ][0]
            floor_sql = FLOOR_SQL.format(where=where)
            floor = median_time(lambda: db.sql(floor_sql, params).fetchall(), args.repeat)
            sample = [
                r[0] for r in db.sql("SELECT hand_key FROM hands USING SAMPLE 5 ROWS").fetchall()
            ]
        print(f"dataset: {hands:,} hands; player {me.name}: {seats:,} scored seats")

        cli = ROOT / ".venv" / "bin" / "ofc-stats"
        out = work / "report.html"
        command = [str(cli), "report", "--data", str(root), "--out", str(out)]
        cpu = []

        def report_run() -> None:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(command, check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)

        report = median_time(report_run, args.repeat)
        peak = peak_children_mib()
        print(
            f"ofc-stats report (whole CLI run), median of {args.repeat}: {report:.1f} s wall, "
            f"{statistics.median(cpu):.1f} s CPU (user + system), peak memory {peak:,.0f} MiB; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )
        print(
            f"floor (one query reading the player's scored seats), median: {floor:.2f} s; "
            f"report / floor = {report / floor:.1f}"
        )
        print(
            f"goal: <= 10 s (issue 13), < 20 s (issue 14): {'met' if report <= 10 else 'NOT met'}"
        )

        with ofc_stats.open(root) as db:
            start = time.perf_counter()
            prepare(db, filters)
            print(f"  scope (temp tables)  {time.perf_counter() - start:6.2f} s")
            for build_section in BUILDERS:
                start = time.perf_counter()
                section = build_section(db, filters)
                print(f"  {section.key:20} {time.perf_counter() - start:6.2f} s")

        hand_cli = median_time(
            lambda: subprocess.run(
                [str(cli), "hand", sample[0], "--data", str(root)], check=True, capture_output=True
            ),
            args.repeat,
        )
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
        print(
            f"ofc-stats hand KEY (whole CLI run, Python start included), median: {hand_cli:.2f} s"
        )
        print(
            f"hand view in process (open the dataset + the hand), median of {len(sample)}: "
            f"{view:.2f} s; floor (the hand's row in hands) {row:.2f} s; ratio {view / row:.1f}"
        )
        print(f"goal: hand view < 1 s: {'met' if view < 1 else 'NOT met'} in process")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
