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


def test_a_rooms_money_rules_are_said_once_for_all_its_rule_strings() -> None:
    """Upoker's two rule strings each repeated the rake, settlement and out-of-sample text."""
    import pandas as pd

    from ofc_stats.audit.holdout import Holdout
    from ofc_stats.audit.money import Rake
    from ofc_stats.audit.points import AuditReport

    def group(ruleset: str, hands: int) -> dict[str, object]:
        counts = {
            f"{c}_{k}": hands
            for c in ("points", "fantasy", "money")
            for k in ("checked", "matching")
        }
        counts.update({f"{c}_not_checked": 0 for c in ("points", "fantasy", "money")})
        return {
            "room": "Upoker",
            "ruleset": ruleset,
            "hands": hands,
            "checked": hands,
            "matching": hands,
            **counts,
        }

    summary = pd.DataFrame([group("ultimate", 112), group("progressive-16", 37)])
    rake = Rake("Upoker USD", 0.03, 0.01, "nearest", 106, 105)
    held = (Holdout("Upoker USD", 108, 107, 105, ("", ""), True),)
    report = AuditReport(
        summary,
        pd.DataFrame(columns=["room", "ruleset"]),
        pd.DataFrame(),
        (rake,),
        "rules",
        holdouts=held,
    )
    lines = report.lines()
    said = [line for line in lines if "judged by a rake" in line]
    assert said == [
        "Upoker · every rule string: 149 hands; the room's money is judged by a rake inferred "
        "from these hands (Upoker USD explains 105 of 106 winning seats); validated out of "
        "sample, by date halves: Upoker USD does not hold (105 of 108 money hands (97.2%) out of "
        "sample, 107 (99.1%) in sample: 2 fewer, 1 allowed)"
    ]
    assert lines.index(said[0]) == 9  # after both groups (a head and three checks each)


def test_the_ledger_says_one_hand_not_hands() -> None:
    import pandas as pd

    from ofc_stats.audit.ledger import LEDGER_COLUMNS, ledger_lines

    row = dict.fromkeys(LEDGER_COLUMNS, 0)
    row.update(
        player="Ana", room="R", currency="USD", hands=2, money_rules=1.0, money_paid=0.0,
        difference=-1.0, underpaid=1.0, hands_off=1, overpaid_hand_keys=[],
        underpaid_hand_keys=["k1"], net_hand_keys=["k1"], hands_not_scored=1,
        money_not_scored=2.0, not_scored_hand_keys=["k2"], rules="no rake",
        rules_source="inferred from these hands", out_of_sample="holds",
    )  # fmt: skip
    lines = ledger_lines(pd.DataFrame([row]))
    assert "  1 hand paid less than the rules (1 USD): k1" in lines
    assert "  1 hand not scored (+2 USD paid, not checked): k2" in lines
