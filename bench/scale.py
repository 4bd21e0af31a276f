"""Recompute at growing sizes: time should grow linearly, peak memory stay flat.

    .venv/bin/python bench/scale.py [--sizes 100000,1000000] [--base 10000] [--repeat 3]

Builds the largest dataset once (as ``bench/recompute.py`` does: ``--base``
simulated 3-seat hands imported, batches copied under new keys), then for
each size links the first batches into a dataset of that size and runs
``recompute --force`` (2 workers) in a child process, ``--repeat`` times.
Prints, per size: median seconds, hands/s, seconds per million hands and
peak resident memory (the largest of the parent and its workers).  Memory
is bounded by the import batch size, so the last column should not grow.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recompute import build  # noqa: E402  (bench/recompute.py, the same dataset)

CHILD = r"""
import json, resource, sys, time
from ofc_stats.store.recompute import recompute
start = time.perf_counter()
summary = recompute(sys.argv[1], force=True, workers=2)
seconds = time.perf_counter() - start
own = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "hands": summary.hands, "peak_mib": max(own, workers)}))
"""


def subset(full: Path, target: Path, hands: int) -> int:
    """A dataset of the first batches of ``full`` holding ``hands`` hands (hard links)."""
    import pyarrow.parquet as pq

    from ofc_stats.store.dataset import Dataset

    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    shutil.copy(full / "dataset.json", target / "dataset.json")
    dataset = Dataset(full)
    stored = 0
    chosen = []
    for batch in dataset.batches():
        if stored >= hands:
            break
        chosen.append(batch)
        stored += pq.read_metadata(dataset.batch_file("hands", batch)).num_rows
    for folder in full.iterdir():
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        (target / folder.name).mkdir()
        shutil.copy(folder / "schema.parquet", target / folder.name / "schema.parquet")
        if folder.name in ("results", "versus"):
            continue  # recompute --force writes them
        for batch in chosen:
            os.link(folder / f"{batch}.parquet", target / folder.name / f"{batch}.parquet")
    return stored


def run(root: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-scale-"))
    try:
        full = work / "full"
        build(full, max(sizes), args.base)
        roots = {}
        for size in sizes:
            roots[size] = work / f"n{size}"
            subset(full, roots[size], size)
        runs: dict[int, list[dict[str, float]]] = {size: [] for size in sizes}
        for _ in range(args.repeat):  # interleaved, so host noise hits each size alike
            for size in sizes:
                runs[size].append(run(roots[size]))
        print(f"\n{'hands':>11} {'median s':>9} {'hands/s':>11} {'s per 1M':>9} {'peak MiB':>9}")
        for results in runs.values():
            seconds = statistics.median(r["seconds"] for r in results)
            hands = results[0]["hands"]
            peak = max(r["peak_mib"] for r in results)
            print(
                f"{hands:11,.0f} {seconds:9.2f} {hands / seconds:11,.0f} "
                f"{seconds / hands * 1e6:9.2f} {peak:9.0f}"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
