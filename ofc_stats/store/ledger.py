"""The import ledger (the ``files`` table) as the importer asks it: is this file imported?

A file is known by its resolved path *and* the hash of the bytes its parser
read: two files of one name in two folders are two files, and a file
rewritten between hashing and parsing is recorded under the content whose
hands were stored, so the other content is read when it comes.

Records cut off at the end of a file are left for the next import, which
reads the file whole once it has grown.  The rule for a file that stops
growing: **when an import finds a file unchanged (same path, same hash) whose
ledger row left cut records, it reads the file again and quarantines those
records** as ``cut off at the end of a file that stopped growing``; that
ledger row is replaced in the same commit by one that counts them
quarantined.  ``--force`` follows the same rule.

Ledger rows written before paths were resolved (a relative path) still
match by hash alone, so an old dataset does not read every file again.
"""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.store.dataset import Dataset

CUT_FINAL = "cut off at the end of a file that stopped growing"
_COUNTS = ("hands_seen", "stored", "duplicates", "quarantined")


def _count(value: object) -> int:
    return int(value) if isinstance(value, int) else 0


def _absolute(path: str) -> bool:
    return os.path.isabs(path.split("!", 1)[0])


class Ledger:
    """The files an import has recorded, by (resolved path, content hash)."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        rows = dataset.read("files").to_pylist()
        self.paths = [row["path"] for row in rows if row["path"]]
        self.known: set[tuple[str, str]] = set()
        self.loose: set[str] = set()  # hashes of rows from before paths were resolved
        self.cut: dict[tuple[str, str], dict[str, object]] = {}  # rows that left cut records
        for row in rows:
            key = (row["path"] or "", row["sha256"] or "")
            self.known.add(key)
            if not _absolute(key[0]):
                self.loose.add(key[1])
            counts = [int(row[name] or 0) for name in _COUNTS]
            if counts[0] > sum(counts[1:]):
                self.cut[key] = row
            else:
                self.cut.pop(key, None)  # a later row of the same content settled them
        self.drop: dict[str, set[tuple[str, str]]] = {}  # batch -> rows replaced this run

    def imported(self, path: str, digest: str) -> bool:
        return (path, digest) in self.known or digest in self.loose

    def left_cut(self, path: str, digest: str) -> bool:
        """Whether the file, unchanged, left records cut off at its end for this import."""
        return (path, digest) in self.cut

    def add(self, path: str, digest: str) -> None:
        """A row of this run (its cut records wait for a later import, never this one)."""
        self.known.add((path, digest))
        self.cut.pop((path, digest), None)

    def finish_cut(
        self, path: str, digest: str, row: dict[str, object], quarantined_now: int
    ) -> dict[str, object]:
        """The new row for a file whose cut records are quarantined now, replacing the old."""
        key = (path, digest)
        old = self.cut.pop(key)
        self.known.add(key)
        self.drop.setdefault(str(old["batch"]), set()).add(key)
        seen, stored, duplicates, quarantined = (_count(old[name]) for name in _COUNTS)
        left = seen - stored - duplicates - quarantined
        return {
            **row,
            "hands_seen": seen,
            "stored": stored,
            "duplicates": duplicates,
            "quarantined": quarantined + min(left, quarantined_now),
        }

    def rewrites(self) -> dict[str, dict[str, pa.Table | None]]:
        """The ledger files without the rows replaced since the last commit, by batch."""
        out: dict[str, dict[str, pa.Table | None]] = {}
        for batch, keys in self.drop.items():
            path = self.dataset.batch_file("files", batch)
            if not path.is_file():
                continue
            table = pq.read_table(path)
            pairs = zip(table["path"].to_pylist(), table["sha256"].to_pylist(), strict=True)
            keep = pa.array([pair not in keys for pair in pairs], pa.bool_())
            out[batch] = {"files": table.filter(keep)}
        self.drop = {}
        return out
