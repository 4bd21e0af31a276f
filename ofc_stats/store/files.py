"""Durable writes: a file or folder is fsynced before anything points at it.

Also the one publish step of a committed batch (:func:`publish`), which the
dataset's commits, its recovery and the schema migrations all use, and the
one home of how each stored table is laid out in Parquet
(:data:`STORED_OPTIONS`): the local importer, recompute, the migrations and
Spark's workers all write a table with its own entry, so a file never
depends on which of them wrote it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.store.schema import STORED_RESULTS, STORED_VERSUS

DEFAULT_OPTIONS: dict[str, Any] = {"compression": "zstd"}
_DELTA = "DELTA_BINARY_PACKED"  # ascending integers (ids, lines, offsets): deltas, no dictionary

# Why each table is written as it is (CPU per 20k-hand batch, min of 9, 2026-12-01; the
# whole-table default of zstd with a dictionary tried on every column and statistics on
# every column against these):
# * hands 55 -> 46 ms, 2,969 -> 2,625 KiB: a dictionary only on the strings a batch
#   repeats (keys, fingerprints and raw texts are unique: building one was pure loss);
#   statistics on what readers prune by.  raw_text stays zstd: lz4 would save 6 ms a
#   batch for a hands file 54% larger.
# * seats 33 -> 26 ms, 1,557 -> 1,292 KiB: the rows' card lists dictionary-coded (52
#   values), the board (13 cards, unique) and the keys not.
# * placements (~43 rows a hand) 33 -> 25 ms, 902 -> 1,176 KiB: hand_id, seat and street
#   under LZ4; hand_id ascends, a few dozen rows each.
# * results and versus: LZ4, not zstd (recompute's writes are most of its time: a batch's
#   results 19 -> 12.6 ms, files 1.5 -> 0.76 MB, and read faster too); the foul flag and
#   row classes hardly compress (LZ4 ratio 1.0-1.9) and cost LZ4 a quarter of the write,
#   so they are stored plain (12.2 -> 8.9 ms, the file 14% larger); hand_id delta-coded
#   (versus 374 -> 234 kB a batch).  DuckDB, Arrow and Spark read every one of these.
_UNCOMPRESSED_RESULTS = ("fouled", "top_class", "middle_class", "bottom_class")
_LOW_CARDINALITY_HANDS = [
    "format",
    "room",
    "table_id",
    "rules_text",
    "ruleset",
    "currency",
    "source_file",
    "batch",
]
_SEAT_LISTS = [f"{row}.list.element" for row in ("top", "middle", "bottom", "discards")]
STORED_OPTIONS: dict[str, dict[str, Any]] = {
    "hands": {
        "compression": "zstd",
        "use_dictionary": _LOW_CARDINALITY_HANDS,
        "write_statistics": ["hand_id", "played_at"],
        "column_encoding": {"hand_id": _DELTA, "source_line": _DELTA, "source_offset": _DELTA},
    },
    "seats": {
        "compression": "zstd",
        "use_dictionary": [
            *_SEAT_LISTS,
            "player",
            "player_id",
            "board_streets",
            "reported_points",
            "seat",
            "fantasy_cards",
            "reported_money",
            "stack",
            "hero",
            "in_fantasy",
        ],
        "write_statistics": ["hand_id"],
        "column_encoding": {"hand_id": _DELTA},
    },
    "placements": {
        "compression": {
            "hand_id": "lz4",
            "seat": "lz4",
            "street": "lz4",
            "card": "zstd",
            "destination": "zstd",
        },
        "use_dictionary": ["card", "destination", "street"],
        "write_statistics": ["hand_id"],
    },
    **{
        name: {
            "compression": {
                column: "none" if column in _UNCOMPRESSED_RESULTS else "lz4"
                for column in schema.names
            },
            "use_dictionary": ["ruleset", "status"],
            "write_statistics": ["hand_id", "seat"],
            "column_encoding": {"hand_id": _DELTA},
        }
        for name, schema in (("results", STORED_RESULTS), ("versus", STORED_VERSUS))
    },
}


def options_for(name: str) -> dict[str, Any]:
    """The Parquet writer options of a stored table (zstd for a table with no entry)."""
    return STORED_OPTIONS.get(name, DEFAULT_OPTIONS)


def fsync_dir(folder: Path) -> None:
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def write_parquet(table: pa.Table, path: Path, name: str = "", **options: Any) -> None:
    """Write table ``name``'s file (its :func:`options_for`, then ``options``), durably."""
    pq.write_table(table, path, **{**options_for(name), **options})
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


COMMIT = "COMMIT"  # the marker whose presence makes a staging folder committed


def marker(staging: Path) -> dict[str, list[str]]:
    """A committed staging folder's marker: the batches it writes, the files it removes.

    A version-3 marker (a list of tables) and an unreadable one name the
    staging folder's own batch and remove nothing.
    """
    try:
        found = json.loads((staging / COMMIT).read_text())
    except (OSError, ValueError):
        found = None
    if not isinstance(found, dict):
        return {"batches": [staging.name.split("+", 1)[-1]], "remove": []}
    return found


def publish(root: Path, staging: Path, batch: str) -> None:
    """Rename a committed staging folder's files into their tables (idempotent).

    ``<table>.parquet`` becomes ``<table>/<batch>.parquet``; a rewrite of
    another batch, ``<table>@<other>.parquet``, becomes
    ``<table>/<other>.parquet``; the marker's removals go first.
    """
    for name in marker(staging).get("remove", []):
        (root / name).unlink(missing_ok=True)
    folders: set[Path] = set()
    for path in sorted(staging.glob("*.parquet")):
        table, _, other = path.stem.partition("@")
        folder = root / table
        folder.mkdir(exist_ok=True)
        os.replace(path, folder / f"{other or batch}.parquet")
        folders.add(folder)
    for folder in sorted(folders):  # every rename durable before the marker goes
        fsync_dir(folder)
    shutil.rmtree(staging, ignore_errors=True)
