"""App JSON read in columns: msgspec decodes, NumPy parses a chunk's cards at once.

The line-by-line reader of :mod:`parsers.app_records` is the definition.  This
one takes only objects it can prove it reads the same way: a line that is
exactly ``{`` up to the next line that is exactly ``}`` with no blank or
``{``/``}`` line between (the apps' pretty layout), or a line from ``{`` to
``}`` (one object per line), met while the definition would have no object
open; it decodes them with msgspec into typed structs (any other type is a
decode error), checks every card string with one regular expression over the
chunk, and parses all cards from one byte buffer.  Everything else (a broken
object, an odd spelling, a blank line inside an object, a wrong type) goes
line by line through the definition's :class:`~parsers.app_records.Splitter`
or, for a decoded hand the checks refuse, through
:func:`~parsers.app_records.record_item`; hands stay in file order, so both
paths store the same rows (``tests/test_fast_import.py``).
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Any, BinaryIO

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from msgspec.structs import astuple

from ofc_stats.engine.cards import RANK_CHARS, SUIT_CHARS
from ofc_stats.records import HandRecord, Partial, Quarantined, storable_text
from parsers import columns
from parsers.app_records import _PRICE, DEFAULT_APP, FORMAT, Splitter, record_item, ruleset_for
from parsers.base import ColumnarHands, ParseItem
from parsers.fastlines import Block, Lines, decoded_prefix, frozen_gc

BLOCK_BYTES = 2 << 20
CHUNK_HANDS = 8192
MAX_FAST_BYTES = 1 << 20  # an object open for longer than this is the definition's to read
_TOKEN = "[2-9TJQKAtjqka][cdhsCDHS][0-9]"
_ROW = f"(?:{_TOKEN}(?: {_TOKEN})*)?"
# rows "|" dead "|", every card as the apps write it
CARD_TEXT = f"^{_ROW}/{_ROW}/{_ROW}\\|{_ROW}\\|$"
_NONE = pa.scalar("")
_DATE = r"^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$"
_RANK = np.full(256, -1, dtype=np.int64)
_SUIT = np.full(256, -1, dtype=np.int64)
for _index, _char in enumerate(RANK_CHARS):
    _RANK[ord(_char)] = _RANK[ord(_char.lower())] = _index
for _index, _char in enumerate(SUIT_CHARS):
    _SUIT[ord(_char)] = _SUIT[ord(_char.upper())] = _index
# card id by (rank byte << 8 | suit byte); -1 where either is not one the apps write
_CARD_OF = (
    np.where((_RANK[:, None] >= 0) & (_SUIT[None, :] >= 0), _RANK[:, None] * 4 + _SUIT[None, :], -1)
    .astype(np.int8)
    .ravel()
)
_MARKS = np.array([ord("/"), ord("/"), ord("|"), ord("|")], dtype=np.uint8)


class _Seat(msgspec.Struct, gc=False):
    """A seat as the apps write it (their field names); any other type is a decode error."""

    rows: str
    dead: str | None = None
    playerName: str = ""
    playerId: str | int | None = None
    hero: bool = False
    inFantasy: bool = False
    orderIndex: int | msgspec.UnsetType = msgspec.UNSET
    result: float | None = None
    win: float | None = None


class _Hand(msgspec.Struct, gc=False):
    handData: dict[str, list[_Seat]]
    appName: str | None = None
    roomId: str | int = ""
    rules: str | None = None
    stakes: float | None = None
    endDateTime: str | None = None
    price: Any = None


_DECODE = msgspec.json.Decoder(_Hand).decode
_HAND_DATA = attrgetter("handData")
_SEAT_FIELDS = _Seat.__struct_fields__
_HAND_FIELDS = _Hand.__struct_fields__


def _texts(values: tuple[str | int | None, ...]) -> pa.Array:
    """Strings as the definition's ``str()`` makes them (ids may be numbers)."""
    try:
        return pa.array(values, pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        return pa.array([None if v is None else str(v) for v in values], pa.string())


_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError)


