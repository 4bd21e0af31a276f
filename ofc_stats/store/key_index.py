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

A large dataset has a thousand batch files (10M hands), and one search that
opened every file's index cost a quarter of a second, most of a small
import.  So the hands index also keeps a **merged run** (``merged.run``):
every indexed batch's hashes in one sorted array, each with the ordinal of
its batch, the stamps of the batch files it was built from, and a fence every
``FENCE`` hashes.  A search reads the fences and then only the blocks a wanted
hash can sit in, and trusts an entry only while its batch's file still has
the stamp the run recorded; the batches the run does not cover (new since, or
rewritten) are searched file by file as before, and once more than
``merge_after`` of them pile up the run is rebuilt from the batch indexes, a
bounded chunk at a time.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
VERSION = 1  # first word of every index file; bump when the hash changes
HEADER = 5  # words: version, inode, size, mtime_ns, key count
INDEX = ".index"
RUN = "merged.run"  # the merged run's file, beside the batch indexes
RUN_VERSION = 0x52554E0000000001  # "RUN" and its layout's version: the run's first word
RUN_HEADER = 4  # words: run version, batches, hashes, bytes of the batch list (JSON)
MERGE_CHUNK = 1 << 18  # hashes a rebuild round holds (3 MB with their ordinals)
FENCE = 512  # hashes a block (4 KB): a search reads the fences, then one block a hash
MERGE_GROUP = 128  # batch indexes a rebuild step holds (10 MB of 10,000-hand batches)


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


def _stem(name: str) -> str:
    """A batch file's batch (``Path(name).stem`` without making a Path: a thousand of
    them cost 25 ms a search)."""
    return os.path.basename(name).rsplit(".", 1)[0]


