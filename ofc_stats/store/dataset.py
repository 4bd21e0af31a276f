"""The Parquet dataset: one folder per table, atomic batch commits, the lock.

A dataset is a folder::

    ofc-data/
      dataset.json           {"schema_version": 3}
      hands/  seats/  placements/  files/  quarantine/    written by import
      results/  versus/                                    written by recompute
        schema.parquet       no rows: the table's schema, so an empty table reads
        <batch id>.parquet   one file per import batch
      .tmp/                  batches being written (never read)
      .lock                  held by the running import or recompute

Any engine reads a table by its folder (``pd.read_parquet("ofc-data/hands")``,
DuckDB ``read_parquet('ofc-data/hands/*.parquet')``, Spark, polars).

A batch is written whole under ``.tmp/<batch>/``; a ``COMMIT`` marker written
after every file is fsynced is the commit point; the files are then renamed
into their table folders.  A process killed before the marker leaves nothing
(the staging folder is removed on the next lock); one killed after it is
rolled forward on the next lock, so a batch is never half stored.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.errors import DatasetError, DatasetLocked
from ofc_stats.store.files import fsync_dir, write_parquet
from ofc_stats.store.migrate import MIGRATIONS, upgrade
from ofc_stats.store.schema import SCHEMA_VERSION, TABLES

COMMIT = "COMMIT"
EMPTY = "schema.parquet"


class Dataset:
    """A dataset folder: read its tables, commit batches under its lock."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def exists(self) -> bool:
        return (self.root / "dataset.json").is_file()

    def table_dir(self, table: str) -> Path:
        return self.root / table

    def create(self) -> None:
        """Make the folder a dataset (every table folder present), or check it is one.

        An existing folder that holds anything else is refused, never taken over.
        """
        if self.root.exists() and not self.root.is_dir():
            raise DatasetError(f"{self.root}: is a file, not a dataset folder")
        if not self.exists():
            if self.root.is_dir() and any(
                p.name not in (".lock", ".tmp") for p in self.root.iterdir()
            ):
                raise DatasetError(
                    f"{self.root}: the folder holds other files and no dataset.json; "
                    "give --data an empty or new folder"
                )
            self.root.mkdir(parents=True, exist_ok=True)
            meta = self.root / "dataset.json"
            meta.write_text(json.dumps({"schema_version": SCHEMA_VERSION}) + "\n")
        self.check_version()
        (self.root / ".tmp").mkdir(exist_ok=True)
        for name, schema in TABLES.items():
            folder = self.table_dir(name)
            folder.mkdir(exist_ok=True)
            if not (folder / EMPTY).exists():
                write_parquet(schema.empty_table(), folder / EMPTY)

    def schema_version(self) -> object:
        try:
            meta = json.loads((self.root / "dataset.json").read_text())
        except (OSError, ValueError) as error:
            raise DatasetError(f"{self.root}: dataset.json is unreadable ({error})") from None
        if not isinstance(meta, dict):
            raise DatasetError(f"{self.root}: dataset.json is not an object")
        return meta.get("schema_version")

    def check_version(self) -> None:
        """Refuse a dataset of another schema version, saying what to do."""
        version = self.schema_version()
        if version == SCHEMA_VERSION:
            return
        if version in MIGRATIONS:
            raise DatasetError(
                f"{self.root}: dataset schema version {version}; run `ofc-stats migrate "
                f"--data {self.root}` (this ofc-stats reads version {SCHEMA_VERSION})"
            )
        raise DatasetError(
            f"{self.root}: dataset schema version {version}, this ofc-stats reads version "
            f"{SCHEMA_VERSION}; import the files again into a new --data folder"
        )

    def batches(self) -> list[str]:
        """Ids of the committed import batches, oldest first."""
        return [Path(path).stem for path in self.files("hands")]

    def batch_file(self, table: str, batch: str) -> Path:
        return self.table_dir(table) / f"{batch}.parquet"

    def publishing(self) -> set[str]:
        """Batches committed but not yet wholly renamed into place (a killed writer's)."""
        tmp = self.root / ".tmp"
        if not tmp.is_dir():
            return set()
        return {p.name.split("+", 1)[-1] for p in tmp.iterdir() if (p / COMMIT).is_file()}

    def files(self, table: str) -> list[str]:
        """Parquet files of one table with rows in them, whole batches only.

        A batch still being published is left out until the next lock holder
        finishes it, so readers never see half of one.
        """
        folder = self.table_dir(table)
        if not folder.is_dir():
            return []
        hidden = self.publishing()
        return [
            str(p)
            for p in sorted(folder.glob("*.parquet"))
            if p.name != EMPTY and p.stem not in hidden
        ]

    def read(self, table: str, columns: list[str] | None = None) -> pa.Table:
        schema = TABLES[table]
        paths = self.files(table)
        if not paths:
            return schema.empty_table() if columns is None else schema.empty_table().select(columns)
        parts = [pq.read_table(path, columns=columns) for path in paths]
        return pa.concat_tables(parts)

    def hand_keys(self) -> dict[str, str]:
        """hand_key -> fingerprint of every stored hand."""
        table = self.read("hands", ["hand_key", "fingerprint"])
        return dict(zip(table.column(0).to_pylist(), table.column(1).to_pylist(), strict=True))

    def file_hashes(self) -> set[str]:
        return set(self.read("files", ["sha256"]).column(0).to_pylist())

    def quarantine_keys(self) -> set[tuple[str, int | None, str]]:
        table = self.read("quarantine", ["source_file", "offset", "reason"])
        return set(zip(*(table.column(i).to_pylist() for i in range(3)), strict=True))

    @contextmanager
    def locked(self, wait_seconds: float = 0.0) -> Iterator[None]:
        """Hold the dataset's lock; wait up to ``wait_seconds`` for it.

        Taking the lock upgrades a dataset of an older schema version and
        finishes what a killed holder left: committed batches are rolled
        forward, uncommitted ones removed.
        """
        if not self.exists():
            self.create()
        with open(self.root / ".lock", "a+") as handle:
            deadline = time.monotonic() + wait_seconds
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        handle.seek(0)
                        holder = handle.read().strip() or "another process"
                        raise DatasetLocked(
                            f"{self.root} is being imported into by {holder}; "
                            "wait for it to finish or pass --wait SECONDS"
                        ) from None
                    time.sleep(0.2)
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}")
            handle.flush()
            try:
                upgrade(self.root)
                self.create()
                self.recover()
                yield
            finally:
                handle.seek(0)
                handle.truncate()
                fcntl.flock(handle, fcntl.LOCK_UN)

    def new_batch_id(self) -> str:
        return f"{time.time_ns():020d}-{os.getpid()}"

    def commit(
        self, batch: str, tables: dict[str, pa.Table], *, step: str = "", **options: object
    ) -> None:
        """Write one batch of some tables, then publish every file of it (see module doc).

        ``step`` names a later writer of the same batch (``results``), so its
        staging folder never collides with the import's.
        """
        staging = self.root / ".tmp" / (f"{step}+{batch}" if step else batch)
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        try:
            for name, table in tables.items():
                write_parquet(table, staging / f"{name}.parquet", **options)
            (staging / COMMIT).write_text(json.dumps(sorted(tables)) + "\n")
            fsync_dir(staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self._publish(staging, batch)

    def _publish(self, staging: Path, batch: str) -> None:
        """Rename a committed staging folder's files into their tables (idempotent)."""
        for path in sorted(staging.glob("*.parquet")):
            folder = self.table_dir(path.stem)
            os.replace(path, folder / f"{batch}.parquet")
            fsync_dir(folder)
        shutil.rmtree(staging, ignore_errors=True)

    def recover(self) -> None:
        """Roll committed batches forward and drop uncommitted ones (the caller holds the lock)."""
        tmp = self.root / ".tmp"
        if not tmp.is_dir():
            return
        for leftover in sorted(tmp.iterdir()):
            if not leftover.is_dir():
                leftover.unlink()
            elif (leftover / COMMIT).is_file():
                self._publish(leftover, leftover.name.split("+", 1)[-1])
            else:
                shutil.rmtree(leftover, ignore_errors=True)
