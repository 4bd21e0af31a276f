"""SwC Poker browser captures: GameState snapshot streams (shared/formats/SWC.md §2-§4).

Accepts decoded proxy messages (one ``{"t": "GameState", ...}`` per line) and
fpdb-3 raw archives (``raw_messages.jsonl``, the Socket.IO frame in
``payload``).  Snapshots are grouped by hand id (``gi``) per table (``ti``),
exact resends are dropped, a placed card never leaves its row, and each
placement is assigned to an OFC street by counting the player's placed cards.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from typing import Any, BinaryIO

import msgspec

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.errors import SwcError
from ofc_stats.records import HandRecord, Partial, Quarantined, storable_text
from parsers import fast_json, swc_block, swc_fast
from parsers.base import BAD_INPUT, ParseItem, Parser, head_lines, reason_of
from parsers.hand_columns import Move, SeatRow, placements, seat_records
from parsers.swc_columns import Chunk, Piece, hand_piece
from parsers.swc_fold import (
    CLASSIC_CODES,
    FORMAT,
    FRAME_PREFIX,
    PINEAPPLE_CODES,
    ROOM,
    Hand,
    Tables,
    parse_layout,
    played_at,
    snapshot,
    street_of,
)

DESTINATION_CODE = {name: DESTINATIONS.index(name) for name in DESTINATIONS}
CHUNK_HANDS = 2_000  # hands per columnar chunk
Loads = Callable[[str], Any]
__all__ = ["SwcParser", "parse_layout", "ruleset_for_code", "street_of"]


def ruleset_for_code(code: int) -> str:
    if code in PINEAPPLE_CODES:
        return PINEAPPLE_CODES[code]
    if code in CLASSIC_CODES:
        return CLASSIC_CODES[code]
    if code == 76:
        raise SwcError("game type 76 (OFC/P 2-7): its rules are unknown; import with --rules")
    raise SwcError(f"game type {code} is not an OFC game")


def _parts(hand: Hand) -> tuple[str, list[SeatRow], list[Move], datetime | None]:
    """(ruleset, seats, placements, played_at) of a finished hand; SwcError if it has none."""
    ruleset = ruleset_for_code(hand.code)
    if not any(seat.placed or seat.active for seat in hand.seats if seat is not None):
        raise SwcError(f"the capture ends before any card of hand {hand.gi} was seen")
    seats, moves = [], []
    for index, seat in enumerate(s for s in hand.seats if s is not None):
        seats.append(
            SeatRow(
                player=seat.name,
                top=tuple(seat.rows[0]),
                middle=tuple(seat.rows[1]),
                bottom=tuple(seat.rows[2]),
                discards=tuple(seat.discards) if seat.seen_active else None,
                hero=seat.seen_active,
                in_fantasy=seat.fantasy or seat.name in hand.fantasy_names,
                reported_points=seat.points if hand.settled else None,
            )
        )
        moves += [
            (index, street, card, DESTINATION_CODE[dest]) for street, card, dest in seat.placements
        ]
    return ruleset, seats, moves, played_at(hand.captured_at)


def _record(hand: Hand, source: str) -> HandRecord:
    ruleset, seats, moves, played_at = _parts(hand)
    return HandRecord(
        format=FORMAT,
        room=ROOM,
        table_id=hand.ti,
        room_hand_id=hand.gi,
        ruleset=ruleset,
        seats=seat_records(seats),
        placements=placements(moves),
        played_at=played_at,
        rules_text=f"gt={hand.code}",
        source_file=source,
        source_line=hand.start_line,
        raw_text=hand.raw_text(),
    )


def _game_state(
    data: Any, loads: Loads = json.loads
) -> tuple[dict[str, Any], list[Any], str | None] | None:
    """(gameState, events, captured_at) of a decoded message or a raw archive record."""
    if not isinstance(data, dict):
        return None
    captured_at = data.get("captured_at")
    if "payload" in data:
        if data.get("message_type") != "GameState" or not isinstance(data["payload"], str):
            return None
        payload = data["payload"]
        if not payload.startswith(FRAME_PREFIX):
            return None
        frame = loads(payload[len(FRAME_PREFIX) :])
        if not isinstance(frame, list) or len(frame) < 2 or frame[0] != "proxy-message":
            return None
        data = loads(frame[1])
        if not isinstance(data, dict):
            return None
    if data.get("t") != "GameState" or not isinstance(data.get("gameState"), dict):
        return None
    events = data.get("events")
    return data["gameState"], events if isinstance(events, list) else [], captured_at


class SwcParser(Parser):
    name = FORMAT
    description = "SwC Poker GameState captures (decoded messages or fpdb-3 raw_messages.jsonl)"
    columnar = True

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        return any(
            line.startswith(b"{")
            and (b'"gameState"' in line or b'"site": "SealsWithClubs"' in line)
            for line in head_lines(head)
        )

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        for item in _read(stream, source, json.loads):
            assert not isinstance(item, Piece)  # (only the columnar reader folds blocks)
            yield _closed(item, source) if isinstance(item, Hand) else item

    def parse_columnar(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        """The same hands, read a block at a time with msgspec and laid out as columns.

        Hands a block holds whole are folded for the whole block at once
        (``parsers/swc_block.py``) and built into tables a chunk at a time
        (``parsers/swc_columns.py``).  Lines the block reader leaves to the
        per-line reader are decoded with orjson (json's answer where the two
        could differ).  A hand the columns cannot surely hold (one
        validate_hand may refuse, or one whose record cannot be built) comes
        out of the record path instead; columns gathered so far are sent
        first, so the importer sees every stored hand in file order.
        """
        chunk = Chunk(
            source, ruleset_for_code, lambda raw, line: self.hand_from_raw(raw, source, line, 0)
        )
        vector = storable_text(source)
        for item in _read(stream, source, fast_json.loads, fast=True, vector=vector):
            piece = item if isinstance(item, Piece) else None
            if isinstance(item, Hand) and vector:
                piece = _piece(item)
            if piece is not None:
                chunk.add(piece)
                if len(chunk) >= CHUNK_HANDS:
                    yield from chunk.take()
                continue
            assert not isinstance(item, Piece)  # (a piece always goes in the chunk)
            if len(chunk) and not isinstance(item, Quarantined | Partial):
                yield from chunk.take()
            yield _closed(item, source) if isinstance(item, Hand) else item
        yield from chunk.take()

    def hand_from_raw(self, raw_text: str, source: str, line: int, offset: int) -> ParseItem:
        """One hand again from its own capture lines (the record path), at its first line."""
        items = list(self.parse(io.BytesIO(raw_text.encode("utf-8")), source))
        hands = [i for i in items if isinstance(i, HandRecord)]
        if hands:
            return replace(hands[-1], source_line=line)
        last = items[-1]
        assert isinstance(last, Quarantined)
        return replace(last, line=line)


def _closed(hand: Hand, source: str) -> ParseItem:
    try:
        return _record(hand, source)
    except BAD_INPUT as error:
        return Quarantined(
            source, reason_of(error), hand.raw_text(), hand.start_line, hand_id=hand.gi
        )


def _piece(hand: Hand) -> Piece | None:
    """A finished hand as a piece of the block fold's chunk; None if the record path takes it."""
    try:
        _, seats, moves, _ = _parts(hand)
    except BAD_INPUT:
        return None
    return hand_piece(hand, seats, moves)


