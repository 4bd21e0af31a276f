"""Timeout auto-placement on arrays: the batch twin of :mod:`ofc_stats.engine.timeout`.

Rows are coded 0 top, 1 middle, 2 bottom, 3 discard (``board.DESTINATIONS``).
:func:`auto_counts` is the rule (fill the bottom, then the middle, then the
top); :func:`auto_destinations` places cards by it (the simulator's timeouts)
and :func:`timeout_mask` compares stored streets with it (recompute).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.board import DISCARD_CODE, ROW_SIZES
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


def auto_destinations(
    fill: npt.NDArray[np.integer], dealt: int, placed: int
) -> npt.NDArray[np.int8]:
    """(n, dealt) destination codes the room gives each seat's cards, in the order received."""
    free = (SIZES[None, :] - fill).astype(np.int16)
    counts = auto_counts(free, placed)
    dest = np.full((len(fill), dealt), DISCARD_CODE, dtype=np.int8)
    # In fill order: the first counts[:, 2] cards to the bottom, then the middle, then the top.
    index = np.arange(dealt)[None, :]
    bottom_end = counts[:, 2:3]
    middle_end = bottom_end + counts[:, 1:2]
    top_end = middle_end + counts[:, 0:1]
    dest[index < top_end] = 0
    dest[index < middle_end] = 1
    dest[index < bottom_end] = 2
    return dest


def timeout_mask(
    streets: npt.NDArray[np.int8], in_fantasy: npt.NDArray[np.bool_], variant: Variant
) -> Int16:
    """Bit s set where street s of a seat matches the auto-placement, order-free.

    ``streets`` is (n, 13): the street of each board card, -1 when unknown.
    Counts per row, not card order.  Forced streets, Fantasyland seats and
    seats with an unknown street are never flagged.  One column per row
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
