"""SwC captures, SwC dealer chat, fpdb-3 databases, the open format, and sniffing."""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import datetime
from pathlib import Path

import pytest

from ofc_stats.engine.cards import parse_card
from ofc_stats.records import HandRecord, Quarantined
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from parsers.fpdb import FpdbParser
from parsers.open_format import OpenFormatParser, dumps
from parsers.registry import detect, known_formats
from parsers.swc import SwcParser, parse_layout, street_of
from parsers.swc_chat import SwcChatParser, scores
from tests.handgen import random_records
from tests.readers import records_from
from tests.shared_samples import SWC

DATA = Path(__file__).parent / "data"
SWC_SAMPLES = SWC


def test_seat_layout_strings() -> None:
    assert parse_layout("0;1;2;3;4-1-2-2") == ([[0], [1, 2], [3, 4]], [])
    assert parse_layout("42;47;39;31;30-0-0-0") == ([[], [], []], [42, 47, 39, 31, 30])
    assert parse_layout("0;1;2;60;4-2-1-1") == ([[0, 1], [2], []], [4])  # 60 is hidden
    assert parse_layout("48;49") == ([[], [], []], [48, 49])
    assert parse_layout("") is None and parse_layout("-0-0-0") is None
    assert parse_layout("1;x;3-1-1-1") is None


def test_street_numbers_from_placed_counts() -> None:
    assert [street_of(n, True, False) for n in (5, 7, 9, 11, 13)] == [0, 1, 2, 3, 4]
    assert [street_of(n, False, False) for n in (5, 6, 13)] == [0, 1, 8]
    assert street_of(13, True, True) == 0


def test_swc_golden() -> None:
    expected = json.loads((DATA / "swc" / "two_hands.expected.json").read_text())
    hands = records_from(SwcParser, DATA / "swc" / "two_hands.jsonl")
    assert [h.room_hand_id for h in hands] == ["900001", "900002"]
    for hand in hands:
        want = expected[hand.room_hand_id]
        assert [s.player for s in hand.seats] == want["players"]
        for seat, rows in zip(hand.seats, want["rows"], strict=True):
            assert [sorted(seat.top), sorted(seat.middle), sorted(seat.bottom)] == [
                sorted(r) for r in rows
            ]
        assert hand.seats[0].hero and hand.seats[0].discards is not None
        assert sorted(hand.seats[0].discards) == sorted(want["discards"])
        assert all(s.discards is None for s in hand.seats[1:])  # opponents' are hidden
        assert [s.reported_points for s in hand.seats] == want["points"]
        assert hand.ruleset == "pineapple" and hand.hand_key == f"swc:SwC:555:{hand.room_hand_id}"


def test_swc_round_trip_keeps_every_placement() -> None:
    from tests.swcgen import snapshots

    for record in random_records(20, seed=31):
        lines = snapshots(record, gi=int(record.room_hand_id) + 1, ti=9)
        (back,) = SwcParser().parse(iter(line.encode() + b"\n" for line in lines), "x")  # type: ignore[arg-type]
        assert isinstance(back, HandRecord)
        viewer = {(p.street, p.card, p.destination) for p in record.placements if p.seat == 0}
        assert {(p.street, p.card, p.destination) for p in back.placements if p.seat == 0} == viewer
        for seat in range(1, len(record.seats)):
            placed = {
                (p.street, p.card, p.destination)
                for p in record.placements
                if p.seat == seat and p.destination != "discard"
            }
            assert {
                (p.street, p.card, p.destination) for p in back.placements if p.seat == seat
            } == placed


