"""A loser who paid less than he owed is a short stack only where a settlement explains
the whole hand; where none does, the room erred and the hand is judged as paid in full.

Each hand is worked out by hand below: what each kind of settlement would give every
seat, and why the hand is (or is not) explained.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from ofc_stats.audit.money import (
    Rake,
    after_rake,
    expected_money,
    given_rake,
    money_mismatches,
    settled,
    short_stacks,
)
from ofc_stats.payouts.settle import explained_short

FIVE = Rake("R", 0.05, 0.1, "nearest", 0, 0)  # 5% of the winnings, rounded to 0.1
PPP = Rake("Ppp USD", 0.03, 0.1, "nearest", 0, 0)  # 3%, rounded to 0.1
# Issue 15's hand (0.2 USD a point): seat 0 +9, seat 1 -40, seat 2 +31, owed 1.8, -8.0,
# 6.2.  Pairs: seat 1 owes seat 0 30 (6.0 USD), seat 0 owes seat 2 21 (4.2), seat 1 owes
# seat 2 10 (2.0): nets 30 - 21 = 9, -30 - 10 = -40, 21 + 10 = 31.
PAIRS = np.array([[0, 30, -21], [-30, 0, -10], [21, 10, 0]], dtype=float) * 0.2


def _hand(points: list[float], money: list[float], stakes: float = 1.0) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "hand_key": "h",
            "seat": list(range(len(points))),
            "net_capped": points,
            "stakes": stakes,
            "reported_money": money,
        }
    )


def _judged(
    points: list[float],
    money: list[float],
    rake: Rake,
    kind: str,
    stakes: float = 1.0,
    pairs: np.ndarray | None = None,
) -> tuple[bool, list[int], list[float]]:
    """(is the hand short, the seats with a money row, every seat's expected money)."""
    pairwise = None if pairs is None else {"h": pairs}
    frame = expected_money(_hand(points, money, stakes))
    frame["short"] = explained_short(frame, partial(after_rake, rake=rake), pairwise)
    frame = settled(frame, rake, kind, pairwise)
    rows = money_mismatches(frame, rake)
    expected = [round(x, 4) for x in frame["expected_money"].tolist()]
    return bool(frame["short"].any()), rows["seat"].tolist(), expected


def test_heads_up_short_stack_is_explained() -> None:
    """Owed +10 / -10.  The loser had 6: the winner gets 6, less 5% (0.3) = 5.7.  Every
    kind gives that; the loser's -6 is his stack.  No row."""
    assert _judged([10, -10], [5.7, -6.0], FIVE, "action") == (True, [], [5.7, -6.0])


def test_heads_up_paid_with_flipped_signs_is_flagged() -> None:
    """The room paid the loser 10 and took 10 from the winner.  Taking the loser's
    payment (-10) as his stack, the winner's share would be -10: less than nothing, no
    settlement pays that (nor can a stack be negative).  So the hand is paid in full: the
    winner is owed 10 - 0.5 = 9.5, the loser -10, and both seats get a row (the old audit
    called it a short stack and flagged neither)."""
    assert _judged([10, -10], [-10.0, 10.0], FIVE, "action") == (False, [0, 1], [9.5, -10.0])


def test_heads_up_under_paid_loser_with_a_winner_paid_in_full_is_flagged() -> None:
    """The room took 6 from the loser but paid the winner 9.5 (10 less 0.5): a stack of 6
    would leave the winner 6 - 0.3 = 5.7, not 9.5; money is not conserved, so no short
    stack explains it.  The loser's row: owed 10, took 6.  The winner is right."""
    assert _judged([10, -10], [9.5, -6.0], FIVE, "action") == (False, [1], [9.5, -10.0])


def test_three_seats_pairwise_short_stack_is_explained() -> None:
    """Seat 1 had 5.1 of his 8.0.  The rules' order: (0, 1) seat 1 pays his 5.1 to seat 0;
    (0, 2) seat 0 pays 4.2 to seat 2; (2, 1) seat 1 has nothing left.  Seat 0 nets 0.9
    (rake 0.027 -> 0.0), seat 2 4.2 (rake 0.126 -> 0.1, so 4.1).  The room paid that."""
    judged = _judged([9, -40, 31], [0.9, -5.1, 4.1], PPP, "rules", 0.2, PAIRS)
    assert judged == (True, [], [0.9, -5.1, 4.1])


def test_three_seats_winners_paid_in_full_by_a_short_loser_is_flagged() -> None:
    """Seat 1 paid 5.1 but the winners got 1.8 - 0.1 = 1.7 and 6.2 - 0.2 = 6.0 (rake 0.054
    and 0.186 rounded to 0.1): 8.0 before rake went out, 5.1 came in.  No kind pays
    out more than the losers paid, so this is not a short stack: seat 1 alone is flagged
    (owed -8.0), the winners got what the rules give."""
    judged = _judged([9, -40, 31], [1.7, -5.1, 6.0], PPP, "rules", 0.2, PAIRS)
    assert judged == (False, [1], [1.7, -8.0, 6.0])


def test_three_seats_flipped_signs_are_flagged_seat_by_seat() -> None:
    """Every seat's money negated: seat 1 "paid" -8.0.  Pool models: the winners would
    share -8.0 (less than nothing); pair orders: seat 1's chips would be -8.0.  Nothing
    explains it, so all three seats are judged as paid in full and all three are off."""
    judged = _judged([9, -40, 31], [-1.8, 8.0, -6.2], PPP, "rules", 0.2, PAIRS)
    assert judged == (False, [0, 1, 2], [1.7, -8.0, 6.0])


def test_proportional_short_stack_is_explained() -> None:
    """Seat 1's 5.1 shared 1.8 : 6.2 of 8.0: 1.1475 and 3.9525 before rake, 1.1475 (rake
    0.034 -> 0.0) and 3.8525 (0.119 -> 0.1) after; the room paid 1.15 and 3.85, within
    a cent.  Short, and no row."""
    short, rows, _ = _judged([9, -40, 31], [1.15, -5.1, 3.85], PPP, "proportional", 0.2, PAIRS)
    assert (short, rows) == (True, [])


def test_a_short_loser_who_collects_after_paying_is_still_short() -> None:
    """The rejected rule ("a loser the room paid is never short") is not repeated.  Seat 0
    owes seat 1 10 and is owed 4 by seat 2 (net -6); the room settles pair by pair, seat 0
    has 3: he pays his 3 to seat 1, then collects 4 from seat 2, and ends +1.  Seats 0 and 2
    paid -1 + 4 = 3 in all, and the one winner got exactly that: conserved, and every kind
    that shares what was paid explains it (the order of action: seat 1 gets 3 of his 10).
    Short, and no row."""
    assert _judged([-6, 10, -4], [1.0, 3.0, -4.0], Rake("R", 0, 0.01, "nearest", 0, 0), "action")[
        :2
    ] == (True, [])


def test_a_loser_who_paid_more_than_he_owed_is_no_short_stack() -> None:
    """Seat 1 owes 4 and paid 5, seat 2 owes 6 and paid 3; the winner got 8.  A short
    stack pays less, never more: the room's split is wrong, so the hand is paid in full
    (no rake): seat 0 owed 10, seat 1 -4, seat 2 -6, all three off."""
    free = Rake("R", 0, 0.01, "nearest", 0, 0)
    assert _judged([10, -4, -6], [8.0, -5.0, -3.0], free, "action") == (
        False,
        [0, 1, 2],
        [10.0, -4.0, -6.0],
    )


def _room() -> pd.DataFrame:
    """Four hands at 5% rounded to 0.1: two paid in full (+10 -> 9.5, +20 -> 19.0), one
    short stack (the loser had 6: 5.7), one paid with flipped signs."""
    hands = [
        ("a", [10, -10], [9.5, -10.0]),
        ("b", [20, -20], [19.0, -20.0]),
        ("c", [10, -10], [5.7, -6.0]),
        ("d", [10, -10], [-10.0, 10.0]),
    ]
    return pd.concat(
        [_hand(points, money).assign(hand_key=key) for key, points, money in hands],
        ignore_index=True,
    )


def test_the_rake_counts_the_winners_of_every_hand_that_is_not_short() -> None:
    """Hands c and d have a loser paying less than owed; only c is a short stack.  The
    rake (5%, 0.1, given) is judged on the winners of a, b and d: 3 winning seats, 2 of
    them explained (d's winner is owed 10, gross, and got -10; taken for a short stack,
    d's "settled" gross was -10 for the winner and +10 for the loser); c's winner is
    judged by the settlement."""
    frame = expected_money(_room())
    rule = partial(given_rake, "R", multiplier=1.0, rule=(0.05, 0.1, "nearest"))
    rake = short_stacks(frame, rule, None)
    assert frame.groupby("hand_key")["short"].any().to_dict() == {
        "a": False,
        "b": False,
        "c": True,
        "d": False,
    }
    assert frame.loc[frame["hand_key"] == "d", "gross"].tolist() == [10.0, -10.0]
    assert (rake.winners, rake.explained) == (3, 2)


def test_a_seat_that_nets_nothing_pays_what_a_short_loser_leaves_unpaid() -> None:
    """Spartan hand 338269513 (no rake, 5 a point): seat 0 beats seat 1 by 18 (90) and
    seat 2 by 6 (30); seat 2 beats seat 1 by 6 (30).  Owed: 120, -120, 0.  Seat 1 had 105.
    The rules' order: (0, 1) seat 1 pays 90 to seat 0 and has 15 left; (0, 2) seat 2 pays
    30 to seat 0; (2, 1) seat 1 owes seat 2 30 and pays his last 15.  So 120 / -105 / -15:
    what the room paid.  The pair order used to move the winners' money only, leaving
    seat 2 at 0, so the hand was not explained and all three seats got a row (and the
    ledger's rules money summed to +15)."""
    pairs = np.array([[0, 90, 30], [-90, 0, -30], [-30, 30, 0]], dtype=float)
    free = Rake("R", 0, 0.01, "nearest", 0, 0)
    judged = _judged([24, -24, 0], [120, -105, -15], free, "rules", 5.0, pairs)
    assert judged == (True, [], [120.0, -105.0, -15.0])


def test_a_short_loser_who_collects_in_a_later_pair_keeps_his_reported_loss() -> None:
    """Pairs in the rules' order (0, 1), (0, 2), (2, 1); seat 2 beats seat 1 by 4 and
    loses to seat 0 by 10, seat 1 loses to seat 0 by 6: owed 16, -10, -6.  Seat 2 ends
    down 2 (short: he owed 6).  His stack is not 2: he pays seat 0 in (0, 2) before he
    collects 4 from seat 1 in (2, 1), so a stack s gives -min(s, 10) + 4 = -2: s = 6.
    Seat 0 gets 6 + 6 = 12, seat 1 pays 6 + 4 = 10.  With the stack taken as his loss (2)
    the flow was 8 / -10 / +2, and the hand was not explained."""
    pairs = np.array([[0, 6, 10], [-6, 0, -4], [-10, 4, 0]], dtype=float)
    free = Rake("R", 0, 0.01, "nearest", 0, 0)
    judged = _judged([16, -10, -6], [12, -10, -2], free, "rules", 1.0, pairs)
    assert judged == (True, [], [12.0, -10.0, -2.0])
