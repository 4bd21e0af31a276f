"""The Parquet dataset: one folder per table, atomic batch commits, the lock.

A dataset is a folder::

    ofc-data/
      dataset.json           {"schema_version": 3}
      hands/  seats/  placements/  files/  quarantine/    written by import
      results/  versus/                                    written by recompute
        schema.parquet       no rows: the table's schema, so an empty table reads
        <batch id>.parquet   one file per import batch
      .tmp/                  batches being written (never read)
      .lock                  held by the running import or recompute (names its pid)

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
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.errors import DatasetError, DatasetLocked
from ofc_stats.store.files import COMMIT, LOCAL, commit, marker, publish, write_all
from ofc_stats.store.migrate import MIGRATIONS, upgrade
from ofc_stats.store.rows import with_hand_keys
from ofc_stats.store.schema import SCHEMA_VERSION, TABLES

EMPTY = "schema.parquet"
__all__ = [
    "COMMIT",
    "EMPTY",
    "HAND_TABLES",
    "LOCK",
    "TAKEOVER",
    "Dataset",
    "hand_rows",
    "stale_batches",
]
LOCK = ".lock"
TAKEOVER = ".lock-takeover"
# Tables keyed by hand_key: what removing a hand from a batch rewrites.
HAND_TABLES = ("hands", "seats", "placements", "results", "versus")


def _start_time(pid: int) -> str | None:
    """A process's start time (Linux /proc), so a reused pid is not taken for the holder."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()
    if fields and fields[0] == "Z":
        return "zombie"
    return fields[19] if len(fields) > 19 else None


def _write_holder(handle: IO[str]) -> None:
    pid = os.getpid()
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {pid} started {_start_time(pid) or '?'}")
    handle.flush()


def _pid_text(holder: str) -> str:
    """``pid 1234 (ofc-stats import …)``: whom a waiting import waits for."""
    parts = holder.split()
    if len(parts) < 2 or parts[0] != "pid":
        return "another process"
    command = _command(parts[1])
    return f"pid {parts[1]}" + (f" ({command})" if command else "")


def _command(pid: str) -> str:
    """A process's command line, shortened, or '' where the system does not tell."""
    try:
        raw = Path(f"/proc/{int(pid)}/cmdline").read_bytes()
    except (OSError, ValueError):
        return ""
    words = [w.decode("utf-8", "replace") for w in raw.split(b"\0") if w]
    text = " ".join(Path(words[0]).name if i == 0 else w for i, w in enumerate(words))
    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return text if len(text) <= 120 else text[:119] + "…"


def _say_waiting(text: str) -> None:
    import sys

    print(text, file=sys.stderr, flush=True)


def _holder_alive(holder: str) -> bool:
    """Whether the process the lock file names still runs (unknown text: assume it does)."""
    parts = holder.split()
    if len(parts) < 2 or parts[0] != "pid" or not parts[1].isdigit():
        return True
    pid = int(parts[1])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    started = _start_time(pid)
    if started == "zombie":
        return False
    recorded = parts[3] if len(parts) >= 4 and parts[2] == "started" else "?"
    return recorded in ("?", started) or started is None


def _same_file(handle: IO[str], path: Path) -> bool:
    try:
        return os.fstat(handle.fileno()).st_ino == os.stat(path).st_ino
    except OSError:
        return False


def hand_rows(table: pa.Table, keys: pa.Array, ids: pa.ChunkedArray | None) -> pa.Array:
    """Which rows of a hand table belong to these hands (results and versus hold hand_id only)."""
    if "hand_key" in table.column_names:
        return pc.is_in(table["hand_key"], keys)
    if ids is None or "hand_id" not in table.column_names:
        return pa.array([False] * table.num_rows)
    return pc.is_in(table["hand_id"], ids.combine_chunks())


def stale_batches(
    batches: Iterable[str], current: Callable[[str], bool], force: bool
) -> tuple[list[str], int]:
    """The batches a derived table still needs (all with ``force``), and how many are current.

    Recompute, grading and their Spark runners all ask this of their own
    ``current`` test (the engine or grader version stamped in the files).
    """
    todo, done = [], 0
    for batch in batches:
        if not force and current(batch):
            done += 1
        else:
            todo.append(batch)
    return todo, done


