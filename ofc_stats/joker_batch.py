"""Reading jokers for many boards at once, the same search as :mod:`jokers`.

Each board with jokers is expanded into every legal reading (52 for one joker,
52 × 52 ordered pairs for two), all readings are ranked with the table ranker,
and the best is kept per board by one integer that orders readings exactly as
the scalar search does: not fouled, then royalties, then bottom, middle and
top strength.  Work is chunked so memory stays bounded.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ofc_stats.board import BOARD_SIZE
from ofc_stats.board_eval import classify_boards, reading_value
from ofc_stats.cards import DECK_SIZE
from ofc_stats.compiled import CompiledRules

READINGS_PER_CHUNK = 1 << 20


def _best(
    boards: npt.NDArray[np.int32],
    slots: npt.NDArray[np.int64],
    candidates: npt.NDArray[np.int32],
    rules: CompiledRules,
) -> npt.NDArray[np.int32]:
    """Fill the joker ``slots`` (n, k) of ``boards`` (n, 13) with the best candidate row.

    ``candidates`` (c, k) lists the value combinations to try for every board.
    """
    n, k = slots.shape
    c = len(candidates)
    readings = np.repeat(boards, c, axis=0).reshape(n, c, BOARD_SIZE)
    rows = np.arange(n)[:, None]
    on_board = np.zeros((n, DECK_SIZE + 2), dtype=bool)
    on_board[rows, boards] = True
    legal = np.ones((n, c), dtype=bool)
    for slot in range(k):
        readings[rows, :, slots[:, slot : slot + 1]] = candidates[None, :, slot]
        legal &= ~on_board[:, candidates[:, slot]]
    value = reading_value(classify_boards(readings.reshape(-1, BOARD_SIZE), rules))
    value = np.where(legal.reshape(-1), value, -1).reshape(n, c)
    best: npt.NDArray[np.int32] = readings[np.arange(n), value.argmax(axis=1)]
    return best


def resolve_jokers(flat: npt.NDArray[np.int32], rules: CompiledRules) -> npt.NDArray[np.int32]:
    """(N, 13) boards with jokers (ids 52, 53) replaced by their best reading."""
    is_joker = flat >= DECK_SIZE
    count = is_joker.sum(axis=1)
    if not count.any():
        return flat
    out = flat.copy()
    singles = np.arange(DECK_SIZE, dtype=np.int32)[:, None]
    a, b = np.meshgrid(np.arange(DECK_SIZE), np.arange(DECK_SIZE), indexing="ij")
    distinct = a != b
    pairs = np.stack([a[distinct], b[distinct]], axis=1).astype(np.int32)
    for jokers, candidates in ((1, singles), (2, pairs)):
        index = np.flatnonzero(count == jokers)
        if not len(index):
            continue
        slots = np.argsort(~is_joker[index], axis=1, kind="stable")[:, :jokers]
        per_chunk = max(1, READINGS_PER_CHUNK // len(candidates))
        for start in range(0, len(index), per_chunk):
            part = index[start : start + per_chunk]
            out[part] = _best(flat[part], slots[start : start + per_chunk], candidates, rules)
    return out
