"""Hand records as the dataset's Arrow rows: the record path of every import."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import chain
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.engine.board import DESTINATIONS, ROW_SIZES
from ofc_stats.records import HandRecord, Quarantined, SeatRecord
from ofc_stats.store.schema import CARDS, HANDS, PLACEMENTS, QUARANTINE, SEATS


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def hands_table(
    hands: Sequence[HandRecord], batch: str, fingerprints: Sequence[str] | None = None
) -> dict[str, pa.Table]:
    """The hands, seats and placements rows of some hand records.

    Built a column at a time: one C-level getter per record for the plain
    fields, the card columns and each board card's street in NumPy (no dict
    per row or per seat).  ``fingerprints`` are the hands' own when the
    caller has them (they cost an md5 each).
    """
    keys = pa.array([hand.hand_key for hand in hands], pa.string())
    if fingerprints is None:
        fingerprints = [hand.fingerprint for hand in hands]
    h: dict[str, Any] = dict(zip(_HAND_FIELDS, _columns(hands, _HAND_FIELDS), strict=True))
    h["hand_key"] = keys
    h["seat_count"] = [len(hand.seats) for hand in hands]
    h["complete"] = [hand.complete for hand in hands]
    h["fingerprint"] = fingerprints
    h["batch"] = pa.repeat(pa.scalar(batch, pa.string()), len(hands))
    seats = [seat for hand in hands for seat in hand.seats]
    seat_hand = np.repeat(np.arange(len(hands)), h["seat_count"])
    s: dict[str, Any] = dict(zip(_SEAT_FIELDS, _columns(seats, _SEAT_FIELDS), strict=True))
    s["hand_key"] = keys.take(pa.array(seat_hand))
    placed = [p for hand in hands for p in hand.placements]
    place_hand = np.repeat(np.arange(len(hands)), [len(hand.placements) for hand in hands])
    seat_no, street, card = (np.array(c, np.int64) for c in _columns(placed, _PLACED))
    destination = pc.index_in(
        pa.array([p.destination for p in placed], pa.string()), value_set=_DESTINATIONS
    )
    where = _Placed(place_hand, seat_no, street, card, np.asarray(destination, np.int64))
    s.update(_seat_cards(seats, seat_hand, where))
    placements = {
        "hand_key": keys.take(pa.array(place_hand)),
        "seat": seat_no,
        "street": street,
        "card": card,
        "destination": pa.DictionaryArray.from_arrays(destination.cast(pa.int8()), _DESTINATIONS),
    }
    return {
        "hands": pa.table(h, schema=HANDS),
        "seats": pa.table(s, schema=SEATS),
        "placements": pa.table(placements, schema=PLACEMENTS),
    }


_HAND_FIELDS = [
    name
    for name in HANDS.names
    if name not in ("hand_key", "seat_count", "complete", "fingerprint", "batch")
]
_CARD_COLUMNS = ("hand_key", "top", "middle", "bottom", "board", "board_streets", "discards")
_SEAT_FIELDS = [name for name in SEATS.names if name not in _CARD_COLUMNS]
_PLACED = ["seat", "street", "card"]
_DESTINATIONS = pa.array(DESTINATIONS, pa.string())
_DISCARD = DESTINATIONS.index("discard")


def _columns(items: Sequence[object], names: list[str]) -> list[Any]:
    """The named attributes (two or more) of every item, as one list per name."""
    if not items:
        return [[] for _ in names]
    return [list(column) for column in zip(*map(attrgetter(*names), items), strict=True)]


class _Placed(NamedTuple):
    """The placements as arrays: hand (its index in the batch), seat, street, card, destination."""

    hand: np.ndarray
    seat: np.ndarray
    street: np.ndarray
    card: np.ndarray
    destination: np.ndarray


def _code(hand: np.ndarray, seat: np.ndarray, card: np.ndarray | None = None) -> np.ndarray:
    """One int64 per (hand, seat[, card]): seats and cards are below 256."""
    code: np.ndarray = hand.astype(np.int64) * 256 + seat
    return code if card is None else code * 256 + card


def _last_street(codes: np.ndarray, streets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique codes and the street of each one's last placement (a later one wins)."""
    order = np.lexsort((-np.arange(len(codes)), codes))
    unique, first = np.unique(codes[order], return_index=True)
    return unique, streets[order][first]


def _lookup(unique: np.ndarray, values: np.ndarray, codes: np.ndarray, default: int) -> np.ndarray:
    if len(unique) == 0:
        return np.full(codes.shape, default, np.int64)
    at = np.minimum(np.searchsorted(unique, codes), len(unique) - 1)
    return np.where(unique[at] == codes, values[at], default)


