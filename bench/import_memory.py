"""Peak memory of importing app JSON written one object per line (no blank line anywhere).

    .venv/bin/python bench/import_memory.py [--mb 300] [--repeat 3]

The peer is the same hands written the way the apps do, objects separated by
blank lines, which was always read an object at a time; the floor is a
child that only imports ofc-stats.  Each import runs in its own child
process (peak resident memory from wait4), ``--repeat`` times; medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parsers.app_json import hand_to_app_object  # noqa: E402
from tests.handgen import random_records  # noqa: E402

CHILD = """
import sys
from ofc_stats.store.importer import import_paths
if sys.argv[1] != "-":
    summary = import_paths([sys.argv[1]], sys.argv[2])
    print(summary.stored)
"""


def write_files(folder: Path, megabytes: float) -> tuple[Path, Path, int]:
    """The same hands twice: one object per line, and blank-line separated."""
    templates = [hand_to_app_object(r) for r in random_records(50, seed=7)]
    lines_path, blank_path = folder / "lines.hh", folder / "blank.hh"
    target = int(megabytes * 1e6)
    written = count = 0
    with lines_path.open("w", encoding="utf-8") as lines, blank_path.open("w") as blank:
        while written < target:
            obj = templates[count % len(templates)]
            ((_, seats),) = obj["handData"].items()
            obj = dict(obj, handData={f"h{count}": seats})
            text = json.dumps(obj, separators=(",", ":"))
            lines.write(text + "\n")
            blank.write(text + "\n\n")
            written += len(text) + 1
            count += 1
    return lines_path, blank_path, count


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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ofc-mem-") as scratch:
        folder = Path(scratch)
        lines, blank, hands = write_files(folder, args.mb)
        size = lines.stat().st_size / 1e6
        runs: dict[str, list[float]] = {"lines": [], "blank": [], "floor": []}
        for attempt in range(args.repeat):
            for name, path in (("lines", lines), ("blank", blank)):
                mb, stored = peak_mb([str(path), str(folder / f"data-{name}-{attempt}")])
                assert int(stored) == hands, (stored, hands)
                runs[name].append(mb)
            runs["floor"].append(peak_mb(["-", "-"])[0])
        med = {name: statistics.median(values) for name, values in runs.items()}
        print(f"app JSON, {hands} hands, {size:.0f} MB one object per line ({args.repeat} runs)")
        print(f"  one object per line:        peak {med['lines']:7.0f} MB  {runs['lines']}")
        print(f"  peer, blank-line separated: peak {med['blank']:7.0f} MB  {runs['blank']}")
        print(f"  floor, ofc-stats imported:  peak {med['floor']:7.0f} MB")
        print(
            f"  ratio lines / peer: {med['lines'] / med['blank']:.2f}; above the floor: "
            f"{med['lines'] - med['floor']:.0f} MB vs {med['blank'] - med['floor']:.0f} MB"
        )


if __name__ == "__main__":
    main()
