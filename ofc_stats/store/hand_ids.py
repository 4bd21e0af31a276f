"""``hand_id``: the dataset's integer key of a hand, given when a batch is committed.

``hand_key`` is what a room calls a hand (a string); ``hand_id`` is what the
dataset calls it: an int64, unique in the dataset, never changed once stored.
``results`` and ``versus`` are keyed by it, so they store 8 bytes a row
instead of the key string and every join on them is on integers.

Ids count up in commit order: a batch takes the range after the largest id
stored, read from the Parquet footers (cached by file, so an import of many
batches reads each footer once, and kept in ``.index/hand_ids.json`` so the
next process does not read 500 footers of a 10-million-hand dataset again).
Batches are committed under the dataset lock, so two writers never take the
same range.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.errors import DatasetError
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.schema import HAND_ID, STORED_PLACEMENTS

_LARGEST: dict[str, tuple[tuple[int, int], int]] = {}  # path -> ((size, mtime), largest id)


_RANGES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {}  # path -> (stamp, range)


def hand_id_range(path: str | Path) -> tuple[int, int]:
    """(smallest, largest) ``hand_id`` of a hands file from its footer; (0, -1) if none.

    Cached by size and modification time: a batch file is never rewritten in place.
    """
    stat = os.stat(path)
    stamp = (stat.st_size, stat.st_mtime_ns)
    cached = _RANGES.get(str(path))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    metadata = pq.read_metadata(path)
    names = metadata.schema.to_arrow_schema().names
    low, high = 0, -1
    if "hand_id" in names and metadata.num_rows:
        column = names.index("hand_id")
        lows, highs = [], []
        for group in range(metadata.num_row_groups):
            stats = metadata.row_group(group).column(column).statistics
            if stats is None or not stats.has_min_max:
                ids = pq.read_table(path, columns=["hand_id"]).column(0).to_numpy()
                lows, highs = [int(ids.min())], [int(ids.max())]
                break
            lows.append(int(stats.min))
            highs.append(int(stats.max))
        low, high = min(lows), max(highs)
    _RANGES[str(path)] = (stamp, (low, high))
    return low, high


def largest_in_file(path: str | Path) -> int:
    """The largest ``hand_id`` of one hands file, -1 when it has none."""
    stat = os.stat(path)
    stamp = (stat.st_size, stat.st_mtime_ns)
    cached = _LARGEST.get(str(path))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    largest = hand_id_range(path)[1]
    _LARGEST[str(path)] = (stamp, largest)
    return largest


def next_hand_id(dataset: Dataset) -> int:
    """The first id a new batch takes (the caller holds the lock)."""
    paths = dataset.files("hands")
    cache = dataset.root / ".index" / "hand_ids.json"
    if any(path not in _LARGEST for path in paths):
        _load(cache)
    known = {path: _LARGEST.get(path) for path in paths}
    largest = max((largest_in_file(path) for path in paths), default=-1)
    if any(_LARGEST.get(path) != known[path] for path in paths):
        _save(cache, paths)
    return 1 + largest


def _load(cache: Path) -> None:
    """Footer readings a former process kept (each still checked against its file's stamp)."""
    try:
        saved = json.loads(cache.read_text())
    except (OSError, ValueError):
        return
    if not isinstance(saved, dict):
        return
    for path, entry in saved.items():
        if path not in _LARGEST and isinstance(entry, list) and len(entry) == 3:
            size, mtime, largest = entry
            if all(isinstance(value, int) for value in entry):
                _LARGEST[path] = ((size, mtime), largest)


def _save(cache: Path, paths: list[str]) -> None:
    entries = {path: [*_LARGEST[path][0], _LARGEST[path][1]] for path in paths if path in _LARGEST}
    temporary = cache.with_name(f".{cache.name}.{os.getpid()}")
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(entries))
        os.replace(temporary, cache)
    except OSError:
        pass  # a cache: the footers are still there


