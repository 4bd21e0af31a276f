"""Hands as the dataset's tables, built from per-card arrays: SwC's and fpdb's one builder.

The SwC and fpdb columnar readers decode a chunk of hands into flat columns
(one entry per hand, per seat, per placed card) and hand them here.
Everything the record path derives hand by hand (rows, ``board``,
``board_streets``, discards in street order, ``complete``, the fingerprint)
is derived here for the whole chunk with NumPy and Arrow compute, and every
check of :func:`ofc_stats.records.validate_hand` is made on the arrays.  A
hand that fails one is not built: its index comes back so the reader sends
it through the record path, which quarantines it with the exact reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.engine.board import DESTINATIONS, ROW_SIZES
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import SMALL_INT, HandRecord
from parsers import fingerprints, seat_cards
from parsers.base import ColumnarHands, ParseItem

Ints = npt.NDArray[np.int64]
# A column as a reader gives it: a Python sequence or an Arrow array (untyped for mypy).
Texts: TypeAlias = Any
Numbers: TypeAlias = Any
Bools = npt.NDArray[np.bool_]
CARDS = pa.list_(pa.int8())
DISCARD = 3  # DESTINATIONS.index("discard")
_BIT = np.array([1 << n if n < 64 else 0 for n in range(128)], dtype=np.uint64)


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
            array = column(texts, pa.string())
            encoded = array.dictionary_encode(null_encoding="encode")
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
    card_deck = hands.deck[hand_of_card]
    bad_seat_card = (cards.card < 0) | (cards.card >= card_deck)
    bad_seat_card |= (cards.street < 0) | (cards.street > SMALL_INT)
    bad |= _any_of(hand_of_card, bad_seat_card, count)
    per_row = np.bincount(cards.seat * 4 + cards.destination, minlength=len(seats.seat) * 4)
    per_row = per_row.reshape(-1, 4)[:, :3]
    top, middle, bottom = ROW_SIZES
    bad_seat |= (per_row[:, 0] > top) | (per_row[:, 1] > middle) | (per_row[:, 2] > bottom)
    bad |= _any_of(seats.hand, bad_seat, count)
    bad |= _card_twice(hand_of_card, cards.card, count)
    # Two seats at one position (positions out of range are refused above).
    seat_keys = seats.hand * 128 + np.clip(seats.seat, 0, 127)
    ordered = np.sort(seat_keys)
    bad[ordered[1:][ordered[1:] == ordered[:-1]] >> 7] = True
    return bad


def _card_twice(hand_of_card: Ints, card: Ints, count: int) -> Bools:
    """Per hand: whether a card id is in it twice.

    Cards come grouped by hand: one bit per id OR-ed over each hand's run
    shows a repeat as fewer bits set than cards (ids out of 0..63 are refused
    anyway: they get no bit).
    """
    if len(card) == 0:
        return np.zeros(count, dtype=bool)
    if not (hand_of_card[1:] >= hand_of_card[:-1]).all():  # not grouped: sort the keys
        ordered = np.sort(hand_of_card * 64 + np.clip(card, 0, 63))
        twice = np.zeros(count, dtype=bool)
        twice[ordered[1:][ordered[1:] == ordered[:-1]] >> 6] = True
        return twice
    bits = _BIT[card & 127]
    per_hand = np.bincount(hand_of_card, minlength=count)
    first = np.cumsum(per_hand) - per_hand
    has = per_hand > 0
    ored = np.bitwise_or.reduceat(bits, first[has])
    twice = np.zeros(count, dtype=bool)
    twice[has] = _bits_set(ored) != per_hand[has]
    return twice


_BITS_IN_BYTE = np.array([bin(n).count("1") for n in range(256)], dtype=np.int64)


def _bits_set(words: npt.NDArray[np.uint64]) -> Ints:
    """Bits set in each word (``np.bitwise_count`` from NumPy 2; a byte table before)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).astype(np.int64)
    counted: Ints = _BITS_IN_BYTE[words.view(np.uint8)].reshape(-1, 8).sum(axis=1)
    return counted


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
    seat_hand = pa.array(seats.hand.astype(np.int32))
    seat_key = pa.DictionaryArray.from_arrays(seat_hand, hand_key)
    hand_line = pa.array(hands.line, pa.int64())

    counts, card_sorted, street_sorted = seat_cards.by_slot(
        cards.seat, cards.destination, cards.card, cards.street, seat_total
    )
    top, middle, bottom, placed_discards = seat_cards.row_lists(counts, card_sorted)
    complete_seat = (counts[:, :3] == np.array(ROW_SIZES)).all(axis=1)
    complete = ~_any_of(seats.hand, ~complete_seat, count)

    player = column(seats.player, pa.string())
    known = np.asarray(seats.discards_known, dtype=bool)
    text, text_starts = fingerprints.texts(player, seats.hand, card_sorted, counts, known)
    fingerprint = fingerprints.md5_prefixes(text, text_starts)
    seat_offsets = np.zeros(count + 1, dtype=np.int32)
    np.cumsum(np.bincount(seats.hand, minlength=count), out=seat_offsets[1:])

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
            "seat_count": pa.array(np.diff(seat_offsets).astype(np.int8)),
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

    board, board_streets = seat_cards.boards(complete_seat, counts, card_sorted, street_sorted)
    # Discards in street order (stable), null where the room hid them.
    discards = seat_cards.discards(counts, card_sorted, street_sorted, placed_discards)
    discards = pc.if_else(pa.array(known), discards, pa.nulls(seat_total, CARDS))
    in_fantasy = np.asarray(seats.in_fantasy, dtype=bool)
    dealt = counts.sum(axis=1)
    fantasy_mask = ~(in_fantasy & known)
    fantasy_cards = pa.array(dealt.astype(np.int8), pa.int8(), mask=fantasy_mask)
    seat_line = pa.array(hands.line[seats.hand], pa.int64())
    seat_position = seats.seat.astype(np.int8)
    seats_table = pa.table(
        {
            "hand_key": seat_key,
            "seat": pa.array(seat_position),
            "player": player,
            "player_id": column(seats.player_id, pa.string()),
            "hero": column(seats.hero, pa.bool_()),
            "in_fantasy": pa.array(in_fantasy),
            "fantasy_cards": fantasy_cards,
            "top": top,
            "middle": middle,
            "bottom": bottom,
            "board": board,
            "board_streets": board_streets,
            "discards": discards,
            "reported_points": column(seats.points, pa.float64()),
            "reported_money": column(seats.money, pa.float64()),
            "stack": column(seats.stack, pa.float64()),
            "source_line": seat_line,
        }
    )

    card_seat = cards.seat
    card_hand_index = seats.hand[card_seat]
    destination = pa.DictionaryArray.from_arrays(
        pa.array(cards.destination.astype(np.int8)), pa.array(DESTINATIONS)
    )
    placements = pa.table(
        {
            "hand_key": pa.DictionaryArray.from_arrays(
                pa.array(card_hand_index.astype(np.int32)), hand_key
            ),
            "seat": pa.array(seat_position[card_seat]),
            "street": pa.array(cards.street.astype(np.int8)),
            "card": pa.array(cards.card.astype(np.int8)),
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
    cut: Callable[[int, int], ColumnarHands] | None = None
    for number, index in enumerate(referred):
        item = record(index)
        if isinstance(item, HandRecord) and built is not None:
            before = index - number  # built hands ahead of this one
            if before > done:
                cut = cut or cutter(built)
                out.append(cut(done, before))
                done = before
        out.append(item)
    if built is not None and built.hands.num_rows > done:
        out.append(built if done == 0 else (cut or cutter(built))(done, built.hands.num_rows))
    return out


def cutter(built: ColumnarHands) -> Callable[[int, int], ColumnarHands]:
    """Cuts of a built chunk: hands ``start..stop`` with their seats and placements.

    A hand's seats and placements lie together, in the hands' order; where
    each hand's begin is read from its ``seat_count`` and from which hand
    each placement's ``source_line`` names (one a hand), so the hands need
    not come in line order (SwC's close in the order their tables end them).
    """
    hands = built.hands
    lines = np.asarray(hands["source_line"], np.int64)
    order = np.argsort(lines, kind="stable")
    owner = order[np.searchsorted(lines[order], np.asarray(built.placements["source_line"]))]
    seat_at = np.zeros(len(lines) + 1, np.int64)
    np.cumsum(np.asarray(hands["seat_count"], np.int64), out=seat_at[1:])
    move_at = np.zeros(len(lines) + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=len(lines)), out=move_at[1:])

    def cut(start: int, stop: int) -> ColumnarHands:
        s0, s1, c0, c1 = (
            int(v) for v in (seat_at[start], seat_at[stop], move_at[start], move_at[stop])
        )
        return ColumnarHands(
            hands=hands.slice(start, stop - start),
            seats=built.seats.slice(s0, s1 - s0),
            placements=built.placements.slice(c0, c1 - c0),
        )

    return cut
