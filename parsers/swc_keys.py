"""Which snapshots of a block are new states of their hands (``swc_fast.snapshot`` folds
only those): its state key, for a whole block at once.

A snapshot is new unless an earlier one of its hand had the same key (``ts``,
``ss.hc``, the table's ``c`` and ``p``, each seat's ``n``, ``c``, ``b`` and
``d``).  The lines are grouped by a hash of the fields that tell states apart
most often (``ts``, ``hc`` and the layouts); within a group, the same text is
the same key (a resend) and any other pair is compared key to key, so the
hash only has to be equal for equal keys, never distinct for distinct ones.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from parsers.swc_fast import Block, key_of

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
MAX_SEATS = 64  # seats a snapshot may list here (more: the block is read line by line)
_MIX = (  # odd multipliers, a row per seat position (the last for the line's own fields)
    np.random.default_rng(13).integers(1, 2**62, size=(MAX_SEATS + 1, 8)).astype(np.uint64)
    << np.uint64(1)
) | np.uint64(1)
_TS = attrgetter("ts")


def _hashes(values: list[Any]) -> npt.NDArray[np.uint64]:
    """A hash of each value (equal values, equal hashes): integers as themselves."""
    try:
        return np.asarray(pa.array(values, pa.int64()).fill_null(-1)).view(np.uint64)
    except (ValueError, TypeError, OverflowError, pa.ArrowException):
        return np.fromiter(map(hash, values), np.int64, len(values)).view(np.uint64)


def distinct(
    block: Block,
    lines: Ints,
    states: list[Any],
    hands: Ints,
    per_line: Ints,
    position: Ints,
    absent: Bools,
    d: list[Any],
    hc: dict[int, Any],
) -> Bools:
    """Per line: whether its state key is new to its hand (``swc_fast.snapshot`` folds it).

    Lines are grouped by a hash of the key's ``ts``, ``hc`` and seat layouts;
    in a group of more than one (a resend, mostly) the keys themselves are
    compared, the same text standing for the same key.
    """
    mixed = _hashes(list(map(_TS, states))) * _MIX[MAX_SEATS, 0]
    shown = np.fromiter(hc, np.int64, len(hc))
    hc_hash = np.full(len(states), hash(None), dtype=np.int64)
    hc_hash[shown] = np.fromiter(map(hash, hc.values()), np.int64, len(hc))
    mixed += hc_hash.view(np.uint64) * _MIX[MAX_SEATS, 1]
    mixed += per_line.astype(np.uint64) * _MIX[MAX_SEATS, 2]
    if len(d):
        seat_mix = np.fromiter(map(hash, d), np.int64, len(d)).view(np.uint64) * _MIX[position, 0]
        seat_mix += absent.astype(np.uint64) * _MIX[position, 1]
        total = np.zeros(len(d) + 1, dtype=np.uint64)
        np.cumsum(seat_mix, out=total[1:])
        seat_first = np.cumsum(per_line) - per_line
        mixed += total[seat_first + per_line] - total[seat_first]
    by_key = np.lexsort((np.arange(len(states)), mixed, hands))
    same = (mixed[by_key][1:] == mixed[by_key][:-1]) & (hands[by_key][1:] == hands[by_key][:-1])
    repeat = np.zeros(len(states), dtype=bool)
    if not same.any():
        return ~repeat
    group_start = np.flatnonzero(np.concatenate(([True], ~same)))
    group_end = np.append(group_start[1:], len(by_key))
    # A later member whose text is its group's first's is a resend: compared byte for
    # byte at once; the keys of the groups left are compared one by one.
    begins = np.zeros(len(by_key), dtype=bool)
    begins[group_start] = True
    first_of = by_key[np.maximum.accumulate(np.where(begins, np.arange(len(by_key)), 0))]
    later = by_key[~begins]
    resent = _same_text(block, lines[later], lines[first_of[~begins]])
    repeat[later[resent]] = True
    unsure = np.zeros(len(states), dtype=bool)
    unsure[later[~resent]] = True
    several = (group_end - group_start > 1) & (np.add.reduceat(unsure[by_key], group_start) > 0)
    for a, b in zip(group_start[several].tolist(), group_end[several].tolist(), strict=True):
        members = by_key[a:b].tolist()
        keys: list[object] = [key_of(states[members[0]])]
        for member in members[1:]:
            if repeat[member]:
                continue  # the first's text: its key
            key = key_of(states[member])
            if key in keys:
                repeat[member] = True
            else:
                keys.append(key)
    return ~repeat


def _same_text(block: Block, one: Ints, other: Ints) -> Bools:
    """Whether block lines ``one[i]`` and ``other[i]`` are the same text, for every i."""
    ends = block.ends
    text = block.text
    return np.fromiter(
        (
            text[ends[a - 1] if a else 0 : ends[a]] == text[ends[b - 1] if b else 0 : ends[b]]
            for a, b in zip(one.tolist(), other.tolist(), strict=True)
        ),
        bool,
        len(one),
    )
