"""`ofc-stats forget`: take back what importing one file, or one import batch, stored.

Forgetting rewrites the batches that hold the file's rows (hands, their
seats, placements, results and grades, its quarantine entries and ledger row)
in one commit, so the dataset afterwards is the one that never imported it
and a later import reads the file anew.  A hand the file shared with another
file is stored once, under the file that came first: forgetting that file
takes the hand too.  So that a plain ``import`` of the other file brings it
back, every file imported since that counted duplicates (which may be the
forgotten hands: the ledger does not say whose) is no longer recorded as
imported either: its next import reads it again, stores what is missing and
counts the rest as duplicates.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.errors import UnknownSource
from ofc_stats.store.counts import counted
from ofc_stats.store.dataset import HAND_TABLES, Dataset, hand_rows
from ofc_stats.store.schema import GRADER_TABLES, LEDGER_TABLES, TABLES

# Every table whose rows belong to a stored hand: its grades go with it.
# (the room ledger's rows too: a batch's ledger file goes with its hands, so a forget
# leaves the other batches' stored ledger current)
_HAND_AND_GRADE_TABLES = (*HAND_TABLES, *GRADER_TABLES, *LEDGER_TABLES)
_BATCH_TABLES = (*TABLES, *GRADER_TABLES, *LEDGER_TABLES)  # every table a batch can have a file in

SHOWN = 3  # files named in the note on files read again

# The column naming a row's source file, per table that has one.
SOURCE_COLUMN = {"hands": "source_file", "quarantine": "source_file", "files": "path"}


@dataclass
class ForgetSummary:
    target: str
    sources: list[str] = field(default_factory=list)
    hands: int = 0
    quarantined: int = 0
    ledger: int = 0
    batches: int = 0
    # files imported since that counted duplicates, no longer recorded as imported
    reread: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        lines = [
            f"forgot {self.target}: {counted(self.hands, 'hand')}, "
            f"{counted(self.quarantined, 'quarantine entry', 'quarantine entries')}, "
            f"{counted(self.ledger, 'import record')}, "
            f"from {counted(self.batches, 'batch', 'batches')}",
            "import the file again to read it anew",
        ]
        if self.reread:
            shown = ", ".join(self.reread[:SHOWN])
            more = f" and {len(self.reread) - SHOWN:,} more" if len(self.reread) > SHOWN else ""
            lines.append(
                f"{counted(len(self.reread), 'file')} imported since counted duplicates, which "
                "may be these hands: the next import of them reads them again and stores "
                f"what is missing ({shown}{more})"
            )
        return lines


def forget(root: str | Path, target: str, *, wait_seconds: float = 0.0) -> ForgetSummary:
    """Remove what importing ``target`` stored: a file path as imported, or a batch id."""
    dataset = Dataset(root)
    dataset.require()
    with dataset.locked(wait_seconds):
        batches = _batch_ids(dataset)
        if target in batches:
            return _forget_batch(dataset, target)
        sources = _matching_sources(dataset, target)
        if not sources:
            raise UnknownSource(
                f"{target}: no file of that name and no batch of that id in {root}; "
                f"`ofc-stats sql --data {shlex.quote(str(root))} "
                '"SELECT path, batch FROM files"` lists them'
            )
        return _forget_sources(dataset, target, sources)


def _batch_ids(dataset: Dataset) -> set[str]:
    ids: set[str] = set()
    for table in _BATCH_TABLES:
        ids.update(Path(path).stem for path in dataset.files(table))
    return ids


def _matching_sources(dataset: Dataset, target: str) -> set[str]:
    """Recorded source names that mean ``target``: as given, resolved, or a zip's members."""
    names: set[str] = set()
    for table, column in SOURCE_COLUMN.items():
        names.update(v for v in dataset.read(table, [column])[column].to_pylist() if v)
    wanted = os.path.realpath(target)

    def means(name: str) -> bool:
        if name == target or name.startswith(f"{target}!"):
            return True
        archive = name.split("!", 1)[0]
        return os.path.realpath(archive) == wanted

    return {name for name in names if means(name)}