@dataclass
class _Chunk:
    """Decoded hands waiting to be laid out as columns."""

    hands: list[_Hand] = field(default_factory=list)
    hand_ids: list[str] = field(default_factory=list)
    seat_lists: list[list[_Seat]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    data: bytes | bytearray = b""  # the block the hands are in (a chunk never spans two)
    starts: list[int] = field(default_factory=list)  # each hand's text in ``data``
    ends: list[int] = field(default_factory=list)

    def raw(self, index: int) -> str:
        return self.data[self.starts[index] : self.ends[index]].decode("utf-8")


def read_columnar(stream: BinaryIO, source: str) -> Iterator[ParseItem]:
    """Every item the record path yields for ``stream``, most hands as ColumnarHands."""
    if not storable_text(source):  # every hand of it is refused: the definition says why
        from parsers.app_records import _objects

        for item in _objects(stream, source):
            yield item if isinstance(item, Quarantined | Partial) else record_item(*item, source)
        return
    yield from _Reader(source).run(stream)


class _Reader:
    """One file: the fast scan, the definition's splitter for what it does not take."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.splitter = Splitter(source)
        self.chunk = _Chunk()
        self.rulesets = columns.Presets(ruleset_for)
        self.prices: dict[str, str | None] = {}
        self.out: list[ParseItem] = []

    def run(self, stream: BinaryIO) -> Iterator[ParseItem]:
        lines = Lines(stream, BLOCK_BYTES, MAX_FAST_BYTES)
        for block in lines:
            with frozen_gc():  # never across a yield: the importer runs with GC on
                self.block(block, lines)
            yield from self.take()
        with frozen_gc():
            self.flush()
            for item in self.splitter.end():
                self.definition(item)
        yield from self.take()

    def take(self) -> list[ParseItem]:
        out, self.out = self.out, []
        return out

    def definition(self, item: tuple[int, int, Any, str] | Quarantined | Partial) -> None:
        """An item of the definition's splitter, in file order after the hands before it."""
        if isinstance(item, Quarantined | Partial):
            self.out.append(item)
            return
        made = record_item(*item, self.source)
        if isinstance(made, HandRecord):
            self.flush()
        self.out.append(made)

    def slow_line(self, block: Block, index: int) -> None:
        for item in self.splitter.line(block.number(index), block.offset(index), block.raw(index)):
            self.definition(item)

    def block(self, block: Block, lines: Lines) -> None:
        """Read one block of whole lines; an object still open at its end waits for the next."""
        firsts, lasts, starts, ends = block.first, block.last, block.start, block.end
        others, broken = block.others, block.broken
        data = block.data
        view = memoryview(data)
        chunk = self.chunk
        chunk.data = data
        line = 0  # the next line not yet read
        candidate, other = 0, 0
        stop = block.count
        if block.open_tail >= 0:
            if block.size - int(block.line_starts[block.open_tail]) > MAX_FAST_BYTES:
                others = others + list(range(block.open_tail, block.count))
            else:
                stop = block.open_tail
                lines.keep_from(stop)
        while True:
            if not self.splitter.idle:
                if line >= stop:
                    break
                self.slow_line(block, line)
                chunk = self.chunk  # a record hand flushes the chunk
                line += 1
                continue
            while candidate < len(firsts) and firsts[candidate] < line:
                candidate += 1
            while other < len(others) and others[other] < line:
                other += 1
            next_other = others[other] if other < len(others) else stop
            if candidate < len(firsts) and firsts[candidate] < next_other:
                room = CHUNK_HANDS - len(chunk.hands)
                end = min(bisect_left(firsts, next_other, candidate), candidate + room)
                taken = self.many(chunk, block, candidate, end) if not broken else 0
                if taken:
                    line = lasts[candidate + taken - 1] + 1
                    if len(chunk.hands) >= CHUNK_HANDS:
                        self.flush()
                        chunk = self.chunk
                        chunk.data = data
                    continue
                index = candidate
                first = firsts[index]
                try:
                    if index in broken:
                        raise ValueError("not UTF-8")
                    hand = _DECODE(view[starts[index] : ends[index]])
                    ((hand_id, seats),) = hand.handData.items()
                except (*_DECODE_ERRORS, ValueError):
                    self.slow_line(block, first)
                    chunk = self.chunk  # a record hand flushes the chunk
                    line = first + 1
                    continue
                chunk.hands.append(hand)
                chunk.hand_ids.append(hand_id)
                chunk.seat_lists.append(seats)
                chunk.lines.append(block.first_number + first)
                chunk.offsets.append(block.first_offset + starts[index])
                chunk.starts.append(starts[index])
                chunk.ends.append(ends[index])
                line = lasts[index] + 1
                if len(chunk.hands) >= CHUNK_HANDS:
                    self.flush()
                    chunk = self.chunk
                    chunk.data = data
            elif next_other < stop:
                self.slow_line(block, next_other)
                chunk = self.chunk  # a record hand flushes the chunk
                line = next_other + 1
            else:
                break
        self.flush()  # the chunk's texts are in this block

    def many(self, chunk: _Chunk, block: Block, first: int, end: int) -> int:
        """Candidates ``first..end`` (no other line between) decoded at once into the chunk,
        up to the first that is not a plain hand (the caller reads that one on its own);
        how many were taken."""
        view = memoryview(block.data)
        starts, ends = block.start[first:end], block.end[first:end]
        hands = decoded_prefix(_DECODE, _DECODE_ERRORS, view, starts, ends)
        data = list(map(_HAND_DATA, hands))
        sizes = list(map(len, data))
        if sizes and (min(sizes) != 1 or max(sizes) != 1):  # one hand id a hand: the rest
            data = data[: next(i for i, size in enumerate(sizes) if size != 1)]  # is the
            hands = hands[: len(data)]  # definition's
        count = len(hands)
        if not count:
            return 0
        starts, ends, end = starts[:count], ends[:count], first + count
        ids, seats = zip(*map(dict.popitem, data), strict=True)  # (the dicts are ours)
        chunk.hands += hands
        chunk.hand_ids += ids
        chunk.seat_lists += seats
        chunk.lines += (block.first_array[first:end] + block.first_number).tolist()
        chunk.offsets += (block.start_array[first:end] + block.first_offset).tolist()
        chunk.starts += starts
        chunk.ends += ends
        return count

    def flush(self) -> None:
        """The collected hands as columns, split where a hand takes the record path."""
        chunk, self.chunk = self.chunk, _Chunk(data=self.chunk.data)
        if chunk.hands:
            built, referred = self.columns(chunk)
            self.out += columns.in_order(built, referred, lambda index: self.referred(chunk, index))

    def columns(self, chunk: _Chunk) -> tuple[ColumnarHands | None, list[int]]:
        """Lay the chunk out; returns the tables and the hands the record path must read."""
        count = len(chunk.hands)
        seat_counts = np.fromiter(map(len, chunk.seat_lists), np.int64, count)
        seats: list[_Seat] = list(chain.from_iterable(chunk.seat_lists))
        total = len(seats)
        hand_of_seat = np.repeat(np.arange(count), seat_counts)
        within = np.arange(total) - np.repeat(np.cumsum(seat_counts) - seat_counts, seat_counts)
        referred = seat_counts == 0
        if total == 0:
            return None, np.flatnonzero(referred).tolist()
        # One C call per seat gives all its fields; zip turns them into columns.
        fields = dict(zip(_SEAT_FIELDS, zip(*map(astuple, seats), strict=True), strict=True))
        given = fields["orderIndex"]
        if msgspec.UNSET in given:  # a seat without orderIndex is at its index
            at = within.tolist()
            given = tuple(w if o is msgspec.UNSET else o for o, w in zip(given, at, strict=True))
        order = np.array(given, dtype=np.int64)
        referred |= columns.any_of(hand_of_seat, (order < 0) | (order > 127), count)
        # The definition sorts seats by position (stably).
        perm = np.lexsort((within, order, hand_of_seat))
        order = order[perm]
        in_order = bool((perm == np.arange(total)).all())  # the usual case: nothing to move
        take = pa.array(perm)

        def seated(values: Any) -> pa.Array:
            return values if in_order else values.take(take)

        rows = seated(pa.array(fields["rows"], pa.string()))
        dead = seated(pa.array(fields["dead"], pa.string()))
        texts = pc.binary_join_element_wise(
            rows, dead, _NONE, "|", null_handling="replace", null_replacement=""
        )
        read = _cards(texts)
        if read is None:  # some text is not cards as the apps write them: which ones
            good_text = pc.fill_null(pc.match_substring_regex(texts, CARD_TEXT), False)
            referred |= columns.any_of(hand_of_seat, ~np.asarray(good_text, dtype=bool), count)
            read = _cards(pc.if_else(good_text, texts, pa.scalar("//||")))
            assert read is not None
        card_seat, destination, street, card = read

        hand_fields = dict(
            zip(_HAND_FIELDS, zip(*map(astuple, chunk.hands), strict=True), strict=True)
        )
        rules = pa.array(hand_fields["rules"], pa.string())
        presets, unknown = self.rulesets.columns(rules)
        referred |= unknown
        played_at, bad_date = _dates(hand_fields["endDateTime"])
        referred |= bad_date
        hands = columns.HandColumns(
            room=_or_default(hand_fields["appName"]),
            table_id=_texts(hand_fields["roomId"]),
            room_hand_id=chunk.hand_ids,
            played_at=played_at,
            rules_text=rules,
            **presets,
            stakes=pa.array(hand_fields["stakes"], pa.float64()),
            currency=self.currencies(hand_fields["price"]),
            line=np.array(chunk.lines, dtype=np.int64),
            offset=np.array(chunk.offsets, dtype=np.int64),
            raw_text=columns.texts(chunk.data, chunk.starts, chunk.ends),
        )
        seat_columns = columns.SeatColumns(
            hand=hand_of_seat,
            seat=order,
            player=seated(pa.array(fields["playerName"], pa.string())),
            player_id=seated(_texts(fields["playerId"])),
            hero=seated(pa.array(fields["hero"], pa.bool_())),
            in_fantasy=np.array(fields["inFantasy"], dtype=bool)[perm],
            points=seated(pa.array(fields["result"], pa.float64())),
            money=seated(pa.array(fields["win"], pa.float64())),
            stack=pa.nulls(total, pa.float64()),
            discards_known=np.asarray(pc.fill_null(pc.not_equal(dead, ""), False), dtype=bool),
        )
        card_columns = columns.CardColumns(card_seat, destination, street, card)
        referred |= columns.refused(hands, seat_columns, card_columns)
        if referred.all():
            return None, np.flatnonzero(referred).tolist()
        if referred.any():
            hands, seat_columns, card_columns = columns.select(
                hands, seat_columns, card_columns, ~referred
            )
        built = columns.build(FORMAT, self.source, hands, seat_columns, card_columns)
        return built, np.flatnonzero(referred).tolist()

    def referred(self, chunk: _Chunk, index: int) -> ParseItem:
        """A hand of the chunk the checks refused, through the record path."""
        raw = chunk.raw(index)
        line, offset = chunk.lines[index], chunk.offsets[index]
        return record_item(line, offset, json.loads(raw), raw, self.source)

    def currencies(self, prices: tuple[Any, ...]) -> pa.Array:
        """Each hand's currency from its price text, each distinct text read once."""
        try:
            encoded = pa.array(prices, pa.string()).dictionary_encode()
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # a price that is no string
            return pa.array([self.currency(p) for p in prices], pa.string())
        distinct = [self.currency(p) for p in encoded.dictionary.to_pylist()]
        return pa.array(distinct, pa.string()).take(encoded.indices)

    def currency(self, price: Any) -> str | None:
        if not isinstance(price, str):
            return None
        if price not in self.prices:
            match = _PRICE.match(price)
            self.prices[price] = match.group(2).upper() if match else None
        return self.prices[price]


def _cards(texts: pa.Array) -> tuple[Any, Any, Any, Any] | None:
    """(seat, destination, street, card) of every card in ``rows|dead|`` texts, or None
    unless every text matches :data:`CARD_TEXT`.

    The check is the regular expression's, on the bytes of all texts at once:
    the separators (space, ``/``, ``|``) split the bytes into runs, and a text
    matches exactly when every run is three bytes (rank, suit, street digit),
    every space has a run on both sides, and its marks are ``/ / | |`` with
    the last at its end.  A card's seat and destination are then the marks
    before it: ``4 * seat + destination``.
    """
    _, offset_buffer, buffer = texts.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int32)[
        texts.offset : texts.offset + len(texts) + 1
    ]
    raw = np.frombuffer(buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
    count = len(texts)
    space = raw == 32
    mark = (raw == 47) | (raw == 124)
    separators = np.flatnonzero(space | mark)
    is_mark = mark[separators]
    marks = separators[is_mark]
    if len(marks) != 4 * count:
        return None
    kinds = raw[marks].reshape(count, 4)
    if not ((kinds == _MARKS).all() and (marks[3::4] == offsets[1:] - offsets[0] - 1).all()):
        return None
    gap = np.diff(separators, prepend=-1)
    ends = gap == 4  # a card ends just before this separator
    if not (ends | (gap == 1)).all():
        return None
    if not (is_mark | (ends & np.append(ends[1:], False))).all():  # a space between cards
        return None
    at = separators[ends] - 3
    # (rank byte << 8 | suit byte) of each card, read through a 2-byte view at every offset
    pairs = np.ndarray((len(raw) - 1,), ">u2", raw.data, strides=(1,)) if len(raw) > 1 else raw
    card = _CARD_OF[pairs[at]]
    street = raw[at + 2] - np.uint8(48)
    if not ((card >= 0).all() and (street <= 9).all()):
        return None
    before = (np.cumsum(is_mark, dtype=np.int32) - is_mark)[ends]
    return before >> 2, before & 3, street.astype(np.int64), card.astype(np.int64)


def _or_default(names: tuple[str | None, ...]) -> pa.Array:
    """Each hand's app, the definition's ``appName or DEFAULT_APP``."""
    array = pa.array(names, pa.string())
    return pc.if_else(pc.fill_null(pc.equal(array, ""), True), DEFAULT_APP, array)


def _dates(texts: tuple[str | None, ...]) -> tuple[pa.Array, Any]:
    """``YYYY-MM-DD HH:MM:SS`` texts as timestamps, and where one is not exactly that
    (an empty text is no date, as null is).

    Arrow's ISO parser reads exactly what ``strptime`` with that format does
    for texts of that shape (checked first); a chunk with an impossible date
    (February 30) is read again text by text, and that hand is referred.
    """
    array = pa.array(texts, pa.string())
    array = pc.if_else(pc.equal(array, ""), pa.scalar(None, pa.string()), array)
    shaped = pc.fill_null(pc.match_substring_regex(array, _DATE), True)
    bad = ~np.asarray(shaped, dtype=bool)
    clean = pc.if_else(shaped, array, pa.scalar(None, pa.string()))
    try:
        return clean.cast(pa.timestamp("us")), bad
    except (pa.ArrowInvalid, ValueError):
        parsed = pc.strptime(clean, format="%Y-%m-%d %H:%M:%S", unit="us", error_is_null=True)
        again = pc.strftime(parsed, format="%Y-%m-%d %H:%M:%S")  # strptime rolls Feb 30 over
        same = pc.equal(again, pc.binary_join_element_wise(clean, pa.scalar(".000000"), ""))
        bad |= ~np.asarray(pc.fill_null(same, True), dtype=bool)
        bad |= np.asarray(pc.and_(parsed.is_null(), clean.is_valid()), dtype=bool)
        return pc.if_else(pa.array(bad), pa.scalar(None, pa.timestamp("us")), parsed), bad
