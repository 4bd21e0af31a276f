"""SwC hands folded a block at a time (``parsers/swc_block.py``) laid out as the dataset's tables.

The hands of several blocks are gathered as slices of their blocks' arrays
and built in one call of :func:`parsers.columns.build`, the fast import's
builder, whose checks are :func:`validate_hand`'s; a hand it refuses (or one
the block fold left odd) is read again from its own lines by the record
path, in its place in the file.  ``build`` lays the placements out in row
order; they are put back in the order the fold made them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from ofc_stats.records import MAX_ID, storable_text
from parsers import columns
from parsers.base import ColumnarHands, ParseItem
from parsers.hand_columns import Move, SeatRow
from parsers.swc_block import Inner
from parsers.swc_fold import FORMAT, ROOM, Hand, played_at


class Piece(NamedTuple):
    """Hands ``start..stop`` of one block's folded hands."""

    inner: Inner
    start: int
    stop: int


class Chunk:
    """Folded hands waiting to become tables; ``record(raw, line)`` reads one the slow way."""

    def __init__(
        self, source: str, resolve: Callable[[int], str], record: Callable[[str, int], ParseItem]
    ) -> None:
        self.source = source
        self.presets = columns.Presets(lambda text: resolve(int(text[3:])))  # "gt=74"
        self.record = record
        self.pieces: list[Piece] = []
        self.count = 0
        self.times: dict[str | None, datetime | None] = {}

    def __len__(self) -> int:
        return self.count

    def add(self, piece: Piece) -> None:
        self.pieces.append(piece)
        self.count += piece.stop - piece.start

    def take(self) -> list[ParseItem]:
        """The gathered hands as tables, split around those the record path reads."""
        pieces, self.pieces, self.count = self.pieces, [], 0
        if not pieces:
            return []
        hand_parts, seat_parts, card_parts = [], [], []
        seats_before = 0
        for hands_before, (inner, start, stop) in zip(
            np.cumsum([0] + [p.stop - p.start for p in pieces]).tolist(), pieces, strict=False
        ):
            s0, s1 = np.searchsorted(inner.seat_hand, [start, stop]).tolist()
            c0, c1 = np.searchsorted(inner.card_seat, [s0, s1]).tolist()
            hand_parts.append((inner, start, stop))
            seat_parts.append((inner, s0, s1, hands_before - start))
            card_parts.append((inner, c0, c1, seats_before - s0))
            seats_before += s1 - s0
        table_id = [t for inner, a, b in hand_parts for t in inner.table_id[a:b]]
        hand_id = [h for inner, a, b in hand_parts for h in inner.hand_id[a:b]]
        code = np.concatenate([inner.code[a:b] for inner, a, b in hand_parts])
        line = np.concatenate([inner.line[a:b] for inner, a, b in hand_parts])
        captured = [t for inner, a, b in hand_parts for t in inner.captured_at[a:b]]
        # Chunked: each block's texts stay where they are (often the block's own bytes).
        raw_text = pa.chunked_array(
            [inner.raw_text[a:b] for inner, a, b in hand_parts], pa.string()
        )
        odd = np.concatenate([inner.odd[a:b] for inner, a, b in hand_parts])
        seat_hand = np.concatenate(
            [inner.seat_hand[a:b] + shift for inner, a, b, shift in seat_parts]
        )
        player = [n for inner, a, b, _ in seat_parts for n in inner.player[a:b]]

        def seats_of(name: str) -> np.ndarray:
            return np.concatenate([getattr(inner, name)[a:b] for inner, a, b, _ in seat_parts])

        def cards_of(name: str) -> np.ndarray:
            return np.concatenate([getattr(inner, name)[a:b] for inner, a, b, _ in card_parts])

        card_seat = np.concatenate(
            [inner.card_seat[a:b] + shift for inner, a, b, shift in card_parts]
        )
        points = pa.concat_arrays([inner.points[a:b] for inner, a, b, _ in seat_parts])
        count = len(line)
        referred = odd.copy()
        texts = [*table_id, *hand_id, *player]
        long_hand = [max(len(t), len(h)) > MAX_ID for t, h in zip(table_id, hand_id, strict=True)]
        referred |= np.array(long_hand, dtype=bool)
        long_seat = np.array([len(n) > MAX_ID for n in player], dtype=bool)
        referred |= columns.any_of(seat_hand, long_seat, count)
        if not "".join(texts).isascii():
            bad_hand = [
                not (storable_text(t) and storable_text(h))
                for t, h in zip(table_id, hand_id, strict=True)
            ]
            referred |= np.array(bad_hand, dtype=bool)
            bad_seat = np.array([not storable_text(n) for n in player], dtype=bool)
            referred |= columns.any_of(seat_hand, bad_seat, count)
        for text in set(captured):
            if text not in self.times:
                self.times[text] = played_at(text)
        rules_text = [f"gt={c}" for c in code.tolist()]
        presets, unknown = self.presets.columns(rules_text)
        referred |= unknown
        hero = seats_of("hero")
        hands = columns.HandColumns(
            room=columns.constant(ROOM, count),
            table_id=pa.array(table_id, pa.string()) if not referred.any() else _safe(table_id),
            room_hand_id=pa.array(hand_id, pa.string()) if not referred.any() else _safe(hand_id),
            played_at=pa.array([self.times[t] for t in captured], pa.timestamp("us")),
            rules_text=pa.array(rules_text, pa.string()),
            **presets,
            stakes=pa.nulls(count, pa.float64()),
            currency=pa.nulls(count, pa.string()),
            line=line,
            offset=pa.nulls(count, pa.int64()),
            raw_text=raw_text,
        )
        seat_columns = columns.SeatColumns(
            hand=seat_hand,
            seat=seats_of("position"),
            player=pa.array(player, pa.string()) if not referred.any() else _safe(player),
            player_id=pa.nulls(len(seat_hand), pa.string()),
            hero=pa.array(hero),
            in_fantasy=seats_of("in_fantasy"),
            points=points,
            money=pa.nulls(len(seat_hand), pa.float64()),
            stack=pa.nulls(len(seat_hand), pa.float64()),
            discards_known=hero,
        )
        move = cards_of("move")
        card_columns = columns.CardColumns(
            card_seat, cards_of("destination"), cards_of("street"), cards_of("card")
        )
        referred |= columns.refused(hands, seat_columns, card_columns)
        built: ColumnarHands | None = None
        if not referred.all():
            keep = ~referred
            if referred.any():
                hands = replace(hands, raw_text=raw_text.combine_chunks())  # (select's kind)
                card_keep = keep[seat_hand[card_seat]]
                move, moved_seat = move[card_keep], card_seat[card_keep]
                hands, seat_columns, card_columns = columns.select(
                    hands, seat_columns, card_columns, keep
                )
            else:
                moved_seat = card_seat
            built = columns.build(FORMAT, self.source, hands, seat_columns, card_columns)
            in_moves = np.lexsort((move, moved_seat))
            built = ColumnarHands(built.hands, built.seats, built.placements.take(in_moves))
        lines = line.tolist()
        return columns.in_order(
            built,
            np.flatnonzero(referred).tolist(),
            lambda index: self.record(raw_text[index].as_py(), lines[index]),
        )


