"""An on-disk key index: per batch file, the sorted 64-bit hashes of its keys.

The importer asks "is this hand (or quarantine entry) stored?" for every
row it reads.  Holding every stored key in a dict made import memory grow
with the dataset (about 150 bytes a hand); the index answers from small
files instead: ``<data>/.index/<table>/<batch>.u64`` holds a stamp of the
batch file it was built from and that file's key hashes, sorted.  A search
touches one index file at a time, so memory stays bounded by a batch.

A hash is only a hint: every hit is confirmed against the batch's stored
keys (see ``ofc_stats.store.known``), so a collision never drops a row.
The index is a cache: a missing or stale file (its batch rewritten by a
replace, forget or migrate) is rebuilt from the batch file on first use,
and deleting ``.index`` is always safe.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
VERSION = 1  # first word of every index file; bump when the hash changes
HEADER = 5  # words: version, inode, size, mtime_ns, key count
INDEX = ".index"


def key_hashes(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """FNV-1a 64 of each UTF-8 string, in NumPy: one pass per character position.

    Strings are ordered longest first, so pass ``j`` works on the prefix of
    strings longer than ``j`` and the whole costs about the total bytes.
    Nulls hash as the empty string (keys are never null).
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else pa.array([], pa.string())
    if not pa.types.is_large_string(values.type):
        values = values.cast(pa.large_string())
    count = len(values)
    if count == 0:
        return np.empty(0, np.uint64)
    offsets = np.frombuffer(values.buffers()[1], np.int64)[
        values.offset : values.offset + count + 1
    ]
    data_buffer = values.buffers()[2]
    data = (
        np.frombuffer(data_buffer, np.uint8) if data_buffer is not None else np.empty(0, np.uint8)
    )
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    if values.null_count:
        lengths = np.where(np.asarray(values.is_valid()), lengths, 0)
    order = np.argsort(-lengths, kind="stable")
    starts, lengths = starts[order], lengths[order]
    longest = int(lengths[0])
    # How many strings are longer than j, for every position j.
    active = np.searchsorted(-lengths, -np.arange(longest), side="left")
    hashes = np.full(count, FNV_OFFSET, np.uint64)
    for position in range(longest):
        live = int(active[position])
        part = hashes[:live]
        np.bitwise_xor(part, data[starts[:live] + position], out=part)
        np.multiply(part, FNV_PRIME, out=part)
    out = np.empty(count, np.uint64)
    out[order] = hashes
    return out


def _stamp(path: Path) -> tuple[int, int, int]:
    stat = os.stat(path)
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


class KeyIndex:
    """The key hashes of one table's batch files, read one file at a time.

    ``keys_of`` turns the table's ``columns`` into one string per row (the
    key); the same function makes the query keys, so both sides hash alike.
    ``cache_bytes`` keeps loaded index arrays in memory up to that size (the
    quarantine index is small and asked once per file; the hands index is
    read afresh each search so memory never grows with the dataset).
    """

    def __init__(
        self,
        root: Path,
        table: str,
        files: Callable[[], list[str]],
        columns: list[str],
        keys_of: Callable[[pa.Table], pa.Array | pa.ChunkedArray],
        cache_bytes: int = 0,
    ) -> None:
        self.folder = root / INDEX / table
        self.files = files
        self.columns = columns
        self.keys_of = keys_of
        self.cache_bytes = cache_bytes
        self._cache: dict[str, tuple[tuple[int, int, int], np.ndarray]] = {}
        self._cached = 0
        self._buffer = bytearray(1 << 20)

    def candidates(self, hashes: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
        """(batch, mask of ``hashes`` that batch's index holds) for each batch with a hit."""
        if len(hashes) == 0:
            return
        wanted = np.unique(hashes)
        for path in self.files():
            stored = self.load(Path(path))
            if len(stored) == 0:
                continue
            where = np.searchsorted(stored, wanted)
            np.minimum(where, len(stored) - 1, out=where)
            found = wanted[stored[where] == wanted]
            if len(found):
                yield Path(path).stem, np.isin(hashes, found)

    def load(self, path: Path) -> np.ndarray:
        """The sorted hashes of one batch file, rebuilt if missing or stale."""
        stamp = _stamp(path)
        cached = self._cache.get(path.stem)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        words = self._read(self.folder / f"{path.stem}.u64")
        header = tuple(int(word) for word in words[:HEADER])
        if len(words) >= HEADER and header == (VERSION, *stamp, len(words) - HEADER):
            stored = words[HEADER:]
        else:
            stored = self.build(path)
        self._remember(path.stem, stamp, stored)
        return stored

    def _read(self, index: Path) -> np.ndarray:
        """The index file's words, in one buffer reused from file to file (no heap churn).

        The array is a view of that buffer, valid until the next read; a
        cached one is copied.
        """
        try:
            with open(index, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > len(self._buffer):
                    self._buffer = bytearray(max(size, 2 * len(self._buffer)))
                view = memoryview(self._buffer)[:size]
                got = handle.readinto(view)
        except OSError:
            return np.empty(0, np.uint64)
        return np.frombuffer(self._buffer, np.uint64, got // 8)

    def build(self, path: Path, table: pa.Table | None = None) -> np.ndarray:
        """Index one batch file (``table``: its rows, when the caller has them) and save it."""
        if table is None:
            table = pq.read_table(path, columns=self.columns)
        stored = np.sort(key_hashes(self.keys_of(table)))
        stamp = _stamp(path)
        self.folder.mkdir(parents=True, exist_ok=True)
        header = np.array([VERSION, *stamp, len(stored)], np.uint64)
        temporary = self.folder / f".{path.stem}.{os.getpid()}.tmp"
        with open(temporary, "wb") as out:
            out.write(header.tobytes())
            out.write(stored.tobytes())
        os.replace(temporary, self.folder / f"{path.stem}.u64")
        return stored

    def _remember(self, batch: str, stamp: tuple[int, int, int], stored: np.ndarray) -> None:
        if self.cache_bytes <= 0:
            return
        old = self._cache.pop(batch, None)
        if old is not None:
            self._cached -= old[1].nbytes
        if self._cached + stored.nbytes <= self.cache_bytes:
            self._cache[batch] = (stamp, stored.copy())
            self._cached += stored.nbytes


def hand_keys_of(table: pa.Table) -> pa.ChunkedArray:
    return table["hand_key"]


def quarantine_keys_of(table: pa.Table) -> pa.Array | pa.ChunkedArray:
    """One string per quarantine entry, unambiguous: the file name goes length-first."""
    name = pc.fill_null(table["source_file"], "")
    parts = [
        pc.cast(pc.utf8_length(name), pa.string()),
        name,
        pc.fill_null(pc.cast(table["line"], pa.string()), "-"),
        pc.fill_null(pc.cast(table["offset"], pa.string()), "-"),
        pc.fill_null(table["reason"], ""),
    ]
    return pc.binary_join_element_wise(*parts, "\x1f")
