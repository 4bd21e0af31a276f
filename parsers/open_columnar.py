"""The open format read in columns: msgspec decodes lines, Arrow and NumPy do the rest.

The per-line parser (:meth:`parsers.open_format.OpenFormatParser.parse_lines`)
is the definition.  This reader takes a line only if it is one ``{...}``
object that msgspec decodes into the typed structs below (every field of the
type the definition reads without converting, cards as strings or null, each
seat's cards given street by street); a chunk's card spellings and
destinations are looked up in one Arrow call each, and
:mod:`parsers.columns` checks and lays out the hands.  Any other line, and
any decoded hand the checks refuse, goes through the definition, in file
order, so both paths store the same rows (``tests/test_fast_import.py``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from typing import Any, BinaryIO, Protocol

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from msgspec.structs import astuple

from ofc_stats.engine.cards import JOKER_1, JOKER_2, card_spellings, parse_card
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, storable_text
from parsers import columns, open_streets
from parsers.base import ColumnarHands, ParseItem
from parsers.fastlines import Block, Lines, decoded_prefix, frozen_gc


class LineParser(Protocol):
    """What this reader needs of the definition (:class:`parsers.open_format.OpenFormatParser`)."""

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]: ...

    def parse_lines(
        self, lines: Iterable[tuple[int, int, bytes]], source: str
    ) -> Iterator[ParseItem]: ...


BLOCK_BYTES = 2 << 20
CHUNK_HANDS = 8192
MAX_FAST_BYTES = 1 << 20


def _spellings() -> pa.Array:
    """Every card text read with one dict lookup, and the jokers' short names."""
    texts = [*card_spellings(), "X", "X1", "x", "x1", "X2", "x2"]
    ids = [parse_card(text) for text in texts]  # the definition's reading of each
    assert JOKER_1 in ids and JOKER_2 in ids
    return pa.array(texts, pa.string()), pa.array(ids, pa.int64())


_CARDS = open_streets.CardTable(*_spellings())


class _Result(msgspec.Struct, gc=False):
    points: float | None = None
    money: float | None = None


class _Seat(msgspec.Struct, gc=False):
    player: str = ""
    player_id: str | None = None
    hero: bool = False
    in_fantasy: bool = False
    stack: float | None = None
    streets: msgspec.Raw = msgspec.Raw(b"null")  # read by open_streets, no object per card
    rows: None = None  # the final-rows form is the definition's to read
    discards: Any = None  # read only in the final-rows form
    result: _Result | None = None


class _Hand(msgspec.Struct, gc=False):
    ofc_format: int
    room: str
    table: str | int
    hand_id: str | int
    ruleset: str
    seats: list[_Seat]
    played_at: str | None = None
    rules_text: str | None = None
    stakes: float | None = None
    currency: str | None = None


_DECODE = msgspec.json.Decoder(_Hand).decode
_HAND_FIELDS = _Hand.__struct_fields__
_SEAT_FIELDS = _Seat.__struct_fields__


def _texts(values: tuple[str | int, ...]) -> pa.Array:
    """Strings as the definition's ``str()`` makes them (ids may be numbers)."""
    try:
        return pa.array(values, pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        return pa.array([str(v) for v in values], pa.string())


_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError)


@dataclass
class _Chunk:
    hands: list[_Hand] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    data: bytes | bytearray = b""
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)  # the text's end
    line_ends: list[int] = field(default_factory=list)  # the line's, newline included


def read_columnar(
    parser: LineParser, stream: BinaryIO, source: str, played_at: Callable[[Any], datetime]
) -> Iterator[ParseItem]:
    """Every item the per-line parser yields for ``stream``, most hands as ColumnarHands.

    ``played_at`` is the definition's reading of a ``played_at`` text.
    """
    if not storable_text(source):
        yield from parser.parse(stream, source)
        return
    yield from _Reader(parser, source, played_at).run(stream)