def _forget_sources(dataset: Dataset, target: str, sources: set[str]) -> ForgetSummary:
    summary = ForgetSummary(target, sorted(sources))
    names = pa.array(sorted(sources), pa.string())
    rewrites: dict[str, dict[str, pa.Table | None]] = {}
    for batch in sorted(_batch_ids(dataset)):
        parts = _without_sources(dataset, batch, names, summary, ("quarantine", "files"))
        if parts:
            rewrites[batch] = _drop_if_empty(dataset, batch, parts)
    summary.batches = len(rewrites)
    if summary.hands:
        summary.reread = _read_again(dataset, sources, rewrites)
    dataset.commit(dataset.new_batch_id(), {}, rewrites=rewrites)
    return summary


def _without_sources(
    dataset: Dataset,
    batch: str,
    names: pa.Array,
    summary: ForgetSummary,
    by_source: tuple[str, ...],
) -> dict[str, pa.Table | None]:
    """One batch's tables without the rows of the files ``names`` (hands with every row that
    belongs to them, and the ``by_source`` tables' own rows), counted into ``summary``."""
    parts: dict[str, pa.Table | None] = {}
    hands_path = dataset.batch_file("hands", batch)
    if hands_path.is_file():
        hands = pq.read_table(hands_path)
        mine = hands.filter(pc.is_in(hands["source_file"], names))
        keys = mine["hand_key"].combine_chunks()
        ids = mine["hand_id"] if "hand_id" in mine.column_names else None
        if len(keys):
            summary.hands += len(keys)
            for table in _HAND_AND_GRADE_TABLES:
                path = dataset.batch_file(table, batch)
                if path.is_file():
                    rows = pq.read_table(path)
                    parts[table] = rows.filter(pc.invert(hand_rows(rows, keys, ids)))
    for table in by_source:
        path = dataset.batch_file(table, batch)
        if not path.is_file():
            continue
        rows = pq.read_table(path)
        mask = pc.is_in(rows[SOURCE_COLUMN[table]], names)
        removed = pc.sum(mask).as_py() or 0
        if removed:
            parts[table] = rows.filter(pc.invert(mask))
            if table == "quarantine":
                summary.quarantined += removed
            else:
                summary.ledger += removed
    return parts


def _forget_batch(dataset: Dataset, batch: str) -> ForgetSummary:
    """Every row of one batch; the ledger rows of its files, so they import again.

    A file's ledger row is written in the batch that ends its import, which may hold none
    of its hands (a file of exactly 60,000 hands fills three batches; its row comes in a
    fourth): forgetting the batch its row names takes back that whole import of the file,
    the file's hands and refusals in the batches after its previous ledger row.
    """
    summary = ForgetSummary(batch)
    rewrites: dict[str, dict[str, pa.Table | None]] = {batch: {}}
    sources: set[str] = set()
    ledger_paths: list[str] = []
    for table in _BATCH_TABLES:
        path = dataset.batch_file(table, batch)
        if not path.is_file():
            continue
        rows = pq.read_table(path)
        if table == "hands":
            summary.hands = rows.num_rows
        elif table == "quarantine":
            summary.quarantined = rows.num_rows
        elif table == "files":
            summary.ledger += rows.num_rows
            ledger_paths = [v for v in rows["path"].to_pylist() if v]
        if table in ("hands", "quarantine"):
            sources.update(v for v in rows[SOURCE_COLUMN[table]].to_pylist() if v)
        rewrites[batch][table] = None
    summary.batches = 1
    for other, paths in _this_import_before(dataset, batch, ledger_paths).items():
        names = pa.array(sorted(paths), pa.string())
        parts = _without_sources(dataset, other, names, summary, ("quarantine",))
        if parts:
            rewrites[other] = _drop_if_empty(dataset, other, parts)
            summary.batches += 1
    sources.update(ledger_paths)
    names = pa.array(sorted(sources), pa.string())
    # the ledger rows of imports that go on after this batch; an earlier row is an
    # earlier import's, whose hands stay
    for other in sorted(b for b in _batch_ids(dataset) if b > batch):
        path = dataset.batch_file("files", other)
        if not path.is_file():
            continue
        rows = pq.read_table(path)
        mask = pc.is_in(rows["path"], names)
        removed = pc.sum(mask).as_py() or 0
        if removed:
            summary.ledger += removed
            planned = rewrites.setdefault(other, {})
            planned["files"] = rows.filter(pc.invert(mask))
    summary.sources = sorted(sources)
    if summary.hands:
        summary.reread = _read_again(dataset, sources, rewrites)
    dataset.commit(dataset.new_batch_id(), {}, rewrites=rewrites)
    return summary


