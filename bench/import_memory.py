"""Peak memory of importing one big file: app JSON one object per line, blank-line separated,
and the open format; the goal is a 1 GB file under 1 GB resident.

    .venv/bin/python bench/import_memory.py [--mb 100] [--repeat 3] [--formats lines,blank,open]
    .venv/bin/python bench/import_memory.py --mb 1000 --repeat 1     # the 1 GB run

The same hands are written three ways: app JSON one object per line (no
blank line anywhere), app JSON the way the apps write it (objects separated
by blank lines) and the open format (NDJSON, read by the columnar path).  The
floor is a child that only imports ofc-stats.  Each import runs in its own
child process (peak resident memory from wait4), ``--repeat`` times;
medians, and the peak above the floor, which must not grow with the file
(memory bounded by the batch size): compare two ``--mb`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parsers.app_json import hand_to_app_object  # noqa: E402
from parsers.open_format import dumps  # noqa: E402
from tests.handgen import random_records  # noqa: E402

FILES = {"lines": "hh", "blank": "hh", "open": "jsonl"}
LABELS = {
    "lines": "app JSON, one object per line:",
    "blank": "app JSON, blank-line separated:",
    "open": "open format (NDJSON):",
}
CHILD = """
import sys
from ofc_stats.store.importer import import_paths
if sys.argv[1] != "-":
    summary = import_paths([sys.argv[1]], sys.argv[2])
    print(summary.stored)
"""


def write_files(folder: Path, megabytes: float) -> tuple[dict[str, Path], int]:
    """The same hands three ways, about ``megabytes`` of app JSON each."""
    records = random_records(50, seed=7)
    templates = [hand_to_app_object(r) for r in records]
    paths = {name: folder / f"{name}.{ext}" for name, ext in FILES.items()}
    target = int(megabytes * 1e6)
    written = count = 0
    with (
        paths["lines"].open("w", encoding="utf-8") as lines,
        paths["blank"].open("w", encoding="utf-8") as blank,
        paths["open"].open("w", encoding="utf-8") as open_out,
    ):
        while written < target:
            obj = templates[count % len(templates)]
            ((_, seats),) = obj["handData"].items()
            obj = dict(obj, handData={f"h{count}": seats})
            text = json.dumps(obj, separators=(",", ":"))
            lines.write(text + "\n")
            blank.write(text + "\n\n")
            record = records[count % len(records)]
            open_out.write(dumps(replace(record, room_hand_id=f"h{count}")) + "\n")
            written += len(text) + 1
            count += 1
    return paths, count


def peak_mb(args: list[str]) -> tuple[float, str]:
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, *args], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    assert status == 0, f"child failed: {status}"
    return usage.ru_maxrss / 1024, out.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default="lines,blank,open")
    args = parser.parse_args()
    chosen = args.formats.split(",")
    with tempfile.TemporaryDirectory(prefix="ofc-mem-") as scratch:
        folder = Path(scratch)
        paths, hands = write_files(folder, args.mb)
        runs: dict[str, list[float]] = {name: [] for name in [*chosen, "floor"]}
        for attempt in range(args.repeat):
            for name in chosen:
                mb, stored = peak_mb([str(paths[name]), str(folder / f"data-{name}-{attempt}")])
                assert int(stored) == hands, (name, stored, hands)
                runs[name].append(mb)
                shutil.rmtree(folder / f"data-{name}-{attempt}", ignore_errors=True)
            runs["floor"].append(peak_mb(["-", "-"])[0])
        med = {name: statistics.median(values) for name, values in runs.items()}
        load = os.getloadavg()[0]
        print(f"{hands:,} hands; medians of {args.repeat} runs; load average {load:.2f}")
        print(f"  floor, ofc-stats imported:     peak {med['floor']:7.0f} MB")
        for name in chosen:
            size = paths[name].stat().st_size / 1e6
            above = med[name] - med["floor"]
            verdict = "under" if med[name] < 1024 else "NOT under"
            print(
                f"  {LABELS[name]:<30} peak {med[name]:7.0f} MB  file {size:6.0f} MB  "
                f"above the floor {above:5.0f} MB; "
                f"{verdict} 1 GiB  {runs[name]}"
            )
        if "lines" in med and "blank" in med:
            ratio = med["lines"] / med["blank"]
            print(f"  ratio one object per line / blank-line separated: {ratio:.2f}")


if __name__ == "__main__":
    main()
