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
    bottom = np.minimum(placed, free[:, 2])
    middle = np.minimum(placed - bottom, free[:, 1])
    top = placed - bottom - middle
    return np.stack([top, middle, bottom], axis=1).astype(np.int16)


def forced(free: Int16, placed: int) -> npt.NDArray[np.bool_]:
    """(n,) streets whose rows leave one way to split ``placed`` cards."""
    open_rows = (free > 0).sum(axis=1)
    result: npt.NDArray[np.bool_] = (free.sum(axis=1) == placed) | (open_rows <= 1)
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
    seats with an unknown street are never flagged.
    """
    count = len(streets)
    plan = variant.streets
    # Each card adds 1 in the 4-bit field of its street: one int64 per row holds the
    # card count of every street (at most 5 per field; field 15 collects unknowns).
    street = np.ascontiguousarray(streets.T).astype(np.int64)
    street[(street < 0) | (street >= len(plan))] = 15
    fields = np.left_shift(np.int64(1), street * 4)
    packed = [fields[0:3].sum(axis=0), fields[3:8].sum(axis=0), fields[8:13].sum(axis=0)]
    per_row = [
        np.stack([((row >> (4 * n)) & 15) for n in [*range(len(plan)), 15]]).astype(np.int16)
        for row in packed
    ]
    got = np.stack(per_row, axis=2)  # (streets + 1, n, 3)
    known = (got[-1].sum(axis=1) == 0) & ~in_fantasy
    mask = np.zeros(count, dtype=np.int16)
    free = np.broadcast_to(SIZES, (count, 3)).copy()
    for number, (_, placed) in enumerate(plan):
        match = (got[number] == auto_counts(free, placed)).all(axis=1)
        match &= known & ~forced(free, placed)
        mask |= match.astype(np.int16) << number
        free -= got[number]
    return mask
