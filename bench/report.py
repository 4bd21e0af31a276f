"""Report speed: the full HTML report for one player on a large dataset.

    .venv/bin/python bench/report.py [--hands 1000000] [--base 10000] [--repeat 3]

Builds the dataset as bench/recompute.py does (``--base`` simulated hands,
batches copied under new keys up to ``--hands``, recomputed), then times
``ofc-stats report`` end to end in a child process (the CLI as a user runs
it: open, every report, charts, HTML), and each report alone in the parent.
The same player every time: the pool's first name.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from recompute import build  # noqa: E402


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
        from reports import BUILDERS, Filters, resolve_player

        with ofc_stats.open(root) as db:
            key, name = resolve_player(db, None)
            seats = db.sql(
                "SELECT count(*) FROM seat_results WHERE player_key = $p", {"p": key}
            ).fetchall()[0][0]
        print(f"player {name}: {seats:,} seats")
        cli = ROOT / ".venv" / "bin" / "ofc-stats"
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            subprocess.run(
                [str(cli), "report", "--data", str(root), "--out", str(work / "report.html")],
                check=True,
                capture_output=True,
            )
            times.append(time.perf_counter() - start)
        print(
            f"ofc-stats report (whole CLI run), median of {args.repeat}: "
            f"{statistics.median(times):.1f} s"
        )
        with ofc_stats.open(root) as db:
            for build_report in BUILDERS:
                start = time.perf_counter()
                report = build_report(db, Filters(player=key))
                print(f"  {report.key:12} {time.perf_counter() - start:6.2f} s")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
