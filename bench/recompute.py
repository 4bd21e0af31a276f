"""Recompute speed: a dataset of simulated hands scored into the results tables.

    .venv/bin/python bench/recompute.py [--hands 1000000] [--base 10000] [--repeat 3]

Builds the dataset once: ``--base`` simulated 3-seat hands are imported, then
each import batch is copied under new hand keys until ``--hands`` are stored,
as many copies to a batch as an import batch holds (20,000 hands); the copies
score like the originals, the point is the volume.  Then, each in
a child process so peak memory is its own, repeated and reported as medians:

* **I/O floor**: read every batch's input columns and write the ``results``
  and ``versus`` tables with recompute's own reader and writer options, no
  scoring, no fsync, one thread (the tables to write are loaded from a
  finished run outside the timed part);
* **engine**: read, score through the compiled core, write the same tables,
  one thread;
* **recompute**: the whole ``ofc-stats recompute --force``: the same work
  plus staging folders, fsyncs, renames and commit markers, with one worker
  thread per core (2 here);
* **start-up**: ``recompute --force`` of a dataset of two 10-hand batches, so
  nearly all of it is the fixed cost of a run (the core's tables and
  rulesets, the first batch, the commits).

Each line also gives the CPU seconds of the process: on this shared host
wall time follows the other sessions' load, CPU time less so.
It also times reading the cards stored three ways (fixed 13-byte binary, 13
int8 columns, three list<int8> rows) to justify the storage choice.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402
from record import record  # noqa: E402

CHILD = r"""
import json, os, sys, time
from pathlib import Path
import pyarrow.parquet as pq
mode, root = sys.argv[1], Path(sys.argv[2])
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.files import options_for
from ofc_stats.store.recompute import (
    HAND_COLUMNS, SEAT_COLUMNS, read_columns, recompute, stored_tables,
)
from ofc_stats.store.rescore import score_tables
from ofc_stats.engine.presets import get_ruleset
dataset = Dataset(root)
batches = dataset.batches()
pq.read_table(dataset.batch_file("hands", batches[0]), columns=["hand_id"])  # Arrow's set-up
if mode == "floor":  # what is written, loaded before the clock starts
    outputs = {batch: {name: pq.read_table(dataset.batch_file(name, batch))
                       for name in ("results", "versus")} for batch in batches}
times = os.times()
start = time.perf_counter()
if mode in ("recompute", "startup"):
    summary = recompute(root, force=True)
    hands = summary.hands
else:
    hands = 0
    out = root / ".bench-out"
    out.mkdir(exist_ok=True)
    for batch in batches:
        h = read_columns(dataset.batch_file("hands", batch), HAND_COLUMNS, ["ruleset"])
        s = read_columns(dataset.batch_file("seats", batch), SEAT_COLUMNS)
        hands += h.num_rows
        if mode == "floor":
            tables = outputs[batch]
        else:
            tables = stored_tables(score_tables(h, s, get_ruleset))
        for name, table in tables.items():  # written as recompute writes them
            pq.write_table(table, out / f"{name}.parquet", **options_for(name))
seconds = time.perf_counter() - start
end = os.times()
cpu = sum(end[:2]) - sum(times[:2])  # user + system, every thread of this process
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024
print(json.dumps({"seconds": seconds, "cpu": cpu, "hands": hands, "peak_mib": peak}))
"""


def build(root: Path, hands: int, base: int) -> None:
    """Simulate ``base`` hands, import them, copy batches up to ``hands``."""
    from ofc_stats.engine.presets import get_ruleset
    from ofc_stats.sim.rooms import write_simulation
    from ofc_stats.store.dataset import Dataset
    from ofc_stats.store.hand_ids import next_hand_id, with_hand_ids
    from ofc_stats.store.importer import BATCH_HANDS, import_paths
    from ofc_stats.store.recompute import recompute
    from ofc_stats.store.rows import with_hand_keys

    source = root.parent / "base.jsonl"
    source.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    write_simulation(source, base, get_ruleset("pineapple-progressive"), seats=3, seed=7)
    import_paths([source], root)
    print(f"simulated and imported {base:,} hands in {time.perf_counter() - started:.0f} s")
    dataset = Dataset(root)
    originals = dataset.batches()
    stored = sum(pq.read_metadata(dataset.batch_file("hands", b)).num_rows for b in originals)
    copy = 0
    while stored < hands:
        for batch in originals:
            rows = pq.read_metadata(dataset.batch_file("hands", batch)).num_rows
            if stored >= hands or not rows:
                continue
            # As many copies in one batch as an import batch holds (BATCH_HANDS).
            parts: dict[str, list[pa.Table]] = {}
            for _ in range(max(1, min(BATCH_HANDS // rows, -(-(hands - stored) // rows)))):
                copy += 1
                for name in ("hands", "seats", "placements", "files", "quarantine"):
                    table = pq.read_table(dataset.batch_file(name, batch))
                    if name == "placements":  # stored by hand_id (schema 5): key it again
                        own = pq.read_table(dataset.batch_file("hands", batch))
                        table = with_hand_keys(table, own).drop_columns(["hand_id"])
                    if "hand_key" in table.column_names:
                        suffix = pa.scalar(f"#{copy}")
                        keys = pc.binary_join_element_wise(table["hand_key"], suffix, "")
                        index = table.schema.get_field_index("hand_key")
                        table = table.set_column(index, "hand_key", keys)
                    parts.setdefault(name, []).append(table)
            tables = {name: pa.concat_tables(tables) for name, tables in parts.items()}
            target = f"{batch}-copy{copy:05d}"
            dataset.commit(target, with_hand_ids(tables, next_hand_id(dataset)))
            stored += tables["hands"].num_rows
    recompute(root)  # the floor writes tables of this shape
    print(f"dataset: {stored:,} hands in {len(dataset.batches())} batches")


def tiny(root: Path) -> None:
    """A dataset of two 10-hand batches: recompute's fixed cost, nearly alone."""
    from ofc_stats.engine.presets import get_ruleset
    from ofc_stats.sim.rooms import write_simulation
    from ofc_stats.store.importer import import_paths

    source = root.parent / "tiny.jsonl"
    source.parent.mkdir(parents=True, exist_ok=True)
    write_simulation(source, 20, get_ruleset("pineapple-progressive"), seats=3, seed=8)
    import_paths([source], root, batch_hands=10)


