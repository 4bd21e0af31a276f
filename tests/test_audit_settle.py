"""Short-stack settlement: each kind worked out by hand, and inferred from simulated rooms."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ofc_stats
from ofc_stats.audit.money import Rake, after_rake, expected_money
from ofc_stats.audit.points import audit
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.scoring import settlement_order
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.payouts.settle import (
    KINDS,
    _pair_flow,
    gross_by_kind,
    infer_settlement,
    settle_hand,
)
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute

# The hand of issue 15 (Ppp, 0.2 USD a point): seat 0 +9, seat 1 -40, seat 2 +31.
# Owed: 1.8, -8.0, 6.2 USD; seat 1 had only 5.1.  Pairwise points chosen so that the
# three kinds differ: seat 1 owes seat 0 30 (6.0 USD), seat 0 owes seat 2 21 (4.2),
# seat 1 owes seat 2 10 (2.0): nets 30 - 21 = 9, -30 - 10 = -40, 21 + 10 = 31.
OWED = np.array([1.8, -8.0, 6.2])
PAID = np.array([0.0, 5.1, 0.0])
PAIRS = np.array([[0, 30, -21], [-30, 0, -10], [21, 10, 0]], dtype=float) * 0.2
PPP = Rake("Ppp USD", 0.03, 0.1, "nearest", 0, 0)


def test_the_rules_pair_order_is_the_engines_settlement_order() -> None:
    """RULES.md §4 in the engine's order (seats in order of action, the button last):
    three seats (0, 1), (0, 2), (1, 2); four seats settle (0, 3) before (1, 2)."""
    owes = np.array([[0, 0, 0, 0], [0, 0, 10, 0], [0, -10, 0, 0], [0, 0, 0, 0]], dtype=float)
    # Seat 2 owes seat 1 10 and has only 4: the rules' kind pays 4 in the one pair it loses.
    gross = settle_hand(np.array([0, 10, -10, 0.0]), np.array([0, 0, 4, 0.0]), "rules", owes)
    assert gross.tolist() == [0.0, 4.0, -4.0, 0.0]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.sampled_from([3, 4]))
def test_the_orders_written_before_settle_alike(seed: int, seats: int) -> None:
    """The rules' kind once settled (0, 1), (0, 2), (1, 2), (0, 3), (3, 1), (3, 2) (three
    seats: (0, 1), (0, 2), (2, 1)); the engine's order swaps the disjoint pairs (1, 2) and
    (0, 3), which touch different seats' chips, and turns pairs round, which ``_pair_flow``
    reads from both sides of the antisymmetric amounts: every flow is the same."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.integers(-30, 31, (seats, seats)).astype(float), 1)
    owes = upper - upper.T
    owed = owes.sum(axis=1)
    short = (owed < 0) & (rng.random(seats) < 0.7)
    paid = np.where(short, -owed * rng.random(seats), np.maximum(-owed, 0.0))
    written = {
        3: [(0, 1), (0, 2), (2, 1)],
        4: [(0, 1), (0, 2), (1, 2), (0, 3), (3, 1), (3, 2)],
    }[seats]
    flow = _pair_flow(paid, short, settlement_order(seats), owes)
    assert flow.tolist() == pytest.approx(_pair_flow(paid, short, written, owes).tolist())


def test_order_of_action_pays_seat_0_in_full_first() -> None:
    """Seat 0 gets its 1.8, seat 2 the rest 5.1 - 1.8 = 3.3; less 3% rounded to 0.1:
    1.8 * 0.03 = 0.054 -> 0.1, so 1.7; 3.3 * 0.03 = 0.099 -> 0.1, so 3.2 — what Ppp paid."""
    gross = settle_hand(OWED, PAID, "action")
    assert gross.tolist() == pytest.approx([1.8, -5.1, 3.3])
    paid = after_rake(pd.Series(gross), PPP)
    assert paid.tolist() == pytest.approx([1.7, -5.1, 3.2])


def test_proportional_shares_the_stack_by_points() -> None:
    """5.1 shared 1.8 : 6.2 of 8.0: 1.8 / 8 * 5.1 = 1.1475 and 6.2 / 8 * 5.1 = 3.9525;
    rake 0.034 -> 0.0 and 0.1186 -> 0.1: 1.1475 and 3.8525 (the audit's old expectation)."""
    gross = settle_hand(OWED, PAID, "proportional")
    assert gross.tolist() == pytest.approx([1.1475, -5.1, 3.9525])
    assert after_rake(pd.Series(gross), PPP).tolist() == pytest.approx([1.1475, -5.1, 3.8525])


def test_the_rules_order_settles_pair_by_pair() -> None:
    """(0, 1): seat 1 owes 6.0, has 5.1, pays it all to seat 0.  (0, 2): seat 0 pays 4.2 to
    seat 2.  (2, 1): seat 1 has nothing left.  Seat 0 nets 5.1 - 4.2 = 0.9, seat 2 4.2."""
    gross = settle_hand(OWED, PAID, "rules", PAIRS)
    assert gross.tolist() == pytest.approx([0.9, -5.1, 4.2])


def test_a_hand_paid_in_full_is_the_same_under_every_kind() -> None:
    owed = np.array([3.0, -5.0, 2.0])
    for kind in KINDS:
        assert settle_hand(owed, np.array([0.0, 5.0, 0.0]), kind, np.zeros((3, 3))).tolist() == [
            3.0,
            -5.0,
            2.0,
        ]


