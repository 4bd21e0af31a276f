"""Timeouts in the decisions report: counted only where the format can tell one.

One heads-up hand, stored twice: as the open format (which records each
timeout, ``"timeout": true`` on the street) and as the apps' JSON (each card's
street only).  Alice's fourth street, Th and Jh to the bottom with the top and
the bottom open, is what the room's auto-placement gives (fill the bottom
first).  In the open copy the room recorded it as a timeout: counted apart; in
the app copy it cannot be told from the same placement chosen, so it stays a
decision ("to bottom + bottom") and the page says why there is no timeout for
it.  An open copy that does not record the timeout keeps it a decision too:
matching the auto-placement is no evidence.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import ofc_stats
from ofc_stats.engine.cards import parse_cards
from ofc_stats.records import HandRecord
from ofc_stats.sim.rooms import open_line
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from parsers.app_json import dumps_app
from reports import Filters, decisions, prepare
from tests.builders import hand_record, seat_record
from tests.test_reports import placed

FOURTH = "street 4"


def the_hand() -> HandRecord:
    alice = seat_record(
        0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah",
        discards=parse_cards("3h 4s 6h 8c"),
    )  # fmt: skip
    bob = seat_record(
        1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c",
        discards=parse_cards("2d 3c 7d 9d"),
    )  # fmt: skip
    streets = placed(
        0,
        [
            "Qs:t Qd:t 5h:m 6d:m 7c:m",
            "8s:m 2h:b 3h:x",
            "9h:m 7h:b 4s:x",
            "Th:b Jh:b 6h:x",  # the auto-placement's counts: a timeout where it can be told
            "2c:t Ah:b 8c:x",
        ],
    ) + placed(
        1,
        [
            "Ac:t Kd:t 4c:m 4d:m 5c:b",
            "4h:m 5d:b 2d:x",
            "3s:t Js:m 3c:x",
            "Ks:m 6c:b 7d:x",
            "8d:b 9c:b 9d:x",
        ],
    )
    return hand_record(1, (alice, bob), placements=streets)


def dataset(tmp_path: Path, formats: tuple[str, ...], recorded: bool = True) -> Path:
    paths = []
    for number, name in enumerate(formats):
        hand = replace(the_hand(), table_id=f"T{number}", room_hand_id=f"{number + 1}")
        if name == "open":
            path = tmp_path / "hands.jsonl"
            timed_out = (1 << 3, 0) if recorded else (0, 0)  # Alice's fourth street
            path.write_text(open_line(hand, timed_out) + "\n", encoding="utf-8")
        else:
            path = tmp_path / "hands.hh"
            path.write_text(dumps_app(hand), encoding="utf-8")
        paths.append(path)
    data = tmp_path / "data"
    summary = import_paths(paths, data)
    assert summary.stored == len(formats), summary.lines()
    recompute(data)
    return data


def fourth_street(data: Path) -> tuple[dict[str, int], list[int], str]:
    """Alice's street-4 placement classes, her timeout counts, the decisions caption."""
    with ofc_stats.open(data) as db:
        report = decisions.build(prepare(db, Filters(player="Alice")))
    frame = report.tables["decisions"]
    here = frame[(frame["street_name"] == FOURTH) & (frame["kind"] == "placement")]
    timeouts = report.tables["timeouts"]
    return (
        dict(zip(here["decision"], here["count"], strict=True)),
        timeouts.loc[timeouts["street_name"] == FOURTH, "count"].tolist(),
        report.captions["decisions"],
    )


def test_an_app_street_matching_the_auto_placement_stays_a_decision(tmp_path: Path) -> None:
    classes, timeouts, caption = fourth_street(dataset(tmp_path, ("app-json",)))
    assert classes == {"to bottom + bottom": 1} and timeouts == []
    assert "timeouts: none told in app-json (1 hand): the format records no deal order" in caption


def test_an_open_street_matching_it_is_a_timeout(tmp_path: Path) -> None:
    classes, timeouts, caption = fourth_street(dataset(tmp_path, ("open",)))
    assert classes == {} and timeouts == [1]
    assert "timeouts:" not in caption


def test_an_open_street_matching_it_unrecorded_stays_a_decision(tmp_path: Path) -> None:
    """The trial's 3,809 false flags: an open street that matches the auto-placement but
    that the room did not record as a timeout is the player's choice."""
    classes, timeouts, _ = fourth_street(dataset(tmp_path, ("open",), recorded=False))
    assert classes == {"to bottom + bottom": 1} and timeouts == []


def test_the_same_street_in_both_formats_is_counted_once_each_way(tmp_path: Path) -> None:
    classes, timeouts, caption = fourth_street(dataset(tmp_path, ("open", "app-json")))
    assert classes == {"to bottom + bottom": 1} and timeouts == [1]
    assert "app-json (1 hand)" in caption and "open" not in caption.split("timeouts:")[1]
    with ofc_stats.open(tmp_path / "data") as db:  # the view agrees: one flagged street
        assert db.sql("SELECT count(*) FROM streets WHERE timeout").fetchall() == [(1,)]