def run(mode: str, root: Path) -> dict[str, float]:
    return run_child(CHILD, mode, str(root))


def card_layouts(root: Path, rows: int = 3_000_000) -> None:
    """Read time of 3M boards stored three ways (one file each, zstd)."""
    rng = np.random.default_rng(1)
    cards = np.argsort(rng.random((rows, 52)), axis=1)[:, :13].astype(np.int8)
    layouts = {
        "binary(13)": pa.table(
            {
                "board": pa.FixedSizeBinaryArray.from_buffers(
                    pa.binary(13), rows, [None, pa.py_buffer(cards.tobytes())]
                )
            }
        ),
        "13 × int8": pa.table({f"c{i}": cards[:, i] for i in range(13)}),
        "3 × list<int8>": pa.table(
            {
                row: pa.ListArray.from_arrays(
                    np.arange(0, rows * size + 1, size, dtype=np.int32),
                    cards[:, start : start + size].reshape(-1),
                )
                for row, start, size in (("top", 0, 3), ("middle", 3, 5), ("bottom", 8, 5))
            }
        ),
    }
    print(f"\nreading {rows:,} boards (median of 5):")
    for name, table in layouts.items():
        path = root / f"layout-{name.replace(' ', '')}.parquet"
        pq.write_table(table, path, compression="zstd")
        times = []
        for _ in range(5):
            start = time.perf_counter()
            pq.read_table(path)
            times.append(time.perf_counter() - start)
        size = path.stat().st_size / 2**20
        print(f"  {name:15} {statistics.median(times) * 1000:7.0f} ms  {size:6.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-recompute-"))
    try:
        root = work / "data"
        build(root, args.hands, args.base)
        small = work / "tiny" / "data"
        tiny(small)
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        runs: dict[str, list[dict[str, float]]] = {
            "floor": [],
            "results": [],
            "recompute": [],
            "startup": [],
        }
        for _ in range(args.repeat):  # interleaved, so host noise hits each mode alike
            for mode in runs:
                runs[mode].append(run(mode, small if mode == "startup" else root))
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        floor = statistics.median(r["seconds"] for r in runs["floor"])
        floor_cpu = statistics.median(r["cpu"] for r in runs["floor"])
        header = f"{'step':40} {'median s':>9} {'hands/s':>11} {'× floor':>8}"
        print(f"\n{header} {'CPU s':>7} {'CPU × floor':>11} {'peak MiB':>9}")
        labels = {
            "floor": "I/O floor (read + write, no scoring)",
            "results": "read, score, write (engine)",
            "recompute": "recompute --force (2 threads)",
            "startup": "start-up: 2 batches of 10 hands",
        }
        for mode, results in runs.items():
            seconds = statistics.median(r["seconds"] for r in results)
            cpu = statistics.median(r["cpu"] for r in results)
            hands = results[0]["hands"]
            peak = max(r["peak_mib"] for r in results)
            ratio = f"{seconds / floor:8.2f}" if mode in ("floor", "results", "recompute") else ""
            cpu_ratio = f"{cpu / floor_cpu:11.2f}" if ratio else ""
            print(
                f"{labels[mode]:40} {seconds:9.3f} {hands / seconds:11,.0f} {ratio:>8} "
                f"{cpu:7.2f} {cpu_ratio:>11} {peak:9.0f}"
            )
        engine_cpu = statistics.median(r["cpu"] for r in runs["results"])
        stored = runs["results"][0]["hands"]
        record(
            "recompute",
            "engine step (read, score, write), CPU against the Parquet floor",
            figure=stored / engine_cpu,
            unit="hands/CPU-s",
            reference=stored / floor_cpu,
            reference_name="the I/O floor: the same reads and writes, no scoring",
            ratio=engine_cpu / floor_cpu,
            goal="within 1.4× of the floor",
            met=engine_cpu / floor_cpu <= 1.4,
            note=f"{stored:,} hands, medians of {args.repeat}",
        )
        card_layouts(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
