"""SwC and fpdb import speed against the decode and write floors, measured in the same run.

    .venv/bin/python bench/import_swc.py [--hands 5000] [--repeat 3]
        [--formats swc,swc-archive,fpdb] [--reference DIR] [--one-core]
        [--no-record-path] [--no-record]

Writes a snapshot-heavy SwC capture (tests/swcgen.py: one GameState line per
placement, ~21 lines a hand), the same capture as fpdb-3 keeps it
(``raw_messages.jsonl``: each line a record whose payload is the Socket.IO
frame, so the proxy message is decoded three times over) and an fpdb-3
database of the same hands, then, each in a fresh child process and
``--repeat`` times, interleaved:

* import: ``import_paths`` into an empty dataset (the core lane, the default);
* 1 core (``--one-core``): the same import pinned to one CPU;
* record: the same with ``columnar=False`` (the readable reader, the definition;
  ``--no-record-path`` leaves it out, for a large file);
* parse: the core lane alone, no importer (cyclic GC off, as the importer runs it);
* ref import, ref parse (``--reference DIR``): import and parse run from another
  checkout (its own ``ofc_stats`` and ``parsers``, say main before a change), for a
  before/after ratio measured in the same runs;
* decode floor: orjson decoding every line (and, in an archive, its frame and the
  message inside); for fpdb the ``SELECT`` of the rows plus orjson on each rawJson;
* write floor: the file's stored tables (hands, seats, placements keyed by
  ``hand_id``) written as the store writes a batch, every 20,000 hands (the
  tables are built first, untimed).

It prints medians of wall and CPU seconds (CPU time is steadier on a shared
host), hands/s and the import's ratio to decode floor + write floor, and
records each format's import figure and, in CPU time, its parse figure against
the decode floor (``bench/results/import_swc.json``; a run of other than 5,000
hands is recorded under names that give its size, so a small file's figures,
where an import's fixed cost weighs, and a large file's stand side by side).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402
from record import record  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))

from handgen import random_records  # noqa: E402
from swcgen import FPDB_DDL, raw_json, snapshots  # noqa: E402

GOAL = 50_000  # hands/s (issue 27)
DEFAULT_HANDS = 5_000
CHILD = """
import json, os, sqlite3, sys, time
if os.environ.get("OFC_BENCH_CPUS"):  # --one-core: this process on one CPU
    os.sched_setaffinity(0, {int(c) for c in os.environ["OFC_BENCH_CPUS"].split(",")})
try:
    from orjson import loads
except ImportError:
    from json import loads
from ofc_stats.store.importer import import_paths
from parsers.base import ColumnarHands
from parsers.registry import get_parser
kind, fmt, path, data, hands = sys.argv[1:6]
fmt = fmt.split("-")[0]  # swc-archive: the swc reader


def parsed():
    parser = get_parser(fmt)()
    if fmt == "fpdb":
        return parser.parse_path_columnar(path, "bench")
    return parser.parse_columnar(open(path, "rb"), "bench")


if kind == "floor-write":  # the stored tables built first, untimed
    import pyarrow as pa
    from ofc_stats.store.files import write_parquet
    from ofc_stats.store.hand_ids import with_hand_ids
    from ofc_stats.store.schema import HANDS, PLACEMENTS, SEATS

    def plain(table, schema):
        table = table.select(schema.names)
        if pa.types.is_dictionary(table.schema.field("hand_key").type):
            table = table.set_column(0, "hand_key", table["hand_key"].cast(pa.string()))
        return table.cast(schema)

    chunks = [i for i in parsed() if isinstance(i, ColumnarHands)]
    tables = {
        "hands": pa.concat_tables([plain(c.hands, HANDS) for c in chunks]),
        "seats": pa.concat_tables([plain(c.seats, SEATS) for c in chunks]),
        "placements": pa.concat_tables([plain(c.placements, PLACEMENTS) for c in chunks]),
    }
    batches = []
    for start in range(0, tables["hands"].num_rows, 20_000):
        keys = tables["hands"]["hand_key"].slice(start, 20_000)
        part = {
            name: table.filter(pa.compute.is_in(table["hand_key"], keys))
            for name, table in tables.items()
        }
        batches.append(with_hand_ids(part, start))
wall, cpu = time.perf_counter(), time.process_time()  # after the imports: not the modules' load
if kind in ("import", "record"):
    summary = import_paths([path], data, format_name=fmt, columnar=kind == "import")
    count = summary.stored
elif kind == "parse":
    import gc
    gc.disable()  # as import_paths runs every parser
    count = 0
    for item in parsed():
        count += item.hands.num_rows if isinstance(item, ColumnarHands) else 1
