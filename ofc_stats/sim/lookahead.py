"""A street's candidate placements on arrays, for the grader's NumPy policy.

Every legal way to place a street's cards is one row of a fixed candidate
table (232 for the first five cards, 27 for a Pineapple street with its
discard), in ``itertools.product`` order like the core's
``candidates::Candidates``.  The simulator's bots now play in the core
(``rust/ofc-core/src/lookahead.rs``); what is left here is what
``ofc_stats.grade`` still imports, and goes when the grader moves to the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.board import DISCARD_CODE, ROW_SIZES, ROW_SLICES

ROW_START = np.array([row.start for row in ROW_SLICES])
ROW_SIZE = np.array(ROW_SIZES)
DISCARD = DISCARD_CODE
EMPTY = -1


@dataclass(frozen=True)
class Candidates:
    """Destinations (C, k): row 0-2 or DISCARD for each of a street's k cards."""

    dest: npt.NDArray[np.int8]
    count: npt.NDArray[np.int8]  # (C, 3) cards each candidate adds to each row
    within: npt.NDArray[np.int8]  # (C, k) position of each card among its row's new cards


@lru_cache(maxsize=16)
def candidates(cards: int, discards: int) -> Candidates:
    """Every assignment of ``cards`` cards with exactly ``discards`` discarded."""
    options = []
    for dest in product(range(4), repeat=cards):
        if dest.count(DISCARD) != discards:
            continue
        counts = [dest.count(row) for row in range(3)]
        if any(c > s for c, s in zip(counts, ROW_SIZE, strict=True)):
            continue
        options.append(dest)
    dest_array = np.array(options, dtype=np.int8)
    count = np.stack([(dest_array == row).sum(axis=1) for row in range(3)], axis=1)
    within = np.zeros_like(dest_array)
    for row in range(3):
        mask = dest_array == row
        within += ((np.cumsum(mask, axis=1) - 1) * mask).astype(np.int8)
    return Candidates(dest_array, count.astype(np.int8), within)


def apply(
    boards: npt.NDArray[np.int8],
    fill: npt.NDArray[np.int8],
    dealt: npt.NDArray[np.int8],
    cands: Candidates,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Boards (T, C, 13) after each candidate, and which candidates fit (T, C)."""
    t, c = len(boards), len(cands.dest)
    fits = np.all(fill[:, None, :] + cands.count[None, :, :] <= ROW_SIZE, axis=2)
    out = np.repeat(boards[:, None, :], c, axis=1)
    placed = cands.dest != DISCARD  # (C, k)
    dest = np.where(placed, cands.dest, 0)
    position = ROW_START[dest][None] + fill[:, dest] + cands.within[None]  # (T, C, k)
    position = np.where(fits[:, :, None] & placed[None], position, 13)  # 13: nowhere
    rows = np.arange(t)[:, None, None]
    cols = np.arange(c)[None, :, None]
    padded = np.concatenate([out, np.full((t, c, 1), EMPTY, np.int8)], axis=2)
    padded[rows, cols, position] = np.broadcast_to(dealt[:, None, :], position.shape)
    return padded[:, :, :13], fits
