"""What is already stored: the importer's duplicate test, in bounded memory.

Two sources answer "is this hand known?": the dataset's on-disk key index
(every committed batch, this run's included) and the keys this run stored
that are not committed yet.  Both are asked a chunk of keys at a time in
NumPy; only the rows a hash flags are looked at one by one, and each flag
is confirmed exactly against the stored keys, so the answer is the old
dict's answer without the dict.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.records import Quarantined
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.key_index import KeyIndex, hand_keys_of, key_hashes, quarantine_keys_of
from ofc_stats.store.rows import storable

# The quarantine index's folder under .index: "-2" since the key holds the refused text
# (an index of the old key is never read as this one's).
QUARANTINE_INDEX = "quarantine-2"
QUARANTINE_CACHE = 64 << 20  # bytes of quarantine index kept loaded (8 per refused hand)
MERGE_AFTER = 32  # batches the hands index's merged run may leave uncovered before a rebuild


@dataclass
class Known:
    """A stored hand: its fingerprint, whether its boards are whole, its batch (None: pending)."""

    fingerprint: str
    complete: bool
    batch: str | None


@dataclass
class _Part:
    """Keys this run stored, as columns: the pending rows the index does not hold yet."""

    hashes: np.ndarray
    keys: pa.Array
    fingerprints: pa.Array
    complete: pa.Array
    batch: str | None = None


def _array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One array of ``values`` (one chunk is taken as it is: combining copies it)."""
    if isinstance(values, pa.ChunkedArray):
        return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    return values