elif kind == "floor-decode" and fmt == "swc":
    with open(path, "rb") as stream:
        for line in stream:
            message = loads(line)
            if "payload" in message:
                loads(loads(message["payload"][10:])[1])
    count = int(hands)
elif kind == "floor-decode":
    connection = sqlite3.connect(path)
    cursor = connection.execute(
        "SELECT id, siteHandNo, tableName, rawJson FROM HttpOFCHands ORDER BY id"
    )
    count = 0
    while rows := cursor.fetchmany(2000):
        count += len(rows)
        for row in rows:
            loads(row[3])
elif kind == "floor-write":
    for number, batch in enumerate(batches):
        for name in ("hands", "seats", "placements"):
            write_parquet(batch[name], f"{data}-{name}-{number}.parquet", name)
    count = int(hands)
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                  "count": count}))
"""
KINDS = ["floor-decode", "floor-write", "import", "record", "parse"]
REFERENCE_KINDS = ["ref import", "ref parse"]  # import and parse run from --reference


def archived(line: str, sequence: int) -> str:
    """One proxy message as a record of fpdb-3's raw archive (shared/formats/SWC.md §2.3)."""
    record = {
        "site": "SealsWithClubs",
        "transport": "websocket",
        "captured_at": "2026-08-14T19:02:05.212004Z",
        "endpoint": "wss://play.swcpoker.club/socket.io/?EIO=4&transport=websocket",
        "message_type": "GameState",
        "table_id": 1,
        "hand_id": None,
        "sequence": sequence,
        "direction": "received",
        "payload": "42/poker/," + json.dumps(["proxy-message", line]),
    }
    return json.dumps(record)


def write_files(folder: Path, hands: int) -> tuple[Path, Path, Path]:
    swc, archive = folder / "capture.jsonl", folder / "raw_messages.jsonl"
    fpdb = folder / "fpdb.db3"
    connection = sqlite3.connect(fpdb)
    connection.executescript(FPDB_DDL)
    insert = "INSERT INTO HttpOFCHands (site, siteHandNo, tableName, rawJson) VALUES (?, ?, ?, ?)"
    sequence = 0
    with swc.open("w", encoding="utf-8") as out, archive.open("w", encoding="utf-8") as raw_out:
        for start in range(0, hands, 5_000):
            records = random_records(min(5_000, hands - start), seed=2026 + start)
            for index, record in enumerate(records, start=start):
                lines = snapshots(record, gi=index + 1, ti=1)
                out.write("\n".join(lines) + "\n")
                for line in lines:
                    sequence += 1
                    raw_out.write(archived(line, sequence) + "\n")
                raw = raw_json(record)
                raw["hand_id"] = index + 1
                connection.execute(insert, ("SealsWithClubs", str(index + 1), "t", json.dumps(raw)))
    connection.commit()
    connection.close()
    return swc, archive, fpdb


