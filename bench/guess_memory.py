"""Peak resident memory of `ofc-stats audit --guess-rules` at two dataset sizes (not recorded).

    .venv/bin/python bench/guess_memory.py [--hands 30000,100000] [--against DIR]
        [--datasets DIR]

The datasets are made as bench/audit_memory.py makes them (simulated apps' JSON with
room errors, imported); ``--datasets DIR`` keeps them in DIR (``data<N>``) and reuses
them on the next run.  Each run of `audit --guess-rules --quiet` is a child process whose
peak comes from wait4; ``--against`` runs another checkout's code on the same datasets.
The house rule is memory bounded by the batch: the figure is the ratio of the two peaks.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.audit_memory import dataset, peak_mb  # noqa: E402


def guess_peak(data: Path, cwd: Path) -> float:
    return peak_mb(
        ["-m", "ofc_stats", "audit", "--guess-rules", "--quiet", "--data", str(data)], cwd
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", default="30000,100000", help="the two sizes, comma-separated")
    parser.add_argument("--against", type=Path, default=None, help="another checkout's folder")
    parser.add_argument("--datasets", type=Path, default=None, help="keep the datasets here")
    args = parser.parse_args()
    sizes = [int(n) for n in args.hands.split(",")]
    with tempfile.TemporaryDirectory(prefix="ofc-guess-mem-", dir="/tmp") as scratch:
        folder = args.datasets or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        datasets = {
            n: folder / f"data{n}" if (folder / f"data{n}").is_dir() else dataset(folder, n)
            for n in sizes
        }
        checkouts = {"this checkout": ROOT}
        if args.against is not None:
            checkouts["against"] = args.against.resolve()
        for name, cwd in checkouts.items():
            peaks = {n: guess_peak(datasets[n], cwd) for n in sizes}
            small, big = sizes[0], sizes[-1]
            figures = ", ".join(f"{n:,} hands {peaks[n]:.0f} MB" for n in sizes)
            slope = (peaks[big] - peaks[small]) * 1024 / (big - small)
            print(
                f"{name}: {figures}; ratio {peaks[big] / peaks[small]:.2f} for "
                f"{big / small:.1f}x the hands; {slope:.2f} KB a hand between them"
            )


if __name__ == "__main__":
    main()
