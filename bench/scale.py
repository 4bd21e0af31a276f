"""Recompute at growing sizes: time should grow linearly, peak memory stay flat.

    .venv/bin/python bench/scale.py [--sizes 100000,1000000,10000000] [--base 10000] [--repeat 3]

Builds a dataset of up to 1,000,000 hands once (as ``bench/recompute.py``
does: ``--base`` simulated 3-seat hands imported, batches copied under new
keys), then for each size hard-links its batches into a dataset of that
size, going round them again under new batch names past a million (the
same hands scored again: recompute scores each batch on its own), and runs
``recompute --force`` (2 workers) in a child process, ``--repeat`` times.
Prints, per size: median seconds, hands/s, seconds per million hands, CPU
seconds and peak resident memory (the largest of the parent and its
workers); then the fixed cost of a run twice over: measured (two batches
of 10 hands) and as the intercept of the line through the two largest
sizes, with the time per hand past it.  Memory is bounded by the import
batch size, so the peak column should not grow.
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
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402
from record import record  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recompute import build, tiny  # noqa: E402  (bench/recompute.py, the same dataset)

CHILD = r"""
import json, os, resource, sys, time
import pyarrow.parquet as pq
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.recompute import recompute
dataset = Dataset(sys.argv[1])
pq.read_table(dataset.batch_file("hands", dataset.batches()[0]), columns=["hand_id"])  # Arrow
times = os.times()
start = time.perf_counter()
summary = recompute(sys.argv[1], force=True, workers=2)
seconds = time.perf_counter() - start
cpu = sum(os.times()[:4]) - sum(times[:4])
own = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "cpu": cpu, "hands": summary.hands,
                  "peak_mib": max(own, workers)}))
"""
LINKED = 1_000_000  # hands built; larger sizes link these batches again under new names


def subset(full: Path, target: Path, hands: int) -> int:
    """A dataset of ``full``'s batches holding ``hands`` hands (hard links, round again)."""
    import pyarrow.parquet as pq

    from ofc_stats.store.dataset import Dataset

    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    shutil.copy(full / "dataset.json", target / "dataset.json")
    dataset = Dataset(full)
    batches = dataset.batches()
    sizes = {b: pq.read_metadata(dataset.batch_file("hands", b)).num_rows for b in batches}
    stored = 0
    chosen: list[tuple[str, str]] = []  # (batch in full, its name here)
    while stored < hands:
        for batch in batches:
            if stored >= hands:
                break
            rounds = len(chosen) // len(batches)
            chosen.append((batch, batch if rounds == 0 else f"{batch}-again{rounds:03d}"))
            stored += sizes[batch]
    for folder in full.iterdir():
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        (target / folder.name).mkdir()
        shutil.copy(folder / "schema.parquet", target / folder.name / "schema.parquet")
        if folder.name in ("results", "versus"):
            continue  # recompute --force writes them
        for batch, name in chosen:
            os.link(folder / f"{batch}.parquet", target / folder.name / f"{name}.parquet")
    return stored


def run(root: Path) -> dict[str, float]:
    return run_child(CHILD, str(root))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000,10000000")
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-scale-"))
    try:
        full = work / "full"
        build(full, min(max(sizes), LINKED), args.base)
        roots = {}
        for size in sizes:
            roots[size] = work / f"n{size}"
            subset(full, roots[size], size)
        small = work / "tiny" / "data"
        tiny(small)
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        runs: dict[int, list[dict[str, float]]] = {size: [] for size in [0, *sizes]}
        for _ in range(args.repeat):  # interleaved, so host noise hits each size alike
            for size in runs:
                runs[size].append(run(roots[size] if size else small))
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        header = f"{'hands':>11} {'median s':>9} {'hands/s':>11} {'s per 1M':>9}"
        print(f"\n{header} {'CPU s':>7} {'peak MiB':>9}")
        medians = {}
        peaks = {}
        for size, results in runs.items():
            seconds = statistics.median(r["seconds"] for r in results)
            cpu = statistics.median(r["cpu"] for r in results)
            hands = results[0]["hands"]
            peak = max(r["peak_mib"] for r in results)
            medians[size] = (hands, seconds)
            peaks[size] = peak
            label = f"{hands:11,.0f}" if size else f"{'start-up':>11}"
            print(
                f"{label} {seconds:9.3f} {hands / seconds:11,.0f} "
                f"{seconds / hands * 1e6:9.2f} {cpu:7.2f} {peak:9.0f}"
            )
        if len(sizes) >= 2:  # the line through the two largest sizes
            (n1, t1), (n2, t2) = medians[sorted(sizes)[-2]], medians[sorted(sizes)[-1]]
            per_hand = (t2 - t1) / (n2 - n1)
            print(
                f"\nfixed cost of a run: {medians[0][1]:.3f} s measured (2 batches of 10 hands), "
                f"{t1 - n1 * per_hand:.3f} s from the line through {n1:,} and {n2:,} hands; "
                f"past it {per_hand * 1e6:.2f} µs a hand ({1 / per_hand:,.0f} hands/s)"
            )
        if len(sizes) >= 2:
            low, high = sorted(sizes)[0], sorted(sizes)[-1]
            (n_low, t_low), (n_high, t_high) = medians[low], medians[high]
            per_low, per_high = t_low / n_low * 1e6, t_high / n_high * 1e6
            record(
                "scale",
                f"recompute seconds per million hands at {n_high:,.0f} hands",
                figure=per_high,
                unit="s",
                reference=per_low,
                reference_name=f"the same at {n_low:,.0f} hands",
                goal="linear: ratio ≤ 1",
                met=per_high <= per_low * 1.05,
            )
            record(
                "scale",
                f"recompute peak memory at {n_high:,.0f} hands",
                figure=peaks[high],
                unit="MiB",
                reference=peaks[low],
                reference_name=f"the same at {n_low:,.0f} hands",
                goal="flat: ratio ≤ 1.1",
                met=peaks[high] <= peaks[low] * 1.1,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
