"""A parser's columnar chunk, deduplicated and cut to the batch size, in NumPy.

Rows no key hash flags are kept as a block; only the flagged ones (a stored
or pending key, or a key twice in the chunk) are looked at one by one.
Seat and placement rows find their hand by ``source_line`` once per chunk,
so a slice of the chunk is one boolean filter, never a set membership test
per slice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.store.key_index import key_hashes
from ofc_stats.store.known import Known, KnownHands
from parsers.base import ColumnarHands


@dataclass
class Decision:
    """What becomes of a chunk's rows: kept (in order), duplicates, the record path's."""

    kept: np.ndarray
    hashes: np.ndarray  # of every row's key
    duplicates: int = 0
    reparse: list[int] = field(default_factory=list)  # a reused or completed hand id
    known: dict[str, Known] = field(default_factory=dict)  # the search's hits and the kept


def decide(known: KnownHands, hands: pa.Table) -> Decision:
    """Dedupe a chunk's hands by key and fingerprint.

    The kept rows become pending slice by slice (``slices``), as the caller
    queues them: a commit between two slices must not take the second's
    keys for committed.
    """
    keys = hands["hand_key"].combine_chunks()
    hashes = key_hashes(keys)
    flagged, hits = known.search(keys, hashes)
    keep = ~flagged
    decision = Decision(np.empty(0, np.int64), hashes, known=hits)
    rows = np.flatnonzero(flagged)
    if len(rows):
        picked = hands.select(["hand_key", "fingerprint", "complete"]).take(pa.array(rows))
        for row, key, fingerprint, complete in zip(
            rows.tolist(),
            picked["hand_key"].to_pylist(),
            picked["fingerprint"].to_pylist(),
            picked["complete"].to_pylist(),
            strict=True,
        ):
            stored = hits.get(key)
            if stored is None:
                hits[key] = Known(fingerprint, bool(complete), None)
                keep[row] = True
            elif stored.fingerprint == fingerprint:
                decision.duplicates += 1
            else:
                decision.reparse.append(row)
    decision.kept = np.flatnonzero(keep)
    return decision


OWNED = ("seats", "placements")


def slices(
    chunk: ColumnarHands, decision: Decision, known: KnownHands, room: Callable[[], int]
) -> Iterator[ColumnarHands]:
    """The kept hands with their seats and placements, ``room()`` hands at a time.

    ``room`` is asked again before each slice (the caller commits between
    them); each slice's keys are pending in ``known`` from when it is
    yielded.  The slices drop the ``source_line`` tie of seats and placements.
    """
    kept = decision.kept
    count = chunk.hands.num_rows
    if not len(kept):
        return
    owners: dict[str, np.ndarray] = {}  # found only when a slice is less than the chunk
    cursor = 0
    while cursor < len(kept):
        part = kept[cursor : cursor + max(room(), 1)]
        cursor += len(part)
        if len(part) == count:
            hands, seats, placements = chunk.hands, chunk.seats, chunk.placements
        else:
            if not owners:
                owners = {name: _owners(chunk.hands, getattr(chunk, name)) for name in OWNED}
            start, stop = int(part[0]), int(part[-1]) + 1
            if stop - start == len(part) and all(_ordered(o) for o in owners.values()):
                # hands start..stop and their rows, in place: a take copied the chunk's
                # raw texts at each batch boundary (about half a microsecond a hand)
                hands = chunk.hands.slice(start, stop - start)
                seats, placements = (
                    _rows_of(getattr(chunk, name), owners[name], start, stop) for name in OWNED
                )
            else:
                chosen = np.zeros(count + 1, bool)
                chosen[part] = True
                hands = chunk.hands.take(pa.array(part))
                seats = chunk.seats.filter(pa.array(chosen[owners["seats"]]))
                placements = chunk.placements.filter(pa.array(chosen[owners["placements"]]))
            seats, placements = (_rebased(t, part, count, hands) for t in (seats, placements))
        keys = hands["hand_key"]
        known.add(decision.hashes[part], keys, hands["fingerprint"], hands["complete"])
        yield ColumnarHands(
            hands, seats.drop_columns(["source_line"]), placements.drop_columns(["source_line"])
        )


def _ordered(owners: np.ndarray) -> bool:
    """Whether rows come hand by hand (each hand's rows together, the hands in order)."""
    return bool(len(owners) < 2 or (owners[1:] >= owners[:-1]).all())


def _rows_of(rows: pa.Table, owners: np.ndarray, start: int, stop: int) -> pa.Table:
    """The rows of hands ``start..stop`` when rows come hand by hand: one slice, no copy."""
    first, end = np.searchsorted(owners, [start, stop])
    return rows.slice(int(first), int(end - first))


def _owners(hands: pa.Table, rows: pa.Table) -> np.ndarray:
    """Each row's hand (its index in ``hands``, by ``source_line``; ``len(hands)`` if none).

    The readers give hands in line order, so a binary search finds them (a
    hash lookup per placement cost more); hands out of order are looked up.
    """
    lines = np.asarray(hands["source_line"], np.int64)
    tie = rows["source_line"]
    if pa.types.is_dictionary(tie.type):  # the core's: indices over the chunk's lines
        tie = tie.cast(pa.int64())
    wanted = np.asarray(tie, np.int64)
    if len(lines) and (np.diff(lines) > 0).all():
        at = np.minimum(np.searchsorted(lines, wanted), len(lines) - 1)
        return np.where(lines[at] == wanted, at, len(lines))
    found = pc.index_in(tie, value_set=hands["source_line"])
    return np.asarray(found.fill_null(hands.num_rows), np.int64)


def _rebased(table: pa.Table, part: np.ndarray, count: int, hands: pa.Table) -> pa.Table:
    """Rows whose ``hand_key`` indexes the chunk's ``count`` hands, indexing ``part``'s instead.

    So a slice's keys stay indices over its own hands (the store gives ids by
    position); keys of any other kind are left as they are.
    """
    column = table["hand_key"]
    if not pa.types.is_dictionary(column.type) or column.num_chunks != 1:
        return table
    keys = column.chunk(0)
    if len(keys.dictionary) != count or keys.null_count:
        return table
    where = np.full(count, -1, np.int32)
    where[part] = np.arange(len(part), dtype=np.int32)
    indices = where[np.asarray(keys.indices, np.int64)]
    if len(indices) and indices.min() < 0:
        return table
    rebased = pa.DictionaryArray.from_arrays(
        pa.array(indices), hands["hand_key"].combine_chunks(), safe=False
    )
    return table.set_column(0, table.schema.field("hand_key"), rebased)
