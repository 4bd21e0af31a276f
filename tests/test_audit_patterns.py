"""Patterns across the seats of a hand: one name for a hand paid another way as a whole."""

from __future__ import annotations

import pandas as pd

from ofc_stats.audit.money import Rake, RoomMoney
from ofc_stats.audit.money_rows import money_rows
from ofc_stats.audit.patterns import (
    LOSERS_SPLIT,
    NOTHING,
    ONE_SEAT,
    OTHER_ORDER,
    RAKE_CAP,
    RAKE_ROUNDING,
    WINNERS_SPLIT,
    hand_patterns,
)
from ofc_stats.payouts.settle import Settlement

NO_RAKE = Rake("Spartan INR", 0.0, 0.01, "nearest", 10, 10)
RAKE3 = Rake("Ppp AUD", 0.03, 0.1, "nearest", 10, 10)
RULES = Settlement("Spartan INR", "rules", 0, 0, {})


def _hand(key: str, owed: list[float], paid: list[float], expected: list[float] | None = None,
          short: bool = False, gross: list[float] | None = None) -> pd.DataFrame:  # fmt: skip
    n = len(owed)
    return pd.DataFrame(
        {
            "hand_key": [key] * n,
            "seat": list(range(n)),
            "room": ["R"] * n,
            "currency": ["INR"] * n,
            "player": [f"p{i}" for i in range(n)],
            "scored_with": ["pineapple"] * n,
            "net_capped": owed,
            "reported_points": owed,
            "stakes": [1.0] * n,
            "owed": owed,
            "gross": gross if gross is not None else owed,
            "short": [short] * n,
            "reported_money": paid,
            "expected_money": expected if expected is not None else owed,
        }
    )


def test_the_split_between_two_losers_is_one_pattern_not_two_short_stacks() -> None:
    """Spartan hand 338161403: the winner's +650 and the losers' total 650 are right; the
    rules give -520 and -130, the room took -480 and -170 (40 moved from one loser to the
    other).  Before, each loser was a separate 'loser paid less than owed (a short stack?)'."""
    hand = _hand("338161403", [650.0, -520.0, -130.0], [650.0, -480.0, -170.0])
    room = RoomMoney(hand, (NO_RAKE,), (RULES,))
    rows = money_rows(room)
    assert list(rows["seat"]) == [1, 2]
    assert set(rows["cause"]) == {LOSERS_SPLIT}
    text = rows["explanation"].iloc[0]
    assert "losers paid 650 INR in all" in text
    assert "480 INR (seat 1), -170 INR (seat 2)" in text
    assert "-520 INR (seat 1), -130 INR (seat 2)" in text
    assert "short stack?" not in text


def test_two_winners_paid_the_rules_total_split_otherwise() -> None:
    """Losers right (-10 each), winners' 20 split 15/5 where the rules give 10/10."""
    hand = _hand("h", [10.0, 10.0, -10.0, -10.0], [15.0, 5.0, -10.0, -10.0])
    found = hand_patterns(hand, ["h"], NO_RAKE, RULES)["h"]
    assert found.name == WINNERS_SPLIT


def test_a_short_stack_paid_in_another_modelled_order() -> None:
    """Seat 2 owes 10 to each winner but paid 10 in all: the settlement judged by (the rules'
    pair order: pair 0-1 owes nothing, then 0-2 gives seat 0 all 10) leaves seat 1 nothing;
    the room paid seat 1 the 10 — as paying from the seat before the short stack backwards
    does (seat 1 first)."""
    owed = [10.0, 10.0, -20.0]
    hand = _hand("h", owed, [0.0, 10.0, -10.0], [10.0, 0.0, -10.0], short=True,
                 gross=[10.0, 0.0, -10.0])  # fmt: skip
    found = hand_patterns(hand, ["h"], NO_RAKE, RULES)["h"]
    assert found.name == OTHER_ORDER
    assert "from the seat before the short stack" in found.evidence


def test_a_rake_cap_needs_the_room_never_to_charge_more() -> None:
    """3% of 490 rounded to 0.1 is 14.7; the room kept 10.  Another winner of 300 kept 9
    (3% = 9.0): no winner kept more than 10, so a cap of 10 fits.  Had one kept 12, the
    cap would be contradicted and not named."""
    big = _hand("big", [490.0, -490.0], [480.0, -490.0], [475.3, -490.0])
    other = _hand("o", [300.0, -300.0], [291.0, -300.0], [291.0, -300.0])
    frame = pd.concat([big, other], ignore_index=True)
    found = hand_patterns(frame, ["big"], RAKE3, RULES)["big"]
    assert found.name == RAKE_CAP
    assert "capped at 10 INR" in found.evidence
    assert "most any other winning seat was charged is 9 INR" in found.evidence
    # 400 × 3% = 12 kept: a winner charged more than 10 contradicts the cap
    over = _hand("x", [400.0, -400.0], [388.0, -400.0], [388.0, -400.0])
    frame = pd.concat([big, other, over], ignore_index=True)
    assert hand_patterns(frame, ["big"], RAKE3, RULES)["big"].name != RAKE_CAP


def test_another_rounding_of_the_rate_names_its_room_wide_support() -> None:
    """20 won, 3% = 0.6 kept unrounded where the rule rounds to 1 (kept 1): 'rounded another
    way', with how many of the room's winners that rounding explains (1 of 2 here)."""
    rule = Rake("Ppp PHP", 0.03, 1.0, "nearest", 2, 1)
    hand = _hand("h", [20.0, -20.0], [19.4, -20.0], [19.0, -20.0])
    frame = pd.concat([hand, _hand("o", [100.0, -100.0], [97.0, -100.0])], ignore_index=True)
    found = hand_patterns(frame, ["h"], rule, RULES)["h"]
    assert found.name == RAKE_ROUNDING
    assert "explains 2, the rule's (rounded nearest to 1) 1" in found.evidence


def test_rounding_carried_to_one_seat() -> None:
    """Two winners of 5 at 3% rounded nearest to 0.1: each seat's rake 0.15 rounds to 0.2,
    4.8 each, 9.6 in all; rounded once on the hand's 10 the rake is 0.3, 9.7 in all.  The
    room paid 4.8 and 4.9: the 0.1 the single rounding saves carried to seat 1.  (Rounding
    each seat down would give 4.9 to both, so no other rounding fits the hand.)"""
    rule = Rake("R", 0.03, 0.1, "nearest", 2, 2)
    hand = _hand("h", [5.0, 5.0, -10.0], [4.8, 4.9, -10.0], [4.8, 4.8, -10.0])
    found = hand_patterns(hand, ["h"], rule, RULES)["h"]
    assert found.name == ONE_SEAT
    assert "carried to seat 1" in found.evidence


def test_what_nothing_explains_is_said_plainly() -> None:
    """A seat that scored 0 charged 15 with nothing else off: no pattern; the row says so."""
    hand = _hand("h", [10.0, -10.0, 0.0], [10.0, -10.0, -15.0])
    rows = money_rows(RoomMoney(hand, (NO_RAKE,), (RULES,)))
    assert rows["cause"].iloc[0].endswith(NOTHING)
    assert "nothing the audit tries" in rows["explanation"].iloc[0]
