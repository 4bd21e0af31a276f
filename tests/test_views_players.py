"""The ``players`` view: one row an account, and what a person is seen as beside it.

Its first eight columns are kept as they were (``ofc-stats players`` and users' queries
read them); after them the account's room id and every name it played under, and its
person's accounts, hands and rooms, a hand two of the person's accounts played together
counted once.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from tests.builders import hand_record, seat_record, write_dataset

FIRST = [
    "person", "player_key", "player", "hands", "hero_hands", "rooms", "first_seen", "last_seen",
]  # fmt: skip
ADDED = ["player_id", "names", "accounts", "person_hands", "person_rooms"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six hands, each against another opponent (no two hands alike).  At room test, hands
    0 to 2: the account with room id ``id7``, named Ann, then Ann2 in hand 2 (a rename).  At
    Spartan, hands 3 and 4: the account ``ann_sp`` (a name, no id); hand 5: both of them at
    one table.  Then ``players alias Me id7 ann_sp``."""
    me = seat_record(0, "Ann", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah", player_id="id7")
    other = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    sp = seat_record(2, "ann_sp", "2d 2s 3c", "7d 7s 8h 9d Jc", "Tc Td Ts Jd Qc")
    seats = [
        (me, other),
        (me, other),
        (replace(me, player="Ann2"), other),
        (replace(sp, seat=0), other),
        (replace(sp, seat=0), other),
        (me, other, sp),
    ]
    hands = [
        replace(
            hand_record(n, tuple(replace(s, player=f"Bob{n}") if s is other else s for s in at)),
            room="test" if n < 3 else "Spartan",
        )
        for n, at in enumerate(seats)
    ]
    data = write_dataset(tmp_path_factory.mktemp("players"), hands)
    joined = CliRunner().invoke(
        main, ["players", "alias", "--data", str(data), "Me", "id7", "ann_sp"]
    )
    assert joined.exit_code == 0, joined.output
    return data


def test_the_first_columns_are_kept_and_the_person_follows(dataset: Path) -> None:
    """Hand-counted: id7 sat in hands 0, 1, 2 and 5 (4 seats: Ann 3, Ann2 1) at test and
    Spartan; ann_sp in 3, 4 and 5 at Spartan.  Me: 7 seats in 6 hands (hand 5 once), at
    Spartan and test; id7 first (4 seats to 3)."""
    with ofc_stats.open(dataset) as db:
        relation = db.sql("SELECT * FROM players WHERE person = 'Me' ORDER BY hands DESC")
        columns, rows = relation.columns, relation.fetchall()
    assert columns == FIRST + ADDED
    got = [dict(zip(columns, row, strict=True)) for row in rows]
    assert [(r["player_key"], r["player"], r["hands"], r["rooms"]) for r in got] == [
        ("id7", "Ann", 4, "Spartan, test"),
        ("ann_sp", "ann_sp", 3, "Spartan"),
    ]
    assert [(r["player_id"], r["names"]) for r in got] == [
        ("id7", ["Ann", "Ann2"]),
        (None, ["ann_sp"]),
    ]
    for row in got:
        assert row["accounts"] == ["id7", "ann_sp"]
        assert (row["person_hands"], row["person_rooms"]) == (6, "Spartan, test")


def test_the_hand_counts_are_sql_counts_of_the_seats(dataset: Path) -> None:
    """For every person: the accounts' hands are their seats, and the person's hands the
    distinct hands of those seats (a person of one account: its own), counted from seats."""
    with ofc_stats.open(dataset) as db:
        people = db.sql(
            "SELECT person, any_value(accounts), any_value(person_hands), sum(hands), count(*) "
            "FROM players GROUP BY person ORDER BY person"
        ).fetchall()
        assert len(people) == 7  # Me, and Bob0 to Bob5 (one hand each)
        for person, accounts, hands, seats, held in people:
            counted = db.sql(
                "SELECT count(DISTINCT hand_key), count(*) FROM seats "
                "WHERE list_contains($a, coalesce(player_id, player))",
                {"a": accounts},
            ).fetchall()[0]
            assert (hands, seats) == counted, person
            assert held == len(accounts)
    assert dict((p, (h, s)) for p, _, h, s, _ in people)["Me"] == (6, 7)


def test_the_players_command_still_lists_one_line_a_person(dataset: Path) -> None:
    """`ofc-stats players` reads the view's first columns: Me's line names both accounts."""
    listing = CliRunner().invoke(main, ["players", "--data", str(dataset)])
    assert listing.exit_code == 0, listing.output
    header, *lines = listing.output.splitlines()
    assert header.split() == [
        "person", "accounts", "names", "hands", "hero_hands", "rooms", "first_seen", "last_seen",
    ]  # fmt: skip
    me = next(line for line in lines if line.startswith("Me "))
    assert me.split()[:4] == ["Me", "2", "Ann,", "ann_sp"]


def test_the_players_command_counts_a_persons_hands_and_rooms_once(dataset: Path) -> None:
    """``ofc-stats players``: Me played 6 hands (id7 in 0, 1, 2, 5; ann_sp in 3, 4, 5: hand 5
    once, not twice: 7 seats) in two rooms, each named once (the accounts' rooms were
    "test" and "Spartan, test": summed, Spartan's hand and 'test' came twice)."""
    listed = CliRunner().invoke(main, ["players", "--data", str(dataset)])
    assert listed.exit_code == 0, listed.output
    row = next(line for line in listed.output.splitlines() if line.startswith("Me"))
    assert " 6 " in f" {row} " and "Spartan, test" in row, row
    assert "Spartan, Spartan" not in row and " 7 " not in f" {row} ", row
