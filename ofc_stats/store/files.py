"""Durable writes: a file or folder is fsynced before anything points at it."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.store.schema import STORED_PLACEMENTS


def fsync_dir(folder: Path) -> None:
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


# Stored placements (~43 rows a hand): hand_id ascends, so deltas beat a dictionary, and
# min/max of seat, street, card and destination prune nothing (68 -> 55 ms a batch, same size).
_PLACEMENT_OPTIONS = {
    "use_dictionary": ["seat", "street", "card", "destination"],
    "column_encoding": {"hand_id": "DELTA_BINARY_PACKED"},
    "write_statistics": ["hand_id"],
}


def write_parquet(table: pa.Table, path: Path, **options: object) -> None:
    """Write one Parquet file and make it durable before anything points at it."""
    if table.schema.names == STORED_PLACEMENTS.names:
        options = {**_PLACEMENT_OPTIONS, **options}
    pq.write_table(table, path, **{"compression": "zstd", **options})
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
