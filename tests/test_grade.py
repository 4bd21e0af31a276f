"""The grader on hand-built positions whose right answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import UnplayablePosition
from ofc_stats.grade.position import EMPTY, Decision, Opponent
from ofc_stats.grade.race import grade, grade_many
from ofc_stats.grade.rollout import fantasy_value, setup, simulate
from ofc_stats.grade.run import GradeOptions, grade_chunk
from ofc_stats.grade.tasks import play_text

TOP, MIDDLE, BOTTOM, DISCARD = 0, 1, 2, 3


def board(top: str = "", middle: str = "", bottom: str = "") -> tuple[int, ...]:
    flat = [EMPTY] * 13
    for start, text in ((0, top), (3, middle), (8, bottom)):
        for i, card in enumerate(parse_cards(text)):
            flat[start + i] = card
    return tuple(flat)


def decision(**fields: object) -> Decision:
    values: dict[str, object] = {
        "hand_key": "test:1",
        "seat": 1,
        "position": 1,
        "player": "me",
        "ruleset": get_ruleset("pineapple-progressive"),
        "discards": 1,
        "dead": (),
    }
    values.update(fields)
    return Decision(**values)  # type: ignore[arg-type]


# The opponent acted first and has placed all 13 cards: nothing about the hand is random.
# top 4-3-2, middle J high, bottom A high: no royalties, no Fantasyland, not fouled.
DONE = Opponent(0, board("2d 3d 4c", "7c 8d Td Jh 2s", "Ac Kd 8h 7h 3s"), next_street=5)


def last_street(chosen: tuple[int, ...]) -> Decision:
    """Top Qs Qd _, middle Kh Kc 4d 5s _, bottom 9c 9d 9h Ts Js; dealt Qh 2c 3h."""
    return decision(
        street=4,
        board=board("Qs Qd", "Kh Kc 4d 5s", "9c 9d 9h Ts Js"),
        dealt=parse_cards("Qh 2c 3h"),
        dead=parse_cards("6c 6d 6h 6s"),
        opponents=(DONE,),
        chosen=chosen,
    )


def test_a_sure_foul_loses_exactly_what_the_rules_say() -> None:
    # Qh to the top makes QQQ over the middle's KK: a foul for sure.  It loses every row and
    # the scoop to the opponent (american: 3 + 3 = 6) and scores no royalties: -6 points.
    # Qh to the middle (2c top, 3h thrown) keeps QQ on top under KK under 999: it scoops
    # (3 + 3 = 6), adds QQ's 7 royalty points and earns a 14-card Fantasyland (10.23, the
    # documented figure): 6 + 7 + 10.23 = 23.23.  Loss = 23.23 - (-6) = 29.23, no noise.
    foul = last_street((TOP, DISCARD, MIDDLE))  # Qh top, 2c thrown, 3h middle
    graded = grade(setup(foul), 16, np.random.default_rng(1))
    chosen = graded.ev[graded.chosen]
    assert chosen == pytest.approx(-6.0)
    assert graded.ev[graded.best] == pytest.approx(6 + 7 + 10.23)
    assert graded.loss == pytest.approx(29.23)
    assert graded.loss_se == pytest.approx(0.0)
    # The loss split: rows won (6), the foul's rows (6), royalties (7), Fantasyland (10.23).
    assert graded.parts == pytest.approx(
        {"rows": 6.0, "fouls": 6.0, "royalties": 7.0, "fantasy": 10.23}
    )


def test_the_safe_play_loses_nothing() -> None:
    graded = grade(setup(last_street((MIDDLE, TOP, DISCARD))), 16, np.random.default_rng(1))
    assert graded.loss == 0.0
    assert graded.ev[graded.chosen] == pytest.approx(23.23)


def test_killing_an_open_flush_draw_costs_points() -> None:
    # Second street: Ah Kh 7h on the bottom, 8c 3d in the middle.  Dealt 9h 2c 5s.
    # Keeping the draw (9h to the bottom) against killing it (2c to the bottom, 9h thrown).
    # Nine hearts are unseen among 39 cards and the seat sees nine more: a flush comes in
    # about 9 times in 10 when the policy keeps the bottom for it, worth the bottom's 4
    # royalty points and most of its row; a dead A-K-7-2 bottom under a live middle fouls
    # more.  The loss is a few points: more than 1, less than a scoop plus royalties (12).
    start = board("", "8c 3d", "Ah Kh 7h")
    opponent = Opponent(0, board("4s", "Tc Td", "Js Jd 5c 6c"), next_street=2)
    common = {
        "street": 1,
        "board": start,
        "dealt": parse_cards("9h 2c 5s"),
        "opponents": (opponent,),
    }
    keep = setup(decision(**common, chosen=(BOTTOM, MIDDLE, DISCARD)))
    kill = setup(decision(**common, chosen=(DISCARD, BOTTOM, MIDDLE)))
    rows = np.array([keep.chosen, kill.chosen])
    values = simulate(keep, rows, 400, np.random.default_rng(7)).total
    diff = values[0] - values[1]
    gap, se = diff.mean(), diff.std(ddof=1) / np.sqrt(len(diff))
    assert 1.0 < gap < 12.0 and gap > 3 * se
    graded = grade(kill, 64, np.random.default_rng(3))
    assert graded.loss > 2 * graded.loss_se
    assert 1.0 < graded.loss < 12.0


def test_a_forced_street_is_not_a_decision() -> None:
    # Classic, last street: one empty slot, one card.  Nothing to choose, nothing lost.
    ruleset = get_ruleset("classic")
    forced = decision(
        ruleset=ruleset,
        street=8,
        board=board("As Ad", "Kh Kc 4d 5s 6s", "9c 9d 9h Ts Js"),
        dealt=parse_cards("2c"),
        discards=0,
        opponents=(Opponent(0, DONE.board, next_street=9),),
        chosen=(TOP,),
    )
    graded = grade(setup(forced), 16, np.random.default_rng(0))
    assert graded.forced and graded.loss == 0.0 and graded.loss_se == 0.0


def test_common_random_numbers_shrink_the_se() -> None:
    # Same position as the flush test: paired differences against independent estimates.
    start = board("", "8c 3d", "Ah Kh 7h")
    opponent = Opponent(0, board("4s", "Tc Td", "Js Jd 5c 6c"), next_street=2)
    plan = setup(
        decision(
            street=1,
            board=start,
            dealt=parse_cards("9h 2c 5s"),
            opponents=(opponent,),
            chosen=(BOTTOM, MIDDLE, DISCARD),
        )
    )
    values = simulate(plan, plan.legal, 200, np.random.default_rng(11)).total
    paired = (values[0] - values[1:]).std(axis=1, ddof=1).mean()
    independent = np.sqrt(values[0].var(ddof=1) + values[1:].var(axis=1, ddof=1)).mean()
    assert paired < 0.8 * independent


def test_same_seed_same_grades_and_another_seed_other_rollouts() -> None:
    cases = [last_street((TOP, DISCARD, MIDDLE)), last_street((MIDDLE, TOP, DISCARD))]
    one = grade_chunk(cases, GradeOptions(rollouts=8, seed=5))
    two = grade_chunk(cases, GradeOptions(rollouts=8, seed=5))
    assert one["grades"].equals(two["grades"])
    assert one["grade_candidates"].equals(two["grade_candidates"])


def test_play_text_names_every_card() -> None:
    assert play_text(parse_cards("Qh 2c 3h"), (1, 0, 3)) == "top 2c | middle Qh | discard 3h"


def test_fantasy_values_are_the_published_figures() -> None:
    assert fantasy_value(0) == 0.0
    assert fantasy_value(14) == 10.23
    assert fantasy_value(17) == fantasy_value(15)  # no published 16-17 figure: the floor


def test_a_missed_repeat_is_graded_by_the_solver() -> None:
    from ofc_stats.grade.fantasy import grade_set
    from ofc_stats.grade.position import FantasyDeal

    # 14 cards with four sevens.  The real set split them (bottom 777 2 K, middle 7 Q J 9 8,
    # top 2 3 4): no royalty, no repeat, value 0.  Quads on the bottom pay 10 (american) and
    # repeat (progressive: bottom four of a kind), worth 10.23 more: the best set is worth at
    # least 20.23, so the real set lost at least that and missed a repeat.
    cards = parse_cards("7s 7d 7h 7c 2d Ks Qd Jh 9c 8d 2s 3c 4h 5h")
    played = parse_cards("2s 3c 4h 7c Qd Jh 9c 8d 7s 7d 7h 2d Ks")
    deal = FantasyDeal("test:fl", 0, "me", get_ruleset("pineapple-progressive"), cards, played)
    graded = grade_set(deal, royalties=0, stays=False)
    assert graded.best_stays and graded.missed_repeat
    assert graded.best_value >= 10 + 10.23
    assert graded.loss == pytest.approx(graded.best_value)


def test_a_position_that_cannot_be_replayed_is_stored_as_such() -> None:
    # Qh dealt while Qs sits on the board twice over: the grader says why, the run goes on.
    broken = decision(
        street=4,
        board=board("Qs Qd", "Kh Kc 4d 5s", "9c 9d 9h Ts Js"),
        dealt=parse_cards("Qs 2c 3h"),
        opponents=(DONE,),
        chosen=(TOP, DISCARD, MIDDLE),
    )
    with pytest.raises(UnplayablePosition, match="seen twice"):
        setup(broken)
    rows = grade_chunk([broken, last_street((MIDDLE, TOP, DISCARD))], GradeOptions(rollouts=8))
    statuses = rows["grades"]["status"].to_pylist()
    assert statuses == ["unplayable: a card is outside the deck or seen twice", "graded"]


def test_decisions_graded_together_grade_as_alone() -> None:
    # grade_chunk runs many races in lockstep; each draws from its own generator only.
    flush = decision(
        street=1,
        board=board("", "8c 3d", "Ah Kh 7h"),
        dealt=parse_cards("9h 2c 5s"),
        opponents=(Opponent(0, board("4s", "Tc Td", "Js Jd 5c 6c"), next_street=2),),
        chosen=(DISCARD, BOTTOM, MIDDLE),
    )
    cases = [flush, last_street((TOP, DISCARD, MIDDLE)), flush, last_street((MIDDLE, TOP, DISCARD))]
    plans = [setup(c) for c in cases]
    together = grade_many(plans, 32, [np.random.default_rng(i) for i in range(4)])
    for i, plan in enumerate(plans):
        alone = grade(plan, 32, np.random.default_rng(i))
        assert together[i].loss == alone.loss and together[i].best == alone.best
        assert np.array_equal(together[i].ev, alone.ev, equal_nan=True)
