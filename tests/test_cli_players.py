"""`ofc-stats players`: one short line a person, however many accounts an alias joins."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from ofc_stats.cli import main
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
    assert "moved" not in again.output  # already Work's: nothing moves
