"""``hands_table`` (columns in NumPy) equals the row-by-row definition, on awkward hands too."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.records import HandRecord
from ofc_stats.store.rows import hands_table
from ofc_stats.store.schema import SEATS
from tests.handgen import random_records


def seat_rows(hand: HandRecord) -> list[dict[str, Any]]:
    """The definition, a seat at a time: a board card's street is its last non-discard
    placement's (255 if none; no placements for the seat or a short board: null); discards
    ordered by their discard placement's street (99 if none), ties kept in order."""
    out = []
    for seat in hand.seats:
        streets: dict[int, int] = {}
        dropped: dict[int, int] = {}
        for p in hand.placements:
            if p.seat == seat.seat:
                (dropped if p.destination == "discard" else streets)[p.card] = p.street
        board = seat.top + seat.middle + seat.bottom
        has_streets = any(
            p.seat == seat.seat and p.destination != "discard" for p in hand.placements
        )
        out.append(
            {
                "hand_key": hand.hand_key,
                "seat": seat.seat,
                "top": list(seat.top),
                "middle": list(seat.middle),
                "bottom": list(seat.bottom),
                "board": bytes(board) if seat.complete else None,
                "board_streets": bytes(streets.get(c, 255) for c in board)
                if seat.complete and has_streets
                else None,
                "discards": None
                if seat.discards is None
                else sorted(seat.discards, key=lambda c: dropped.get(c, 99)),
                "player": seat.player,
                "fantasy_cards": seat.fantasy_cards,
            }
        )
    return out


def awkward(hand: HandRecord, how: int) -> HandRecord:
    """A hand cut short, with hidden discards, a seat's placements missing, or a card placed twice."""
    first = hand.seats[0]
    if how == 1:  # the first seat's bottom row unfinished
        return replace(hand, seats=(replace(first, bottom=first.bottom[:2]), *hand.seats[1:]))
    if how == 2:  # the room hid the discards
        return replace(hand, seats=tuple(replace(s, discards=None) for s in hand.seats))
    if how == 3:  # no placements for seat 0
        return replace(hand, placements=tuple(p for p in hand.placements if p.seat != first.seat))
    if how == 4:  # a card placed again later: the later street wins
        last = hand.placements[-1]
        again = replace(hand.placements[0], street=min(last.street + 1, 120))
        return replace(hand, placements=(*hand.placements, again))
    if how == 5:  # no placements at all
        return replace(hand, placements=())
    return hand


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), count=st.integers(0, 12), hows=st.lists(st.integers(0, 5)))
def test_hands_table_equals_the_row_by_row_definition(
    seed: int, count: int, hows: list[int]
) -> None:
    hands = [
        awkward(hand, hows[i % len(hows)] if hows else 0)
        for i, hand in enumerate(random_records(count, seed))
    ]
    tables = hands_table(hands, "batch-1")
    seats = tables["seats"]
    assert seats.schema == SEATS
    expected = [row for hand in hands for row in seat_rows(hand)]
    assert seats.select(list(expected[0]) if expected else []).to_pylist() == expected
    placements = tables["placements"].to_pylist()
    assert placements == [
        {
            "hand_key": hand.hand_key,
            "seat": p.seat,
            "street": p.street,
            "card": p.card,
            "destination": p.destination,
        }
        for hand in hands
        for p in hand.placements
    ]
    assert set(DESTINATIONS) >= {row["destination"] for row in placements}
    hand_rows = tables["hands"].to_pylist()
    assert [row["hand_key"] for row in hand_rows] == [hand.hand_key for hand in hands]
    assert [row["fingerprint"] for row in hand_rows] == [hand.fingerprint for hand in hands]
    assert [row["seat_count"] for row in hand_rows] == [len(hand.seats) for hand in hands]
    assert {row["batch"] for row in hand_rows} <= {"batch-1"}


def test_no_hands_make_empty_tables_of_the_schema() -> None:
    tables = hands_table([], "b")
    assert [t.num_rows for t in tables.values()] == [0, 0, 0]
    assert tables["seats"].schema == SEATS
    assert isinstance(tables["placements"]["destination"].type, pa.DictionaryType)
