"""Money rules judged on the hands they were not inferred from (two folds split by date)."""

from __future__ import annotations

import pandas as pd

from ofc_stats.audit.holdout import _fold
from ofc_stats.audit.money import expected_money, infer_rake


def _room(paid_early: float, paid_late: float) -> pd.DataFrame:
    """Eight heads-up hands won 92 to -92 (stakes 1), four early, four late."""
    rows = []
    for hand in range(8):
        paid = paid_early if hand < 4 else paid_late
        when = pd.Timestamp("2026-01-01") + pd.Timedelta(days=hand)
        for seat, (net, money) in enumerate(((92.0, paid), (-92.0, -92.0))):
            rows.append(dict(hand_key=f"h{hand}", seat=seat, net_capped=net, stakes=1.0,
                             reported_money=money, played_at=when))  # fmt: skip
    return pd.DataFrame(rows)


def test_a_rake_that_changes_between_the_halves_does_not_hold_out_of_sample() -> None:
    """3% of 92 is 2.76: the early hands pay 89.24 (rounded to 0.01), the late ones 89.30
    (rounded down to 0.1).  On all eight hands the first rule found explains 4 hands; the
    rule inferred on either half explains none of the other half: 0 out of sample."""
    held = _fold("R USD", _room(89.24, 89.3), {})
    assert (held.hands, held.in_sample, held.out_of_sample) == (8, 4, 0)
    assert not held.holds and not held.agree
    assert "does not hold out of sample" in held.describe()


def test_a_steady_rake_holds_and_names_its_runner_up() -> None:
    """Every hand pays 89.24: each half's rule explains the other half, 8 of 8 as on all."""
    held = _fold("R USD", _room(89.24, 89.24), {})
    assert (held.in_sample, held.out_of_sample) == (8, 8) and held.holds and held.agree
    # identical winners: a rule fits all eight or none, so no rule differs from the
    # winner's on some seat and explains any: no runner-up
    assert infer_rake("R USD", expected_money(_room(89.24, 89.24))).runner_up is None


def test_the_rake_runner_up_is_the_best_rule_that_differs_on_some_seat() -> None:
    """Early 89.24, late 89.30: 3% rounded to 0.01 wins (4 seats, first found); 3% rounded
    down to 0.01 or up to 0.01 give 2.76 on every seat (the same rule in effect), so the
    runner-up is 3% rounded down to 0.1 (2.7), explaining the other 4."""
    rake = infer_rake("R USD", expected_money(_room(89.24, 89.3)))
    assert (rake.rate, rake.tick, rake.mode, rake.explained) == (0.03, 0.01, "nearest", 4)
    assert rake.runner_up == (0.03, 0.1, "down", 4)
    assert "runner-up 3.00% of the winnings, rounded down to 0.1, explains 4" in rake.describe()


def test_the_criterion_is_one_point_of_the_rooms_money_hands_in_whole_hands() -> None:
    """1 per 100 money hands: 148 hands allow 1 fewer (Ppp AUD: 2 fewer does not hold),
    243 allow 2 (Spartan INR: 1 fewer holds), and a room under 100 allows none."""
    from ofc_stats.audit.holdout import Holdout

    def held(hands: int, inside: int, outside: int) -> Holdout:
        return Holdout("R USD", hands, inside, outside, ("", ""), True)

    assert [held(148, 148, 147).holds, held(148, 148, 146).holds] == [True, False]
    assert [held(243, 239, 238).holds, held(243, 239, 236).holds] == [True, False]
    assert [held(99, 99, 99).holds, held(99, 99, 98).holds] == [True, False]
    assert [held(100, 100, 99).holds, held(10, 9, 10).holds] == [True, True]
    line = held(148, 148, 146).describe()
    # was "it explains 146; inferred on all, 148" beside a verdict judged by a rule unsaid
    assert line.startswith("R USD: the money rule does not hold out of sample — 146 of 148")
    assert "(98.6%) out of sample, 148 (100.0%) in sample: 2 fewer, 1 allowed" in line
    assert "0 fewer, 0 allowed" in held(10, 10, 10).describe()


def test_the_audit_states_the_criterion_once_above_the_rooms_lines() -> None:
    from ofc_stats.audit.holdout import CRITERION, Holdout
    from ofc_stats.audit.points import AuditReport

    rooms = tuple(
        Holdout(f"R {c}", n, n, n, ("", ""), True) for c, n in (("USD", 500), ("BRL", 10))
    )
    empty = pd.DataFrame(columns=["room"])
    report = AuditReport(empty, pd.DataFrame(), pd.DataFrame(), (), "rules", holdouts=rooms)
    lines = [line for line in report.lines() if line.startswith("out of sample")]
    assert lines[0] == f"out of sample: {CRITERION}"
    assert "at most 1 money hand in 100 fewer" in CRITERION and "under 100" in CRITERION
    assert [line.split(":")[0] for line in lines[1:]] == [
        "out of sample R USD",
        "out of sample R BRL",
    ]