class KnownHands:
    """The stored hands' keys, asked a chunk at a time."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.index = KeyIndex(
            dataset.root,
            "hands",
            self._files,
            ["hand_key"],
            hand_keys_of,
            merge_after=MERGE_AFTER,
        )
        self.writing: str | None = None  # the batch being written: its keys searched in memory
        self.parts: list[_Part] = []
        self._loose: tuple[list[int], list[str], list[str], list[bool]] = ([], [], [], [])
        self._sorted: tuple[int, np.ndarray] | None = None  # (parts' count, their hashes sorted)

    def search(self, keys: pa.Array, hashes: np.ndarray) -> tuple[np.ndarray, dict[str, Known]]:
        """Rows to decide one by one (a mask), and what is stored under their keys.

        A row is flagged when its key is stored or pending, or when its hash
        repeats within ``keys`` (so the caller sees the first copy before the
        second).  Pending copies override stored ones: they are newer.
        """
        self._seal()
        if any(part.batch not in (None, self.writing) for part in self.parts):
            self.parts = [part for part in self.parts if part.batch in (None, self.writing)]
            self._sorted = None
        flagged = np.zeros(len(hashes), bool)
        known: dict[str, Known] = {}
        for batch, mask in self.index.candidates(hashes):
            path = self.dataset.batch_file("hands", batch)
            stored = pq.read_table(path, columns=["hand_key", "fingerprint", "complete"])
            self._confirm(keys, mask, stored, batch, flagged, known)
        # One search of every pending part; each part is then asked only for the rows hit.
        rows = np.flatnonzero(_among(hashes, self._pending())) if self.parts else None
        for part in self.parts if rows is not None and len(rows) else ():
            mask = np.zeros(len(hashes), bool)
            mask[rows] = np.isin(hashes[rows], part.hashes)
            if mask.any():
                table = pa.table(
                    {
                        "hand_key": part.keys,
                        "fingerprint": part.fingerprints,
                        "complete": part.complete,
                    }
                )
                self._confirm(keys, mask, table, part.batch, flagged, known)
        if len(hashes) > 1:  # a hash twice in the chunk (a sort: np.unique's counts took 13x)
            ordered = np.sort(hashes)
            repeated = ordered[1:][ordered[1:] == ordered[:-1]]
            if len(repeated):
                flagged |= np.isin(hashes, repeated)
        return flagged, known

    def _pending(self) -> np.ndarray:
        """Every pending part's hashes, sorted; sorted again only when a part has come
        (parts only come, until a commit drops them all), not once per chunk searched."""
        if self._sorted is None or self._sorted[0] != len(self.parts):
            every = np.concatenate([part.hashes for part in self.parts])
            self._sorted = (len(self.parts), np.sort(every))
        return self._sorted[1]

    @staticmethod
    def _confirm(
        keys: pa.Array,
        mask: np.ndarray,
        stored: pa.Table,
        batch: str | None,
        flagged: np.ndarray,
        known: dict[str, Known],
    ) -> None:
        """Keep the hash hits whose key is really in ``stored``."""
        rows = np.flatnonzero(mask)
        at = pc.index_in(keys.take(pa.array(rows)), value_set=stored["hand_key"])
        hit = np.asarray(at.is_valid())
        if not hit.any():
            return
        flagged[rows[hit]] = True
        found = stored.take(at.filter(pa.array(hit)))
        for key, fingerprint, complete in zip(
            found["hand_key"].to_pylist(),
            found["fingerprint"].to_pylist(),
            found["complete"].to_pylist(),
            strict=True,
        ):
            known[key] = Known(fingerprint, bool(complete), batch)

    def add(
        self, hashes: np.ndarray, keys: pa.Array, fingerprints: pa.Array, complete: pa.Array
    ) -> None:
        """Rows stored by this run, not committed yet."""
        if len(hashes):
            self.parts.append(_Part(hashes, _array(keys), _array(fingerprints), _array(complete)))

    def add_one(self, hashed: int, key: str, fingerprint: str, complete: bool) -> None:
        """One record-path hand stored by this run (sealed into a part before the next search)."""
        for values, value in zip(self._loose, (hashed, key, fingerprint, complete), strict=True):
            values.append(value)  # type: ignore[attr-defined]

    def _seal(self) -> None:
        hashes, keys, fingerprints, complete = self._loose
        if keys:
            self.add(
                np.array(hashes, np.uint64),
                pa.array(keys, pa.string()),
                pa.array(fingerprints, pa.string()),
                pa.array(complete, pa.bool_()),
            )
            self._loose = ([], [], [], [])

    def _files(self) -> list[str]:
        """The committed hands files the index answers for (not the one being written)."""
        files = self.dataset.files("hands")
        if self.writing is None:
            return files
        return [name for name in files if Path(name).stem != self.writing]

    def writing_batch(self, batch: str) -> None:
        """The pending rows are being written as ``batch``: still searched in memory (as that
        batch's) until :meth:`settled`, as the index does not hold them yet."""
        self._seal()
        for part in self.parts:
            if part.batch is None:
                part.batch = batch
        self.writing = batch

    def index_batch(self, batch: str, hands: pa.Table) -> None:
        """Index a written batch from the rows in hand (safe off the importing thread: the
        batch is left out of searches until :meth:`settled`)."""
        path = self.dataset.batch_file("hands", batch)
        if path.is_file():
            self.index.build(path, hands.select(["hand_key"]))

    def settled(self) -> None:
        """The batch being written is committed and indexed: the index answers for it now."""
        self.writing = None


def _among(values: np.ndarray, sorted_values: np.ndarray) -> np.ndarray:
    """Which of ``values`` are in ``sorted_values`` (np.isin that does not sort them again).

    >>> _among(np.array([5, 1, 9], np.uint64), np.array([1, 2, 9], np.uint64)).tolist()
    [False, True, True]
    """
    if not len(sorted_values):
        return np.zeros(len(values), bool)
    at = np.minimum(np.searchsorted(sorted_values, values), len(sorted_values) - 1)
    return np.asarray(sorted_values[at] == values)


def refusal_keys(table: pa.Table) -> pa.Array:
    """One string per quarantine entry: file, line, offset, reason and what was refused.

    The refused text's digest is part of the key, so an export rewritten in
    place that refuses another record at the same place keeps both rows.
    """
    digests = [
        hashlib.blake2b((text or "").encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        for text in table["raw_text"].to_pylist()
    ]
    base = _array(quarantine_keys_of(table))
    return _array(pc.binary_join_element_wise(base, pa.array(digests, pa.string()), "\x1f"))


def _probe(entries: Sequence[Quarantined]) -> pa.Array:
    """The entries' keys, made as the stored rows' are (so both hash alike)."""
    table = pa.table(
        {
            "source_file": pa.array([storable(q.source_file) for q in entries], pa.string()),
            "line": pa.array([q.line for q in entries], pa.int64()),
            "offset": pa.array([q.offset for q in entries], pa.int64()),
            "reason": pa.array([storable(q.reason) for q in entries], pa.string()),
            "raw_text": pa.array([storable(q.raw_text) for q in entries], pa.string()),
        }
    )
    return refusal_keys(table)


class KnownQuarantine:
    """Quarantine entries stored already, or pending from an earlier file of this run.

    Entries are told apart by file, line, offset, reason and refused text; a file's own
    entries never hide each other, so a file's entries are checked when the
    file is done.
    """

    COLUMNS: ClassVar[list[str]] = ["source_file", "line", "offset", "reason", "raw_text"]

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.index = KeyIndex(
            dataset.root,
            QUARANTINE_INDEX,
            self._files,
            self.COLUMNS,
            refusal_keys,
            cache_bytes=QUARANTINE_CACHE,
        )
        self.pending: set[str] = set()
        self.writing: str | None = None  # the batch being written
        self.written: set[str] = set()  # its entries' keys, not in the index yet

    def new(self, entries: Sequence[Quarantined]) -> list[Quarantined]:
        """The entries not stored yet (in order); they count as pending from now on."""
        if not entries:
            return []
        keys = _probe(entries)
        hashes = key_hashes(keys)
        seen = np.zeros(len(entries), bool)
        for batch, mask in self.index.candidates(hashes):
            stored = pq.read_table(
                self.dataset.batch_file("quarantine", batch), columns=self.COLUMNS
            )
            hit = pc.is_in(keys, value_set=refusal_keys(stored))
            seen |= mask & np.asarray(hit.fill_null(False))
        out = []
        for entry, key, old in zip(entries, keys.to_pylist(), seen, strict=True):
            if not old and key not in self.pending and key not in self.written:
                out.append(entry)
        self.pending.update(keys.to_pylist())
        return out

    def _files(self) -> list[str]:
        files = self.dataset.files("quarantine")
        if self.writing is None:
            return files
        return [name for name in files if Path(name).stem != self.writing]

    def writing_batch(self, batch: str) -> None:
        """The pending entries are being written as ``batch`` (still known in memory)."""
        self.writing, self.written, self.pending = batch, self.pending, set()

    def index_batch(self, batch: str, table: pa.Table) -> None:
        """Index a written batch (safe off the importing thread, as for the hands)."""
        path = self.dataset.batch_file("quarantine", batch)
        if path.is_file():
            self.index.build(Path(path), table.select(self.COLUMNS))

    def settled(self) -> None:
        self.writing, self.written = None, set()
