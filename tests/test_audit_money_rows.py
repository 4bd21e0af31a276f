"""The audit's money rows: plain words, and said against what they are judged."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import ofc_stats
from ofc_stats.audit.explain import money_text, points_text
from ofc_stats.audit.money import Rake
from ofc_stats.audit.points import audit
from ofc_stats.records import HandRecord
from ofc_stats.wording import plural
from tests.builders import hand_record, seat_record, write_dataset

NO_RAKE = Rake("room PTS", 0.0, 0.01, "nearest", 10, 10)
ALICE = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
BOB = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")


def test_losses_and_point_counts_read_as_people_write_them() -> None:
    """'lost 5 points' (not 'lost -5 points'), '1 point apart' (not '1 points apart')."""
    short = dict(
        owed=-5.0, reported_money=-4.0, expected_money=-5.0, currency="PTS",
        net_capped=-5.0, stakes=1.0, short_paid=True,
    )  # fmt: skip
    text = money_text(short, NO_RAKE)
    assert text.startswith("lost 5 points × 1 = 5 PTS; the room took only 4 PTS")
    assert "-" not in text
    charged = dict(short, reported_money=-8.0, expected_money=-7.0, owed=-7.0, short_paid=False)
    assert money_text(charged, NO_RAKE) == "lost 7 PTS by points × stakes; the room charged 8 PTS"
    won = dict(short, owed=1.0, reported_money=0.0, expected_money=1.0, net_capped=1.0)
    assert money_text(won, NO_RAKE).startswith("won 1 point × 1 = 1 PTS; ")
    seat = {"reported_points": 8.0, "net_capped": 7.0}
    assert "(1 point apart)" in points_text(seat, "")
    assert "(3 points apart)" in points_text({"reported_points": 10.0, "net_capped": 7.0}, "")
    assert plural(1409, "hand") == "1,409 hands" and plural(1.0, "hand") == "1 hand"
    assert plural(0.5, "point") == "0.5 points"


def _hand(
    number: int,
    points: tuple[float, float],
    money: tuple[float, float],
    stakes: float = 1.0,
    **bob: object,
) -> HandRecord:
    """Heads-up: the rules give Alice +21 and Bob -21; the room's points and money."""
    alice = replace(ALICE, reported_points=points[0], reported_money=money[0])
    bob_seat = replace(BOB, reported_points=points[1], reported_money=money[1], **bob)  # type: ignore[arg-type]
    hand = hand_record(number, (alice, bob_seat))
    return replace(hand, table_id=f"T{number}", stakes=stakes)


def test_a_money_row_says_its_rake_is_inferred_and_how_well_it_fits(tmp_path: Path) -> None:
    """Three winners paid their 21 points × stakes less 3% rounded to 0.1, one paid 21 less
    the exact 3% (20.37, not 20.4): the inferred rule (3%, nearest 0.1) explains 3 of 4, and
    the fourth row says so, and that the room kept the rule's rate unrounded, instead of
    reading as a plain room error (the trial's "19 PHP ... the room paid 19.4")."""
    paid = {2.0: 40.7, 3.0: 61.1, 5.0: 101.8}
    hands = [_hand(n, (21.0, -21.0), (p, -21 * s), s) for n, (s, p) in enumerate(paid.items())]
    hands.append(_hand(4, (21.0, -21.0), (20.37, -21.0), 1.0))
    data = write_dataset(tmp_path, hands)
    with ofc_stats.open(data) as db:
        report = audit(db)
    (row,) = report.mismatches.to_dict("records")
    assert (row["class"], row["room_value"], row["recomputed_value"]) == ("money", 20.37, 20.4)
    assert row["basis"] == "rake inferred from these hands, explains 3 of 4 winning seats, 75.0%"
    assert "the rake rule inferred from these hands" in row["explanation"]
    assert "it explains 3 of 4 winning seats" in row["explanation"]
    assert "keeping 0.63 (3.00% of the winnings): the rule's rate unrounded" in row["explanation"]
    # the room's money rules, said once after its groups (not on each group's money line)
    (money_line,) = [line for line in report.lines() if " · every rule string: " in line]
    assert "the room's money is judged by a rake inferred from these hands" in money_line
    assert "explains 3 of 4 winning seats" in money_line
    assert any("(inferred from these hands: explains 3 of 4" in line for line in report.lines())


