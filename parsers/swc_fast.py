"""SwC captures a block at a time: one msgspec call decodes a megabyte of lines into typed structs.

Decoding a line to dicts and walking them cost more than the fold itself, so
the columnar reader hands whole blocks to ``msgspec`` with struct types that
hold only the fields the fold reads (the rest is skipped, never built).  A
block takes this lane only when it surely decodes to what ``json.loads`` gives
line by line:

* it is UTF-8 and every line starts with ``{`` and ends with ``}`` (then no
  value can run across a line break, so the n values msgspec returns are the
  n lines'),
* no line is long enough to hold a number or a nesting json would refuse
  (``int`` digit limit, recursion depth), and
* msgspec accepts every line under the struct types (each field of a type the
  record path compares or converts exactly as msgspec's value: ints, strings,
  nulls, finite floats for points).

A refused block is halved a few times, so an odd line takes a small piece of
it to the record path's per-line reader (on the same fold state); fpdb-3 raw
archive records are unwrapped here too (:func:`archived`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, BinaryIO, NamedTuple

import msgspec
import numpy as np

from parsers import fast_json
from parsers.swc_fold import (
    FANTASY_TEXT,
    FRAME_PREFIX,
    PINEAPPLE_CODES,
    UNKNOWN_TABLE,
    Hand,
    Seat,
    Tables,
    fantasy_jump,
    fantasy_names,
    fold_layout,
    street_of,
)

BLOCK_BYTES = 1 << 20  # bytes of capture decoded per msgspec call
SPLITS = 4  # a block refused is halved this many times before its lines go one by one
# json refuses a document nested ~1,000 deep (RecursionError) or an integer of more than
# 4,300 digits; msgspec reads both.  Lines shorter than these cannot hold either.
_MAX_BRACKETS = 400  # brackets a line may open (fast_json's bound, far below json's)
DEEP_LINE = 2 * _MAX_BRACKETS  # each level costs two characters
LONG_LINE = 4_300
_DIGIT_RUNS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
_LONG_NUMBER = b"0" * 20
NEWLINE, OPEN, CLOSE, BRACKET = ord("\n"), ord("{"), ord("}"), ord("[")
FANTASY_BYTES = FANTASY_TEXT.encode()
Plain = int | str | None  # values whose == is their JSON text's (what state_key's tuple holds)
Points = Annotated[int, msgspec.Meta(ge=-(2**53), le=2**53)] | float | None


class SeatMsg(msgspec.Struct, gc=False):
    n: Plain = None
    c: Plain = None
    b: Plain = None
    d: Plain = None
    p: Points = None


class TableMsg(msgspec.Struct, gc=False):
    c: Plain = None
    p: Plain = None


class ShowdownMsg(msgspec.Struct, gc=False):
    hc: Plain = None


class StateMsg(msgspec.Struct, gc=False):
    gi: Plain = None
    ti: Plain = None
    gt: int = 74
    ts: Plain = None
    d: TableMsg | None = None
    s: list[SeatMsg | None] | None = None
    ss: ShowdownMsg | None = None


class LineMsg(msgspec.Struct, gc=False):
    t: Plain = None
    gameState: StateMsg | None = None
    events: msgspec.Raw = msgspec.Raw(b"null")
    captured_at: str | None = None
    payload: Plain | msgspec.UnsetType = msgspec.UNSET  # set: a raw archive record
    message_type: Plain = None


DECODER = msgspec.json.Decoder(LineMsg)
FRAME = msgspec.json.Decoder(tuple[str, str])  # a Socket.IO event: ["proxy-message", "{...}"]
SKIP = LineMsg()  # a line the record path passes over (it has no GameState)


def archived(record: LineMsg) -> LineMsg | None:
    """The proxy message a raw archive record carries (``SKIP`` if none); None: read it per line.

    The steps of the record path's ``_game_state``; a frame or message msgspec
    might read otherwise than json (or not as these types) is left to it.
    """
    payload = record.payload
    if record.message_type != "GameState" or not isinstance(payload, str):
        return SKIP
    if not payload.startswith(FRAME_PREFIX):
        return SKIP
    try:
        name, text = FRAME.decode(payload[len(FRAME_PREFIX) :])
    except msgspec.DecodeError:
        return None
    if name != "proxy-message":
        return SKIP
    if len(text) >= DEEP_LINE and not json_alike(text.encode("utf-8", "surrogatepass")):
        return None
    try:
        message = DECODER.decode(text)
    except msgspec.DecodeError:
        return None
    return message if message.t == "GameState" and message.gameState is not None else SKIP


def json_alike(text: bytes, start: int = 0, end: int | None = None) -> bool:
    """Whether ``text[start:end]`` is shallow and holds no number json would refuse."""
    end = len(text) if end is None else end
    if text.count(b"[", start, end) + text.count(b"{", start, end) >= _MAX_BRACKETS:
        return False
    if end - start < LONG_LINE:
        return True
    return _LONG_NUMBER not in text[start:end].translate(_DIGIT_RUNS)


class Block(NamedTuple):
    """Lines ``first``, ``first + 1``, ... decoded together: line i is ends[i-1] to ends[i].

    ``text`` is the block as a string when it is ASCII (offsets are characters
    then), else its UTF-8 bytes (a slice is decoded where a text is needed).
    """

    first: int
    text: str | bytes
    ends: list[int]  # where each line ends (after its newline)
    messages: list[LineMsg]

    def line(self, start: int, end: int) -> str:
        piece = self.text[start:end]
        return piece if isinstance(piece, str) else piece.decode("utf-8")


def blocks(stream: BinaryIO) -> Iterator[Block | tuple[int, bytes]]:
    """The stream as decoded blocks, and (number, raw line) for lines the record path reads.

    Lines end at each newline byte and are numbered from 1, as iterating the stream does.
    """
    read = stream.read
    number = 1
    pending: list[bytes] = []  # the start of a line longer than a block, piece by piece
    carry = b""
    while True:
        data = read(BLOCK_BYTES)
        if not data:
            break
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            pending.append(data)  # joined once its newline comes: no copy per block
            continue
        if carry or pending:
            head = b"".join([carry, *pending, data[:cut]])
            pending = []
        else:
            head = data[:cut]
        carry = data[cut:]
        yield from _pieces(head, number, SPLITS)
        number += head.count(b"\n")
    carry = b"".join([carry, *pending])
    if carry:
        yield number, carry


def _pieces(block: bytes, number: int, splits: int) -> Iterator[Block | tuple[int, bytes]]:
    """A block decoded, or its halves (``splits`` times at most), or its lines one by one.

    Halving keeps a rare odd line from sending a whole megabyte through the
    per-line reader, at no more than ``SPLITS`` extra decodes of a block.
    """
    decoded = _decoded(block, number)
    if decoded is not None:
        yield decoded
        return
    middle = block.find(b"\n", len(block) // 2) + 1
    if splits and 0 < middle < len(block):
        yield from _pieces(block[:middle], number, splits - 1)
        yield from _pieces(block[middle:], number + block.count(b"\n", 0, middle), splits - 1)
        return
    for raw in block.split(b"\n")[:-1]:
        yield number, raw + b"\n"
        number += 1


def _decoded(block: bytes, first: int) -> Block | None:
    """The block's lines decoded, or None when any line needs the record path's reader."""
    text: str | bytes = block
    if block.isascii():
        text = block.decode("ascii")
    else:
        try:
            block.decode("utf-8")  # the record path decodes each line so (a BOM fails below)
        except UnicodeDecodeError:
            return None
    bytes_ = np.frombuffer(block, np.uint8)
    ends = np.flatnonzero(bytes_ == NEWLINE) + 1
    starts = np.concatenate(([0], ends[:-1]))
    if not ((bytes_[starts] == OPEN).all() and (bytes_[ends - 2] == CLOSE).all()):
        return None  # a blank line, a line not one object, or a line ending in "\r"
    lengths = ends - starts
    if (lengths >= DEEP_LINE).any():
        # Brackets per line: their places, counted between line ends (a line deep
        # enough for json to refuse holds _MAX_BRACKETS of them).
        brackets = np.flatnonzero((bytes_ == OPEN) | (bytes_ == BRACKET))
        per_line = np.bincount(np.searchsorted(ends, brackets, side="right"), minlength=len(ends))
        if (per_line[: len(ends)] >= _MAX_BRACKETS).any():
            return None
        for index in np.flatnonzero(lengths >= LONG_LINE).tolist():
            if not json_alike(block, int(starts[index]), int(ends[index])):
                return None
    try:
        messages = DECODER.decode_lines(block)
    except msgspec.DecodeError:
        return None
    if len(messages) != len(ends):
        return None
    return Block(first, text, ends.tolist(), messages)


def snapshot(
    tables: Tables,
    message: LineMsg,
    captured_at: str | None,
    text: str | bytes,
    start: int,
    end: int,
    number: int,
) -> None:
    """:func:`parsers.swc_fold.snapshot` for a typed line, step for step (same errors too).

    The line is ``text[start:end]``; ``message`` has a GameState (for a raw
    archive record, the one it carries: ``captured_at`` is the record's).
    Lines folded here are not remembered as texts: the record path's reader,
    meeting one again, decodes it and finds its state key.
    """
    state = message.gameState
    assert state is not None
    gi, ti = state.gi, state.ti
    if not gi:
        return
    gi, ti = str(gi), str(ti if ti is not None else UNKNOWN_TABLE)
    if (ti, gi) in tables.closed:
        return
    hand = tables.hand_for(gi, ti)
    seats = state.s
    if hand is None:
        names = [str(s.n) if s is not None and s.n else None for s in seats or ()]
        hand = tables.open(gi, ti, state.gt, number, captured_at, names)
    hand.add_span(text, start, end)
    hc = None if state.ss is None else state.ss.hc
    key = key_of(state)
    if key in hand.keys:
        return
    hand.keys.add(key)
    hand.snapshots += 1
    _apply(hand, message, seats, hc)


def key_of(state: StateMsg) -> object:
    """The state key of a typed snapshot: ``swc_fold.state_key``'s tuple, from the structs."""
    table, seats = state.d, state.s
    hc = None if state.ss is None else state.ss.hc
    if seats:
        return (
            None if table is None else table.c,
            None if table is None else table.p,
            state.ts,
            hc,
            *[None if s is None else (s.n, s.c, s.b, s.d) for s in seats],
        )
    return (None, None, state.ts, hc) if table is None else (table.c, table.p, state.ts, hc)


def _apply(hand: Hand, message: LineMsg, seats: list[SeatMsg | None] | None, hc: Plain) -> None:
    events = bytes(message.events)
    if len(events) > 4 and (FANTASY_BYTES in events or b"\\u" in events):
        # Only a dealer line can name a Fantasyland player, and only its text (or an
        # escape) can spell the words: read those events as json does, the rest not at all.
        decoded = fast_json.loads(events.decode("utf-8"))
        fantasy_names(hand, decoded if isinstance(decoded, list) else [])
    if seats:
        for seat, seat_data in zip(hand.seats, seats, strict=False):
            if seat is None or seat_data is None or seat_data.n != seat.name:
                continue
            points = seat_data.p
            if points is not None:
                seat.points = float(points)
            d = seat_data.d
            if not d or not isinstance(d, str) or d == seat.last_d:
                continue
            fold(hand, seat, d)
    if isinstance(hc, str) and hc.strip():
        hand.settled = True


_BOUNDS = {
    f"{top}-{middle}-{bottom}": (top, top + middle, top + middle + bottom)
    for top in range(4)
    for middle in range(6)
    for bottom in range(6)
}
_IDS = {str(card): card for card in range(52)}  # the canonical text of every card id


def fold(hand: Hand, seat: Seat, d: str) -> None:
    """:func:`parsers.swc_fold.fold_layout`, for the usual ``ids-T-M-B`` text without its parser.

    Distinct ids written canonically ("7", not "07" or " 7") and row counts
    within a board's size are looked up in two tables; any other text is read
    by ``fold_layout`` itself.  The fold that follows is ``fold_layout``'s
    (``added_cards`` of distinct cards is a set difference in order), with
    the rows compared only where they changed and no sort where nothing was
    active (every card then ranks alike).
    """
    head, _, tail = d.partition("-")
    bounds = _BOUNDS.get(tail)
    if bounds is None:
        fold_layout(hand, seat, d)
        return
    try:
        ids = list(map(_IDS.__getitem__, head.split(";")))
    except KeyError:
        fold_layout(hand, seat, d)
        return
    if len(set(ids)) != len(ids):
        fold_layout(hand, seat, d)
        return
    first, second, third = bounds
    if hand.snapshots == 1 and third and ids:
        hand.started_late = True
    # A row's added cards: ``added_cards`` of distinct ids is the new ids not in the
    # old row, in order (a row is a few cards: a list scan beats building a set).
    rows = seat.rows
    new_rows = rows
    placed: list[int] = []
    names: list[str] = []
    for index, (name, start, stop) in enumerate(
        (("top", 0, first), ("middle", first, second), ("bottom", second, third))
    ):
        old, new = rows[index], ids[start:stop]
        if new == old:
            continue
        added = [card for card in new if card not in old] if old else new
        if added:
            if new_rows is rows:
                new_rows = list(rows)
            new_rows[index] = old + added
            placed += added
            names += [name] * len(added)
    active = ids[third:]
    if active:
        seat.seen_active = True
    before = seat.active
    if before:
        if placed:
            gone = [c for c in before if c not in active and c not in placed]
        else:
            gone = [c for c in before if c not in active]
    else:
        gone = []
    if placed or gone:
        pineapple = hand.code in PINEAPPLE_CODES or hand.code == 76
        seat.fantasy = seat.fantasy or fantasy_jump(len(placed))
        seat.rows = new_rows  # a placed card never leaves its row (unchanged: the same list)
        count = len(new_rows[0]) + len(new_rows[1]) + len(new_rows[2])
        street = street_of(count, pineapple, seat.fantasy)
        moves = seat.placements
        if before and len(placed) > 1:
            order = {card: i for i, card in enumerate(before)}
            pairs = sorted(zip(placed, names, strict=True), key=lambda p: order.get(p[0], 99))
            moves += [(street, card, name) for card, name in pairs]
        else:
            moves += [(street, card, name) for card, name in zip(placed, names, strict=True)]
        for card in gone:
            moves.append((street, card, "discard"))
            seat.discards.append(card)
    seat.active = active
    seat.last_d = d