def _cards(rows: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and flat card values of some card tuples."""
    lengths = np.fromiter(map(len, rows), np.int64, len(rows))
    offsets = np.zeros(len(rows) + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, np.fromiter(chain.from_iterable(rows), np.int64, int(offsets[-1]))


def _list(offsets: np.ndarray, values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    mask = None if valid is None else pa.array(~valid)
    return pa.ListArray.from_arrays(
        pa.array(offsets, pa.int32()), pa.array(values, pa.int8()), type=CARDS, mask=mask
    )


def _seat_cards(
    seats: list[SeatRecord], seat_hand: np.ndarray, placed: _Placed
) -> dict[str, pa.Array]:
    """The rows, board, board streets and discards (in street order) of every seat.

    A board card's street is its last non-discard placement's (255 where
    none); a seat with no such placement, or an unfinished board, has none.
    Discards are ordered by their discard placement's street (99 where none).
    """
    count = len(seats)
    seat_no = np.fromiter((seat.seat for seat in seats), np.int64, count)
    out: dict[str, pa.Array] = {}
    rows = {}
    for name in ("top", "middle", "bottom"):
        rows[name] = _cards([getattr(seat, name) for seat in seats])
        out[name] = _list(*rows[name])
    lengths = [np.diff(rows[name][0]) for name in ("top", "middle", "bottom")]
    complete = np.ones(count, bool)
    for length, size in zip(lengths, ROW_SIZES, strict=True):
        complete &= length == size
    whole = np.flatnonzero(complete)
    board = np.zeros((count, 13), np.int64)
    column = 0
    for name, size in zip(("top", "middle", "bottom"), ROW_SIZES, strict=True):
        starts = rows[name][0][whole]
        board[whole, column : column + size] = rows[name][1][starts[:, None] + np.arange(size)]
        column += size
    out["board"] = _binary(board, complete)
    kept = placed.destination != _DISCARD
    unique, streets = _last_street(
        _code(placed.hand[kept], placed.seat[kept], placed.card[kept]), placed.street[kept]
    )
    codes = _code(seat_hand, seat_no)[:, None] * 256 + board
    board_streets = np.minimum(_lookup(unique, streets, codes, 255), 255)
    placed_seats = np.isin(_code(seat_hand, seat_no), _code(placed.hand[kept], placed.seat[kept]))
    out["board_streets"] = _binary(board_streets, complete & placed_seats)
    discards = [seat.discards for seat in seats]
    offsets, values = _cards([cards or () for cards in discards])
    owner = np.repeat(np.arange(count), np.diff(offsets))
    dropped = ~kept
    unique, streets = _last_street(
        _code(placed.hand[dropped], placed.seat[dropped], placed.card[dropped]),
        placed.street[dropped],
    )
    order = _lookup(unique, streets, _code(seat_hand[owner], seat_no[owner], values), 99)
    values = values[np.lexsort((order, owner))]  # stable: equal streets keep their order
    known = np.fromiter((cards is not None for cards in discards), bool, count)
    out["discards"] = _list(offsets, values, known)
    return out


def _binary(values: np.ndarray, valid: np.ndarray) -> pa.Array:
    """13 bytes a row (values 0-255), null where not ``valid``."""
    data = pa.py_buffer(np.ascontiguousarray(values, np.uint8).tobytes())
    validity = pa.py_buffer(np.packbits(valid, bitorder="little").tobytes())
    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(13), len(values), [validity, data])


def storable(text: str | None) -> str | None:
    """Text Arrow can store: a lone surrogate (refused input can hold one) as its escape."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def quarantine_table(entries: Sequence[Quarantined], batch: str) -> pa.Table:
    """The quarantine rows; their text is what was refused, so it is made storable first."""
    now = _now()
    return pa.table(
        {
            "source_file": [storable(q.source_file) for q in entries],
            "line": [q.line for q in entries],
            "offset": [q.offset for q in entries],
            "room_hand_id": [storable(q.hand_id) for q in entries],
            "reason": [storable(q.reason) for q in entries],
            "raw_text": [storable(q.raw_text) for q in entries],
            "quarantined_at": [now] * len(entries),
            "batch": [batch] * len(entries),
        },
        schema=QUARANTINE,
    )


def with_hand_keys(table: pa.Table, hands: pa.Table) -> pa.Table:
    """A table stored keyed by ``hand_id`` with each row's ``hand_key`` first, from ``hands``.

    As the views give ``placements``, ``results`` and ``versus``; a table that
    already has the key (a version-4 placements file) is left as it is.
    """
    if "hand_key" in table.column_names:
        return table
    position = pc.index_in(table["hand_id"], value_set=hands["hand_id"].combine_chunks())
    return table.add_column(0, "hand_key", pc.take(hands["hand_key"], position))
