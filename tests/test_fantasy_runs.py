"""Two files whose tables share a name and hand ids are two tables in the Fantasyland chain.

Two simulations (or two rooms' exports) can both call a table ``T1`` and number its
hands 1, 2, ...: the second file's hands reuse the first's keys and are stored under
``hand_key~<fingerprint>``.  Ordered by time and id, the two files' hands interleave;
linked as one table, a player's Fantasyland earned in one file would be checked
against the hand he played next in the other, a room error that is not there.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import ofc_stats
from ofc_stats.audit.points import audit
from ofc_stats.engine.cards import parse_cards
from ofc_stats.records import HandRecord, SeatRecord
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from parsers.open_format import dumps
from tests.builders import hand_record, seat_record

# QQ on top over a straight and a flush: 14 cards of Fantasyland (pineapple-progressive).
QQ_TOP = ("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
# The same rows with Q-J high on top: no Fantasyland.
QJ_TOP = ("Qs Jd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
NOTHING = ("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
# A 14-card Fantasyland set (one discard) that does not repeat: K high on top.
FANTASY_SET = ("Kh 3d 2s", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
FANTASY_CLASSES = {"fantasy_entry", "repeat", "fantasy_cards"}


def _hand(number: int, alice: SeatRecord, bob: SeatRecord) -> HandRecord:
    # Both files' hand n: table T1, id "n", the same time.
    return replace(hand_record(number, (alice, bob)), room_hand_id=str(number))


def _file(path: Path, hands: list[HandRecord]) -> Path:
    path.write_text("".join(dumps(h) + "\n" for h in hands), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("two-runs")
    # File a: Alice's QQ earns Fantasyland in hand 1, the room deals it in hand 2.
    a = _file(
        folder / "a.jsonl",
        [
            _hand(1, seat_record(0, "Alice", *QQ_TOP), seat_record(1, "Bob", *NOTHING)),
            _hand(
                2,
                seat_record(0, "Alice", *FANTASY_SET, in_fantasy=True, discards=parse_cards("Qc")),
                seat_record(1, "Bob", *NOTHING),
            ),
        ],
    )
    # File b: Alice earns nothing in hand 1 and plays a normal hand 2.
    b = _file(
        folder / "b.jsonl",
        [
            _hand(1, seat_record(0, "Alice", *NOTHING), seat_record(1, "Bob", *QJ_TOP)),
            _hand(2, seat_record(0, "Alice", *NOTHING), seat_record(1, "Bob", *QJ_TOP)),
        ],
    )
    out = folder / "data"
    summary = import_paths([a, b], out)
    assert summary.stored == 4, summary.lines()
    recompute(out)
    return out


def test_b_s_hands_are_stored_under_fingerprint_keys(data: Path) -> None:
    with ofc_stats.open(data) as db:
        keys = sorted(k for (k,) in db.sql("SELECT hand_key FROM hands").fetchall())
    assert [k.split("~")[0] for k in keys] == [
        "open:test:T1:1",
        "open:test:T1:1",
        "open:test:T1:2",
        "open:test:T1:2",
    ]
    assert sum("~" in k for k in keys) == 2


def test_alices_next_hand_is_in_her_own_file(data: Path) -> None:
    with ofc_stats.open(data) as db:
        rows = db.sql(
            "SELECT h.source_file, h.room_hand_id, n.source_file, n.room_hand_id, f.next_link "
            "FROM fantasy f JOIN hands h USING (hand_key) "
            "JOIN hands n ON n.hand_key = f.next_hand_key "
            "WHERE f.player = 'Alice' ORDER BY 1, 2"
        ).fetchall()
    # Linked as one table (time, then id, then key) her chain went a1 → b1 → a2 → b2.
    assert [(Path(f).name, i, Path(g).name, j, link) for f, i, g, j, link in rows] == [
        ("a.jsonl", "1", "a.jsonl", "2", "next"),
        ("b.jsonl", "1", "b.jsonl", "2", "next"),
    ]


def test_the_audit_finds_no_fantasyland_error_in_two_clean_files(data: Path) -> None:
    # Mixed, a1's QQ would be checked against b1 (a normal hand: "missed") and b1's
    # nothing against a2 (a Fantasyland hand: "not earned").
    with ofc_stats.open(data) as db:
        report = audit(db)
    found = report.mismatches[report.mismatches["class"].isin(FANTASY_CLASSES)]
    assert found.empty, found[["hand_key", "class"]].to_string()


def test_one_files_table_keeps_its_links_across_files_when_no_id_is_reused(
    tmp_path: Path,
) -> None:
    # A table exported in two files (hand 1, then hand 2) is one table: no key repeats,
    # so Alice's Fantasyland earned in the first file is checked in the second.
    a = _file(
        tmp_path / "day1.jsonl",
        [_hand(1, seat_record(0, "Alice", *QQ_TOP), seat_record(1, "Bob", *NOTHING))],
    )
    b = _file(
        tmp_path / "day2.jsonl",
        [_hand(2, seat_record(0, "Alice", *NOTHING), seat_record(1, "Bob", *QJ_TOP))],
    )
    out = tmp_path / "data"
    import_paths([a, b], out)
    recompute(out)
    with ofc_stats.open(out) as db:
        links = db.sql("SELECT next_link FROM fantasy WHERE player = 'Alice'").fetchall()
        report = audit(db)
    assert sorted(links, key=str) == [("next",), (None,)]
    entries = report.mismatches[report.mismatches["class"] == "fantasy_entry"]
    assert len(entries) == 1  # the room dealt no Fantasyland after her QQ
