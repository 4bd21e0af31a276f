"""The stored `fantasy_next` (cards the next hand deals) is the engine's
``FantasyOutcome.next_cards``, seat by seat: entries, repeats of a known count, and a
repeat whose count the hand does not give (null)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import ofc_stats
from ofc_stats.engine.board import Board
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.scoring import score_board
from tests.builders import sim_records, write_dataset


def test_fantasy_next_is_the_engines_next_cards(tmp_path: Path) -> None:
    # The ultimate mode repeats with the count just played (13 + the discards): drop the
    # discards (and the placements) of every other hand's Fantasyland seats, so some
    # repeats' counts are unknown.
    records = sim_records(2000, seed=21, rules="pineapple-ultimate")
    dropped = 0
    for index, record in enumerate(records):
        seats = []
        for seat in record.seats:
            if seat.in_fantasy and index % 2:
                seat = replace(seat, discards=None)
                dropped += 1
            seats.append(seat)
        placements = record.placements if index % 2 == 0 else ()
        records[index] = replace(record, seats=tuple(seats), placements=placements)
    data = write_dataset(tmp_path, records)
    with ofc_stats.open(data) as db:
        stored = {
            (key, seat): (in_fantasy, dealt, cards)
            for key, seat, in_fantasy, dealt, cards in db.sql(
                "SELECT hand_key, seat, in_fantasy, fantasy_cards, fantasy_next FROM seat_results"
                " WHERE status = 'scored'"
            ).fetchall()
        }
    rules = get_ruleset("pineapple-ultimate")
    seen = {"entries": 0, "repeats": 0, "unknown": 0}
    for record in records:
        for seat in record.seats:
            in_fantasy, dealt, next_cards = stored[(record.hand_key, seat.seat)]
            board = Board(seat.top, seat.middle, seat.bottom)
            fl = score_board(board, rules, in_fantasy, dealt).fantasyland
            assert next_cards == fl.next_cards, (record.hand_key, seat)
            seen["entries"] += fl.qualifies
            seen["repeats"] += fl.stays and fl.next_cards is not None
            seen["unknown"] += fl.stays and fl.next_cards is None
    assert dropped and all(seen.values()), seen
