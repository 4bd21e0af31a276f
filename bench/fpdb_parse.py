"""fpdb's columnar reader alone, against its floors and (optionally) another checkout.

    .venv/bin/python bench/fpdb_parse.py [--hands 5000] [--repeat 5] [--against DIR]

Writes the fpdb-3 database ``bench/import_swc.py`` writes (the same hands),
then, each in a fresh child process and interleaved ``--repeat`` times:

* floor-select: the raw ``SELECT`` of the rows through sqlite3;
* floor-decode: that SELECT plus orjson decoding every rawJson (no objects kept);
* parse: ``FpdbParser.parse_path_columnar`` over every row, cyclic GC off as the
  importer runs parsers (the parser's whole share of an import);
* parse-before: the same in ``--against`` (a git worktree or ``git archive``
  of an earlier commit), for a before/after ratio measured in the same runs.

It prints medians of CPU seconds (steadier than wall time on a shared host),
hands/s, each figure's ratio to floor-select and to floor-decode, the load
average, and parse-before / parse.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from child import run_child  # noqa: E402
from import_swc import write_files  # noqa: E402

CHILD = """
import gc, json, sqlite3, sys, time
import orjson
kind, path = sys.argv[1:3]
sys.path.insert(0, ".")  # this checkout's parsers, also for --against
from parsers.base import ColumnarHands
from parsers.fpdb import FpdbParser
import ofc_stats.store.importer  # as in an import (and bench/import_swc.py): pandas, which
# pyarrow loads on its first datetime column, is loaded before the clock starts
gc.disable()
wall, cpu = time.perf_counter(), time.process_time()
count = 0
if kind == "parse":
    for item in FpdbParser().parse_path_columnar(path, "bench"):
        count += item.hands.num_rows if isinstance(item, ColumnarHands) else 1
else:
    cursor = sqlite3.connect(path).execute(
        "SELECT id, siteHandNo, tableName, rawJson FROM HttpOFCHands ORDER BY id"
    )
    while rows := cursor.fetchmany(2000):
        count += len(rows)
        if kind == "floor-decode":
            for row in rows:
                orjson.loads(row[3])
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                  "count": count}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", type=Path, help="an earlier checkout: its parse, timed too")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ofc-bench-fpdb-"))
    try:
        _, _, fpdb = write_files(folder, args.hands)
        kinds = ["floor-select", "floor-decode", "parse"]
        kinds += ["parse-before"] if args.against else []
        runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
        for _ in range(args.repeat):  # interleaved: drifting load hits every kind alike
            for kind in kinds:
                cwd = args.against if kind == "parse-before" else ROOT
                figures = run_child(CHILD, kind.removesuffix("-before"), str(fpdb), cwd=cwd)
                assert figures["count"] == args.hands, figures
                runs[kind].append(figures)
        cpu = {k: statistics.median(r["cpu"] for r in v) for k, v in runs.items()}
        print(
            f"{args.hands:,} hands, fpdb {os.path.getsize(fpdb) / 1e6:.1f} MB; "
            f"load average {os.getloadavg()[0]:.2f}; CPU s, medians of {args.repeat}\n"
        )
        print(f"{'run':<14} {'cpu s':>7} {'hands/s':>9} {'× select':>9} {'× decode':>9}")
        for kind in kinds:
            print(
                f"{kind:<14} {cpu[kind]:>7.3f} {args.hands / cpu[kind]:>9,.0f} "
                f"{cpu[kind] / cpu['floor-select']:>9.1f} {cpu[kind] / cpu['floor-decode']:>9.1f}"
            )
        print(
            f"\nparse {args.hands / cpu['parse']:,.0f} hands/s, "
            f"{cpu['parse'] / cpu['floor-decode']:.1f}x the SELECT + orjson floor"
        )
        if args.against:
            print(
                f"parse is {cpu['parse-before'] / cpu['parse']:.2f}x as fast as in {args.against}"
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
