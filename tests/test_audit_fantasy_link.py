"""A player's Fantasyland shows on the table's next hand, and only if he is seated in it.

After a hand he sat out, or where the table's hand numbers skip a hand
missing from the files, the room's decision cannot be seen: the audit calls
it not checkable instead of blaming the room for a normal hand it dealt.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import ofc_stats
from ofc_stats.audit.points import audit
from ofc_stats.records import HandRecord, SeatRecord
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from tests.builders import hand_record, seat_record, write_dataset
from tests.shared_samples import APPS

# Alice's QQ on top (a straight in the middle, a flush at the bottom: a live board)
# earns 14 cards of Fantasyland under pineapple-progressive.  Bob's board earns none.
QQ_TOP = ("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
NOTHING = ("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")


def _hand(table: str, number: int, first: str, second: str = "Bob") -> HandRecord:
    """``first`` plays the QQ board, ``second`` the other; nobody is dealt Fantasyland."""
    seats: tuple[SeatRecord, ...] = (
        seat_record(0, first, *QQ_TOP, reported_points=21.0),
        seat_record(1, second, *NOTHING, reported_points=-21.0),
    )
    hand = hand_record(number, seats)
    return replace(hand, table_id=table, room_hand_id=f"{table}-{number}")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records = [
        # T1: Alice earns Fantasyland in hand 1, sits out hand 2 (Carol plays), is dealt
        # a normal hand 3: the room had no hand of hers to deal Fantasyland in.
        _hand("T1", 1, "Alice"),
        _hand("T1", 2, "Carol"),
        _hand("T1", 3, "Alice"),
        # T2: hand 2 is not in the file: what the room dealt Alice there is unknown.
        _hand("T2", 1, "Alice"),
        _hand("T2", 3, "Alice"),
        # T3: the control, the table's next hand with Alice in it: a normal hand dealt
        # after her QQ is a room error, as before.
        _hand("T3", 1, "Alice"),
        _hand("T3", 2, "Alice"),
    ]
    return write_dataset(tmp_path_factory.mktemp("fantasy-link"), records)


def test_the_view_links_only_the_tables_next_hand(data: Path) -> None:
    with ofc_stats.open(data) as db:
        links = db.df(
            "SELECT h.room_hand_id, coalesce(f.next_link, 'none') AS next_link "
            "FROM fantasy f JOIN hands h USING (hand_key) "
            "WHERE f.player = 'Alice' ORDER BY 1"
        )
    assert dict(zip(links["room_hand_id"], links["next_link"], strict=True)) == {
        "T1-1": "sat out",  # her next hand (3) is not the table's next (2)
        "T1-3": "none",  # no later hand (null)
        "T2-1": "gap",  # the table's counter goes 1 → 3
        "T2-3": "none",
        "T3-1": "next",
        "T3-2": "none",
    }


def test_the_audit_reports_them_not_checkable_not_as_room_errors(data: Path) -> None:
    with ofc_stats.open(data) as db:
        report = audit(db)
        keys = dict(db.sql("SELECT room_hand_id, hand_key FROM hands").fetchall())
    entries = report.mismatches[report.mismatches["class"] == "fantasy_entry"]
    assert entries["hand_key"].tolist() == [keys["T3-2"]]  # the control only
    assert report.unchecked is not None
    unchecked = report.unchecked.set_index("hand_key")
    assert set(unchecked.index) == {keys["T1-1"], keys["T2-1"]}
    assert unchecked.loc[keys["T1-1"], "next_link"] == "sat out"
    assert unchecked.loc[keys["T1-1"], "next_hand_key"] == keys["T1-3"]
    assert "Alice sat out the table's next hand" in unchecked.loc[keys["T1-1"], "explanation"]
    assert unchecked.loc[keys["T2-1"], "next_link"] == "gap"
    assert "missing from the files" in unchecked.loc[keys["T2-1"], "explanation"]
    (row,) = report.summary.to_dict("records")
    # Checked, by the hand the decision shows on: Bob's T1-2 and T1-3 (he plays every hand
    # of T1; normal hands after a board that earns none: they match) and T3-2 (Alice's
    # missed Fantasyland, and Bob's): 3 hands, 2 match.  Bob's T2-1 → T2-3 is a gap too,
    # but with no Fantasyland at stake it is neither checked nor counted.
    assert (row["fantasy_unchecked"], row["fantasy_checked"], row["fantasy_matching"]) == (
        2,
        3,
        2,
    )
    assert any("fantasy: 2 decisions not checkable" in line for line in report.lines())


@pytest.mark.skipif(not APPS.is_dir(), reason="../shared/samples/apps is not here")
def test_the_auditors_three_links_are_not_checkable(tmp_path: Path) -> None:
    """pid5118808 sat out hands 37-38 of Ppp table 21950775, pid5359358 hands 9-10 of
    21958502; Upoker's 21178407-9 is not in the file.  None of them is a room error."""
    data = tmp_path / "apps"
    import_paths([APPS], data)
    recompute(data)
    with ofc_stats.open(data) as db:
        seated = db.df(
            "SELECT room_hand_id, player FROM seat_results WHERE list_contains($ids, room_hand_id)",
            {
                "ids": [
                    "210330192443-21950775-0000037-1",
                    "210330192443-21950775-0000038-1",
                    "210330222537-21958502-0000009-1",
                    "210330222537-21958502-0000010-1",
                    "21178407-9",
                ]
            },
        )
        report = audit(db)
    # The premises, from the data: both tables played on without them; hand 9 is absent.
    assert set(seated["room_hand_id"]) == {
        "210330192443-21950775-0000037-1",
        "210330192443-21950775-0000038-1",
        "210330222537-21958502-0000009-1",
        "210330222537-21958502-0000010-1",
    }
    at = seated.groupby(seated["room_hand_id"].str.contains("21950775"))["player"].agg(set)
    assert "pid5118808" not in at[True] and "pid5359358" not in at[False]
    expected = {
        ("app-json:Ppp:21950775:210330192443-21950775-0000036-1", "pid5118808", "sat out"),
        ("app-json:Ppp:21958502:210330222537-21958502-0000008-1", "pid5359358", "sat out"),
        ("app-json:Upoker:21178407:21178407-8", "pid476780", "gap"),
    }
    assert report.unchecked is not None
    found = set(report.unchecked[["hand_key", "player", "next_link"]].itertuples(index=False))
    assert expected <= {tuple(row) for row in found}
    blamed = set(report.mismatches.loc[report.mismatches["class"] == "fantasy_entry", "hand_key"])
    for wrongly in (
        "app-json:Ppp:21950775:210330192443-21950775-0000039-1",
        "app-json:Ppp:21958502:210330222537-21958502-0000011-1",
        "app-json:Upoker:21178407:21178407-10",
    ):
        assert wrongly not in blamed
