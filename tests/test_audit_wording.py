"""The audit's sentences: one unit per count, and never '1 hands'."""

from __future__ import annotations

import doctest

import ofc_stats.audit.evidence
from ofc_stats.audit.evidence import Evidence


def test_the_evidence_examples() -> None:
    assert doctest.testmod(ofc_stats.audit.evidence).failed == 0


def test_one_is_singular_and_the_verb_agrees() -> None:
    one = Evidence(
        "fantasy.entry_cards.KK", "15", 1, 1, {"14": 0}, held=(1, 1), runner_up=("14", 1)
    )
    assert one.describe() == (
        "fantasy.entry_cards.KK = 15: 1 hand supports, 1 contradicts; others: 14 0; out of "
        "sample (each half's pick judged on the other half, by hand order): 1 hand supports, "
        "1 contradicts; the other half's second choice: 1 hand supports"
    )
    many = Evidence("scoring", "american", 1249, 0, {"classic": 656})
    assert (
        many.describe()
        == "scoring = american: 1,249 hands support, 0 contradict; others: classic 656"
    )


def test_the_rake_counts_winning_seats_as_the_plain_audit_does() -> None:
    """`--guess-rules` said '824 hands support' of the 824 the audit calls winning seats."""
    rake = Evidence("room.rake.USD", "0.03, nearest to 0.1", 824, 0, unit="winning seat")
    assert (
        rake.describe()
        == "room.rake.USD = 0.03, nearest to 0.1: 824 winning seats support, 0 contradict"
    )
    cap = Evidence("room.rake_cap.AUD", "10", 1, 0, {"no cap": 167}, unit="winning seat")
    assert cap.describe().startswith(
        "room.rake_cap.AUD = 10: 1 winning seat supports, 0 contradict"
    )


def test_a_hand_no_check_could_look_at_says_why_for_each_check() -> None:
    """It said '9 hands checked by no check'; now each check's reason, like reasons merged."""
    from ofc_stats.audit.coverage import _why_none

    reasons = {
        "points": "not reported",
        "fantasy": "after a hand not scored",
        "money": "not reported",
    }
    assert _why_none(reasons) == "points and money not reported, fantasy after a hand not scored"
