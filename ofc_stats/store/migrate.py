"""Upgrading a dataset written by an older ofc-stats, in place, under its lock.

Each step moves files and never re-parses a hand, and it can be run again
after a kill: it finishes what is left.  ``dataset.json``'s version is
written last, so a dataset is either upgraded whole or still readable as the
old version by this module.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq

from ofc_stats.store.files import fsync_dir, write_parquet
from ofc_stats.store.schema import ENGINE_KEY, ENGINE_VERSION

V2_RESULTS = ".v2-results"


def _two_to_three(root: Path) -> None:
    """v2 kept every table of a batch in ``batches/<batch>/``: one folder per table now."""
    (root / ".tmp").mkdir(exist_ok=True)
    old_results = root / V2_RESULTS
    if (root / "results").is_dir() and not old_results.exists():
        has_v2 = any(p.is_dir() for p in (root / "results").iterdir())
        if has_v2:
            os.rename(root / "results", old_results)
    batches = root / "batches"
    for folder in sorted(batches.iterdir()) if batches.is_dir() else []:
        for path in sorted(folder.glob("*.parquet")):
            target = root / path.stem
            target.mkdir(exist_ok=True)
            os.replace(path, target / f"{folder.name}.parquet")
        shutil.rmtree(folder)
    if batches.is_dir():
        batches.rmdir()
    for folder in sorted(old_results.iterdir()) if old_results.is_dir() else []:
        try:
            done = json.loads((folder / "done.json").read_text()).get("engine")
        except (OSError, ValueError, AttributeError):
            done = None
        if done == ENGINE_VERSION and (folder / "versus.parquet").is_file():
            # The same engine's results: keep them, stamped as v3 stamps them.
            stamp = {ENGINE_KEY: str(ENGINE_VERSION).encode()}
            table = pq.read_table(folder / "results.parquet").replace_schema_metadata(stamp)
            for name in ("results", "versus"):
                (root / name).mkdir(exist_ok=True)
            write_parquet(table, root / "results" / f"{folder.name}.parquet")
            os.replace(folder / "versus.parquet", root / "versus" / f"{folder.name}.parquet")
        shutil.rmtree(folder)  # otherwise recompute scores the batch again
    if old_results.is_dir():
        old_results.rmdir()
    fsync_dir(root)


MIGRATIONS: dict[object, tuple[int, Callable[[Path], None]]] = {2: (3, _two_to_three)}


def schema_version(root: Path) -> object:
    """The version dataset.json names, or None when it names none."""
    try:
        meta = json.loads((root / "dataset.json").read_text())
    except (OSError, ValueError):
        return None
    return meta.get("schema_version") if isinstance(meta, dict) else None


def upgrade(root: Path) -> list[str]:
    """Bring the dataset to the current schema version; what was done, one line a step.

    The caller holds the dataset's lock.
    """
    lines = []
    version = schema_version(root)
    while version in MIGRATIONS:
        target, step = MIGRATIONS[version]
        step(root)
        meta = root / "dataset.json"
        staged = meta.with_suffix(".json.new")
        staged.write_text(json.dumps({"schema_version": target}) + "\n")
        os.replace(staged, meta)
        lines.append(f"{root}: schema version {version} -> {target}")
        version = target
    return lines


def needs_upgrade(root: str | Path) -> bool:
    return schema_version(Path(root)) in MIGRATIONS
