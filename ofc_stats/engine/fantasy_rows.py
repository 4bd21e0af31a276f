"""What each row of a Fantasyland deal can read as: the solver's row bounds.

A row without jokers has one strength class.  A row holding jokers can read
as any class its jokers make without copying one of the row's own cards (the
engine also forbids copying the other rows, so this is a relaxation and every
bound built on it is safe).  Royalties and repeat conditions depend on the
class only, so a row's best royalty under a cap on its class (the middle is
capped by the bottom, the top by the middle) is a maximum over its classes.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import DECK_SIZE
from ofc_stats.engine.rules import FIVE_CARD_KEYS, five_card_label, five_card_order
from ofc_stats.engine.vector.rank_tables import classify_five, classify_three, tables

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
NO_CLASS = 1 << 20  # above every class: "no reading of this kind"
NONE = -(10**6)  # a royalty bound meaning "no reading fits under this cap"


@lru_cache(maxsize=1)
def _joker_values() -> tuple[I64, I64]:
    """Readings of one joker (52 values) and of two (1,326 unordered distinct pairs)."""
    pairs = np.array(list(combinations(range(DECK_SIZE), 2)), dtype=np.int64)
    return np.arange(DECK_SIZE, dtype=np.int64).reshape(-1, 1), pairs


@lru_cache(maxsize=1)
def five_labels() -> I64:
    """Royalty-table label (high card .. royal flush, 0..9) of each 5-card class."""
    labels = [five_card_order(five_card_label(rank)) for rank in tables().rank5]
    return np.array(labels, dtype=np.int64)


def readings(rows: npt.NDArray[np.int8]) -> tuple[I64, I32]:
    """Every (row index, class) a row can read as, sorted, without repeats."""
    classify = classify_five if rows.shape[1] == 5 else classify_three
    jokers = (rows >= DECK_SIZE).sum(axis=1)
    plain = np.flatnonzero(jokers == 0)
    owners, found = [plain], [classify(rows[plain]).astype(np.int32)]
    if len(plain) == len(rows):  # no jokers: one reading a row, already in order
        return plain.astype(np.int64), found[0]
    for count, values in zip((1, 2), _joker_values(), strict=True):
        which = np.flatnonzero(jokers == count)
        if not len(which):
            continue
        sub = rows[which].astype(np.int64)
        variants = np.repeat(sub[:, None, :], len(values), axis=1)
        slots = np.argsort(sub < DECK_SIZE, axis=1, kind="stable")[:, :count]  # joker columns
        for j in range(count):
            variants[np.arange(len(which))[:, None], :, slots[:, j : j + 1]] = values[None, :, j]
        real = np.where(sub < DECK_SIZE, sub, -1)
        clash = (real[:, None, :, None] == values[None, :, None, :]).any(axis=(2, 3))
        classes = classify(variants.reshape(-1, rows.shape[1]).astype(np.int8))
        keep = ~clash.reshape(-1)
        owners.append(np.repeat(which, len(values))[keep])
        found.append(classes.astype(np.int32)[keep])
    key = np.unique(np.concatenate(owners).astype(np.int64) << 20 | np.concatenate(found))
    return key >> 20, (key & (NO_CLASS - 1)).astype(np.int32)


def class_range(owner: I64, cls: I32, count: int) -> tuple[I32, I32]:
    """Lowest and highest class of each of ``count`` rows (readings sorted by row, class)."""
    if len(cls) == count:
        return cls, cls
    starts = np.searchsorted(owner, np.arange(count))
    ends = np.searchsorted(owner, np.arange(count), side="right") - 1
    return cls[starts], cls[ends]


def most(owner: I64, values: I32, count: int) -> I32:
    """The largest of ``values`` over each row's readings."""
    if len(values) == count:
        return values.astype(np.int32)
    starts = np.searchsorted(owner, np.arange(count))
    return np.maximum.reduceat(values, starts).astype(np.int32)


def lowest_by_label(owner: I64, cls: I32, count: int) -> I32:
    """(rows, 10): each row's lowest class of each royalty label, NO_CLASS if none."""
    out = np.full((count, len(FIVE_CARD_KEYS)), NO_CLASS, dtype=np.int32)
    labels = five_labels()[cls]
    key = owner * len(FIVE_CARD_KEYS) + labels
    _, first = np.unique(key, return_index=True)  # readings are sorted: first is lowest
    out[owner[first], labels[first]] = cls[first]
    return out


def capped(owner: I64, cls: I32, values: I32, count: int) -> I32:
    """(rows, 455): the largest of ``values`` over each row's readings with class ≤ cap."""
    out = np.full((count, len(tables().key3)), NONE, dtype=np.int32)
    out[owner, cls] = values  # a 3-card row has one reading per class
    return np.maximum.accumulate(out, axis=1)


def label_values(per_class: npt.NDArray[np.integer]) -> I32:
    """A per-class 5-card array (royalty or repeat flag) by label: constant within a label."""
    labels = five_labels()
    first = np.searchsorted(labels, np.arange(len(FIVE_CARD_KEYS)))
    values = np.asarray(per_class, dtype=np.int32)
    assert all((values[labels == k] == values[first[k]]).all() for k in range(len(first)))
    return values[first]
