"""The open format's ``streets`` read from their JSON text by NumPy: no Python object per card.

msgspec hands each seat's ``streets`` over undecoded (``msgspec.Raw``).  A
chunk's texts are checked at once against the one layout writers use
(``[{"cards":[...],"to":[...]},...]``, ``null`` or ``[]``; whitespace
between tokens allowed; cards as one to three letters or digits, or
``null``; destinations spelled out; no escapes), then every card is found
by its quotes and brackets.  A seat in any other layout (keys in another
order, extra keys, numbers for cards, an escape) is not read here: its hand
goes to the definition (:mod:`parsers.open_format`), which says what it makes
of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.engine.board import DESTINATIONS

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
_CARD = '(?:"[0-9A-Za-z]{1,3}"|null)'
_TO = '"(?:top|middle|bottom|discard)"'
_STREET = f'\\{{"cards":\\[(?:{_CARD}(?:,{_CARD})*)?\\],"to":\\[(?:{_TO}(?:,{_TO})*)?\\]\\}}'
STREETS_TEXT = f"^(?:null|\\[(?:{_STREET}(?:,{_STREET})*)?\\])$"
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 13, 32]] = True  # JSON's four
_DESTINATION_OF = np.full(256, -1, dtype=np.int64)  # by a destination's first letter
for _index, _name in enumerate(DESTINATIONS):
    _DESTINATION_OF[ord(_name[0])] = _index
assert len({name[0] for name in DESTINATIONS}) == len(DESTINATIONS)


class CardTable:
    """Card texts (the definition's spellings) to ids: a table by the first two bytes, a
    search for the three-byte spellings (``10h``)."""

    def __init__(self, texts: pa.Array, ids: pa.Array) -> None:
        self.short = np.full(1 << 16, -1, dtype=np.int64)  # (byte 1 << 8 | byte 2 or 0)
        long_codes, long_ids = [], []
        for text, card in zip(texts.to_pylist(), ids.to_pylist(), strict=True):
            spelled = str(text).encode("ascii")
            assert 1 <= len(spelled) <= 3 and 34 not in spelled
            if len(spelled) == 3:
                long_codes.append(int.from_bytes(spelled, "big"))
                long_ids.append(card)
            else:
                self.short[int.from_bytes(spelled.ljust(2, b"\0"), "big")] = card
        order = np.argsort(long_codes)
        self.long_codes = np.array(long_codes, dtype=np.int64)[order]
        self.long_ids = np.array(long_ids, dtype=np.int64)[order]

    def __call__(self, raw: npt.NDArray[np.uint8], quote: Ints) -> Ints:
        """The id of the card string opening at each ``quote``, -1 where no spelling has it."""
        first, second = raw[quote + 1].astype(np.int64), raw[quote + 2].astype(np.int64)
        one = second == 34
        out: Ints = self.short[first << 8 | np.where(one, 0, second)]
        three = ~one & (raw[quote + 3] != 34)
        if three.any() and len(self.long_codes):
            code = first[three] << 16 | second[three] << 8 | raw[quote[three] + 3]
            at = np.minimum(np.searchsorted(self.long_codes, code), len(self.long_codes) - 1)
            out[three] = np.where(self.long_codes[at] == code, self.long_ids[at], -1)
        elif three.any():
            out[three] = -1
        return out


@dataclass
class Cards:
    """Every card of the chunk's readable seats, in file order."""

    seat: Ints  # index into the seats given
    street: Ints  # the street's number within its seat
    card: Ints  # card id; -1 for a spelling no card has (the hand is the definition's)
    destination: Ints  # index into DESTINATIONS
    hidden: Bools  # ``null``: a card the room did not show
    unread: Bools  # per seat: not in the layout read here, or cards and to unpaired


def _buffer(texts: Sequence[Any]) -> tuple[bytes, Ints]:
    """The texts end to end and where each starts (one more entry: the end)."""
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    starts = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    return b"".join(texts), starts


def _compact(data: bytes, starts: Ints) -> tuple[bytes, Ints]:
    """JSON whitespace outside strings removed (a text with an escape is refused later)."""
    if not any(space in data for space in (b" ", b"\t", b"\n", b"\r")):
        return data, starts  # the usual case: one C search each
    raw = np.frombuffer(data, dtype=np.uint8)
    space = _WHITESPACE[raw]
    quotes = np.cumsum(raw == 34)
    seat_of_byte = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    before = np.concatenate(([0], quotes))[starts[:-1]]  # quotes ahead of each text
    inside = ((quotes - (raw == 34) - before[seat_of_byte]) & 1) == 1
    keep = ~space | inside
    kept = np.zeros(len(starts), dtype=np.int64)
    np.cumsum(np.bincount(seat_of_byte[keep], minlength=len(starts) - 1), out=kept[1:])
    return raw[keep].tobytes(), kept


def read(texts: Sequence[Any], cards: CardTable) -> Cards:
    """The cards of each seat's ``streets`` text (``msgspec.Raw`` or bytes)."""
    data, starts = _buffer(texts)
    data, starts = _compact(data, starts)
    count = len(texts)
    array = pa.LargeStringArray.from_buffers(
        count, pa.py_buffer(starts.tobytes()), pa.py_buffer(data)
    )
    try:  # the texts are UTF-8: the reader decodes only lines of a checked block
        matched = pc.match_substring_regex(array, STREETS_TEXT)
        good = np.asarray(pc.fill_null(matched, False), dtype=bool)
    except pa.ArrowInvalid:
        good = np.zeros(count, dtype=bool)
    raw = np.frombuffer(data, dtype=np.uint8)
    # Only readable seats' bytes from here on (so brackets and quotes pair up).
    lengths = np.diff(starts)
    if not good.all():
        raw = raw[np.repeat(good, lengths)]
    good_seats = np.flatnonzero(good)
    seat_starts = np.concatenate(([0], np.cumsum(lengths[good])))[:-1]
    empty = np.zeros(0, dtype=np.int64)
    if len(raw) == 0:
        return Cards(empty, empty, empty, empty, np.zeros(0, bool), ~good)
    # In a checked text every string is letters and digits, so each of [ ] { } , : is
    # structure.  Tokens follow a [ or a comma; lists follow a colon ("cards": and "to":).
    raw = np.concatenate((raw, np.zeros(4, dtype=np.uint8)))  # room to look ahead
    marks = np.flatnonzero((raw == 91) | (raw == 44))
    before, after = raw[marks - 1], raw[marks + 1]
    bracket = raw[marks] == 91
    lists = np.cumsum(bracket & (before == 58))  # inner lists opened up to each mark
    token = (after == 34) | (after == 110)  # a string or null
    token &= bracket | (before != 93)  # not the "to" key after ],
    at = marks[token] + 1
    list_id = lists[token] - 1
    street_global = list_id >> 1
    is_card = (list_id & 1) == 0
    # Streets: each { starts one; its seat and its number there.
    street_at = np.flatnonzero(raw == 123)
    street_seat = np.searchsorted(seat_starts, street_at, side="right") - 1
    first_street = np.searchsorted(street_seat, np.arange(len(good_seats)))
    street_number = np.arange(len(street_at)) - first_street[street_seat]
    street_count = len(street_at)
    unpaired = np.bincount(street_global[is_card], minlength=street_count) != np.bincount(
        street_global[~is_card], minlength=street_count
    )
    unread = ~good
    unread[good_seats[street_seat[unpaired]]] = True
    card_at, to_at = at[is_card], at[~is_card]
    card_street = street_global[is_card]
    hidden = raw[card_at] == 110
    card = np.full(len(card_at), -1, dtype=np.int64)
    card[~hidden] = cards(raw, card_at[~hidden])
    destination = _DESTINATION_OF[raw[to_at + 1]]
    if unpaired.any():  # pairs are only for the paired streets (their seats are unread)
        paired = ~unpaired[card_street]
        card, hidden, card_street = card[paired], hidden[paired], card_street[paired]
        destination = destination[~unpaired[street_global[~is_card]]]
    return Cards(
        seat=good_seats[street_seat[card_street]],
        street=street_number[card_street],
        card=card,
        destination=destination,
        hidden=hidden,
        unread=unread,
    )
