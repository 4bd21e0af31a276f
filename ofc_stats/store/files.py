"""Durable writes: a file or folder is fsynced before anything points at it.

Also the dataset's one commit path (:func:`commit`: stage a batch's files,
write the ``COMMIT`` marker, then :func:`publish` renames them into their
tables), which the dataset's commits, its recovery, the schema migrations'
roll-forward and Spark's writer to a URI all use, on a local folder
(:class:`LocalStorage`, fsynced) or any pyarrow filesystem
(:class:`ArrowStorage`: S3, HDFS, GCS); and the
one home of how each stored table is laid out in Parquet
(:data:`STORED_OPTIONS`): the local importer, recompute, the migrations and
Spark's workers all write a table with its own entry, so a file never
depends on which of them wrote it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.fs as pafs
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
#   under LZ4; hand_id ascends, a few dozen rows each.  2026-12-02 (CPU, min of 7): 19.5 ->
#   14.2 ms, 1.20 -> 1.25 MB: street delta-coded (runs of one street) rather than a
#   dictionary, the card's dictionary indices stored plain (zstd saved nothing on 52
#   random values), destination under LZ4.
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
            "card": "none",
            "destination": "lz4",
        },
        "use_dictionary": ["card", "destination"],
        "write_statistics": ["hand_id"],
        "column_encoding": {"street": _DELTA},
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
    """Write table ``name``'s file (its :func:`options_for`, then ``options``), durably and
    whole: written beside it under another name, then moved into place, so a kill leaves the
    old file or the new one, never part of one (a table's schema file, written in place, was
    cut at 4 bytes by a `kill -9` and the dataset then needed `check --repair`)."""
    staged = path.with_name(path.name + ".new")
    pq.write_table(table, staged, **{**options_for(name), **options})
    with open(staged, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staged, path)


COMMIT = "COMMIT"  # the marker whose presence makes a staging folder committed
WRITERS = 2  # table files of one commit written at once


def write_all(storage: Storage, files: Iterable[tuple[pa.Table, str, str]], **options: Any) -> None:
    """Write each ``(table, path, table name)``, :data:`WRITERS` at a time.

    pyarrow encodes, compresses and writes with the GIL released, so a
    batch's hands, seats and placements (and their fsyncs) go on two cores at
    once: the last batch of an import, written while nothing else is left to
    do, took one.  Every write is finished before this returns; the first
    error is raised.
    """
    jobs = list(files)
    if len(jobs) < 2:
        for table, path, name in jobs:
            storage.write_table(table, path, name, **options)
        return
    with ThreadPoolExecutor(min(WRITERS, len(jobs)), thread_name_prefix="write table") as pool:
        done = [pool.submit(storage.write_table, t, path, n, **options) for t, path, n in jobs]
    for future in done:
        future.result()


class Storage(Protocol):
    """The few file operations a commit needs; paths are ``/``-joined text."""

    def write_table(self, table: pa.Table, path: str, name: str, **options: Any) -> None: ...
    def write_text(self, path: str, text: str) -> None: ...
    def read_text(self, path: str) -> str | None: ...
    def names(self, folder: str) -> list[str]: ...
    def make_dir(self, path: str) -> None: ...
    def move(self, source: str, target: str) -> None: ...
    def remove(self, path: str) -> None: ...
    def remove_tree(self, path: str) -> None: ...
    def sync(self, folder: str) -> None: ...


class LocalStorage:
    """A local folder: every file and folder fsynced before anything points at it."""

    def write_table(self, table: pa.Table, path: str, name: str, **options: Any) -> None:
        write_parquet(table, Path(path), name, **options)

    def write_text(self, path: str, text: str) -> None:
        Path(path).write_text(text)

    def read_text(self, path: str) -> str | None:
        try:
            return Path(path).read_text()
        except (OSError, UnicodeDecodeError):
            return None

    def names(self, folder: str) -> list[str]:
        return [p.name for p in Path(folder).iterdir()] if Path(folder).is_dir() else []

    def make_dir(self, path: str) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def move(self, source: str, target: str) -> None:
        os.replace(source, target)

    def remove(self, path: str) -> None:
        Path(path).unlink(missing_ok=True)

    def remove_tree(self, path: str) -> None:
        shutil.rmtree(path, ignore_errors=True)

    def sync(self, folder: str) -> None:
        fsync_dir(Path(folder))


class ArrowStorage:
    """A pyarrow filesystem (a dataset at an ``s3://``, ``hdfs://`` or ``file://`` URI).

    No fsync: an object store's write is durable when it returns.
    """

    def __init__(self, filesystem: pafs.FileSystem) -> None:
        self.filesystem = filesystem

    def write_table(self, table: pa.Table, path: str, name: str, **options: Any) -> None:
        pq.write_table(table, path, filesystem=self.filesystem, **{**options_for(name), **options})

    def write_text(self, path: str, text: str) -> None:
        with self.filesystem.open_output_stream(path) as handle:
            handle.write(text.encode())

    def read_text(self, path: str) -> str | None:
        try:
            with self.filesystem.open_input_stream(path) as handle:
                return bytes(handle.read()).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def names(self, folder: str) -> list[str]:
        selector = pafs.FileSelector(folder, allow_not_found=True)
        return [info.base_name for info in self.filesystem.get_file_info(selector)]

    def make_dir(self, path: str) -> None:
        self.filesystem.create_dir(path, recursive=True)

    def move(self, source: str, target: str) -> None:
        self.filesystem.move(source, target)

    def remove(self, path: str) -> None:
        if self.filesystem.get_file_info(path).type == pafs.FileType.File:
            self.filesystem.delete_file(path)

    def remove_tree(self, path: str) -> None:
        if self.filesystem.get_file_info(path).type == pafs.FileType.Directory:
            self.filesystem.delete_dir(path)

    def sync(self, folder: str) -> None:
        pass


LOCAL = LocalStorage()


def commit(
    storage: Storage,
    root: str,
    batch: str,
    tables: Mapping[str, pa.Table],
    *,
    step: str = "",
    rewrites: Mapping[str, Mapping[str, pa.Table | None]] | None = None,
    **options: Any,
) -> None:
    """Write one batch of some tables under ``.tmp/``, mark it committed, publish it.

    ``step`` names a later writer of the same batch (``results``), so its
    staging folder never collides with the import's.  ``rewrites`` gives
    other batches' files new contents (None: remove the file) in the same
    commit, so a hand replaced or forgotten is never both there and gone.
    A writer killed before the marker leaves nothing; after it, the next
    lock holder finishes the publish.
    """
    staging = f"{root}/.tmp/{step}+{batch}" if step else f"{root}/.tmp/{batch}"
    storage.remove_tree(staging)
    storage.make_dir(staging)
    removed: list[str] = []
    try:
        files = [(table, f"{staging}/{name}.parquet", name) for name, table in tables.items()]
        for other, parts in (rewrites or {}).items():
            for name, part in parts.items():
                if part is None:
                    removed.append(f"{name}/{other}.parquet")
                else:
                    files.append((part, f"{staging}/{name}@{other}.parquet", name))
        write_all(storage, files, **options)
        written = {
            "tables": sorted(tables),
            "batches": sorted({batch, *(rewrites or {})}),
            "remove": removed,
        }
        storage.write_text(f"{staging}/{COMMIT}", json.dumps(written) + "\n")
        storage.sync(staging)
    except BaseException:
        storage.remove_tree(staging)
        raise
    publish_on(storage, root, staging, batch)


def marker_on(storage: Storage, staging: str) -> dict[str, list[str]]:
    """A committed staging folder's marker: the batches it writes, the files it removes.

    A version-3 marker (a list of tables) and an unreadable one name the
    staging folder's own batch and remove nothing.
    """
    try:
        found = json.loads(storage.read_text(f"{staging}/{COMMIT}") or "null")
    except ValueError:
        found = None
    if not isinstance(found, dict):
        return {"batches": [staging.rsplit("/", 1)[-1].split("+", 1)[-1]], "remove": []}
    return found


def publish_on(storage: Storage, root: str, staging: str, batch: str) -> None:
    """Rename a committed staging folder's files into their tables (idempotent).

    ``<table>.parquet`` becomes ``<table>/<batch>.parquet``; a rewrite of
    another batch, ``<table>@<other>.parquet``, becomes
    ``<table>/<other>.parquet``; the marker's removals go first.
    """
    for name in marker_on(storage, staging).get("remove", []):
        storage.remove(f"{root}/{name}")
    folders: set[str] = set()
    for file in sorted(n for n in storage.names(staging) if n.endswith(".parquet")):
        table, _, other = file.removesuffix(".parquet").partition("@")
        folder = f"{root}/{table}"
        storage.make_dir(folder)
        storage.move(f"{staging}/{file}", f"{folder}/{other or batch}.parquet")
        folders.add(folder)
    for folder in sorted(folders):  # every rename durable before the marker goes
        storage.sync(folder)
    storage.remove_tree(staging)


def marker(staging: Path) -> dict[str, list[str]]:
    """:func:`marker_on` a local staging folder."""
    return marker_on(LOCAL, str(staging))


def publish(root: Path, staging: Path, batch: str) -> None:
    """:func:`publish_on` a local dataset."""
    publish_on(LOCAL, str(root), str(staging), batch)
