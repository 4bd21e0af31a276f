"""A chunk's round card lists read from their JSON texts at once: no object per card.

``parsers/fpdb_fast.py`` keeps each round's lists (placed rows, discards,
dealt cards) as the JSON text msgspec checked (``msgspec.Raw``), because a
list object and a string per card were most of the decode's cost.  Here the
chunk's texts are joined into one buffer and read by their quotes alone.  A
list is taken only in the plain forms a room writes:

* ``[]`` or ``null`` (no cards: ``hand_parts`` reads both as none), or
* ``["Ah", "10d", "--"]``: card texts separated by a comma and at most one space,
  each one of ``fpdb_fast.SPELLED`` or ``"--"``, and no backslash.

Any other list (spaces elsewhere, a number, a nested list, an odd card)
is reported not ok, and its hand goes to the per-row path, which reads it
as ``hand_parts`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from parsers.fpdb_fast import HIDDEN, SPELLED

_QUOTE, _COMMA = ord('"'), ord(",")
_OPEN, _CLOSE, _NULL, _SEMICOLON = ord("["), ord("]"), ord("n"), ord(";")
_RANK = np.full(256, -1, dtype=np.int64)  # a card text's first byte -> its rank
_SUIT = np.full(256, -1, dtype=np.int64)  # its last byte -> its suit
_TWO = np.zeros(256, dtype=bool)  # first bytes of a two-letter spelling
for _text, _id in SPELLED.items():
    _RANK[ord(_text[0])], _SUIT[ord(_text[-1])] = _id // 4, _id % 4
    _TWO[ord(_text[0])] |= len(_text) == 2
assert all(_RANK[ord(t[0])] * 4 + _SUIT[ord(t[-1])] == i for t, i in SPELLED.items())
_IS_SUIT = _SUIT >= 0

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


def card_lists(raws: Sequence[msgspec.Raw]) -> tuple[Ints, Ints, Bools]:
    """Every card of the lists (HIDDEN for "--"), the list it is in, and which lists are ok.

    The cards come in the lists' order and each list's own order.
    """
    count = len(raws)
    if not count:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
    joined = b";".join(raws)  # ";" never stands outside a string in JSON
    if b"\\" in joined:
        escaped = np.fromiter((b"\\" in bytes(raw) for raw in raws), bool, count)
        raws = [msgspec.Raw(b"[]") if bad else raw for raw, bad in zip(raws, escaped, strict=True)]
        joined = b";".join(raws)
    else:
        escaped = np.zeros(count, dtype=bool)
    data = np.frombuffer(joined + b"\0", np.uint8)  # the NUL: a byte past every list
    cuts = np.flatnonzero(data == _SEMICOLON)
    if len(cuts) == count - 1:  # no ";" in a string: the cuts are the lists' ends
        lengths = np.diff(np.concatenate(([-1], cuts, [len(data) - 1]))) - 1
    else:
        lengths = np.fromiter(map(len, raws), np.int64, count)
    starts = np.zeros(count, dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=starts[1:])
    ends = starts + lengths  # one past each list's last byte
    is_list = (data[starts] == _OPEN) & (data[ends - 1] == _CLOSE)
    empty = (lengths == 4) & (data[starts] == _NULL)  # the only JSON of 4 bytes from "n"
    empty |= (lengths == 2) & is_list

    # Valid JSON with no backslash: its quotes pair up, each pair one string.
    quotes = np.flatnonzero(data == _QUOTE)
    opens, closes = quotes[0::2], quotes[1::2]
    owner = np.searchsorted(starts, opens, side="right") - 1
    first_of = np.zeros(len(data), dtype=bool)
    first_of[starts[is_list] + 1] = True
    last_of = np.zeros(len(data), dtype=bool)
    last_of[ends[is_list] - 2] = True
    after = data[closes + 1]
    next_open = np.append(opens[1:], -1)
    # (one byte between the comma and the next quote: in valid JSON, a space or a tab)
    joined = (after == _COMMA) & ((next_open == closes + 2) | (next_open == closes + 3))
    left = first_of[opens] | np.r_[False, joined[:-1]]
    right = last_of[closes] | joined

    # Each string a card text: two letters (rank, suit), "10" and a suit, or "--".
    size = closes - opens - 1
    head, second, last = data[opens + 1], data[opens + 2], data[closes - 1]
    hidden = (size == 2) & (head == ord("-")) & (second == ord("-"))
    spelled = (size == 2) & _TWO[head] & _IS_SUIT[second]
    spelled |= (size == 3) & (head == ord("1")) & (second == ord("0")) & _IS_SUIT[last]
    good = left & right & (hidden | spelled)

    strings = np.bincount(owner, minlength=count)
    bad_strings = np.bincount(owner[~good], minlength=count)
    ok = ~escaped & (empty | (is_list & (strings > 0) & (bad_strings == 0)))
    ids = np.where(hidden, HIDDEN, _RANK[head] * 4 + _SUIT[last])
    return ids, owner, ok
