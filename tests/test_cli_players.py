"""`ofc-stats players`: one short line a person, however many accounts an alias joins."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from tests.builders import hand_record, seat_record, write_dataset


def test_a_person_of_many_accounts_lists_the_three_busiest(tmp_path: Path) -> None:
    """Five accounts of one player: a1 in 5 hands, a2 in 4, … a5 in 1 (15 hands), each against
    another opponent.  The names column shows a1, a2, a3 and '+2 more', not all five."""
    me = seat_record(0, "a1", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    hands = []
    for account, count in (("a1", 5), ("a2", 4), ("a3", 3), ("a4", 2), ("a5", 1)):
        for _ in range(count):  # a new opponent name each hand: no two hands alike
            seats = (replace(me, player=account), replace(bob, player=f"Bob{len(hands)}"))
            hands.append(hand_record(len(hands), seats))
    data = write_dataset(tmp_path, hands)
    runner = CliRunner()
    joined = runner.invoke(
        main, ["players", "alias", "--data", str(data), "Me", *["a1", "a2", "a3", "a4", "a5"]]
    )
    assert joined.exit_code == 0, joined.output
    listing = runner.invoke(main, ["players", "--data", str(data)])
    me_line = next(line for line in listing.output.splitlines() if line.startswith("Me "))
    assert "a1, a2, a3 +2 more" in me_line and "a4" not in me_line
    assert me_line.split()[1] == "5" and " 15 " in me_line  # accounts, hands


def test_joining_an_account_of_another_alias_says_it_moves(tmp_path: Path) -> None:
    """An account is one person's: `alias Work a2` while a2 is Me's moves it, and says so."""
    me = seat_record(0, "a1", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    hands = [
        hand_record(i, (replace(me, player=account), replace(bob, player=f"Bob{i}")))
        for i, account in enumerate(["a1", "a2", "a3"])
    ]
    data = str(write_dataset(tmp_path, hands))
    runner = CliRunner()
    first = runner.invoke(main, ["players", "alias", "--data", data, "Me", "a1", "a2"])
    assert first.exit_code == 0 and "moved" not in first.output, first.output
    second = runner.invoke(main, ["players", "alias", "--data", data, "Work", "a2", "a3"])
    assert second.exit_code == 0, second.output
    assert second.output.splitlines() == [
        "Work: 2 accounts joined (a2, a3)",
        "  a2 moved here from Me",
    ]
    again = runner.invoke(main, ["players", "alias", "--data", data, "Work", "a2"])
    assert again.exit_code == 0, again.output  # already Work's: nothing moves, nothing joins
    assert again.output == "Work: already joins 1 account (a2)\n"
    more = runner.invoke(main, ["players", "alias", "--data", data, "Work", "a3", "a1"])
    assert more.output.splitlines() == [
        "Work: already joins 1 account (a3)",
        "Work: 1 account joined (a1)",
        "  a1 moved here from Me",
    ]


def test_the_groups_data_reaches_alias_and_unalias(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`players --data D alias ...` works on D (not ./ofc-data), as `players --data D` does;
    the subcommand's own --data still wins, and an unknown name names the dataset."""
    me = seat_record(0, "a1", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    data = str(write_dataset(tmp_path, [hand_record(1, (me, bob))]))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no ./ofc-data here
    runner = CliRunner()
    joined = runner.invoke(main, ["players", "--data", data, "alias", "Me", "a1"])
    assert joined.exit_code == 0, joined.output
    assert joined.output == "Me: 1 account joined (a1)\n"
    left = runner.invoke(main, ["players", "--data", data, "unalias", "Me"])
    assert left.exit_code == 0, left.output
    assert left.output.startswith("Me: 1 account taken out (a1)")
    own = runner.invoke(main, ["players", "--data", "nowhere", "alias", "--data", data, "Me", "a1"])
    assert own.exit_code == 0, own.output
    unknown = runner.invoke(main, ["players", "--data", data, "alias", "Me", "pid404"])
    assert unknown.exit_code == 1
    assert unknown.output.startswith(f"Error: {data}: no player 'pid404' in this dataset")
    far = runner.invoke(main, ["players", "--data", data, "alias", "Me", "zzzzzz"])
    assert far.output.endswith(
        "no name close to it among 3 player names, ids and aliases (`ofc-stats players` lists them)\n"
    )
    assert len(unknown.output.splitlines()) == 1
    gone = runner.invoke(main, ["players", "--data", data, "unalias", "Nobody"])
    assert gone.exit_code == 1 and gone.output.startswith(f"Error: {data}: no alias 'Nobody'")
    assert not (elsewhere / "ofc-data").exists()


def test_an_alias_named_after_an_account_says_that_account_joins_too(tmp_path: Path) -> None:
    """`alias a1 a2`: the players view names an account that joins no one by its key, so a1's
    hands and a2's are one person a1 (2 accounts, 3 hands): said, not done silently."""
    me = seat_record(0, "a1", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    hands = [
        hand_record(0, (me, replace(bob, player="Bob0"))),
        hand_record(1, (me, replace(bob, player="Bob1"))),
        hand_record(2, (replace(me, player="a2"), replace(bob, player="Bob2"))),
    ]
    data = write_dataset(tmp_path, hands)
    runner = CliRunner()
    joined = runner.invoke(main, ["players", "alias", "--data", str(data), "a1", "a2"])
    assert joined.exit_code == 0, joined.output
    assert joined.output.splitlines() == [
        "a1: 1 account joined (a2)",
        "  a1 is also an account: its hands count as a1's too "
        "(`players alias OTHER a1` keeps it apart)",
    ]
    listing = runner.invoke(main, ["players", "--data", str(data)])
    a1 = next(line for line in listing.output.splitlines() if line.startswith("a1 "))
    assert a1.split()[1] == "2" and " 3 " in a1  # 2 accounts, 3 hands: as said
    other = runner.invoke(main, ["players", "alias", "--data", str(data), "Me", "a2"])
    assert "is also an account" not in other.output  # no account is named Me