def test_a_rake_rule_never_seen_at_this_size_says_so() -> None:
    """Upoker's 92 USD win, paid 90: the inferred 3% was seen to hold up to 67 USD only."""
    rake = Rake("Upoker USD", 0.03, 0.01, "nearest", 106, 104, largest=67.0)
    row = dict(
        owed=92.0, gross=92.0, reported_money=90.0, expected_money=89.24, currency="USD",
        net_capped=92.0, stakes=1.0, short_paid=False, short=False,
    )  # fmt: skip
    text = money_text(row, rake)
    assert "keeping 2 USD (2.17% of the winnings)" in text
    assert (
        "the rule is untested at this size: the largest winning seat it explains is 67 USD" in text
    )


def test_money_that_follows_the_rooms_points_is_not_a_second_guess(tmp_path: Path) -> None:
    """The room scores Alice +20 (the rules +21) and settles its own points: Bob, whose stack
    is known, pays 20 (two hands settled right show the room pays points × stakes).  Not a
    short stack: both money rows say they follow the points row."""
    hands = [_hand(n, (21.0, -21.0), (21.0, -21.0), stack=100.0) for n in (1, 2)]
    hands.append(_hand(3, (20.0, -20.0), (20.0, -20.0), stack=100.0))
    data = write_dataset(tmp_path, hands)
    with ofc_stats.open(data) as db:
        report = audit(db)
    rows = report.mismatches
    assert set(rows.loc[rows["class"] != "money", "hand_key"]) == set(rows["hand_key"])
    money = rows[rows["class"] == "money"].set_index("seat")
    assert list(money["cause"]) == ["follows the room's points"] * 2
    assert not money["explanation"].str.contains("short stack").any()
    assert money.loc[1, "explanation"].startswith(
        "the room charged this seat by the points it reported: -20 × 1 = 20, exactly"
    )
    assert "the money follows this hand's points row" in money.loc[0, "explanation"]
    # the rules' money keeps its sign (Bob owes 21 under the rules: -21, not 21)
    assert "the rules give -21 points, -21: the money follows" in money.loc[1, "explanation"]


def test_only_the_seats_whose_points_are_off_follow_the_points_row() -> None:
    """Three seats; the room misreported seats 0 and 1 (+20/-20 for +21/-21) and paid each
    its own points.  Seat 2's points are right (0) and the room paid it 5 where the rules'
    short-stack settlement gives 3: its money row stays a money error, not 'follows'."""
    import pandas as pd

    from ofc_stats.audit.money_rows import FOLLOWS, follow_points

    rake = Rake(room="R", rate=0.0, tick=0.01, mode="nearest", winners=4, explained=4)
    base = {"hand_key": "h", "rake_index": 0, "currency": "", "stakes": 1.0, "short": False}
    money = pd.DataFrame(
        [
            {**base, "seat": 0, "reported_points": 20.0, "net_capped": 21.0, "owed": 21.0,
             "own_money": 20.0, "reported_money": 20.0, "expected_money": 21.0},
            {**base, "seat": 1, "reported_points": -20.0, "net_capped": -21.0, "owed": -21.0,
             "own_money": -20.0, "reported_money": -20.0, "expected_money": -21.0},
            {**base, "seat": 2, "reported_points": 5.0, "net_capped": 5.0, "owed": 5.0,
             "own_money": 5.0, "reported_money": 5.0, "expected_money": 3.0},
        ]
    ).assign(cause="amount", explanation="", basis="")  # fmt: skip
    points = pd.DataFrame({"hand_key": ["h", "h"], "seat": [0, 1]})
    out = follow_points(money, points, (rake,))
    assert list(out["cause"]) == [FOLLOWS, FOLLOWS, "amount"]


def test_a_money_rule_belongs_to_its_own_room_only() -> None:
    """Rules are labelled "<room> <currency>": room X's are not room "X 2"'s."""
    from ofc_stats.audit.points import _of_room

    assert _of_room("Ppp USD", "Ppp") and _of_room("My Club USD", "My Club")
    assert _of_room("X (no currency)", "X")
    assert not _of_room("X 2 USD", "X") and not _of_room("Ppp USD", "Pp")