def _safe(texts: list[str]) -> pa.Array:
    """Texts as a column, those Arrow cannot hold (lone surrogates) left empty: their hands
    are referred to the record path and never built."""
    return pa.array([t if storable_text(t) else "" for t in texts], pa.string())


def hand_piece(hand: Hand, seats: list[SeatRow], moves: list[Move]) -> Piece | None:
    """A hand the per-line fold finished, as a one-hand piece; None if its cards are not
    each placed once where its rows hold them (the old builder takes it then)."""
    per_seat: dict[tuple[int, int], tuple[int, int, int]] = {}  # (seat, card) -> dest, street, move
    counts = [0] * len(seats)
    for seat, street, card, destination in moves:
        if (seat, card) in per_seat or not 0 <= seat < len(seats):
            return None
        per_seat[seat, card] = (destination, street, counts[seat])
        counts[seat] += 1
    card_seat, destination_of, street_of, card_of, move_of = [], [], [], [], []
    for index, row in enumerate(seats):
        slots = (row.top, row.middle, row.bottom, row.discards or ())
        for destination, cards in enumerate(slots):
            for card in cards:
                found = per_seat.pop((index, card), None)
                if found is None or found[0] != destination:
                    return None
                card_seat.append(index)
                destination_of.append(destination)
                street_of.append(found[1])
                card_of.append(card)
                move_of.append(found[2])
    if per_seat:
        return None
    count = len(seats)
    inner = Inner(
        table_id=[hand.ti],
        hand_id=[hand.gi],
        code=np.array([hand.code], dtype=np.int64),
        line=np.array([hand.start_line], dtype=np.int64),
        captured_at=[hand.captured_at],
        raw_text=pa.array([hand.raw_text()], pa.string()),
        odd=np.zeros(1, dtype=bool),
        seat_hand=np.zeros(count, dtype=np.int64),
        position=np.arange(count, dtype=np.int64),
        player=[row.player for row in seats],
        hero=np.array([row.hero for row in seats], dtype=bool),
        in_fantasy=np.array([row.in_fantasy for row in seats], dtype=bool),
        points=pa.array([row.reported_points for row in seats], pa.float64()),
        card_seat=np.array(card_seat, dtype=np.int64),
        destination=np.array(destination_of, dtype=np.int64),
        street=np.array(street_of, dtype=np.int64),
        card=np.array(card_of, dtype=np.int64),
        move=np.array(move_of, dtype=np.int64),
    )
    return Piece(inner, 0, 1)