def _read(
    stream: BinaryIO, source: str, loads: Loads, fast: bool = False, vector: bool = False
) -> Iterator[ParseItem | Hand | Piece]:
    """Every capture line folded into its hand; finished hands come out as they close.

    ``fast``: blocks of lines msgspec surely reads as json would are decoded
    together into typed structs (``parsers/swc_fast.py``); every other line is
    read here one at a time.  Both fold into the same tables, in line order.
    ``vector``: the hands a decoded block holds whole come out folded as
    columns (:class:`Piece`), in their place among the others.
    """
    tables = Tables()
    pieces = swc_fast.blocks(stream) if fast else enumerate(stream, start=1)
    for piece in pieces:
        if isinstance(piece, swc_fast.Block):
            planned = swc_block.plan(tables, piece) if vector else None
            if planned is None:
                yield from _block(tables, source, loads, piece)
            else:
                yield from _planned(tables, source, loads, piece, planned)
            continue
        yield from _line(tables, source, loads, *piece)
    yield from tables.open_hands.values()


def _block(
    tables: Tables, source: str, loads: Loads, block: swc_fast.Block
) -> Iterator[ParseItem | Hand]:
    """The lines of one decoded block, folded from their structs."""
    ends = block.ends
    for offset in range(len(ends)):
        yield from _fold_line(tables, source, loads, block, offset)
    for hand in tables.open_hands.values():  # hands still open hold no block past its end
        hand.end_run()