def _this_import_before(dataset: Dataset, batch: str, paths: list[str]) -> dict[str, set[str]]:
    """Per earlier batch, which of ``paths`` (files whose ledger row is in ``batch``) it holds
    rows of from the same import: the batches after the file's previous ledger row (batch
    ids sort in commit order)."""
    if not paths:
        return {}
    files = dataset.read("files", ["path", "batch"])
    previous: dict[str, str] = {}
    for path, other in zip(files["path"].to_pylist(), files["batch"].to_pylist(), strict=True):
        if path in paths and other is not None and other < batch:
            previous[path] = max(previous.get(path, ""), other)
    held: dict[str, set[str]] = {}
    for other in sorted(_batch_ids(dataset)):
        if other >= batch:
            break
        for path in paths:
            if other > previous.get(path, ""):
                held.setdefault(other, set()).add(path)
    return held


def _read_again(
    dataset: Dataset,
    sources: set[str],
    rewrites: dict[str, dict[str, pa.Table | None]],
) -> list[str]:
    """Drop from ``rewrites``' ledger the rows of every other file that counted duplicates
    since the forgotten hands were stored (the first ledger row of their files; every such
    file when they have none), so that their next import reads them again; their paths, sorted.

    A duplicate is a hand already stored when the file was read, so only a file imported
    since can have counted one of the forgotten hands; which ones it counted, the ledger
    does not keep, so every such file is read again (what it still shares is a duplicate).
    """
    forgotten = pa.array(sorted(sources), pa.string())
    ledger: dict[str, pa.Table] = {}  # each batch's ledger rows as the forget leaves them
    for batch in sorted(_batch_ids(dataset)):
        planned = rewrites.get(batch, {})
        path = dataset.batch_file("files", batch)
        if "files" in planned:
            rows = planned["files"]
        else:
            rows = pq.read_table(path) if path.is_file() else None
        if rows is not None and rows.num_rows:
            ledger[batch] = rows
    files = dataset.read("files", ["path", "imported_at"])
    mine = files.filter(pc.is_in(files["path"], forgotten))
    since = pc.min(mine["imported_at"]).as_py() if mine.num_rows else None
    paths: set[str] = set()
    for rows in ledger.values():
        counted = pc.and_(
            pc.greater(rows["duplicates"], 0), pc.invert(pc.is_in(rows["path"], forgotten))
        )
        if since is not None:
            counted = pc.and_(counted, pc.greater_equal(rows["imported_at"], pa.scalar(since)))
        paths.update(rows.filter(pc.fill_null(counted, False))["path"].to_pylist())
    names = pa.array(sorted(paths), pa.string())
    for batch, rows in ledger.items():
        mask = pc.is_in(rows["path"], names)
        if paths and pc.sum(mask).as_py():
            rewrites.setdefault(batch, {})["files"] = rows.filter(pc.invert(mask))
    return sorted(paths)


def _drop_if_empty(
    dataset: Dataset, batch: str, parts: dict[str, pa.Table | None]
) -> dict[str, pa.Table | None]:
    """A batch left with no rows in any table is removed whole, not kept as empty files."""
    for table in _BATCH_TABLES:
        if table in parts:
            continue
        path = dataset.batch_file(table, batch)
        if path.is_file() and pq.read_metadata(path).num_rows:
            return parts
    if any(part is not None and part.num_rows for part in parts.values()):
        return parts
    return {table: None for table in _BATCH_TABLES if dataset.batch_file(table, batch).is_file()}
