"""Durable writes: a file or folder is fsynced before anything points at it."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def fsync_dir(folder: Path) -> None:
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def write_parquet(table: pa.Table, path: Path, **options: object) -> None:
    """Write one Parquet file and make it durable before anything points at it."""
    pq.write_table(table, path, **{"compression": "zstd", **options})
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
