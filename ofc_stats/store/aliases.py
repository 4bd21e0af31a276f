"""Player aliases: accounts joined into one person, as an append-only event table.

``ofc-stats players alias NAME ACCOUNT...`` commits one batch to the
``aliases`` table folder (the store's usual commit, under the lock); the
latest event of an account decides where it belongs, so ``unalias`` is a
``leave`` event and the whole history stays readable.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pyarrow as pa

from ofc_stats.errors import OfcError
from ofc_stats.store.dataset import EMPTY, Dataset
from ofc_stats.store.files import write_parquet
from ofc_stats.store.schema import ALIASES

TABLE = "aliases"


def ensure_folder(dataset: Dataset) -> Path:
    """The aliases folder with its schema file (older datasets have none)."""
    folder = dataset.table_dir(TABLE)
    folder.mkdir(exist_ok=True)
    if not (folder / EMPTY).exists():
        write_parquet(ALIASES.empty_table(), folder / EMPTY)
    return folder


def record(root: str | Path, name: str, accounts: Sequence[str], action: str) -> int:
    """Store one ``join`` or ``leave`` event per account; how many were stored."""
    if action not in ("join", "leave"):
        raise OfcError(f"alias action {action!r}: join or leave")
    if not name.strip():
        raise OfcError("an alias needs a name")
    accounts = list(dict.fromkeys(accounts))
    if not accounts:
        return 0
    dataset = Dataset(root)
    dataset.require()
    at = datetime.fromtimestamp(time.time_ns() // 1000 / 1e6)
    table = pa.table(
        {
            "name": pa.array([name] * len(accounts), pa.string()),
            "account": pa.array(accounts, pa.string()),
            "action": pa.array([action] * len(accounts), pa.string()),
            "changed_at": pa.array([at] * len(accounts), pa.timestamp("us")),
        },
        schema=ALIASES,
    )
    with dataset.locked():
        ensure_folder(dataset)
        dataset.commit(dataset.new_batch_id(), {TABLE: table}, step=TABLE)
    return len(accounts)