class _Reader:
    def __init__(
        self, parser: LineParser, source: str, played_at: Callable[[Any], datetime]
    ) -> None:
        self.parser = parser
        self.played_at = played_at
        self.source = source
        self.chunk = _Chunk()
        self.rulesets = columns.Presets(str)
        self.out: list[ParseItem] = []

    def run(self, stream: BinaryIO) -> Iterator[ParseItem]:
        for block in Lines(stream, BLOCK_BYTES, MAX_FAST_BYTES, pretty=False):
            with frozen_gc():  # never across a yield
                self.block(block)
            out, self.out = self.out, []
            yield from out

    def slow_line(self, block: Block, index: int) -> None:
        line = (block.number(index), block.offset(index), block.raw(index))
        for item in self.parser.parse_lines([line], self.source):
            if isinstance(item, HandRecord):
                self.flush()
            self.out.append(item)

    def block(self, block: Block) -> None:
        firsts, others = block.first, block.others
        chunk = self.chunk
        chunk.data = block.data
        index, other = 0, 0
        while index < len(firsts):
            while other < len(others) and others[other] < firsts[index]:
                self.slow_line(block, others[other])
                chunk = self.chunk  # a record hand flushes the chunk
                other += 1
            # The candidates up to the next other line, at most a chunk's room, at once.
            stop = bisect_left(firsts, others[other], index) if other < len(others) else len(firsts)
            stop = min(stop, index + CHUNK_HANDS - len(chunk.hands))
            taken = 0 if block.broken else self.many(chunk, block, index, stop)
            if not taken:  # the first of them is not a plain hand
                self.one(block, index)
                taken = 1
            index += taken
            chunk = self.chunk
            if len(chunk.hands) >= CHUNK_HANDS:
                self.flush()
                chunk = self.chunk
        for line in others[other:]:
            self.slow_line(block, line)
        self.flush()

    def many(self, chunk: _Chunk, block: Block, first: int, end: int) -> int:
        """Candidates ``first..end`` decoded at once into the chunk, up to the first that
        fails; how many were taken."""
        view = memoryview(block.data)
        starts, ends = block.start[first:end], block.end[first:end]
        hands = decoded_prefix(_DECODE, _DECODE_ERRORS, view, starts, ends)
        count = len(hands)
        starts, ends = starts[:count], ends[:count]
        end = first + count
        chunk.hands += hands
        number, offset = block.first_number, block.first_offset
        chunk.lines += [number + line for line in block.first[first:end]]
        chunk.offsets += [offset + start for start in starts]
        chunk.starts += starts
        chunk.ends += ends
        chunk.line_ends += block.line_end[first:end]
        return count

    def one(self, block: Block, index: int) -> None:
        """One candidate: decoded into the chunk, or the definition's line."""
        first, start = block.first[index], block.start[index]
        try:
            if index in block.broken:
                raise UnicodeDecodeError("utf-8", b"", 0, 1, "not UTF-8")
            hand = _DECODE(memoryview(block.data)[start : block.end[index]])
        except _DECODE_ERRORS:
            self.slow_line(block, first)
            return
        chunk = self.chunk
        chunk.hands.append(hand)
        chunk.lines.append(block.first_number + first)
        chunk.offsets.append(block.first_offset + start)
        chunk.starts.append(start)
        chunk.ends.append(block.end[index])
        chunk.line_ends.append(block.line_end[index])

    def flush(self) -> None:
        chunk, self.chunk = self.chunk, _Chunk(data=self.chunk.data)
        if chunk.hands:
            built, referred = self.columns(chunk)
            self.out += columns.in_order(built, referred, lambda index: self.referred(chunk, index))

    def referred(self, chunk: _Chunk, index: int) -> ParseItem:
        """A hand of the chunk the checks refused, through the definition."""
        raw = bytes(chunk.data[chunk.starts[index] : chunk.line_ends[index]])
        line = (chunk.lines[index], chunk.offsets[index], raw)
        items = list(self.parser.parse_lines([line], self.source))
        assert len(items) == 1
        return items[0]

    def columns(self, chunk: _Chunk) -> tuple[ColumnarHands | None, list[int]]:
        hands = chunk.hands
        count = len(hands)
        # One C call per hand and per seat gives all its fields; zip turns them into columns.
        h = dict(zip(_HAND_FIELDS, zip(*map(astuple, hands), strict=True), strict=True))
        referred = np.fromiter((v != 1 for v in h["ofc_format"]), bool, count)
        seat_counts = np.fromiter(map(len, h["seats"]), np.int64, count)
        seats: list[_Seat] = list(chain.from_iterable(h["seats"]))
        # (hands without seats, which the definition refuses, leave the seat columns empty)
        s: dict[str, tuple[Any, ...]] = {name: () for name in _SEAT_FIELDS}
        if seats:
            s = dict(zip(_SEAT_FIELDS, zip(*map(astuple, seats), strict=True), strict=True))
        hand_of_seat = np.repeat(np.arange(count), seat_counts)
        first_seat = np.cumsum(seat_counts) - seat_counts
        position = np.arange(len(seats)) - first_seat[hand_of_seat]

        # Cards from each seat's streets text at once (open_streets: NumPy, no object per card).
        read = open_streets.read(s["streets"], _CARDS)
        referred |= columns.any_of(hand_of_seat, read.unread, count)
        card_seat_array, card_street, card = read.seat, read.street, read.card
        destination_ids, hidden = read.destination, read.hidden
        wrong = (card < 0) & ~hidden
        wrong |= hidden & (destination_ids != columns.DISCARD)
        referred |= columns.any_of(hand_of_seat[card_seat_array], wrong, count)
        discards_known = ~columns.any_of(card_seat_array, hidden, len(seats))
        placed = ~hidden & ~wrong

        presets, unknown = self.rulesets.columns(pa.array(h["ruleset"], pa.string()))
        referred |= unknown
        played_at, bad_date = _times(h["played_at"], self.played_at)
        referred |= bad_date
        results = s["result"]
        hand_columns = columns.HandColumns(
            room=h["room"],
            table_id=_texts(h["table"]),
            room_hand_id=_texts(h["hand_id"]),
            played_at=played_at,
            rules_text=h["rules_text"],
            **presets,
            stakes=pa.array(h["stakes"], pa.float64()),
            currency=h["currency"],
            line=np.array(chunk.lines, dtype=np.int64),
            offset=np.array(chunk.offsets, dtype=np.int64),
            raw_text=columns.texts(chunk.data, chunk.starts, chunk.ends),
        )
        seat_columns = columns.SeatColumns(
            hand=hand_of_seat,
            seat=position,
            player=s["player"],
            player_id=s["player_id"],
            hero=s["hero"],
            in_fantasy=s["in_fantasy"],
            points=pa.array([None if r is None else r.points for r in results], pa.float64()),
            money=pa.array([None if r is None else r.money for r in results], pa.float64()),
            stack=pa.array(s["stack"], pa.float64()),
            discards_known=discards_known,
        )
        card_columns = columns.CardColumns(
            seat=card_seat_array[placed],
            destination=destination_ids[placed],
            street=card_street[placed],
            card=card[placed],
        )
        referred |= columns.refused(hand_columns, seat_columns, card_columns)
        picks = np.flatnonzero(referred).tolist()
        if referred.all():
            return None, picks
        if referred.any():
            hand_columns, seat_columns, card_columns = columns.select(
                hand_columns, seat_columns, card_columns, ~referred
            )
        built = columns.build("open", self.source, hand_columns, seat_columns, card_columns)
        return built, picks


