"""Hands as the dataset's tables, built from per-card arrays: the fast import's one builder.

The app-json and open-format fast readers decode a chunk of hands into flat
columns (one entry per hand, per seat, per placed card) and hand them here.
Everything the record path derives hand by hand (rows, ``board``,
``board_streets``, discards in street order, ``complete``, the fingerprint)
is derived here for the whole chunk with NumPy and Arrow compute, and every
check of :func:`ofc_stats.records.validate_hand` is made on the arrays.  A
hand that fails one is not built: its index comes back so the reader sends
it through the record path, which quarantines it with the exact reason.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.engine.board import DESTINATIONS, ROW_SIZES
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import SMALL_INT, HandRecord
from parsers.base import ColumnarHands, ParseItem

Ints = npt.NDArray[np.int64]
# A column as a reader gives it: a Python sequence or an Arrow array (untyped for mypy).
Texts: TypeAlias = Any
Numbers: TypeAlias = Any
Bools = npt.NDArray[np.bool_]
CARDS = pa.list_(pa.int8())
DISCARD = 3  # DESTINATIONS.index("discard")
_NO_STREET = 255
_DECIMALS = pa.array([str(card) for card in range(128)], pa.string())  # the fingerprint's ids


@dataclass
class HandColumns:
    """One entry per hand of a chunk, in file order."""

    room: Texts
    table_id: Texts
    room_hand_id: Texts
    played_at: pa.Array  # timestamp[us]
    rules_text: Texts
    ruleset: Texts
    max_seats: Ints
    deck: Ints
    stakes: Numbers
    currency: Texts
    line: Ints
    offset: Ints
    raw_text: pa.Array  # string: each hand's text as the file holds it


@dataclass
class SeatColumns:
    """One entry per seat, grouped by hand, each hand's seats in the record's order."""

    hand: Ints  # index into the hand columns
    seat: Ints  # the seat's position
    player: Texts
    player_id: Texts
    hero: Any  # bools: a sequence or an Arrow array
    in_fantasy: Any
    points: Numbers
    money: Numbers
    stack: Numbers
    discards_known: Bools  # False: the room hid this seat's discards (stored as null)


@dataclass
class CardColumns:
    """One entry per placed card, grouped by seat, each seat's in the record's placement order."""

    seat: Ints  # index into the seat columns
    destination: Ints  # index into DESTINATIONS
    street: Ints
    card: Ints


def column(values: Any, value_type: pa.DataType) -> pa.Array:
    """Values as an Arrow column (readers give Python sequences or Arrow arrays)."""
    if isinstance(values, pa.Array):
        return values
    return pa.array(values, value_type)


def _floats(values: Any) -> tuple[pa.Array, Bools]:
    """A float column and where it holds a value that is not finite (validate_hand refuses it)."""
    array = column(values, pa.float64())
    bad = np.asarray(pc.fill_null(pc.invert(pc.is_finite(array)), False), dtype=bool)
    return array, bad


def _lists(
    owner: Ints, values: npt.NDArray[Any], count: int, value_type: pa.DataType
) -> pa.ListArray:
    """``values`` (sorted by ``owner``) as one list per owner ``0..count-1``."""
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(np.bincount(owner, minlength=count), out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, value_type))


def _fixed13(rows: Bools, values: npt.NDArray[np.uint8]) -> pa.Array:
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


def any_of(owner: Ints, flags: Bools, count: int) -> Bools:
    """Per owner ``0..count-1``: whether any of its entries is flagged."""
    return np.bincount(owner[flags], minlength=count) > 0


_any_of = any_of


class Presets:
    """Per ruleset text of a file: its preset's name, seat limit and deck, looked up once.

    ``resolve`` turns the text into a preset name as the format's record path
    does (RulesetError if there is none); :meth:`columns` gives a chunk's
    three hand columns and which hands name no preset (the record path says why).
    """

    def __init__(self, resolve: Callable[[Any], str]) -> None:
        self.resolve = resolve
        self.known: dict[Any, tuple[str, int, int] | None] = {}

    def __call__(self, text: Any) -> tuple[str, int, int] | None:
        if text not in self.known:
            try:
                preset = get_ruleset(self.resolve(text))
                self.known[text] = (preset.name, preset.max_seats, preset.deck.size)
            except OfcError:
                self.known[text] = None
        return self.known[text]

    def columns(self, texts: Sequence[Any]) -> tuple[dict[str, Any], Bools]:
        """``ruleset``, ``max_seats`` and ``deck`` for :class:`HandColumns`; the unknown ones.

        Each distinct text is looked up once (a file names a handful): the
        chunk's texts are dictionary-encoded and the answers taken by index.
        """
        count = len(texts)
        try:
            encoded = pa.array(texts, pa.string()).dictionary_encode(null_encoding="encode")
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # not all strings: one by one
            encoded = None
        if encoded is None:
            distinct: list[Any] = list(texts)
            index = np.arange(count)
        else:
            distinct = encoded.dictionary.to_pylist()
            index = np.asarray(encoded.indices, dtype=np.int64)
        found = [self(text) for text in distinct]
        names = pa.array([f[0] if f else "" for f in found], pa.string())
        seats = np.array([f[1] if f else 0 for f in found], dtype=np.int64)
        decks = np.array([f[2] if f else 0 for f in found], dtype=np.int64)
        unknown = np.array([f is None for f in found], dtype=bool)
        fields = {
            "ruleset": names.take(pa.array(index)),
            "max_seats": seats[index] if count else np.zeros(0, np.int64),
            "deck": decks[index] if count else np.zeros(0, np.int64),
        }
        return fields, unknown[index] if count else np.zeros(0, bool)


def constant(text: str, count: int) -> pa.Array:
    """``count`` copies of one string, built as buffers (no Python object per row)."""
    data = text.encode("utf-8")
    offsets = np.arange(count + 1, dtype=np.int32) * len(data)
    return pa.StringArray.from_buffers(
        count, pa.py_buffer(offsets.tobytes()), pa.py_buffer(data * count)
    )


def texts(data: bytes, starts: list[int], ends: list[int]) -> pa.Array:
    """Slices of one buffer as a string array (the readers checked they are UTF-8).

    One ``bytes.join`` of memoryview slices: a plain copy of each text, where
    Arrow's ``take`` of every other entry of a texts-and-gaps array cost several
    times more.
    """
    count = len(starts)
    if count == 0:
        return pa.array([], pa.string())
    view = memoryview(data)
    joined = b"".join([view[a:b] for a, b in zip(starts, ends, strict=True)])
    offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(np.subtract(ends, starts), out=offsets[1:])
    return pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(joined))


def _md5_prefixes(text: pa.Array) -> pa.Array:
    """The first 16 hex digits of each string's md5 (HandRecord.fingerprint's hash)."""
    count = len(text)
    _, offset_buffer, data = text.buffers()
    offsets = np.frombuffer(offset_buffer, np.int32)[text.offset : text.offset + count + 1]
    view = memoryview(b"" if data is None else data)
    md5 = hashlib.md5
    bounds = offsets.tolist()
    digests = b"".join([md5(view[a:b]).digest()[:8] for a, b in pairwise(bounds)])
    hexed = digests.hex().encode("ascii")
    hex_offsets = np.arange(count + 1, dtype=np.int32) * 16
    return pa.StringArray.from_buffers(
        count, pa.py_buffer(hex_offsets.tobytes()), pa.py_buffer(hexed)
    )


def refused(hands: HandColumns, seats: SeatColumns, cards: CardColumns) -> Bools:
    """Per hand: whether :func:`validate_hand` would refuse it (the builder leaves it out)."""
    count = len(hands.line)
    bad = np.zeros(count, dtype=bool)
    seat_count = np.bincount(seats.hand, minlength=count)
    bad |= (seat_count < 2) | (seat_count > hands.max_seats)
    for values in (seats.points, seats.money, seats.stack):
        bad |= _any_of(seats.hand, _floats(values)[1], count)
    bad |= _floats(hands.stakes)[1]
    bad_seat = (seats.seat < 0) | (seats.seat > SMALL_INT)
    hand_of_card = seats.hand[cards.seat]
    bad_seat_card = (cards.card < 0) | (cards.card >= hands.deck[hand_of_card])
    bad_seat_card |= (cards.street < 0) | (cards.street > SMALL_INT)
    bad |= _any_of(hand_of_card, bad_seat_card, count)
    per_row = np.bincount(cards.seat * 4 + cards.destination, minlength=len(seats.seat) * 4)
    per_row = per_row.reshape(-1, 4)[:, :3]
    top, middle, bottom = ROW_SIZES
    bad_seat |= (per_row[:, 0] > top) | (per_row[:, 1] > middle) | (per_row[:, 2] > bottom)
    bad |= _any_of(seats.hand, bad_seat, count)
    # A card twice in a hand; two seats at one position.
    for keys, width in ((hand_of_card * 64 + cards.card, 64), (seats.hand * 256 + seats.seat, 256)):
        ordered = np.sort(keys)
        twice = ordered[1:][ordered[1:] == ordered[:-1]]
        bad[twice // width] = True
    return bad


def select(
    hands: HandColumns, seats: SeatColumns, cards: CardColumns, keep: Bools
) -> tuple[HandColumns, SeatColumns, CardColumns]:
    """Only the hands where ``keep`` is set, with their seats and cards (renumbered)."""
    hand_index = np.cumsum(keep) - 1
    seat_keep = keep[seats.hand]
    seat_index = np.cumsum(seat_keep) - 1
    card_keep = seat_keep[cards.seat]
    pick, seat_pick = _picker(keep), _picker(seat_keep)
    new_hands = HandColumns(*(pick(value) for value in vars(hands).values()))
    new_seats = SeatColumns(
        hand=hand_index[seats.hand[seat_keep]],
        seat=seats.seat[seat_keep],
        **{
            name: seat_pick(value)
            for name, value in vars(seats).items()
            if name not in ("hand", "seat")
        },
    )
    new_cards = CardColumns(
        seat=seat_index[cards.seat[card_keep]],
        destination=cards.destination[card_keep],
        street=cards.street[card_keep],
        card=cards.card[card_keep],
    )
    return new_hands, new_seats, new_cards


def _picker(mask: Bools) -> Callable[[Any], Any]:
    """Take the rows where ``mask`` is set from a NumPy, Arrow or list column."""
    chosen = np.flatnonzero(mask).tolist()
    arrow_mask = pa.array(mask)  # once for every Arrow column, not once each

    def pick(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return value[mask]
        if isinstance(value, pa.Array):
            return value.filter(arrow_mask)
        return [value[i] for i in chosen]

    return pick


def build(
    format_name: str, source: str, hands: HandColumns, seats: SeatColumns, cards: CardColumns
) -> ColumnarHands:
    """The hands, seats and placements tables of hands that :func:`refused` passed."""
    count, seat_total = len(hands.line), len(seats.seat)
    room, table_id = column(hands.room, pa.string()), column(hands.table_id, pa.string())
    room_hand_id = column(hands.room_hand_id, pa.string())
    prefix = constant(format_name, count)
    hand_key = pc.binary_join_element_wise(prefix, room, table_id, room_hand_id, ":")
    # Seats and placements name their hand by index into the keys (the store decodes them).
    seat_key = pa.DictionaryArray.from_arrays(pa.array(seats.hand, pa.int32()), hand_key)
    hand_line = pa.array(hands.line, pa.int64())

    # Cards ordered by seat, then destination, then placement order: each row's list.
    slot = cards.seat * 4 + cards.destination
    order = np.argsort(slot, kind="stable")
    slot_sorted, card_sorted = slot[order], cards.card[order]
    street_sorted = cards.street[order]
    slot_counts = np.bincount(slot_sorted, minlength=seat_total * 4)
    per_slot = slot_counts.reshape(-1, 4)
    row_lists = []
    for destination in range(3):
        pick = (slot_sorted & 3) == destination
        owner = slot_sorted[pick] >> 2
        row_lists.append(_lists(owner, card_sorted[pick], seat_total, pa.int8()))
    complete_seat = (per_slot[:, :3] == np.array(ROW_SIZES)).all(axis=1)
    complete = ~_any_of(seats.hand, ~complete_seat, count)

    # Fingerprint: md5 of "player US top|middle|bottom|discards" per seat, joined by ";".
    # Every seat's four rows are one list each of the slot-ordered cards: one join of all.
    player = column(seats.player, pa.string())
    known = pa.array(seats.discards_known)
    slot_offsets = np.zeros(seat_total * 4 + 1, dtype=np.int32)
    np.cumsum(slot_counts, out=slot_offsets[1:])
    slot_lists = pa.ListArray.from_arrays(pa.array(slot_offsets), _DECIMALS.take(card_sorted))
    slot_text = pc.binary_join(slot_lists, ",")
    hidden = np.zeros((seat_total, 4), dtype=bool)
    hidden[:, DISCARD] = ~np.asarray(seats.discards_known, dtype=bool)
    slot_text = pc.if_else(pa.array(hidden.ravel()), pa.scalar(""), slot_text)  # hidden: ""
    four = pa.array(np.arange(0, 4 * seat_total + 1, 4, dtype=np.int32))
    rows_text = pc.binary_join(pa.ListArray.from_arrays(four, slot_text), "|")
    seat_text = pc.binary_join_element_wise(player, rows_text, "\x1f")
    seat_offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(np.bincount(seats.hand, minlength=count), out=seat_offsets[1:])
    hand_text = pc.binary_join(pa.ListArray.from_arrays(pa.array(seat_offsets), seat_text), ";")
    fingerprint = _md5_prefixes(hand_text)

    hands_table = pa.table(
        {
            "hand_key": hand_key,
            "format": prefix,
            "room": room,
            "table_id": table_id,
            "room_hand_id": room_hand_id,
            "played_at": hands.played_at,
            "rules_text": column(hands.rules_text, pa.string()),
            "ruleset": column(hands.ruleset, pa.string()),
            "seat_count": pa.array(np.diff(seat_offsets), pa.int8()),
            "complete": pa.array(complete),
            "stakes": column(hands.stakes, pa.float64()),
            "currency": column(hands.currency, pa.string()),
            "source_file": constant(source, count),
            "source_line": hand_line,
            "source_offset": pa.array(hands.offset, pa.int64()),
            "raw_text": hands.raw_text,
            "fingerprint": fingerprint,
            "batch": constant("", count),
        }
    )

    # board: the 13 ids of a complete seat; board_streets: their streets (the seat's
    # non-discard placements are exactly its board, in row order).
    on_board = (slot_sorted & 3) != DISCARD
    board_seat = slot_sorted[on_board] >> 2
    full = complete_seat[board_seat]
    board = _fixed13(complete_seat, card_sorted[on_board][full].astype(np.uint8))
    streets = np.minimum(street_sorted[on_board][full], _NO_STREET).astype(np.uint8)
    board_streets = _fixed13(complete_seat, streets)

    # Discards in street order (stable), null where the room hid them.
    discard_pick = (slot_sorted & 3) == DISCARD
    discard_seat = slot_sorted[discard_pick] >> 2
    by_street = np.lexsort((street_sorted[discard_pick], discard_seat))
    discards = _lists(
        discard_seat[by_street], card_sorted[discard_pick][by_street], seat_total, pa.int8()
    )
    discards = pc.if_else(known, discards, pa.nulls(seat_total, CARDS))
    known = seats.discards_known
    in_fantasy = np.asarray(seats.in_fantasy, dtype=bool)
    dealt = per_slot.sum(axis=1)
    fantasy_mask = ~(in_fantasy & known)
    fantasy_cards = pa.array(dealt.astype(np.int8), pa.int8(), mask=fantasy_mask)
    seat_line = pa.array(hands.line[seats.hand], pa.int64())
    seats_table = pa.table(
        {
            "hand_key": seat_key,
            "seat": pa.array(seats.seat, pa.int8()),
            "player": player,
            "player_id": column(seats.player_id, pa.string()),
            "hero": column(seats.hero, pa.bool_()),
            "in_fantasy": pa.array(in_fantasy),
            "fantasy_cards": fantasy_cards,
            "top": row_lists[0],
            "middle": row_lists[1],
            "bottom": row_lists[2],
            "board": board,
            "board_streets": board_streets,
            "discards": discards,
            "reported_points": column(seats.points, pa.float64()),
            "reported_money": column(seats.money, pa.float64()),
            "stack": column(seats.stack, pa.float64()),
            "source_line": seat_line,
        }
    )

    card_hand_index = seats.hand[cards.seat]
    destination = pa.DictionaryArray.from_arrays(
        pa.array(cards.destination, pa.int8()), pa.array(DESTINATIONS)
    )
    placements = pa.table(
        {
            "hand_key": pa.DictionaryArray.from_arrays(
                pa.array(card_hand_index, pa.int32()), hand_key
            ),
            "seat": pa.array(seats.seat[cards.seat], pa.int8()),
            "street": pa.array(cards.street, pa.int8()),
            "card": pa.array(cards.card, pa.int8()),
            "destination": destination,
            "source_line": pa.array(hands.line[card_hand_index], pa.int64()),
        }
    )
    return ColumnarHands(hands=hands_table, seats=seats_table, placements=placements)


def in_order(
    built: ColumnarHands | None, referred: list[int], record: Callable[[int], ParseItem]
) -> list[ParseItem]:
    """A built chunk in slices with each referred hand's record item in its file place.

    ``referred`` are chunk indices (ascending) of the hands left out of
    ``built``; ``record(index)`` reads one through the record path.  A
    referred hand that comes out refused (a quarantine entry, or a record
    validation refuses) cannot change what the others store, so only a
    valid record needs the columns split around it; any record does here.
    """
    out: list[ParseItem] = []
    done = 0  # rows of ``built`` already out
    for number, index in enumerate(referred):
        item = record(index)
        if isinstance(item, HandRecord) and built is not None:
            before = index - number  # built hands ahead of this one
            if before > done:
                out.append(_rows(built, done, before))
                done = before
        out.append(item)
    if built is not None and built.hands.num_rows > done:
        out.append(_rows(built, done, built.hands.num_rows))
    return out


def _rows(built: ColumnarHands, start: int, stop: int) -> ColumnarHands:
    """Hands ``start..stop`` of a built chunk with their seats and placements."""
    if start == 0 and stop == built.hands.num_rows:
        return built
    lines = np.asarray(built.hands["source_line"])
    bounds = [lines[start], lines[stop - 1] + 1]
    s0, s1 = np.searchsorted(np.asarray(built.seats["source_line"]), bounds)
    c0, c1 = np.searchsorted(np.asarray(built.placements["source_line"]), bounds)
    return ColumnarHands(
        hands=built.hands.slice(start, stop - start),
        seats=built.seats.slice(int(s0), int(s1 - s0)),
        placements=built.placements.slice(int(c0), int(c1 - c0)),
    )
