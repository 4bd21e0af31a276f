"""Timeout auto-placement on arrays: the batch twin of :mod:`ofc_stats.engine.timeout`.

Rows are coded 0 top, 1 middle, 2 bottom, 3 discard (``board.DESTINATIONS``).
:func:`auto_counts` is the rule (fill the bottom, then the middle, then the
top); :func:`timeout_mask` compares stored streets with it (recompute).  The
simulator's timeouts are placed by the core (``rust/ofc-core/src/sim.rs``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.board import ROW_SIZES
from ofc_stats.engine.rules import Variant

Int16 = npt.NDArray[np.int16]
SIZES = np.array(ROW_SIZES, dtype=np.int16)


def auto_counts(free: Int16, placed: int) -> Int16:
    """(n, 3) cards the rule puts on top, middle, bottom, given the (n, 3) free slots."""
    top, middle, bottom = auto_columns(free[:, 0], free[:, 1], free[:, 2], placed)
    return np.stack([top, middle, bottom], axis=1).astype(np.int16)


def auto_columns(
    free_top: Int16, free_middle: Int16, free_bottom: Int16, placed: int
) -> tuple[Int16, Int16, Int16]:
    """The rule on one column per row: fill the bottom, then the middle, then the top."""
    bottom = np.minimum(free_bottom, placed)
    middle = np.minimum(placed - bottom, free_middle)
    top = placed - bottom - middle
    return top, middle, bottom


def forced(free: Int16, placed: int) -> npt.NDArray[np.bool_]:
    """(n,) streets whose rows leave one way to split ``placed`` cards."""
    return forced_columns(free[:, 0], free[:, 1], free[:, 2], placed)


def forced_columns(
    free_top: Int16, free_middle: Int16, free_bottom: Int16, placed: int
) -> npt.NDArray[np.bool_]:
    """:func:`forced` on one column per row."""
    open_rows = (free_top > 0).view(np.int8) + (free_middle > 0).view(np.int8)
    open_rows += (free_bottom > 0).view(np.int8)
    result: npt.NDArray[np.bool_] = (free_top + free_middle + free_bottom == placed) | (
        open_rows <= 1
    )
    return result


def timeout_mask(
    streets: npt.NDArray[np.int8], in_fantasy: npt.NDArray[np.bool_], variant: Variant
) -> Int16:
    """Bit s set where street s of a seat matches the auto-placement, order-free.

    ``streets`` is (n, 13): the street of each board card, -1 when unknown.
    Counts per row, not card order.  Forced streets, Fantasyland seats and
    seats with an unknown street are never flagged.  Variants with few
    streets read a table of every possible board (:func:`mask_table`): a few
    gathers a seat instead of five streets of arithmetic.
    """
    table = mask_table(variant)
    if table is None:
        return timeout_mask_by_counts(streets, in_fantasy, variant)
    cards = np.ascontiguousarray(np.asarray(streets, dtype=np.int8).T).view(np.uint8)
    top, middle, bottom = (
        _code(table.top_weight, cards[0:3]),
        _code(table.five_weight, cards[3:8]),
        _code(table.five_weight, cards[8:13]),
    )
    key = np.take(table.top_index, top) * np.int32(table.fives)
    key += np.take(table.five_index, middle)
    key *= np.int32(table.fives)
    key += np.take(table.five_index, bottom)
    mask: Int16 = np.take(table.masks, key)
    mask[np.asarray(in_fantasy, dtype=bool)] = 0  # (a Fantasyland board comes in one street)
    odd = np.flatnonzero(mask < 0)  # streets that do not deal the plan: counted the long way
    if len(odd):
        mask[odd] = timeout_mask_by_counts(streets[odd], np.zeros(len(odd), bool), variant)
    return mask


def _code(weight: npt.NDArray[np.uint16], cards: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint16]:
    """One row's multiset code: its cards' weights added in 16 bits (a sum would widen)."""
    code: npt.NDArray[np.uint16] = np.take(weight, cards[0])
    for column in cards[1:]:
        code += np.take(weight, column)
    return code


@dataclass(frozen=True)
class MaskTable:
    """:func:`timeout_mask_by_counts` of every board that deals a variant's streets.

    A row's streets, as a multiset, are coded ``sum(base ** street)`` over
    its cards (base 4 for the 3-card top, 6 for the 5-card rows: a count
    never reaches the base), an unknown street adding ``base ** streets``;
    ``*_index`` maps a code to the multiset's number (the last one: any code
    with an unknown street).  ``masks`` holds each (top, middle, bottom)
    triple's mask: zero where a street is unknown, -1 where the streets do
    not deal the variant's cards (such a seat is computed by counts).
    """

    top_weight: npt.NDArray[np.uint16]  # (256,) by street as uint8 (-1 is 255)
    five_weight: npt.NDArray[np.uint16]
    top_index: npt.NDArray[np.int32]
    five_index: npt.NDArray[np.int32]
    fives: int  # 5-card multisets + 1
    masks: Int16


TABLE_LIMIT = 1 << 20  # entries; classic's nine streets would need 270 million


@lru_cache(maxsize=8)
def mask_table(variant: Variant) -> MaskTable | None:
    """The table for ``variant`` (built once, about 2 ms), None when too big.

    Only the boards whose streets place the plan's cards are evaluated: for
    each top and middle multiset the bottom is what is left (843 boards for
    Pineapple, not all 555,660 triples).
    """
    count = len(variant.streets)
    tops = np.array(list(combinations_with_replacement(range(count), ROW_SIZES[0])), np.int8)
    fives = np.array(list(combinations_with_replacement(range(count), ROW_SIZES[1])), np.int8)
    shape = (len(tops) + 1, len(fives) + 1, len(fives) + 1)
    if shape[0] * shape[1] * shape[2] > TABLE_LIMIT:
        return None

    if ROW_SIZES[1] * 6**count >= 1 << 16:  # codes must fit 16 bits
        return None

    def coding(
        sets: npt.NDArray[np.int8], base: int
    ) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.int32]]:
        weight = np.full(256, base**count, np.uint16)
        weight[:count] = base ** np.arange(count)
        index = np.full(base ** (count + 1), len(sets), np.int32)
        index[weight[sets].astype(np.int64).sum(axis=1)] = np.arange(len(sets))
        return weight, index

    top_weight, top_index = coding(tops, 4)
    five_weight, five_index = coding(fives, 6)
    streets = np.arange(count)
    top_counts = (tops[:, :, None] == streets).sum(axis=1)  # (tops, streets)
    five_counts = (fives[:, :, None] == streets).sum(axis=1)
    placed = np.array([cards for _, cards in variant.streets])
    # Every (top, middle) pair; the bottom must hold the rest of each street's cards.
    top, middle = (i.reshape(-1) for i in np.indices((len(tops), len(fives))))
    rest = placed - top_counts[top] - five_counts[middle]
    fits = (rest >= 0).all(axis=1) & (rest.sum(axis=1) == ROW_SIZES[2])
    top, middle, rest = top[fits], middle[fits], rest[fits]
    bottom = five_index[(rest * 6**streets).sum(axis=1)]
    boards = np.concatenate([tops[top], fives[middle], fives[bottom]], axis=1)
    masks = np.full(shape, -1, np.int16)
    masks[-1, :, :] = masks[:, -1, :] = masks[:, :, -1] = 0  # an unknown street: no flag
    plain = np.zeros(len(boards), bool)
    masks[top, middle, bottom] = timeout_mask_by_counts(boards, plain, variant)
    return MaskTable(
        top_weight, five_weight, top_index, five_index, len(fives) + 1, masks.reshape(-1)
    )


def timeout_mask_by_counts(
    streets: npt.NDArray[np.int8], in_fantasy: npt.NDArray[np.bool_], variant: Variant
) -> Int16:
    """:func:`timeout_mask` computed street by street from each row's card counts.

    The definition the tables are built from.  One column per row
    throughout: element-wise steps only, no reduction along a short axis.
    """
    count = len(streets)
    plan = variant.streets
    # Each card adds 1 in the 4-bit field of its street: one int64 per row holds the
    # card count of every street (at most 5 per field; field 15 collects unknowns).
    street = np.ascontiguousarray(streets.T).astype(np.int64)
    street[(street < 0) | (street >= len(plan))] = 15
    fields = np.left_shift(np.int64(1), street * 4)
    packed = [fields[0:3].sum(axis=0), fields[3:8].sum(axis=0), fields[8:13].sum(axis=0)]
    unknown = (packed[0] | packed[1] | packed[2]) >> 60
    known = (unknown == 0) & ~np.asarray(in_fantasy, dtype=bool)
    mask = np.zeros(count, dtype=np.int16)
    free = [np.full(count, size, dtype=np.int16) for size in ROW_SIZES]
    for number, (_, placed) in enumerate(plan):
        got = [((row >> (4 * number)) & 15).astype(np.int16) for row in packed]
        want = auto_columns(free[0], free[1], free[2], placed)
        match = known & ~forced_columns(free[0], free[1], free[2], placed)
        for row in range(3):
            match &= got[row] == want[row]
            free[row] -= got[row]
        mask |= match.view(np.int8).astype(np.int16) << number
    return mask
