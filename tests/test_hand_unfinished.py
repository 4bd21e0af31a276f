"""An unfinished board (a player who left mid-hand) keeps its streets in ``placements``:
the hand view shows them, as the room recorded them, not "unknown"."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ofc_stats.engine.cards import parse_cards
from ofc_stats.records import Placement
from ofc_stats.store.views import open_dataset
from reports.replay import hand_details
from tests.builders import hand_record, seat_record, write_dataset


def _placed(seat: int, street: int, cards: str, destination: str) -> list[Placement]:
    return [Placement(seat, street, c, destination) for c in parse_cards(cards)]


def test_an_unfinished_boards_streets_come_from_its_placements(tmp_path: Path) -> None:
    """Seat 1 left after street 2: five cards at street 1 (Ac top, 4c 4d middle, 5c 5d
    bottom), two placed and one thrown at street 2 (Kd top, 4h middle, 9s thrown)."""
    done = seat_record(0, "A", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    left = seat_record(1, "B", "Ac Kd", "4c 4d 4h", "5c 5d", discards=parse_cards("9s"))
    placements = [
        *_placed(1, 0, "Ac", "top"),
        *_placed(1, 0, "4c 4d", "middle"),
        *_placed(1, 0, "5c 5d", "bottom"),
        *_placed(1, 1, "Kd", "top"),
        *_placed(1, 1, "4h", "middle"),
        *_placed(1, 1, "9s", "discard"),
    ]
    hand = replace(hand_record(1, (done, left)), placements=tuple(placements))
    data = write_dataset(tmp_path, [hand])
    with open_dataset(data) as db:
        found = hand_details(db, [hand.hand_key])[hand.hand_key]
    seats = {s["seat"]: s for s in found["seats"]}
    assert seats[0]["streets"] == []  # a finished board with no streets recorded
    assert [
        {k: v for k, v in street.items() if k != "grade"} for street in seats[1]["streets"]
    ] == [
        {"street": 1, "top": ["Ac"], "middle": ["4c", "4d"], "bottom": ["5c", "5d"],
         "discards": []},
        {"street": 2, "top": ["Kd"], "middle": ["4h"], "bottom": [], "discards": ["9s"]},
    ]  # fmt: skip