def measure(
    kind: str, fmt: str, path: Path, folder: Path, hands: int, reference: Path | None = None
) -> dict[str, float]:
    """One step in a child process; a ``ref`` step runs from ``reference`` (its own code)."""
    data = folder / "data"
    shutil.rmtree(data, ignore_errors=True)
    for old in folder.glob("data-*.parquet"):
        old.unlink()
    checkout, env = ROOT, None
    if kind == "1 core":
        kind, env = "import", {**os.environ, "OFC_BENCH_CPUS": "0"}
    if kind.startswith("ref "):
        kind, checkout = kind.removeprefix("ref "), reference or ROOT
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the checkout's own
    figures = run_child(CHILD, kind, fmt, str(path), str(data), str(hands), env=env, cwd=checkout)
    if kind in ("import", "record"):
        assert figures["count"] == hands, figures
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--formats",
        default="swc,swc-archive,fpdb",
        help="which of swc, swc-archive and fpdb to measure (comma-separated)",
    )
    parser.add_argument("--reference", type=Path, help="another checkout to import with too")
    parser.add_argument("--one-core", action="store_true", help="also import on one CPU")
    parser.add_argument(
        "--no-record-path", action="store_true", help="leave out the record path (slow)"
    )
    parser.add_argument("--no-record", action="store_true", help="print only")
    args = parser.parse_args()
    chosen = args.formats.split(",")
    kinds = [k for k in KINDS if k != "record" or not args.no_record_path]
    kinds += (["1 core"] if args.one_core else []) + (REFERENCE_KINDS if args.reference else [])
    size = "" if args.hands == DEFAULT_HANDS else f" ({args.hands:,} hands)"
    folder = Path(tempfile.mkdtemp(prefix="ofc-bench-swc-"))
    try:
        swc, archive, fpdb = write_files(folder, args.hands)
        print(
            f"{args.hands:,} hands: swc {os.path.getsize(swc) / 1e6:.1f} MB, "
            f"swc archive {os.path.getsize(archive) / 1e6:.1f} MB, "
            f"fpdb {os.path.getsize(fpdb) / 1e6:.1f} MB; load average {os.getloadavg()[0]:.2f}; "
            f"medians of {args.repeat}",
            flush=True,
        )
        paths = {"swc": swc, "swc-archive": archive, "fpdb": fpdb}
        header = ("format", "run", "wall s", "cpu s", "hands/s", "hands/cpu-s")
        print("\n{:<11} {:<13} {:>7} {:>7} {:>9} {:>12}".format(*header))
        for fmt in [f for f in paths if f in chosen]:
            runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
            for _ in range(args.repeat):  # interleaved, so drifting load hits every kind alike
                for kind in kinds:
                    figures = measure(kind, fmt, paths[fmt], folder, args.hands, args.reference)
                    runs[kind].append(figures)
            wall = {k: statistics.median(r["wall"] for r in v) for k, v in runs.items()}
            cpu = {k: statistics.median(r["cpu"] for r in v) for k, v in runs.items()}
            for kind in kinds:
                print(
                    f"{fmt:<11} {kind:<13} {wall[kind]:>7.2f} {cpu[kind]:>7.2f} "
                    f"{args.hands / wall[kind]:>9,.0f} {args.hands / cpu[kind]:>12,.0f}"
                )
            floors = wall["floor-decode"] + wall["floor-write"]
            floors_cpu = cpu["floor-decode"] + cpu["floor-write"]
            speed = args.hands / wall["import"]
            slower = (
                ""
                if "record" not in wall
                else (f"; record path {wall['record'] / wall['import']:.1f}x slower")
            )
            one = "" if "1 core" not in wall else f"; 1 core {args.hands / wall['1 core']:,.0f}"
            print(
                f"{fmt:<11} import {speed:,.0f} hands/s ({args.hands / cpu['import']:,.0f} a "
                f"CPU second; goal {GOAL:,}); decode floor {wall['floor-decode']:.2f} s + write "
                f"floor {wall['floor-write']:.2f} s = {floors:.2f} s; import "
                f"{wall['import'] / floors:.2f}x the floors ({cpu['import'] / floors_cpu:.2f}x "
                f"in CPU){one}{slower}; {cpu['import'] / args.hands * 1e6:.1f} CPU-us a hand",
                flush=True,
            )
            before = ""
            if args.reference:
                before = (
                    f"; reference {args.hands / wall['ref import']:,.0f} hands/s, "
                    f"{cpu['ref import'] / args.hands * 1e6:.1f} CPU-us a hand, "
                    f"{args.hands / cpu['ref parse']:,.0f} parsed a CPU second"
                )
                print(
                    f"{fmt:<11} against {args.reference}: import "
                    f"{wall['ref import'] / wall['import']:.2f}x faster "
                    f"({cpu['ref import'] / cpu['import']:.2f}x in CPU), parse "
                    f"{cpu['ref parse'] / cpu['parse']:.2f}x faster in CPU",
                    flush=True,
                )
            if not args.no_record:
                record(
                    "import_swc",
                    f"{fmt} import{size}",
                    figure=speed,
                    unit="hands/s",
                    reference=args.hands / floors,
                    reference_name="decode floor + write floor, same run",
                    ratio=wall["import"] / floors,
                    goal=f">= {GOAL:,} hands/s",
                    met=speed >= GOAL,
                    note=f"{args.hands:,} hands; {args.hands / cpu['import']:,.0f} hands a CPU "
                    f"second ({cpu['import'] / args.hands * 1e6:.1f} CPU-us a hand){one} hands/s"
                    + (
                        ""
                        if "record" not in wall
                        else f"; record path {args.hands / wall['record']:,.0f} hands/s"
                    )
                    + f"{before}; load average {os.getloadavg()[0]:.1f}",
                )
                # The reader's share alone, in CPU time (steady on a shared host): the core
                # lane against orjson decoding the same text, which keeps nothing.
                record(
                    "import_swc",
                    f"{fmt} parse{size}",
                    figure=args.hands / cpu["parse"],
                    unit="hands a CPU second",
                    reference=args.hands / cpu["floor-decode"],
                    reference_name="decode floor (orjson, nothing kept), CPU, same run",
                    ratio=cpu["parse"] / cpu["floor-decode"],
                    goal=f">= {GOAL:,} hands a CPU second",
                    met=args.hands / cpu["parse"] >= GOAL,
                    note=f"{args.hands:,} hands; parse_columnar alone (no importer), cyclic GC "
                    f"off{before}; load average {os.getloadavg()[0]:.1f}",
                )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
