"""A chunk's fingerprints (:func:`ofc_stats.records.fingerprint_of`) written by NumPy.

The fingerprint text of a hand is, per seat, ``player US top|middle|bottom|
discards`` (card ids in decimal, comma separated) joined by ``;``.  Every
byte's place in it follows from the lengths of the players' names and of the
cards' decimals, so the whole chunk's text is laid out with a few cumulative
sums and scatters instead of one string per card; only the md5 is one call
per hand (hashlib has no batch form).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

_md5: Callable[[Any], Any]
try:  # CPython's own md5 (HACL*): a third cheaper than OpenSSL's for texts this short
    from _md5 import md5 as _md5  # type: ignore[import-not-found,no-redef]
except ImportError:  # pragma: no cover - a build without it
    _md5 = hashlib.md5

Ints = npt.NDArray[np.int64]
US, BAR, COMMA, SEMICOLON = 0x1F, ord("|"), ord(","), ord(";")
# Card ids below 100 (every deck is smaller): one or two decimals.  Per id: how many,
# the first, and the second or, for one decimal, the comma that follows it.
_WIDTH = np.array([len(str(n)) for n in range(100)], dtype=np.int64)
_FIRST = np.array([ord(str(n)[0]) for n in range(100)], dtype=np.uint8)
_SECOND = np.array([ord((str(n) + ",")[1]) for n in range(100)], dtype=np.uint8)


def texts(
    player: pa.Array,
    seat_hand: Ints,
    slot_cards: npt.NDArray[Any],
    slot_counts: Ints,
    discards_known: npt.NDArray[np.bool_],
) -> tuple[bytes, Ints]:
    """The chunk's fingerprint texts end to end, and each hand's start (one more: the end).

    ``slot_cards`` are the cards ordered by seat, then destination (top,
    middle, bottom, discard), then placement order; ``slot_counts`` the
    (seats, 4) counts of each slot.  A seat whose discards are unknown shows
    none.  Every hand has a seat and every card id is below 100 (the builder
    refuses other hands).
    """
    seats = len(seat_hand)
    counts = slot_counts.reshape(seats, 4)
    cards = slot_cards
    if not discards_known.all():  # hidden discards are "": their cards are not written
        shown = np.repeat(
            np.tile([True, True, True, False], seats) | discards_known.repeat(4), counts.ravel()
        )
        counts = counts.copy()
        counts[:, 3] *= discards_known
        cards = cards[shown]
    per_slot = counts.ravel()
    cards = cards.astype(np.intp)
    if len(cards) and int(cards.max()) >= 100:
        raise ValueError("card ids of 100 or more have no fingerprint layout here")
    # Every card is written as its decimals and a comma; a slot's last comma is where
    # its terminator goes ("|" after the rows, ";" after the discards but the hand's
    # last), which is written after the cards.
    step = _WIDTH[cards] + 1
    ends = np.zeros(len(cards) + 1, dtype=np.int64)
    np.cumsum(step, out=ends[1:])
    slot_first = np.zeros(4 * seats + 1, dtype=np.int64)
    np.cumsum(per_slot, out=slot_first[1:])
    slot_text = ends[slot_first[1:]] - ends[slot_first[:-1]] - (per_slot > 0)
    last_seat = np.ones(seats, dtype=bool)
    last_seat[:-1] = seat_hand[1:] != seat_hand[:-1]
    terminator = np.ones((seats, 4), dtype=np.int64)
    terminator[:, 3] = ~last_seat
    _, player_offsets, player_data = _buffers(player)
    player_length = np.diff(player_offsets)
    slot_step = (slot_text.reshape(seats, 4) + terminator).ravel()
    seat_start = np.zeros(seats + 1, dtype=np.int64)
    np.cumsum(player_length + 1 + slot_step.reshape(seats, 4).sum(axis=1), out=seat_start[1:])
    out = np.empty(int(seat_start[-1]) + 2, dtype=np.uint8)  # room for two stray bytes
    body = seat_start[:-1] + player_length  # where each seat's US goes
    within = np.cumsum(slot_step) - slot_step  # slot starts from the chunk's first slot
    slot_start = within + np.repeat(body + 1 - within[0::4], 4)
    if len(cards):
        # Three passes in this order: a byte one of them strays onto is one a later
        # pass (or the names and terminators below) owns.
        at = ends[:-1] + np.repeat(slot_start - ends[slot_first[:-1]], per_slot)
        out[at + 2] = COMMA  # the comma after two decimals
        out[at] = _FIRST[cards]
        out[at + 1] = _SECOND[cards]  # the second decimal, or the comma after one
    name_bytes = int(player_offsets[-1] - player_offsets[0])
    if name_bytes:
        where = np.repeat(seat_start[:-1] - player_offsets[:-1], player_length)
        where += np.arange(player_offsets[0], player_offsets[-1])
        names = np.frombuffer(player_data, dtype=np.uint8)
        out[where] = names[player_offsets[0] : player_offsets[-1]]
    out[body] = US
    rows = np.flatnonzero(terminator.ravel())
    out[(slot_start + slot_text)[rows]] = np.where(rows % 4 == 3, SEMICOLON, BAR)
    first_seat = np.flatnonzero(np.concatenate(([True], seat_hand[1:] != seat_hand[:-1])))
    hand_start = np.append(seat_start[first_seat], seat_start[-1])
    return out[:-2].tobytes(), hand_start


def _buffers(array: pa.Array) -> tuple[Any, Ints, Any]:
    """(validity, offsets as int64, data) of a string array, its slice offset applied."""
    validity, offset_buffer, data = array.buffers()
    offsets = np.frombuffer(offset_buffer, np.int32)[array.offset : array.offset + len(array) + 1]
    return validity, offsets.astype(np.int64), b"" if data is None else data


def md5_prefixes(data: bytes, starts: Ints) -> pa.Array:
    """The first 16 hex digits of the md5 of each ``data[starts[i]:starts[i + 1]]``."""
    count = len(starts) - 1
    view = memoryview(data)
    bounds = starts.tolist()
    digests = b"".join([_md5(view[a:b]).digest() for a, b in pairwise(bounds)])
    halves = np.frombuffer(digests, dtype=np.uint8).reshape(count, 16)[:, :8]
    hexed = halves.tobytes().hex().encode("ascii")
    hex_offsets = np.arange(count + 1, dtype=np.int32) * 16
    return pa.StringArray.from_buffers(
        count, pa.py_buffer(hex_offsets.tobytes()), pa.py_buffer(hexed)
    )