def newer_schema(version: object) -> bool:
    """Whether ``version`` is a schema a newer ofc-stats writes (upgrading reads it)."""
    return isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION


class Dataset:
    """A dataset folder: read its tables, commit batches under its lock."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def exists(self) -> bool:
        return (self.root / "dataset.json").is_file()

    def require(self) -> None:
        """Refuse a folder with no dataset.json, saying whether it is a dataset that lost it."""
        if self.exists():
            return
        if (self.root / "hands").is_dir() and (self.root / "files").is_dir():
            raise DatasetError(
                f"{self.root}: dataset.json is missing (the tables are here); "
                f"`ofc-stats check --repair --data {self.root}` writes it again"
            )
        raise DatasetError(
            f"{self.root}: no ofc-stats dataset here; create one with `ofc-stats import`"
        )

    def table_dir(self, table: str) -> Path:
        return self.root / table

    def create(self) -> None:
        """Make the folder a dataset (every table folder present), or check it is one.

        An existing folder that holds anything else is refused, never taken over.
        """
        if self.root.exists() and not self.root.is_dir():
            raise DatasetError(f"{self.root}: is a file, not a dataset folder")
        if not self.exists():
            # A lock file, scratch space or a dataset.json staged by a create() killed
            # before its rename are this dataset's own leftovers, not someone's files.
            ours = (".tmp", "dataset.json.new")
            if self.root.is_dir() and any(
                not (p.name.startswith(LOCK) or p.name in ours) for p in self.root.iterdir()
            ):
                raise DatasetError(
                    f"{self.root}: the folder holds other files and no dataset.json; "
                    "give --data an empty or new folder"
                )
            self.root.mkdir(parents=True, exist_ok=True)
            meta = self.root / "dataset.json"
            staged = self.root / "dataset.json.new"  # whole or absent, even on a full disk
            staged.write_text(json.dumps({"schema_version": SCHEMA_VERSION}) + "\n")
            os.replace(staged, meta)
        self.check_version()
        (self.root / ".tmp").mkdir(exist_ok=True)
        empty = []  # each table's schema file, written (and fsynced) at once
        for name, schema in TABLES.items():
            folder = self.table_dir(name)
            folder.mkdir(exist_ok=True)
            if not (folder / EMPTY).exists():
                empty.append((schema.empty_table(), str(folder / EMPTY), ""))
        write_all(LOCAL, empty)

    def schema_version(self) -> object:
        try:
            meta = json.loads((self.root / "dataset.json").read_text())
        except (OSError, ValueError) as error:
            raise DatasetError(
                f"{self.root}: dataset.json is unreadable ({error}); "
                f"`ofc-stats check --repair --data {self.root}` writes it again"
            ) from None
        if not isinstance(meta, dict):
            raise DatasetError(
                f"{self.root}: dataset.json is not an object; "
                f"`ofc-stats check --repair --data {self.root}` writes it again"
            )
        return meta.get("schema_version")

    def check_version(self) -> None:
        """Refuse a dataset of another schema version, saying what to do."""
        version = self.schema_version()
        if version == SCHEMA_VERSION:
            return
        if isinstance(version, str) and version.strip().isdigit():
            raise DatasetError(
                f'{self.root}: dataset.json names schema_version as the text "{version}", not '
                f"the number {int(version)}; `ofc-stats check --repair --data {self.root}` "
                "writes the number"
            )
        if version in MIGRATIONS:
            raise DatasetError(
                f"{self.root}: dataset schema version {version}; run `ofc-stats migrate "
                f"--data {self.root}` (this ofc-stats reads version {SCHEMA_VERSION})"
            )
        if newer_schema(version):
            raise DatasetError(  # (it said: import the files again, losing nothing but time)
                f"{self.root}: dataset schema version {version}, newer than this ofc-stats "
                f"reads ({SCHEMA_VERSION}): a newer ofc-stats wrote it; upgrade ofc-stats"
            )
        raise DatasetError(
            f"{self.root}: dataset schema version {version!r}, this ofc-stats reads version "
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
        out: set[str] = set()
        for staging in tmp.iterdir():
            if (staging / COMMIT).is_file():
                out.update(self._marker(staging).get("batches", []))
        return out

    def files(self, table: str) -> list[str]:
        """Parquet files of one table with rows in them, whole batches only.

        A batch still being published is left out until the next lock holder
        finishes it, so readers never see half of one.
        """
        folder = self.table_dir(table)
        try:
            # names, not Paths: sorting a thousand Paths cost 14 ms an import at 10M hands
            names = sorted(entry.name for entry in os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            return []
        hidden = self.publishing()
        prefix = f"{folder}{os.sep}"
        return [
            prefix + name
            for name in names
            if name.endswith(".parquet") and name != EMPTY and name[:-8] not in hidden
        ]

    def read(self, table: str, columns: list[str] | None = None) -> pa.Table:
        if table == "placements" and (columns is None or "hand_key" in columns):
            return self._keyed_placements(columns)
        schema = TABLES[table]
        paths = self.files(table)
        if not paths:
            return schema.empty_table() if columns is None else schema.empty_table().select(columns)
        parts = [_declared(pq.read_table(path, columns=columns), schema) for path in paths]
        return pa.concat_tables(parts)

    def _keyed_placements(self, columns: list[str] | None) -> pa.Table:
        """Placements with ``hand_key`` from their batch's hands, as the view shows them."""
        hands = TABLES["hands"].empty_table().select(["hand_key", "hand_id"])
        parts = [with_hand_keys(TABLES["placements"].empty_table(), hands)]
        for path in self.files("placements"):
            table = pq.read_table(path)
            if "hand_key" not in table.column_names:
                hands_path = self.batch_file("hands", Path(path).stem)
                hands = pq.read_table(hands_path, columns=["hand_key", "hand_id"])
                table = with_hand_keys(table, hands)
            parts.append(table)
        out = pa.concat_tables(parts[1:] or parts, promote_options="default")
        out = out.cast(pa.schema([field.with_nullable(True) for field in out.schema]))
        return out if columns is None else out.select(columns)

    def seats_of(self, batch: str, hand_key: str) -> list[dict[str, object]]:
        """The stored seat rows of one hand, in seat order."""
        table = pq.read_table(
            self.batch_file("seats", batch), filters=[("hand_key", "=", hand_key)]
        )
        return sorted(table.to_pylist(), key=lambda row: int(row["seat"]))

    def without_hands(self, batch: str, keys: Iterable[str]) -> dict[str, pa.Table | None]:
        """The batch's hand tables (and its results) with ``keys`` left out, for a rewrite.

        The batch's import tables keep their other rows; a table file left
        with no rows is removed (None).
        """
        drop = pa.array(sorted(set(keys)), pa.string())
        out: dict[str, pa.Table | None] = {}
        ids = None
        for name in HAND_TABLES:
            path = self.batch_file(name, batch)
            if path.is_file():
                table = pq.read_table(path)
                if name == "hands" and "hand_id" in table.column_names:
                    ids = table.filter(pc.is_in(table["hand_key"], drop))["hand_id"]
                out[name] = table.filter(pc.invert(hand_rows(table, drop, ids)))
        return out

    @contextmanager
    def locked(self, wait_seconds: float = 0.0) -> Iterator[None]:
        """Hold the dataset's lock; wait up to ``wait_seconds`` for it.

        Taking the lock upgrades a dataset of an older schema version and
        finishes what a killed holder left: committed batches are rolled
        forward, uncommitted ones removed.  A lock whose holder is gone (a
        killed process whose children kept its file open) is taken over.
        """
        if not self.exists():
            self.create()
        with self.held(wait_seconds):
            upgrade(self.root)
            self.create()
            self.recover()
            yield

    @contextmanager
    def held(self, wait_seconds: float = 0.0) -> Iterator[None]:
        """The lock alone, with no upgrade or recovery (``ofc-stats check --repair``)."""
        try:
            handle = self._acquire(wait_seconds)
        except PermissionError as error:
            raise DatasetError(
                f"{self.root}: cannot write to the dataset ({error.strerror}); "
                "reading it (sql, report, audit) needs no write access"
            ) from None
        except OSError as error:
            raise DatasetError(f"{self.root}: cannot lock the dataset ({error})") from None
        with handle:
            try:
                yield
            finally:
                handle.seek(0)
                handle.truncate()
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _acquire(self, wait_seconds: float) -> IO[str]:
        """The open, flocked lock file, its holder line naming this process."""
        path = self.root / LOCK
        deadline = time.monotonic() + wait_seconds
        told = ""
        while True:
            handle = open(path, "a+")  # noqa: SIM115 - returned to the caller, who closes it
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().strip()
                handle.close()
                if holder and not _holder_alive(holder):
                    taken = self._take_over(holder)
                    if taken is not None:
                        return taken
                    continue
                if time.monotonic() >= deadline:
                    waited = f" after {wait_seconds:g} s" if wait_seconds > 0 else ""
                    raise DatasetLocked(
                        f"{self.root} is in use by {_pid_text(holder)}{waited}; wait for it "
                        f"to finish or pass {'a longer ' if waited else ''}--wait SECONDS"
                    ) from None
                if holder != told:  # say whom we wait for, once per holder
                    told = holder
                    _say_waiting(
                        f"{self.root}: waiting up to {wait_seconds:g} s for "
                        f"{_pid_text(holder)} to finish with the dataset"
                    )
                time.sleep(0.2)
                continue
            if _same_file(handle, path):
                _write_holder(handle)
                return handle
            handle.close()  # the lock file was replaced while we waited: lock the new one

    def _take_over(self, holder: str) -> IO[str] | None:
        """Replace a lock file whose holder is dead by a fresh one that this process holds.

        The dead holder's children may still hold the old file's lock, which
        no one can take from them; a new file (renamed over the old) has a
        lock of its own.  A second lock file serialises takers, so two of them
        never both believe they hold the dataset.
        """
        with open(self.root / TAKEOVER, "a+") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            try:
                with open(self.root / LOCK) as current:
                    if current.read().strip() != holder:
                        return None  # someone else moved first: start again
                    try:
                        fcntl.flock(current, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        fcntl.flock(current, fcntl.LOCK_UN)
                        return None  # free after all: lock it the ordinary way
                    except BlockingIOError:
                        pass
                fresh = self.root / f"{LOCK}.{os.getpid()}"
                handle = open(fresh, "w+")  # noqa: SIM115 - returned to the caller
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                _write_holder(handle)
                os.replace(fresh, self.root / LOCK)
                return handle
            finally:
                fcntl.flock(guard, fcntl.LOCK_UN)

    def new_batch_id(self) -> str:
        return f"{time.time_ns():020d}-{os.getpid()}"

    def commit(
        self,
        batch: str,
        tables: dict[str, pa.Table],
        *,
        step: str = "",
        rewrites: Any = None,  # Mapping[batch, Mapping[table, pa.Table | None]] (Any: **options)
        **options: Any,
    ) -> None:
        """Write one batch of some tables, then publish every file of it: the one commit
        path, :func:`ofc_stats.store.files.commit` (see there and the module doc)."""
        commit(LOCAL, str(self.root), batch, tables, step=step, rewrites=rewrites, **options)

    def commit_batches(
        self, batches: dict[str, dict[str, pa.Table]], *, step: str, **options: Any
    ) -> None:
        """Several batches' tables in one commit: one marker, one fsync per table folder.

        Recompute publishes what it scored while its last commit was on disk
        this way; readers see all of these batches or none of them.
        """
        first, *others = batches
        self.commit(
            first,
            batches[first],
            step=step,
            rewrites={batch: batches[batch] for batch in others},
            **options,
        )

    def _marker(self, staging: Path) -> dict[str, list[str]]:
        return marker(staging)

    def _publish(self, staging: Path, batch: str) -> None:
        """Rename a committed staging folder's files into their tables (idempotent)."""
        publish(self.root, staging, batch)

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


def _declared(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """One file's columns, nullable wherever ``schema`` says a column may hold a null.

    Recompute stores a column that holds no null in a batch as non-nullable
    (``recompute.required_where_full``), so files of one table differ in
    that alone; read together they take the table's own nullability (no copy).
    """
    fields = [
        field.with_nullable(True)
        if field.name in schema.names and schema.field(field.name).nullable
        else field
        for field in table.schema
    ]
    if all(a.nullable == b.nullable for a, b in zip(fields, table.schema, strict=True)):
        return table
    return pa.Table.from_arrays(table.columns, schema=pa.schema(fields, table.schema.metadata))