def _fold_line(
    tables: Tables, source: str, loads: Loads, block: swc_fast.Block, offset: int
) -> Iterator[ParseItem | Hand]:
    """Line ``offset`` of a decoded block folded from its struct."""
    record = block.messages[offset]
    number, end = block.first + offset, block.ends[offset]
    start = block.ends[offset - 1] if offset else 0
    message = record
    if record.payload is not msgspec.UNSET:
        carried = swc_fast.archived(record)
        if carried is None:
            raw = block.line(start, end).encode("utf-8")
            yield from _line(tables, source, loads, number, raw)
            return
        message = carried
    if message.t == "GameState" and message.gameState is not None:
        try:
            swc_fast.snapshot(tables, message, record.captured_at, block.text, start, end, number)
        except BAD_INPUT as error:
            line, gi = block.line(start, end), message.gameState.gi
            yield from _bad_snapshot(tables, source, error, line, number, gi)
        if tables.finished:
            yield from tables.finished
            tables.finished.clear()


def _planned(
    tables: Tables, source: str, loads: Loads, block: swc_fast.Block, plan: swc_block.Plan
) -> Iterator[ParseItem | Hand | Piece]:
    """A block as ``swc_block.plan`` split it, every item in the place the per-line fold
    gives it: a hand comes out at the line that closes it."""
    steps = sorted(
        [(at, 0, table) for at, table in plan.closes]
        + [(at, 0, number) for number, at in enumerate(plan.inner_close)]
        + [(at, 1, None) for at in plan.lines]
    )
    run = -1  # the first inner hand not yet out
    count = 0
    for at, kind, what in steps:
        if kind == 0 and isinstance(what, int):
            if run < 0:
                run = what
            count += 1
            continue
        if count:
            yield Piece(plan.inner, run, run + count)
            run, count = -1, 0
        if kind == 0:
            assert isinstance(what, str)
            hand = tables.open_hands.pop(what)
            tables.closed.add((what, hand.gi))
            for text in hand.texts:
                tables.owner.pop(text, None)
            yield hand
        else:
            yield from _fold_line(tables, source, loads, block, at)
    if count:
        yield Piece(plan.inner, run, run + count)
    for hand in tables.open_hands.values():
        hand.end_run()


def _line(
    tables: Tables, source: str, loads: Loads, number: int, raw: bytes
) -> Iterator[ParseItem | Hand]:
    """One capture line decoded and folded (the record path's reader)."""
    if not raw or raw.isspace():
        return
    try:
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        hand = tables.owner.get(text)
        if hand is not None and tables.open_hands.get(hand.ti) is hand:
            # An exact resend: it decodes to a state this hand already folded.
            hand.add_line(text)
            return
        found = _game_state(loads(text), loads)
    except BAD_INPUT as error:
        if not raw.endswith(b"\n"):  # the capture is still being written
            yield Partial(source, number, None, "a line cut off at the end of the file")
            return
        why = reason_of(error) if isinstance(error, RecursionError) else str(error)[:200]
        yield Quarantined(source, f"unreadable capture line: {why}", repr(raw[:2000]), number)
        return
    if found is None:
        return
    try:
        snapshot(tables, found, text, number)
    except BAD_INPUT as error:
        yield from _bad_snapshot(tables, source, error, text, number, found[0].get("gi"))
        return
    if tables.finished:
        yield from tables.finished
        tables.finished.clear()


def _bad_snapshot(
    tables: Tables, source: str, error: BaseException, text: str, number: int, gi: Any
) -> Iterator[ParseItem | Hand]:
    """The hands the line closed, then the line itself, quarantined."""
    yield from tables.finished
    tables.finished.clear()
    yield Quarantined(
        source,
        f"bad snapshot: {reason_of(error)}",
        text,
        number,
        hand_id=None if gi is None else str(gi)[:200],
    )
