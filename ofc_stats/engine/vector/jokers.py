"""Reading jokers for many boards at once, the same search as :mod:`jokers`.

Rows are independent once the jokers' values are fixed, so only a row that
holds a joker is ranked once per value (52 values, or 52 x 52 for two jokers
in one row); the readings of the whole board are then combined with integer
operations and the best kept by one number that orders readings exactly as
the scalar search does: not fouled, then royalties, then bottom, middle and
top strength.  Boards are grouped by which rows hold their jokers, and work is
chunked so memory stays bounded.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.board import BOARD_SIZE, ROW_SLICES
from ofc_stats.engine.cards import DECK_SIZE
from ofc_stats.engine.vector.boards import fouled_rows, royalty_sum
from ofc_stats.engine.vector.rank_tables import classify_rows
from ofc_stats.engine.vector.rule_arrays import CompiledRules

ROWS_PER_CHUNK = 1 << 20
ROW_OF = np.repeat(np.arange(3), [3, 5, 5])
VALUES = np.arange(DECK_SIZE, dtype=np.int8)


def _row_classes(boards: npt.NDArray[np.int8], row: int, slots: list[int]) -> npt.NDArray[np.int16]:
    """Classes of one row for every value of its jokers: (n,), (n, 52) or (n, 52, 52)."""
    cells = boards[:, ROW_SLICES[row]]
    n, size = cells.shape
    if not slots:
        return classify_rows(cells)
    start = ROW_SLICES[row].start
    if len(slots) == 1:
        variants = np.repeat(cells[:, None, :], DECK_SIZE, axis=1)
        variants[:, :, slots[0] - start] = VALUES[None, :]
        return classify_rows(variants.reshape(-1, size)).reshape(n, DECK_SIZE)
    variants = np.repeat(cells[:, None, :], DECK_SIZE * DECK_SIZE, axis=1)
    variants = variants.reshape(n, DECK_SIZE, DECK_SIZE, size)
    variants[:, :, :, slots[0] - start] = VALUES[None, :, None]
    variants[:, :, :, slots[1] - start] = VALUES[None, None, :]
    return classify_rows(variants.reshape(-1, size)).reshape(n, DECK_SIZE, DECK_SIZE)


def _resolve_group(
    boards: npt.NDArray[np.int8], slots: list[int], rules: CompiledRules
) -> npt.NDArray[np.int8]:
    """Best reading of boards whose jokers sit at the same positions ``slots``."""
    n = len(boards)
    two = len(slots) == 2
    shape = (n, DECK_SIZE, DECK_SIZE if two else 1)
    classes = []
    for row in range(3):
        mine = [s for s in slots if ROW_OF[s] == row]
        found = _row_classes(boards, row, mine)
        if not mine:
            found = found[:, None, None]
        elif len(mine) == 1:
            axis_first = mine[0] == slots[0]
            found = found[:, :, None] if axis_first else found[:, None, :]
        classes.append(np.broadcast_to(found, shape))
    top, middle, bottom = classes
    fouled = fouled_rows(top, middle, bottom)
    royalty = royalty_sum(rules, top, middle, bottom)
    royalty[fouled] = 0
    value = (~fouled).astype(np.int64) << 16 | np.minimum(royalty, 65535)
    value = value << 13 | bottom
    value = value << 13 | middle
    value = value << 9 | top
    on_board = np.zeros((n, DECK_SIZE + 2), dtype=bool)
    on_board[np.arange(n)[:, None], boards] = True
    legal = ~on_board[:, :DECK_SIZE, None]
    if two:
        legal = legal & ~on_board[:, None, :DECK_SIZE] & ~np.eye(DECK_SIZE, dtype=bool)[None]
    value = np.where(np.broadcast_to(legal, shape), value, -1).reshape(n, -1)
    best = value.argmax(axis=1)
    out = boards.copy()
    out[:, slots[0]] = best // shape[2]
    if two:
        out[:, slots[1]] = best % shape[2]
    return out


def resolve_jokers(flat: npt.NDArray[np.integer], rules: CompiledRules) -> npt.NDArray[np.int8]:
    """(N, 13) boards with jokers (ids 52, 53) replaced by their best reading."""
    boards = np.asarray(flat, dtype=np.int8)
    is_joker = boards >= DECK_SIZE
    with_jokers = np.flatnonzero(is_joker.any(axis=1))
    if not len(with_jokers):
        return boards
    out = boards.copy()
    # Group boards by where their jokers sit: each group is one vectorised search.
    positions = is_joker[with_jokers] * (np.arange(BOARD_SIZE) + 1)
    keys = np.sort(positions, axis=1)[:, -2:]
    groups, group_of = np.unique(keys, axis=0, return_inverse=True)
    order = np.argsort(group_of.ravel(), kind="stable")
    bounds = np.searchsorted(group_of.ravel()[order], np.arange(len(groups) + 1))
    for index, key in enumerate(groups):
        slots = [int(k) - 1 for k in key if k]
        members = with_jokers[order[bounds[index] : bounds[index + 1]]]
        per_chunk = max(1, ROWS_PER_CHUNK // DECK_SIZE ** len(slots))
        for start in range(0, len(members), per_chunk):
            part = members[start : start + per_chunk]
            out[part] = _resolve_group(boards[part], slots, rules)
    return out
