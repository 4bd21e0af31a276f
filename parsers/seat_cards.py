"""Each seat's rows, board and discards from its cards ordered by slot (seat, destination).

:func:`parsers.columns.build` orders a chunk's cards once by slot; the
list and fixed-size columns of the seats table are then slices, one scatter
or one gather of that order instead of a pass per destination.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
_NO_STREET = 255


def by_slot(
    seat: Ints, destination: Ints, card: Ints, street: Ints, seat_total: int
) -> tuple[Ints, npt.NDArray[np.int8], Ints]:
    """(slot counts (seats, 4), cards, streets) with the cards ordered by seat, then
    destination, then placement order (a reader's cards usually come that way already)."""
    slot = seat * 4 + destination
    if len(slot) > 1 and not (slot[1:] >= slot[:-1]).all():
        # a stable sort of 16-bit keys is NumPy's radix sort: linear, not n log n
        keys = slot.astype(np.uint16) if seat_total * 4 <= 1 << 16 else slot
        order = np.argsort(keys, kind="stable")
        slot, card, street = slot[order], card[order], street[order]
    counts: Ints = np.bincount(slot, minlength=seat_total * 4).reshape(seat_total, 4)
    return counts, card.astype(np.int8), street


def row_lists(counts: Ints, card: npt.NDArray[np.int8]) -> list[pa.ListArray]:
    """Each seat's top, middle, bottom and discards (placement order) as four list columns.

    The slot-ordered cards are moved to destination-major order by one
    scatter: each destination's lists are then one slice.
    """
    seats = len(counts)
    per_card = counts.ravel()
    slot_first = np.cumsum(per_card) - per_card  # each slot's first card, slot order
    major = counts.T.ravel()  # destination-major: all seats' tops, then middles, ...
    major_first = np.zeros(4 * seats + 1, dtype=np.int64)
    np.cumsum(major, out=major_first[1:])
    # where slot (seat, destination) starts in destination-major order
    start = major_first[:-1].reshape(4, seats).T.ravel()
    moved = np.empty_like(card)
    moved[np.arange(len(card)) + np.repeat(start - slot_first, per_card)] = card
    out = []
    for destination in range(4):
        bounds = major_first[destination * seats : (destination + 1) * seats + 1]
        values = moved[bounds[0] : bounds[-1]]
        out.append(
            pa.ListArray.from_arrays(pa.array((bounds - bounds[0]).astype(np.int32)), values)
        )
    return out


def boards(
    complete: Bools, counts: Ints, card: npt.NDArray[np.int8], street: Ints
) -> tuple[pa.Array, pa.Array]:
    """``board`` and ``board_streets``: a complete seat's 13 row cards are its first 13
    in slot order (its discards come after)."""
    per_card = counts.ravel()
    seat_first = (np.cumsum(per_card) - per_card)[0::4]
    at = (seat_first[complete][:, None] + np.arange(13)).ravel()
    board = fixed13(complete, card[at].view(np.uint8))
    streets = np.minimum(street[at], _NO_STREET).astype(np.uint8)
    return board, fixed13(complete, streets)


def discards(
    counts: Ints, card: npt.NDArray[np.int8], street: Ints, placed: pa.ListArray
) -> pa.ListArray:
    """Each seat's discards in street order (stable); ``placed`` is them in placement order."""
    per_card = counts.ravel()
    first = (np.cumsum(per_card) - per_card)[3::4]
    seat_of = np.repeat(np.arange(len(counts)), counts[:, 3])
    at = np.arange(len(seat_of)) + np.repeat(
        first - np.cumsum(counts[:, 3]) + counts[:, 3], counts[:, 3]
    )
    keys = seat_of * 256 + street[at]
    if len(keys) < 2 or (keys[1:] >= keys[:-1]).all():
        return placed  # already in street order (the usual case)
    order = np.argsort(keys, kind="stable")
    return pa.ListArray.from_arrays(placed.offsets, pa.array(card[at][order], pa.int8()))


def fixed13(rows: Bools, values: npt.NDArray[np.uint8]) -> pa.Array:
    """13 bytes per selected row (``values`` holds 13 per selected row, in order), else null."""
    count = len(rows)
    data = np.zeros((count, 13), dtype=np.uint8)
    data[rows] = values.reshape(-1, 13)
    validity = pa.array(rows).buffers()[1]
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(13),
        count,
        [validity, pa.py_buffer(data.tobytes())],
        null_count=count - rows.sum(),
    )
