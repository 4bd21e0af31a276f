"""Peak resident memory of `ofc-stats audit` at two dataset sizes, and how it grows.

    .venv/bin/python bench/audit_memory.py [--hands 30000,100000] [--against DIR --label COMMIT]
        [--results DIR]

The simulator writes two rooms' worth of apps' JSON (money, short stacks, a 2% share
of hands the room gets wrong), each is imported, and `audit --out FILE --quiet`
runs on it in a child process whose peak resident memory comes from wait4.  The
floor is a child that only imports ofc-stats and opens the smaller dataset.  The
house rule is memory bounded by the batch, never by the dataset: the figure is the
ratio of the two peaks (1.0 is flat) and the memory a hand adds between the two
sizes.  ``--against`` runs the same audits with another checkout's code (its folder:
its ``ofc_stats`` is imported), for the figures before a change.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.record as recording  # noqa: E402
from bench.record import record  # noqa: E402

FLOOR = """
import sys
from ofc_stats.store.views import open_dataset
with open_dataset(sys.argv[1]) as data:
    data.sql("SELECT count(*) FROM hands").fetchall()
"""


def peak_mb(args: list[str], cwd: Path) -> float:
    """Peak resident memory of ``python args`` run in ``cwd`` (its ofc_stats is imported)."""
    process = subprocess.Popen(
        [sys.executable, *args], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    error = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    assert status == 0, f"{args} failed: {error.decode(errors='replace')}"
    return usage.ru_maxrss / 1024


def dataset(folder: Path, hands: int) -> Path:
    """``hands`` simulated hands of apps' JSON, imported (and scored) into a dataset."""
    out, data = folder / f"sim{hands}.hh", folder / f"data{hands}"
    run = [sys.executable, "-m", "ofc_stats"]
    options = ["--seed", "1", "--format", "app-json", "--room-errors", "0.02", "--quiet"]
    subprocess.run(
        [*run, "simulate", "--hands", str(hands), *options, "--out", str(out)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(
        [*run, "import", "--data", str(data), str(out), "--quiet"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    out.unlink()
    return data


def audit_peak(data: Path, cwd: Path) -> float:
    return peak_mb(["-m", "ofc_stats", "audit", "--data", str(data), "--out",
                    str(data / "mismatches.csv"), "--quiet"], cwd)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", default="30000,100000", help="the two sizes, comma-separated")
    parser.add_argument("--against", type=Path, default=None, help="another checkout's folder")
    parser.add_argument("--label", default=None, help="what --against is (its commit), recorded")
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="write the JSON into this folder, not bench/results",
    )
    args = parser.parse_args()
    if args.results is not None:
        recording.RESULTS = args.results
    small, big = (int(n) for n in args.hands.split(","))
    with tempfile.TemporaryDirectory(prefix="ofc-audit-mem-", dir="/tmp") as scratch:
        folder = Path(scratch)
        datasets = {n: dataset(folder, n) for n in (small, big)}
        floor = peak_mb(["-c", FLOOR, str(datasets[small])], ROOT)
        checkouts = {"this checkout": ROOT}
        if args.against is not None:
            checkouts["against"] = args.against.resolve()
        peaks = {
            name: {n: audit_peak(datasets[n], cwd) for n in (small, big)}
            for name, cwd in checkouts.items()
        }
        shutil.rmtree(folder, ignore_errors=True)
    load = os.getloadavg()[0]
    print(f"audit peak resident memory; floor (ofc-stats imported, a dataset opened) "
          f"{floor:.0f} MB; load average {load:.2f}")  # fmt: skip
    slopes = {}
    for name, peak in peaks.items():
        ratio = peak[big] / peak[small]
        slopes[name] = (peak[big] - peak[small]) * 1024 / (big - small)
        print(
            f"  {name}: {small:,} hands {peak[small]:.0f} MB, {big:,} hands {peak[big]:.0f} MB; "
            f"ratio {ratio:.2f} for {big / small:.1f}x the hands; "
            f"{slopes[name]:.2f} KB a hand between them"
        )
    mine = peaks["this checkout"]
    record(
        "audit_memory",
        f"audit peak at {big:,} hands against {small:,}",
        figure=round(mine[big]),
        unit="MB",
        reference=round(mine[small]),
        reference_name=f"the peak at {small:,} hands",
        goal="memory bounded by the batch: the peak flat in the dataset's size (ratio near 1)",
        met=mine[big] / mine[small] < 1.2,
        note=f"floor {floor:.0f} MB; load average {load:.2f}",
    )
    against = slopes.get("against")
    record(
        "audit_memory",
        "memory a hand adds to the audit's peak",
        figure=round(slopes["this checkout"], 2),
        unit="KB a hand",
        reference=None if against is None else round(against, 2),
        reference_name="" if against is None else (args.label or str(args.against)),
        goal="0 (bounded by the batch)",
        met=slopes["this checkout"] < 0.1,
        note=f"between {small:,} and {big:,} simulated hands",
    )


if __name__ == "__main__":
    main()
