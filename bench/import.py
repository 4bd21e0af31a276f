"""Import speed per format: hands/s, MB/s and peak memory.

    .venv/bin/python bench/import.py [--hands 200000] [--small-hands 20000]

Each format's file is generated first (open format and app JSON with
--hands, the snapshot-heavy SwC captures and fpdb databases with
--small-hands), then imported into a fresh dataset in a child process so its
peak resident memory is its own.  Single-threaded Python parsing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from handgen import random_records  # noqa: E402
from swcgen import FPDB_DDL, raw_json, snapshots  # noqa: E402

from ofc_stats.records import HandRecord  # noqa: E402
from parsers.app_json import dumps_app  # noqa: E402
from parsers.open_format import dumps  # noqa: E402

CHILD = """
import sys, time, json
from ofc_stats.store.importer import import_paths
start = time.perf_counter()
summary = import_paths([sys.argv[1]], sys.argv[2], format_name=sys.argv[3])
seconds = time.perf_counter() - start
# VmHWM is this process's own peak (ru_maxrss can carry the parent's over fork/exec).
status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
peak = int(status) / 1024
print(json.dumps({"seconds": seconds, "stored": summary.stored, "peak_mib": peak}))
"""


def _records(hands: int) -> Iterator[HandRecord]:
    """Random hands, generated a chunk at a time so the parent stays small."""
    for start in range(0, hands, 10_000):
        count = min(10_000, hands - start)
        for record in random_records(count, seed=2026 + start):
            yield replace(record, room_hand_id=str(start + int(record.room_hand_id)))


def write_files(folder: Path, hands: int, small: int) -> dict[str, tuple[Path, int]]:
    files = {}
    open_path, app_path = folder / "hands.jsonl", folder / "hands.hh"
    swc_path, fpdb_path = folder / "capture.jsonl", folder / "fpdb.db3"
    connection = sqlite3.connect(fpdb_path)
    connection.executescript(FPDB_DDL)
    insert = "INSERT INTO HttpOFCHands (site, siteHandNo, tableName, rawJson) VALUES (?, ?, ?, ?)"
    with (
        open_path.open("w", encoding="utf-8") as open_out,
        app_path.open("w", encoding="utf-8") as app_out,
        swc_path.open("w", encoding="utf-8") as swc_out,
    ):
        for index, record in enumerate(_records(hands)):
            open_out.write(dumps(record) + "\n")
            app_out.write(
                dumps_app(replace(record, format="app-json", ruleset="pineapple-progressive"))
            )
            if index < small:
                swc_out.write("\n".join(snapshots(record, gi=index + 1, ti=1)) + "\n")
                raw = json.dumps(raw_json(record))
                connection.execute(insert, ("SealsWithClubs", record.room_hand_id, "t", raw))
    connection.commit()
    connection.close()
    files["open"] = (open_path, hands)
    files["app-json"] = (app_path, hands)
    files["swc"] = (swc_path, small)
    files["fpdb"] = (fpdb_path, small)
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--small-hands", type=int, default=20_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ofc-bench-"))
    try:
        print(
            f"generating files: {args.hands:,} hands (open, app-json), "
            f"{args.small_hands:,} (swc, fpdb) ...",
            flush=True,
        )
        files = write_files(folder, args.hands, args.small_hands)
        header = ("format", "hands", "MB", "seconds", "hands/s", "MB/s", "peak MiB")
        print("\n{:<10} {:>9} {:>8} {:>8} {:>9} {:>7} {:>9}".format(*header))
        for name, (path, hands) in files.items():
            data = folder / f"data-{name}"
            result = subprocess.run(
                [sys.executable, "-c", CHILD, str(path), str(data), name],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            figures = json.loads(result.stdout.strip().splitlines()[-1])
            assert figures["stored"] == hands, figures
            megabytes = os.path.getsize(path) / 1e6
            seconds = figures["seconds"]
            print(
                f"{name:<10} {hands:>9,} {megabytes:>8.1f} {seconds:>8.1f} "
                f"{hands / seconds:>9,.0f} {megabytes / seconds:>7.1f} {figures['peak_mib']:>9,.0f}"
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