# A local time with no zone and no fraction: what Arrow's cast and fromisoformat read alike.
_PLAIN_TIME = (
    "^[1-9][0-9]{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    "T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$"
)


def _times(
    texts: Sequence[str | None], played_at_of: Callable[[Any], datetime]
) -> tuple[pa.Array, columns.Bools]:
    """Each ``played_at`` as the definition reads it, and where it fails.

    A chunk whose texts are all plain local times (or empty) is cast by
    Arrow at once; any other chunk (a zone, a fraction, February 30) is read
    text by text by the definition.
    """
    array = pa.array(texts, pa.string())
    plain = pc.match_substring_regex(array, _PLAIN_TIME)
    empty = pc.fill_null(pc.equal(array, ""), True)
    if pc.all(pc.or_(pc.fill_null(plain, False), empty)).as_py():
        try:
            values = pc.if_else(empty, pa.scalar(None, pa.string()), array)
            return values.cast(pa.timestamp("us")), np.zeros(len(texts), dtype=bool)
        except (pa.ArrowInvalid, ValueError):
            pass
    return _times_one_by_one(texts, played_at_of)


def _times_one_by_one(
    texts: Sequence[str | None], played_at_of: Callable[[Any], datetime]
) -> tuple[pa.Array, columns.Bools]:
    """The definition's reading of each ``played_at``, and where it fails."""
    values: list[datetime | None] = []
    bad = np.zeros(len(texts), dtype=bool)
    for index, text in enumerate(texts):
        if not text:
            values.append(None)
            continue
        try:
            values.append(played_at_of(text))
        except (OfcError, ValueError, OverflowError):
            values.append(None)
            bad[index] = True
    return pa.array(values, pa.timestamp("us")), bad