def with_hand_ids(
    tables: dict[str, pa.Table],
    first: int,
    seats: list[pa.Table] | None = None,
    placements: list[pa.Table] | None = None,
    hands: list[pa.Table] | None = None,
) -> dict[str, pa.Table]:
    """One batch's tables keyed by ``hand_id``: ``first`` on, in hand order.

    ``hands`` and ``seats`` gain the column; ``placements`` have it in place
    of ``hand_key``.  ``seats`` and ``placements`` are the parts the batch
    was gathered from (else ``tables``'), and ``hands`` the hands of each
    part, in the batch's order.  A part whose ``hand_key`` is a dictionary
    array over its own hands' keys (the core's chunks) takes its ids from
    the indices, by position; other parts are looked up by key, a
    dictionary array once per dictionary entry, not per row.  Seats' keys
    are decoded to strings here.
    """
    batch = tables["hands"]
    ids = pa.array(np.arange(first, first + batch.num_rows, dtype=np.int64))
    out = dict(tables)
    out["hands"] = _set(batch, ids)
    if seats is None:
        seats = [tables["seats"]]
    if placements is None:
        placements = [tables["placements"]] if "placements" in tables else []
    owners = [*seats, *placements]
    found: list[pa.ChunkedArray | None] = [None] * len(owners)
    if hands is not None and len(hands) == len(seats) and len(placements) in (0, len(seats)):
        starts = np.cumsum([0, *(part.num_rows for part in hands)])
        for at, part in enumerate(owners):
            number = at % len(seats)
            found[at] = _by_position(part, hands[number], first + int(starts[number]))
    rest = [part for part, known in zip(owners, found, strict=True) if known is None]
    if rest:
        lookup = _Lookup(batch["hand_key"].combine_chunks(), ids, rest)
        found = [
            lookup(part) if known is None else known
            for part, known in zip(owners, found, strict=True)
        ]
    out["seats"] = pa.concat_tables(
        [_set(_decoded(part), known) for part, known in zip(seats, found, strict=False)]
    )
    stored = [
        keyed_by_id(part, known)
        for part, known in zip(placements, found[len(seats) :], strict=True)
    ]
    out["placements"] = pa.concat_tables(stored) if stored else STORED_PLACEMENTS.empty_table()
    return out


def _by_position(part: pa.Table, hands: pa.Table, first: int) -> pa.ChunkedArray | None:
    """The ids of a part whose keys are indices into ``hands``' own keys (None if they are not).

    Checked, not assumed: the dictionary must be those keys, in order.
    """
    column = part["hand_key"]
    if column.num_chunks != 1 or not pa.types.is_dictionary(column.type):
        return None
    chunk = column.chunk(0)
    keys = hands["hand_key"]
    if len(chunk.dictionary) != len(keys) or not chunk.dictionary.equals(keys.combine_chunks()):
        return None
    if chunk.null_count:
        return None
    # added in int64 as they are read: an int64 copy of the indices first was a fresh 7 MB
    # a batch (~43 placements a hand) for the kernel to zero
    ids = np.add(np.asarray(chunk.indices), first, dtype=np.int64)
    return pa.chunked_array([pa.array(ids)], HAND_ID.type)


class _Lookup:
    """Each row's ``hand_id`` by its ``hand_key``: every key of every part looked up at once.

    The fast readers' parts hold their keys as dictionary arrays, so what is
    hashed is each part's dictionary (a chunk's hands), all in one
    ``index_in`` against the batch's keys (one hash table, not one a part).
    """

    def __init__(self, keys: pa.Array, ids: pa.Array, parts: list[pa.Table]) -> None:
        texts = []
        for part in parts:
            for chunk in part["hand_key"].chunks:
                texts.append(chunk.dictionary if isinstance(chunk, pa.DictionaryArray) else chunk)
        self.starts = np.cumsum([0, *(len(t) for t in texts)])
        joined = pa.concat_arrays([t.cast(pa.string()) for t in texts]) if texts else keys[:0]
        self.ids = pc.take(ids, pc.index_in(joined, value_set=keys))
        self.next = 0

    def __call__(self, part: pa.Table) -> pa.ChunkedArray:
        """The next part's ids (parts are asked in the order they were given)."""
        found = []
        for chunk in part["hand_key"].chunks:
            start, self.next = int(self.starts[self.next]), self.next + 1
            mine = self.ids.slice(start, int(self.starts[self.next]) - start)
            indices = chunk.indices if isinstance(chunk, pa.DictionaryArray) else None
            found.append(mine if indices is None else pc.take(mine, indices))
        out = pa.chunked_array(found, HAND_ID.type)
        if out.null_count:
            raise DatasetError("a row names a hand_key that is not in its batch")
        return out


def _decoded(seats: pa.Table) -> pa.Table:
    """Seats with ``hand_key`` as strings (a fast reader gives indices into its chunk's keys)."""
    keys = seats["hand_key"]
    if not pa.types.is_dictionary(keys.type):
        return seats
    strings = pa.chunked_array([c.dictionary.take(c.indices) for c in keys.chunks], pa.string())
    return seats.set_column(0, "hand_key", strings)


def keyed_by_id(placements: pa.Table, hand_ids: pa.ChunkedArray) -> pa.Table:
    """Placements as stored: ``hand_id`` in place of ``hand_key`` (STORED_PLACEMENTS)."""
    columns = [hand_ids, *(placements[name] for name in STORED_PLACEMENTS.names[1:])]
    return pa.Table.from_arrays(columns, schema=STORED_PLACEMENTS)


def _set(table: pa.Table, ids: pa.Array | pa.ChunkedArray) -> pa.Table:
    if HAND_ID.name in table.column_names:
        return table.set_column(table.schema.get_field_index(HAND_ID.name), HAND_ID, ids)
    return table.append_column(HAND_ID, ids)