def _stamp(path: Path | str) -> tuple[int, int, int]:
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
        merge_after: int | None = None,
    ) -> None:
        self.folder = root / INDEX / table
        self.files = files
        self.columns = columns
        self.keys_of = keys_of
        self.cache_bytes = cache_bytes
        self.merge_after = merge_after  # None: no merged run (a small table: quarantine)
        self._cache: dict[str, tuple[tuple[int, int, int], np.ndarray]] = {}
        self._cached = 0
        self._buffer = bytearray(1 << 20)

    def candidates(self, hashes: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
        """(batch, mask of ``hashes`` that batch's index holds) for each batch with a hit."""
        if len(hashes) == 0:
            return
        wanted = np.unique(hashes)
        files = self.files()
        stems = [_stem(name) for name in files]
        covered: set[str] = set()
        found_in: dict[str, np.ndarray] = {}
        if self.merge_after is not None:
            covered, found_in = self._run_hits(dict(zip(stems, files, strict=True)), wanted)
        uncovered = 0
        for stem, name in zip(stems, files, strict=True):
            if stem in covered:
                found = found_in.get(stem)
                if found is None:
                    continue
            else:
                uncovered += 1
                stored = self.load(Path(name))
                if len(stored) == 0:
                    continue
                where = np.searchsorted(stored, wanted)
                np.minimum(where, len(stored) - 1, out=where)
                found = wanted[stored[where] == wanted]
            if len(found):
                yield stem, np.isin(hashes, found)
        if self.merge_after is not None and uncovered > self.merge_after:
            self.merge([Path(name) for name in files])

    def _run_hits(
        self, files: dict[str, str], wanted: np.ndarray
    ) -> tuple[set[str], dict[str, np.ndarray]]:
        """The batches the run covers, and for those with a hit the ``wanted`` hashes found.
        A batch is covered when the run holds it and its file (``files``: by batch) still
        has the stamp the run was built from."""
        run = _read_run(self.folder / RUN)
        if run is None:
            return set(), {}
        batches = run.batches
        valid = np.zeros(len(batches), bool)
        for ordinal, (batch, stamp) in enumerate(zip(batches, run.stamps, strict=True)):
            name = files.get(batch)
            if name is not None:
                with contextlib.suppress(OSError):  # gone since listed: not covered
                    valid[ordinal] = _stamp(name) == stamp
        covered = {batches[o] for o in np.flatnonzero(valid)}
        found: dict[str, np.ndarray] = {}
        values, owners = _run_find(self.folder / RUN, run, wanted)
        keep = valid[owners.astype(np.int64)]
        values, owners = values[keep], owners[keep]
        for ordinal in np.unique(owners).tolist():
            found[batches[ordinal]] = values[owners == ordinal]
        return covered, found

    def merge(self, paths: list[Path]) -> None:
        """Rebuild the merged run to cover every batch in ``paths`` (the caller holds the
        dataset's lock).  Batches join the run ``MERGE_GROUP`` at a time, each step
        merging the run so far (read a chunk at a time) with their indexes: memory holds a
        group's indexes and a chunk, whatever the dataset."""
        current: dict[str, tuple[tuple[int, int, int], Path]] = {}
        for path in paths:
            try:
                current[path.stem] = (_stamp(path), path)
            except OSError:
                continue
        run = self.folder / RUN
        old = _read_run(run)
        covered = (
            {
                batch
                for batch, stamp in zip(old.batches, old.stamps, strict=True)
                if batch in current and current[batch][0] == stamp
            }
            if old is not None
            else set()
        )
        stale = old is not None and len(covered) < len(old.batches)
        del old
        todo = [stem for stem in current if stem not in covered]
        for first in range(0, len(todo), MERGE_GROUP):
            self._merge_step(run, todo[first : first + MERGE_GROUP], current)
        if stale and not todo:
            self._merge_step(run, [], current)  # only drops what is no longer there

    def _merge_step(
        self,
        run: Path,
        group: list[str],
        current: dict[str, tuple[tuple[int, int, int], Path]],
    ) -> None:
        """One step of :meth:`merge`: the run's batches still current, plus ``group``."""
        old = _read_run(run)
        batches: list[str] = []
        stamps: list[tuple[int, int, int]] = []
        sources: list[_Source] = []
        if old is not None:
            remap = np.full(len(old.batches), -1, np.int64)
            for number, (batch, stamp) in enumerate(zip(old.batches, old.stamps, strict=True)):
                if batch in current and current[batch][0] == stamp and batch not in group:
                    remap[number] = len(batches)
                    batches.append(batch)
                    stamps.append(stamp)
            sources.append(_Source(_run_reader(run, old), old.hashes, remap))
        for batch in group:
            stamp, path = current[batch]
            stored = self.load(path).copy()  # load's array may be a reused buffer's view
            if _stamp(path) != stamp:
                continue  # rewritten meanwhile: searched file by file until the next merge
            owner = np.full(len(stored), len(batches), np.uint32)
            sources.append(_Source(_slicer(stored, owner), len(stored)))
            batches.append(batch)
            stamps.append(stamp)
        _write_run(run, batches, stamps, sources)

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


class _RunHead(NamedTuple):
    """A merged run's header and batch list: where its arrays lie in the file."""

    batches: list[str]
    stamps: list[tuple[int, int, int]]
    hashes: int  # hashes (and ordinals) in the run
    start: int  # byte offset of the hashes; the ordinals, then the fences follow


def _read_run(path: Path) -> _RunHead | None:
    """A merged run's batches, their files' stamps and its layout; None when there is none
    or it does not read whole."""
    try:
        with open(path, "rb") as handle:
            header = np.frombuffer(handle.read(RUN_HEADER * 8), np.uint64)
            if len(header) != RUN_HEADER or int(header[0]) != RUN_VERSION:
                return None
            listed_count, count, listed = (int(word) for word in header[1:])
            listing = json.loads(handle.read(listed))
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return None
    start = RUN_HEADER * 8 + _padded(listed)
    if size != start + count * 12 + _fences(count) * 8:
        return None
    if not isinstance(listing, list) or len(listing) != listed_count:
        return None
    try:
        batches = [str(entry[0]) for entry in listing]
        stamps = [(int(entry[1]), int(entry[2]), int(entry[3])) for entry in listing]
    except (TypeError, ValueError, IndexError):
        return None
    return _RunHead(batches, stamps, count, start)


def _fences(hashes: int) -> int:
    return (hashes + FENCE - 1) // FENCE


def _run_find(path: Path, run: _RunHead, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (hash, batch ordinal) of the run whose hash is in ``wanted`` (sorted, unique).

    Only the fences and the blocks a wanted hash can sit in are read (``pread``): a
    binary search over a memory map of the whole run touched most of its pages (60 MB
    of the process's memory at 10M hands)."""
    with open(path, "rb") as handle:
        fd = handle.fileno()
        count, start = run.hashes, run.start
        blocks = _fences(count)
        fences = np.frombuffer(os.pread(fd, blocks * 8, start + count * 12), np.uint64)
        # a hash equal to a fence may also end the block before it: start one earlier
        first = np.maximum(np.searchsorted(fences, wanted, side="left") - 1, 0)
        last = np.maximum(np.searchsorted(fences, wanted, side="right") - 1, 0)
        values: list[np.ndarray] = []
        owners: list[np.ndarray] = []
        for block in np.unique(first).tolist():
            asked = wanted[first == block]
            low = block * FENCE
            high = min((int(last[first == block].max()) + 1) * FENCE, count)
            stored = np.frombuffer(os.pread(fd, (high - low) * 8, start + low * 8), np.uint64)
            left = np.searchsorted(stored, asked, side="left")
            right = np.searchsorted(stored, asked, side="right")
            for hash_value, a, b in zip(asked.tolist(), left.tolist(), right.tolist(), strict=True):
                if b > a:
                    raw = os.pread(fd, (b - a) * 4, start + count * 8 + (low + a) * 4)
                    owners.append(np.frombuffer(raw, np.uint32))
                    values.append(np.full(b - a, hash_value, np.uint64))
    if not values:
        return np.empty(0, np.uint64), np.empty(0, np.uint32)
    return np.concatenate(values), np.concatenate(owners)


def _padded(length: int) -> int:
    return (length + 7) // 8 * 8  # the arrays start on a word


class _Source:
    """Sorted hashes and their ordinals to merge, taken in rounds up to a bound.

    ``read(first, stop)`` gives positions ``first..stop`` of the source (a run on disk
    is read with ``pread``, never through a memory map: a map's pages would count as
    the process's memory once touched), held in a buffer a step at a time; ``remap``
    renumbers a run's ordinals (-1 drops a batch no longer covered).
    """

    def __init__(
        self,
        read: Callable[[int, int], tuple[np.ndarray, np.ndarray]],
        count: int,
        remap: np.ndarray | None = None,
    ) -> None:
        self.read, self.count, self.remap = read, count, remap
        self.at = 0  # the first position not taken
        self.hashes = np.empty(0, np.uint64)  # positions at.. of the buffer
        self.ordinals = np.empty(0, np.uint32)

    def left(self) -> bool:
        return self.at < self.count

    def _hold(self, stop: int) -> None:
        """Buffer positions up to ``stop`` (at most ``count``)."""
        have = self.at + len(self.hashes)
        if stop > have:
            hashes, ordinals = self.read(have, min(stop, self.count))
            self.hashes = np.concatenate([self.hashes, hashes])
            self.ordinals = np.concatenate([self.ordinals, ordinals])

    def bound(self, step: int) -> int:
        """The hash at the end of the next ``step``."""
        self._hold(self.at + step)
        return int(self.hashes[min(step, len(self.hashes)) - 1])

    def take(self, bound: int, step: int) -> tuple[np.ndarray, np.ndarray]:
        """Every hash up to ``bound`` not taken yet, with its (renumbered) ordinal."""
        while True:
            end = int(np.searchsorted(self.hashes, np.uint64(bound), side="right"))
            if end < len(self.hashes) or self.at + len(self.hashes) >= self.count:
                break
            self._hold(self.at + len(self.hashes) + step)  # all of the buffer is below
        hashes, ordinals = self.hashes[:end], self.ordinals[:end]
        self.hashes, self.ordinals = self.hashes[end:], self.ordinals[end:]
        self.at += end
        if self.remap is not None:
            renumbered = self.remap[ordinals.astype(np.int64)]
            keep = renumbered >= 0
            return hashes[keep], renumbered[keep].astype(np.uint32)
        return hashes, ordinals


def _slicer(
    hashes: np.ndarray, ordinals: np.ndarray
) -> Callable[[int, int], tuple[np.ndarray, np.ndarray]]:
    """``read(first, stop)`` over arrays in memory."""
    return lambda first, stop: (hashes[first:stop], ordinals[first:stop])


def _run_reader(path: Path, run: _RunHead) -> Callable[[int, int], tuple[np.ndarray, np.ndarray]]:
    """``read(first, stop)`` over the run at ``path`` with ``pread``."""

    def read(first: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        with open(path, "rb") as handle:
            fd = handle.fileno()
            hashes = os.pread(fd, (stop - first) * 8, run.start + first * 8)
            ordinals = os.pread(fd, (stop - first) * 4, run.start + run.hashes * 8 + first * 4)
        return np.frombuffer(hashes, np.uint64), np.frombuffer(ordinals, np.uint32)

    return read


def _write_run(
    path: Path,
    batches: list[str],
    stamps: list[tuple[int, int, int]],
    sources: list[_Source],
) -> None:
    """Write the run of ``sources`` merged into one sorted array, a round at a time: each
    round takes from every source the hashes up to the smallest of their next chunk ends,
    so a round holds about ``MERGE_CHUNK`` hashes.  The ordinals go to a scratch file
    first and are appended after the hashes."""
    listing = json.dumps([[b, *stamp] for b, stamp in zip(batches, stamps, strict=True)])
    encoded = listing.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    scratch = path.with_name(f".{path.name}.{os.getpid()}.ord")
    # each source steps through its share of a chunk: a round takes about MERGE_CHUNK
    # hashes, spread over the sources as they are large, so rounds stay few
    every = max(1, sum(source.count for source in sources))
    steps = {id(source): max(1, source.count * MERGE_CHUNK // every) for source in sources}
    total = 0
    fences: list[np.ndarray] = []  # every FENCE-th hash: the blocks a search reads
    with open(temporary, "wb") as out, open(scratch, "w+b") as ordinals_out:
        out.write(np.zeros(RUN_HEADER, np.uint64).tobytes())  # the header, once counted
        out.write(encoded.ljust(_padded(len(encoded)), b" "))
        while live := [source for source in sources if source.left()]:
            bound = min(source.bound(steps[id(source)]) for source in live)
            taken = [source.take(bound, steps[id(source)]) for source in live]
            hashes = np.concatenate([h for h, _ in taken])
            order = np.argsort(hashes, kind="stable")
            ordered = hashes[order]
            out.write(ordered.tobytes())
            ordinals_out.write(np.concatenate([o for _, o in taken])[order].tobytes())
            fences.append(ordered[(-total) % FENCE :: FENCE])
            total += len(hashes)
        ordinals_out.seek(0)
        while block := ordinals_out.read(1 << 22):
            out.write(block)
        out.write(np.concatenate([np.empty(0, np.uint64), *fences]).tobytes())
        out.seek(0)
        out.write(np.array([RUN_VERSION, len(batches), total, len(encoded)], np.uint64).tobytes())
    scratch.unlink()
    os.replace(temporary, path)


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
