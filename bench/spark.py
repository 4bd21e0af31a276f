"""Recompute on Spark against the local recompute, on the same dataset in the same run.

    .venv/bin/python bench/spark.py [--hands 1000000] [--repeat 3] [--data DIR]

Builds the simulated dataset of ``bench/recompute.py`` (``--data`` reuses one
already built there), then, interleaved ``--repeat`` times so host noise hits
each mode alike, each mode in its own child process:

* **local**: ``recompute(force=True)`` with 2 worker processes (one per core
  here): the peer; and with 1, the peer of the 1 -> 2 core scaling;
* **spark local[1]** and **spark local[2]**: ``ofc_stats.spark.recompute``
  (batches read by the Python workers, the default plan) in a fresh
  SparkSession with one and two cores;
* **spark reads, local[2]**: the ``read="spark"`` plan (Spark's Parquet
  reader and one shuffle feed ``mapInArrow``).

Each child scores the whole dataset ``--runs`` times: the first run pays the
cold start (Python workers importing NumPy/pyarrow/ofc_stats, the JVM's JIT),
the later ones are the steady state that hands/s is quoted from.  Start-up
overhead is the SparkSession start plus the first run's excess over the
steady run.  Figures are medians over the repeats; ratios are to the local
recompute of the same repeats.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402
from record import record  # noqa: E402

CHILD = r"""
import json, sys, time
mode, root, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = {"runs": []}
if mode.startswith("local/"):
    from ofc_stats.store.recompute import recompute
    for _ in range(runs):
        start = time.perf_counter()
        hands = recompute(root, force=True, workers=int(mode.split("/")[1])).hands
        out["runs"].append(time.perf_counter() - start)
else:
    master, read = mode.split("/")
    start = time.perf_counter()
    from ofc_stats.spark import recompute, spark_session
    spark = spark_session(master, {"spark.driver.memory": "2g"})
    spark.range(1).count()  # the JVM and its first job
    out["session"] = time.perf_counter() - start
    for _ in range(runs):
        start = time.perf_counter()
        hands = recompute(spark, root, force=True, read=read).hands
        out["runs"].append(time.perf_counter() - start)
    spark.stop()
out["hands"] = hands
print(json.dumps(out))
"""

MODES = {
    "local/2": "local recompute (2 worker processes)",
    "local/1": "local recompute (1 worker process)",
    "local[1]/workers": "spark local[1]",
    "local[2]/workers": "spark local[2]",
    "local[2]/spark": "spark local[2], Spark reads the tables",
}


def build(root: Path, hands: int, base: int) -> None:
    """``bench/recompute.py``'s dataset: ``base`` simulated hands copied up to ``hands``."""
    spec = importlib.util.spec_from_file_location(
        "bench_recompute", ROOT / "bench" / "recompute.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build(root, hands, base)


def run(mode: str, root: Path, runs: int) -> dict[str, object]:
    return run_child(CHILD, mode, str(root), str(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=2, help="scorings per child (first = cold)")
    parser.add_argument("--data", type=Path, help="a dataset bench/recompute.py built")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset")
    args = parser.parse_args()
    modes = args.modes.split(",")
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-spark-"))
    try:
        root = args.data
        if root is None:
            root = work / "data"
            build(root, args.hands, args.base)
        results: dict[str, list[dict[str, object]]] = {mode: [] for mode in modes}
        for repeat in range(args.repeat):
            for mode in modes:
                results[mode].append(run(mode, root, args.runs))
                steady = results[mode][-1]["runs"][-1]  # type: ignore[index]
                print(f"repeat {repeat + 1}: {mode:18} steady run {steady:6.2f} s", flush=True)
        report(results, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(results: dict[str, list[dict[str, object]]], runs: int) -> None:
    def steady(mode: str) -> float:
        return statistics.median(min(r["runs"][1:] or r["runs"]) for r in results[mode])  # type: ignore[index]

    hands = int(next(iter(results.values()))[0]["hands"])  # type: ignore[call-overload]
    local = steady("local/2") if "local/2" in results else None
    print(f"\n{hands:,} hands, median of {len(next(iter(results.values())))} repeats")
    print(f"{'mode':40} {'steady s':>9} {'hands/s':>10} {'× local s':>10} {'start s':>8}")
    for mode, label in MODES.items():
        if mode not in results:
            continue
        seconds = steady(mode)
        ratio = f"{seconds / local:10.2f}" if local else f"{'':10}"
        start = ""
        if not mode.startswith("local/"):
            overhead = statistics.median(
                float(r["session"]) + r["runs"][0] - min(r["runs"][1:] or r["runs"])  # type: ignore[index, operator, arg-type]
                for r in results[mode]
            )
            start = f"{overhead:8.1f}"
        print(f"{label:40} {seconds:9.2f} {hands / seconds:10,.0f} {ratio} {start:>8}")
    if "local[1]/workers" in results and "local[2]/workers" in results:
        scaling = steady("local[1]/workers") / steady("local[2]/workers")
        print(f"\nspark 1 -> 2 cores: {scaling:.2f}x the throughput (goal >= 1.7)")
        record(
            "spark",
            f"spark local[2] steady recompute, {hands:,} hands",
            figure=steady("local[2]/workers"),
            unit="s",
            reference=steady("local[1]/workers"),
            reference_name="spark local[1]",
            ratio=scaling,
            goal="1 -> 2 cores ≥ 1.7× the throughput",
            met=scaling >= 1.7,
        )
    if "local/1" in results and "local/2" in results:
        print(f"local 1 -> 2 workers: {steady('local/1') / steady('local/2'):.2f}x (the peer)")
    if local and "local[2]/workers" in results:
        ratio = steady("local[2]/workers") / local
        print(f"spark local[2] takes {ratio:.2f}x the local time (goal <= 1.5)")
        record(
            "spark",
            f"spark local[2] against the local recompute, {hands:,} hands",
            figure=steady("local[2]/workers"),
            unit="s",
            reference=local,
            reference_name="local recompute, 2 worker processes",
            goal="≤ 1.5× the local time",
            met=ratio <= 1.5,
            note="one run per child: the figures include the cold start" if runs < 2 else "",
        )
    if runs < 2:
        print("(one run per child: steady figures include the cold start)")


if __name__ == "__main__":
    main()
