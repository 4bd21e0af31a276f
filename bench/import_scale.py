"""Import into a growing dataset: seconds and peak memory of 2,000 new hands at each size.

    .venv/bin/python bench/import_scale.py [--sizes 0,20000,100000,400000] [--big] [--repeat 3]

The dataset is built once and grown between steps: ``--base`` generated
hands are imported, then whole batches are copied under new hand keys (as
``bench/recompute.py`` builds its million hands), up to each size in turn.
``--big`` adds a 10,000,000-hand step (several GB of disk, ~10 min to build).

At each size, ``--repeat`` times, a child process imports a fresh file of
``--new`` hands no one stored (peak resident memory is its own, VmHWM); the
medians are printed with the ratio to the empty dataset's, so flat memory
and time show as ratios near 1.  Before the timed runs one untimed import
builds the key index of the copied batches (a real dataset's imports wrote
it as they went); its time is printed too, as the cost of a lost index.

The peer, the other way to dedupe: a DuckDB anti-join of the same new keys
against the stored ``hands`` folder (``hand_key`` only, one thread, 256 MB
memory limit), timed in a child with its peak memory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402

sys.path.insert(0, str(ROOT))

from ofc_stats.store.dataset import Dataset  # noqa: E402
from ofc_stats.store.hand_ids import next_hand_id, with_hand_ids  # noqa: E402
from ofc_stats.store.importer import BATCH_HANDS, import_paths  # noqa: E402
from ofc_stats.store.rows import with_hand_keys  # noqa: E402
from parsers.open_format import dumps  # noqa: E402
from tests.handgen import random_records  # noqa: E402

CHILD = """
import sys, time, json
from ofc_stats.store.importer import import_paths
start = time.perf_counter()
summary = import_paths([sys.argv[1]], sys.argv[2])
seconds = time.perf_counter() - start
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024
print(json.dumps({"seconds": seconds, "stored": summary.stored, "peak_mib": peak}))
"""
ANTI_JOIN = """
import sys, time, json
import duckdb, pyarrow as pa
hands = [json.loads(line) for line in open(sys.argv[1])]
keys = pa.table({"hand_key": [f"open:{h['room']}:{h['table']}:{h['hand_id']}" for h in hands]})
connection = duckdb.connect(config={"threads": 1, "memory_limit": "256MB"})
connection.register("probe", keys)
start = time.perf_counter()
new = connection.execute(
    "SELECT count(*) FROM probe ANTI JOIN read_parquet(?) AS stored USING (hand_key)",
    [sys.argv[2] + "/hands/*.parquet"],
).fetchone()[0]
seconds = time.perf_counter() - start
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024
print(json.dumps({"seconds": seconds, "stored": new, "peak_mib": peak}))
"""


def write_hands(path: Path, count: int, seed: int, first_id: int) -> Path:
    """``count`` generated hands whose ids start at ``first_id`` (so no file repeats another)."""
    records = random_records(count, seed=seed)
    with path.open("w", encoding="utf-8") as out:
        for number, record in enumerate(records):
            out.write(dumps(replace(record, room_hand_id=str(first_id + number))) + "\n")
    return path


def stored_hands(dataset: Dataset) -> int:
    return sum(pq.read_metadata(path).num_rows for path in dataset.files("hands"))


def grow(root: Path, target: int, originals: list[str], copy: int) -> int:
    """Copy the original batches under new keys until ``target`` hands are stored.

    The originals are read once; each copy only gets new keys and ids and is
    written straight into the table folders (a bench's dataset needs no
    staging), hands, seats and placements only.
    """
    dataset = Dataset(root)
    stored = stored_hands(dataset)
    names = ("hands", "seats", "placements")
    tables = {b: {n: pq.read_table(dataset.batch_file(n, b)) for n in names} for b in originals}
    for parts in tables.values():  # placements are stored by hand_id (schema 5): key them again
        keyed = with_hand_keys(parts["placements"], parts["hands"])
        parts["placements"] = keyed.drop_columns(["hand_id"])
    with dataset.locked():
        while stored < target:
            for batch in originals:
                if stored >= target:
                    break
                copy += 1
                suffix = pa.scalar(f"#{copy}")
                renamed = {}
                for name, table in tables[batch].items():
                    keys = pc.binary_join_element_wise(table["hand_key"], suffix, "")
                    index = table.schema.get_field_index("hand_key")
                    renamed[name] = table.set_column(index, "hand_key", keys)
                target_batch = f"{batch}-copy{copy:06d}"
                for name, table in with_hand_ids(renamed, next_hand_id(dataset)).items():
                    path = dataset.batch_file(name, target_batch)
                    pq.write_table(table, path, compression="zstd")
                stored += renamed["hands"].num_rows
    return copy


def child(code: str, *args: str) -> dict[str, float]:
    return run_child(code, *args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,20000,100000,400000")
    parser.add_argument("--big", action="store_true", help="add a 10,000,000-hand step")
    parser.add_argument("--new", type=int, default=2_000)
    parser.add_argument("--base", type=int, default=BATCH_HANDS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")] + ([10_000_000] if args.big else [])
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-scale-"))
    fresh = iter(range(10**9, 2 * 10**9, 10**6))  # hand id ranges of the new files
    try:
        root = work / "data"
        Dataset(root).create()
        originals: list[str] = []
        copy = 0
        rows = []
        for size in sorted(sizes):
            started = time.perf_counter()
            if size and not originals:
                base = write_hands(work / "base.jsonl", min(args.base, size), 7, 0)
                import_paths([base], root)
                originals = Dataset(root).batches()
            copy = grow(root, size, originals, copy)
            built = time.perf_counter() - started
            stored = stored_hands(Dataset(root))
            warm = write_hands(work / "warm.jsonl", args.new, 99, next(fresh))
            first = child(CHILD, str(warm), str(root))  # builds the copies' key index
            runs, joins = [], []
            for attempt in range(args.repeat):
                path = write_hands(work / f"new-{attempt}.jsonl", args.new, attempt, next(fresh))
                runs.append(child(CHILD, str(path), str(root)))
                assert runs[-1]["stored"] == args.new, runs[-1]
                joins.append(child(ANTI_JOIN, str(path), str(root)))
                assert joins[-1]["stored"] == 0, joins[-1]  # imported just before: all found
            rows.append((stored, built, first, runs, joins))
            print(f"  {stored:,} hands stored (built in {built:.0f} s)", flush=True)
        load = os.getloadavg()
        print(
            f"\nimport {args.new:,} new hands, medians of {args.repeat}; "
            f"load average {load[0]:.2f} {load[1]:.2f}"
        )
        print(
            f"{'stored':>11} {'import s':>9} {'× empty':>8} {'peak MiB':>9} {'× empty':>8} "
            f"{'1st s':>7}   {'anti-join s':>11} {'peak MiB':>9}"
        )
        base_seconds = statistics.median(r["seconds"] for r in rows[0][3])
        base_peak = statistics.median(r["peak_mib"] for r in rows[0][3])
        for stored, _, first, runs, joins in rows:
            seconds = statistics.median(r["seconds"] for r in runs)
            peak = statistics.median(r["peak_mib"] for r in runs)
            join_s = statistics.median(r["seconds"] for r in joins)
            join_peak = statistics.median(r["peak_mib"] for r in joins)
            print(
                f"{stored:>11,} {seconds:>9.2f} {seconds / base_seconds:>8.2f} {peak:>9.0f} "
                f"{peak / base_peak:>8.2f} {first['seconds']:>7.2f}   {join_s:>11.3f} "
                f"{join_peak:>9.0f}"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