@pytest.mark.skipif(not SWC_SAMPLES.is_dir(), reason="../shared is not present")
@pytest.mark.parametrize(
    "name",
    [
        "http_pineapple_2p_hand.jsonl",
        "http_3p_foul_raw_messages.jsonl",
        "http_fantasyland_2p_hand.jsonl",
    ],
)
def test_swc_shared_samples_match_their_ground_truth(name: str) -> None:
    truth = json.loads((SWC_SAMPLES / "expected_results.json").read_text())[name]
    items = records_from(SwcParser, SWC_SAMPLES / name)
    hands = [i for i in items if isinstance(i, HandRecord)]
    assert len(hands) == 1  # the next hand's pre-deal snapshot is quarantined, not stored
    assert all("before any card" in i.reason for i in items if isinstance(i, Quarantined))
    hand = hands[0]
    assert hand.room_hand_id == str(truth["gi"])
    for seat, player in zip(hand.seats, truth["players"], strict=True):
        assert seat.player == player["name"]
        for row in ("top", "middle", "bottom"):
            assert sorted(getattr(seat, row)) == sorted(
                parse_card(c) for c in player["final_rows"][row]
            )
        assert seat.reported_points == player["p"]
        assert seat.in_fantasy is player["fantasyland"]
        for street in player["streets"]:
            if street.get("dealt") is None or "placed" not in street:
                continue
            number = 0 if street["street"] == "fantasyland_set" else street["street"] - 1
            got = sorted(
                (p.card, p.destination)
                for p in hand.placements
                if p.seat == seat.seat and p.street == number
            )
            want = [(parse_card(c), row) for row, cards in street["placed"].items() for c in cards]
            want += [(parse_card(c), "discard") for c in street["discarded"]]
            assert got == sorted(want), (seat.player, street["street"])


def test_swc_chat_golden() -> None:
    items = records_from(SwcChatParser, DATA / "swc-chat" / "session.txt")
    hands = [i for i in items if isinstance(i, HandRecord)]
    bad = [i for i in items if isinstance(i, Quarantined)]
    assert [(h.table_id, h.room_hand_id) for h in hands] == [
        ("77", "2026-03-01 20:00:00#1"),
        ("88", "2026-03-01 20:00:05#1"),
        ("77", "2026-03-01 20:00:00#2"),
    ]
    assert [s.reported_points for s in hands[0].seats] == [12.0, -3.0, -9.0]
    assert hands[0].seats[0].player == "<i>zed</i>" and hands[0].seats[2].player == "bo b"
    assert [s.in_fantasy for s in hands[2].seats] == [False, True, False]  # amy, after hand 1
    assert not hands[0].complete
    assert [(q.line, q.reason) for q in bad] == [
        (11, "not a dealer chat line"),
        (12, "hand result line with unreadable scores"),
    ]
    assert scores("a: b: +3, c: -3") == {"a: b": 3, "c": -3}  # split at the last ": "


@pytest.mark.skipif(not SWC_SAMPLES.is_dir(), reason="../shared is not present")
def test_swc_chat_shared_sample() -> None:
    truth = json.loads((SWC_SAMPLES / "expected_results.json").read_text())[
        "dealer_chat_session.txt"
    ]
    hands = [
        i
        for i in records_from(SwcChatParser, SWC_SAMPLES / "dealer_chat_session.txt")
        if isinstance(i, HandRecord)
    ]
    assert len(hands) == truth["hands_played"]
    for hand, want in zip(hands, truth["hands"], strict=True):
        assert {s.player: s.reported_points for s in hand.seats} == want["scores"]
        assert {s.player for s in hand.seats if s.in_fantasy} == set(want.get("fantasyland", []))


def fpdb_database(tmp_path: Path) -> Path:
    path = tmp_path / "fpdb.db3"
    connection = sqlite3.connect(path)
    connection.executescript((DATA / "fpdb" / "hands.sql").read_text())
    connection.close()
    return path