def _frame(money: list[float], key: str = "h") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "hand_key": key,
            "seat": [0, 1, 2],
            "net_capped": [9.0, -40.0, 31.0],
            "stakes": 0.2,
            "reported_money": money,
        }
    )


def test_inference_names_the_kind_that_explains_the_winners() -> None:
    """Two hands paid 1.7 / 3.2 (order of action), one paid as the rules' order would
    (0.9 - rake 0.0 = 0.9; 4.2 - 0.126 -> 0.1 = 4.1): action 2, rules 1, proportional 0."""
    frame = pd.concat(
        [
            _frame([1.7, -5.1, 3.2], "a"),
            _frame([1.7, -5.1, 3.2], "b"),
            _frame([0.9, -5.1, 4.1], "c"),
        ],
        ignore_index=True,
    )
    frame = expected_money(frame)
    pairs = {key: PAIRS for key in "abc"}
    net = {k: after_rake(gross_by_kind(frame, k, pairs), PPP) for k in KINDS}
    found = infer_settlement("Ppp USD", frame, net)
    assert (found.kind, found.telling, found.short_hands) == ("action", 3, 3)
    assert found.explained == {"action": 2, "rules": 1, "proportional": 0}
    assert "order of action" in found.describe()


def test_a_tie_is_reported_as_a_tie() -> None:
    """Pairwise amounts equal to the nets: the rules' order pays as the order of action."""
    frame = expected_money(_frame([1.7, -5.1, 3.2]))
    net = {k: after_rake(gross_by_kind(frame, k, None), PPP) for k in KINDS}
    found = infer_settlement("Ppp USD", frame, net)
    assert found.kind == "action" and found.tied == ("rules",)
    assert "tied with rules" in found.describe()


@pytest.mark.parametrize("kind", KINDS)
def test_simulated_rooms_settlement_is_inferred(tmp_path: Path, kind: str) -> None:
    """A room with a 12-point money stack, 5% rake rounded to 0.1, settling by ``kind``."""
    room = RoomRules(rake_rate=0.05, rake_tick=0.1, settlement=kind, money_stack=12.0)
    out = tmp_path / "sim.jsonl"
    write_simulation(
        out, 240, get_ruleset("pineapple-ultimate"), seats=3, players=6, seed=7, rollouts=2,
        room=room,
    )  # fmt: skip
    import_paths([out], tmp_path / "data")
    recompute(tmp_path / "data")
    with ofc_stats.open(tmp_path / "data") as db:
        report = audit(db)
    (settlement,) = report.settlements
    (rake,) = report.rakes
    assert (rake.rate, rake.tick, rake.mode) == (0.05, 0.1, "nearest")
    assert settlement.telling > 10
    assert settlement.kind == kind or kind in settlement.tied
    assert settlement.explained[kind] == settlement.telling
    assert report.mismatches.empty


def test_a_loser_with_a_recorded_stack_is_not_short() -> None:
    """Bob's stack (30) is recorded and his 20 points are within it, so paying 15 is the
    room's error: Bob is flagged, and Alice is owed her full 20 less 3% (0.6) = 19.4."""
    from ofc_stats.audit.money import money_mismatches

    frame = expected_money(
        pd.DataFrame(
            [
                dict(hand_key="h", seat=0, net_capped=20.0, stakes=1.0, reported_money=19.4,
                     stack=30.0),
                dict(hand_key="h", seat=1, net_capped=-20.0, stakes=1.0, reported_money=-15.0,
                     stack=30.0),
            ]
        )
    )  # fmt: skip
    assert not frame["short"].any() and frame["gross"].tolist() == [20.0, -20.0]
    flagged = money_mismatches(frame, Rake("room", 0.03, 0.1, "nearest", 1, 1))
    assert flagged["seat"].tolist() == [1] and flagged["short_paid"].tolist() == [True]


def test_other_orders_tried_on_a_real_ppp_hand() -> None:
    """Ppp hand 21910272-0000064 at 0.2 USD: seat 0 -38 (owes 7.6, paid 6.3), seat 1 +15
    (3.0), seat 2 +23 (4.6); pairs: 0 owes 1 18 (3.6) and 2 20 (4.0), 1 owes 2 3 (0.6).
    The room paid 1.6 and 4.5.  Order of action gives seat 1 its 3.0 first (then 3.3 for seat
    2): 2.9 and 3.2 after rake, wrong.  Paying backwards from the short stack (seat 2 first):
    4.6 and 6.3 - 4.6 = 1.7, rake 0.138 -> 0.1 and 0.051 -> 0.1: 4.5 and 1.6, right.  So does
    the pair order 0-2, 0-1, 1-2: seat 0 pays 4.0 to seat 2, its last 2.3 to seat 1, who pays
    0.6 to seat 2: 1.7 and 4.6."""
    owed, paid = np.array([-7.6, 3.0, 4.6]), np.array([6.3, 0.0, 0.0])
    pairs = np.array([[0, -18, -20], [18, 0, -3], [20, 3, 0]], dtype=float) * 0.2
    rake = lambda gross: after_rake(pd.Series(gross), PPP).tolist()  # noqa: E731
    assert rake(settle_hand(owed, paid, "action")) == pytest.approx([-6.3, 2.9, 3.2])
    assert rake(settle_hand(owed, paid, "before")) == pytest.approx([-6.3, 1.6, 4.5])
    assert rake(settle_hand(owed, paid, "pairs:02-01-12", pairs)) == pytest.approx([-6.3, 1.6, 4.5])
    assert rake(settle_hand(owed, paid, "rules", pairs)) == pytest.approx([-6.3, 2.9, 3.2])
