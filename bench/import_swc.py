"""SwC and fpdb import speed against the decode floor, measured in the same run.

    .venv/bin/python bench/import_swc.py [--hands 5000] [--repeat 3] [--against DIR]
        [--formats swc,swc-archive,fpdb]

Writes a snapshot-heavy SwC capture (tests/swcgen.py: one GameState line per
placement, ~21 lines a hand), the same capture as fpdb-3 keeps it
(``raw_messages.jsonl``: each line a record whose payload is the Socket.IO
frame, so the proxy message is decoded three times over) and an fpdb-3
database of the same hands, then, each in a fresh child process,
``--repeat`` times:

* import: ``import_paths`` into an empty dataset (columnar readers, the default);
* record: the same with ``columnar=False`` (the record path, the definition);
* parse: the parser's columnar reader alone, no importer (the parser's share),
  with the cyclic GC off as the importer runs parsers; ``parse-by-line`` (SwC):
  the same with the block fold (``parsers/swc_block.py``) off, every line
  folded one by one;
* floor: for SwC orjson decoding every line (and, in an archive, its frame and
  the message inside), and ``floor-structs``: msgspec decoding the file a
  megabyte at a time into the struct types the columnar reader uses (its own
  decode, with nothing folded); for fpdb the raw ``SELECT`` of the same rows
  through sqlite3, and that SELECT plus orjson decoding each rawJson.

It prints medians of wall and CPU seconds (CPU time is steadier on a shared
host), hands/s, and each figure's ratio to the floor.
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

sys.path.insert(0, str(ROOT / "tests"))

from handgen import random_records  # noqa: E402
from swcgen import FPDB_DDL, raw_json, snapshots  # noqa: E402

CHILD = """
import json, sqlite3, sys, time
import orjson
from ofc_stats.store.importer import import_paths
from parsers.base import ColumnarHands
from parsers.registry import get_parser
kind, fmt, path, data = sys.argv[1:5]
fmt = fmt.split("-")[0]  # swc-archive: the swc reader
if kind == "floor-structs":
    from parsers import swc_fast  # not in a checkout from before it (--against)
wall, cpu = time.perf_counter(), time.process_time()  # after the imports: not the modules' load
if kind in ("import", "record"):
    summary = import_paths([path], data, format_name=fmt, columnar=kind == "import")
    count = summary.stored
elif kind in ("parse", "parse-by-line"):
    import gc
    gc.disable()  # as import_paths runs every parser
    if kind == "parse-by-line":  # the columnar reader with its block fold off
        from parsers import swc_block
        swc_block.plan = lambda tables, block: None
    parser = get_parser(fmt)()
    if fmt == "fpdb":
        items = parser.parse_path_columnar(path, "bench")
    else:
        items = parser.parse_columnar(open(path, "rb"), "bench")
    count = 0
    for item in items:
        count += item.hands.num_rows if isinstance(item, ColumnarHands) else 1
elif kind == "floor-lines":
    with open(path, "rb") as stream:
        for line in stream:
            record = orjson.loads(line)
            if "payload" in record:
                orjson.loads(orjson.loads(record["payload"][10:])[1])
        count = int(sys.argv[5])
elif kind == "floor-structs":
    with open(path, "rb") as stream:
        for piece in swc_fast.blocks(stream):
            for record in piece.messages:
                if record.payload is not swc_fast.msgspec.UNSET:
                    swc_fast.archived(record)
        count = int(sys.argv[5])
elif kind in ("floor-select", "floor-select-decode"):
    connection = sqlite3.connect(path)
    cursor = connection.execute(
        "SELECT id, siteHandNo, tableName, rawJson FROM HttpOFCHands ORDER BY id"
    )
    count = 0
    decode = kind == "floor-select-decode"
    while rows := cursor.fetchmany(2000):
        count += len(rows)
        if decode:
            for row in rows:
                orjson.loads(row[3])
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                  "count": count}))
"""


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
    kind: str, fmt: str, path: Path, folder: Path, hands: int, against: Path | None
) -> dict[str, float]:
    data = folder / "data"
    shutil.rmtree(data, ignore_errors=True)
    # "import-before": the same child run in the other checkout (its ofc_stats and parsers).
    code, cwd = (
        (kind.removesuffix("-before"), against) if kind.endswith("-before") else (kind, ROOT)
    )
    figures = run_child(CHILD, code, fmt, str(path), str(data), str(hands), cwd=cwd)
    if kind.startswith(("import", "record")):
        assert figures["count"] == hands, figures
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--against",
        type=Path,
        help="a checkout of an earlier commit (git worktree or git archive): its import is "
        "timed in the same runs, for a before/after ratio",
    )
    parser.add_argument(
        "--formats",
        default="swc,swc-archive,fpdb",
        help="which of swc, swc-archive and fpdb to measure (comma-separated)",
    )
    args = parser.parse_args()
    chosen = args.formats.split(",")
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
        swc_kinds = ["floor-lines", "floor-structs", "import", "record", "parse", "parse-by-line"]
        plan = {
            "swc": (swc, swc_kinds),
            "swc-archive": (archive, swc_kinds),
            "fpdb": (fpdb, ["floor-select", "floor-select-decode", "import", "record", "parse"]),
        }
        header = ("format", "run", "wall s", "cpu s", "hands/s", "× floor (wall)", "× floor (cpu)")
        print("\n{:<11} {:<20} {:>7} {:>7} {:>9} {:>15} {:>14}".format(*header))
        for fmt, (path, kinds) in plan.items():
            if fmt not in chosen:
                continue
            if args.against:
                kinds = [*kinds, "import-before"]
            runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in kinds}
            for _ in range(args.repeat):  # interleaved, so drifting load hits every kind alike
                for kind in kinds:
                    runs[kind].append(measure(kind, fmt, path, folder, args.hands, args.against))
            wall = {k: statistics.median(r["wall"] for r in v) for k, v in runs.items()}
            cpu = {k: statistics.median(r["cpu"] for r in v) for k, v in runs.items()}
            floor = kinds[0]
            for kind in kinds:
                print(
                    f"{fmt:<11} {kind:<20} {wall[kind]:>7.2f} {cpu[kind]:>7.2f} "
                    f"{args.hands / wall[kind]:>9,.0f} {wall[kind] / wall[floor]:>15.1f} "
                    f"{cpu[kind] / cpu[floor]:>14.1f}"
                )
            share = (cpu["import"] - cpu["parse"]) / cpu["import"]
            print(
                f"{fmt:<11} import {args.hands / wall['import']:,.0f} hands/s "
                f"(goal 20,000), {wall['import'] / wall[floor]:.1f}x the {floor} floor; "
                f"record path {args.hands / wall['record']:,.0f} hands/s; "
                f"the importer's share of import CPU {share:.0%}",
                flush=True,
            )
            if "parse-by-line" in cpu:
                print(
                    f"{fmt:<11} parse: the block fold is "
                    f"{cpu['parse-by-line'] / cpu['parse']:.2f}x (CPU) the line fold's speed",
                    flush=True,
                )
            if args.against:
                print(
                    f"{fmt:<11} import is {cpu['import-before'] / cpu['import']:.2f}x "
                    f"(CPU; {wall['import-before'] / wall['import']:.2f}x wall) as fast as "
                    f"in {args.against}",
                    flush=True,
                )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