def test_fpdb_golden(tmp_path: Path) -> None:
    expected = json.loads((DATA / "fpdb" / "hands.expected.json").read_text())
    items = list(FpdbParser().parse_path(str(fpdb_database(tmp_path)), "fpdb.db3"))
    hand, quarantined = items
    assert isinstance(hand, HandRecord) and isinstance(quarantined, Quarantined)
    assert hand.room_hand_id == expected["hand_id"] and hand.table_id == "t-9"
    for seat, rows in zip(hand.seats, expected["rows"], strict=True):
        assert [list(seat.top), list(seat.middle), list(seat.bottom)] == rows
    streets = sorted({p.street for p in hand.placements})
    assert streets == [0, 1, 2, 3, 4]
    assert "2-7" in quarantined.reason


def test_fpdb_import_by_sniffing(tmp_path: Path) -> None:
    summary = import_paths([fpdb_database(tmp_path)], tmp_path / "data")
    assert (summary.stored, summary.quarantined) == (1, 1)
    assert summary.files[0].format == "fpdb"


def test_open_format_golden() -> None:
    hands = records_from(OpenFormatParser, DATA / "open" / "three_hands.jsonl")
    assert [dumps(h) for h in hands] == (
        DATA / "open" / "three_hands.jsonl"
    ).read_text().splitlines()


@pytest.mark.parametrize(
    ("path", "format_name"),
    [
        ("app-json/two_hands.hh", "app-json"),
        ("open/three_hands.jsonl", "open"),
        ("swc/two_hands.jsonl", "swc"),
        ("swc-chat/session.txt", "swc-chat"),
    ],
)
def test_sniffing(path: str, format_name: str) -> None:
    content = (DATA / path).read_bytes()[:65536]
    parser = detect(content, path)
    assert parser is not None and parser.name == format_name


def test_an_app_export_whose_first_line_is_lost_is_still_an_app_export(tmp_path: Path) -> None:
    """Fuzz seed 17 (``bench/fuzz.py``): a real app file without its first line ("{") was
    skipped whole as "unknown format", losing its 5 good hands.  Any object starting on a
    line of the head now shows the format: the broken first object is quarantined and the
    second is stored."""
    text = (DATA / "app-json/two_hands.hh").read_bytes()
    broken = text.split(b"\n", 1)[1]
    assert not broken.lstrip().startswith(b"{")
    parser = detect(broken[:65536], "two_hands.hh")
    assert parser is not None and parser.name == "app-json"
    (tmp_path / "two_hands.hh").write_bytes(broken)
    summary = import_paths([tmp_path / "two_hands.hh"], tmp_path / "data")
    assert (summary.stored, summary.files[0].format) == (1, "app-json")
    assert detect(b'{"ofc_format": 1}\n', "x.jsonl").name == "open"  # type: ignore[union-attr]


def test_every_format_imports_into_one_dataset(tmp_path: Path) -> None:
    summary = import_paths([DATA / "swc", DATA / "swc-chat", DATA / "open"], tmp_path)
    formats = {f.format for f in summary.files}
    assert {"swc", "swc-chat", "open"} <= formats
    hands = Dataset(tmp_path).read("hands").to_pandas()
    assert hands.groupby("format").size().to_dict() == {"open": 3, "swc": 2, "swc-chat": 3}
    assert "fpdb" in known_formats()


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_an_open_format_time_with_an_offset_is_the_same_on_every_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, zone: str
) -> None:
    """An analyst's find: ``17:04:00+02:00`` was stored as 15:04 under TZ=UTC and 10:04
    under New York (converted to the importing machine's zone).  The room's local time is
    the time as written: 17:04 wherever the file is imported, on the core lane and on the
    record path alike."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        line = json.loads(dumps(random_records(1, seed=44)[0]))
        line["played_at"] = "2026-11-29T17:04:00+02:00"
        path = tmp_path / "one.jsonl"
        path.write_text(json.dumps(line) + "\n", "utf-8")
        for columnar in (True, False):
            data = tmp_path / f"data-{columnar}"
            import_paths([path], data, columnar=columnar)
            stored = Dataset(data).read("hands", ["played_at"])["played_at"].to_pylist()
            assert stored == [datetime(2026, 11, 29, 17, 4)]
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
