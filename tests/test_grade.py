"""The grader on hand-built positions whose right answer is known."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.engine.cards import format_card, parse_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import UnplayablePosition
from ofc_stats.grade.position import EMPTY, Decision, Opponent
from ofc_stats.grade.race import Graded, grade, grade_many
from ofc_stats.grade.rollout import PARTS, fantasy_value, simulate
from ofc_stats.grade.run import GradeOptions, grade_chunk
from ofc_stats.grade.tasks import play_text

TOP, MIDDLE, BOTTOM, DISCARD = 0, 1, 2, 3


def index(dest: tuple[int, ...]) -> int:
    """A play's index among the street's candidates: itertools.product order, the
    street's number of discards, no row over its size (the order stored grades use)."""
    discards = dest.count(DISCARD)
    table = [
        d
        for d in product(range(4), repeat=len(dest))
        if d.count(DISCARD) == discards and d.count(TOP) <= 3
    ]
    return table.index(dest)


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
    # documented figure): 6 + 7 + 10.23 = 23.23.  Loss = 23.23 - (-6) = 29.23, no noise:
    # nothing is left to deal, so every candidate is valued exactly, by one rollout.
    foul = last_street((TOP, DISCARD, MIDDLE))  # Qh top, 2c thrown, 3h middle
    graded = grade(foul, 16, [1])
    exact = 1e-12
    assert graded.ev[graded.chosen] == pytest.approx(-6.0, abs=exact)
    assert graded.ev[graded.best] == pytest.approx(6 + 7 + 10.23, abs=exact)
    assert graded.loss == pytest.approx(29.23, abs=exact)
    assert graded.loss_se == 0.0 and (graded.se == 0.0).all() and (graded.rollouts == 1).all()
    # The loss split: the foul cost the scoop won (6), the rows paid (6), QQ's royalty (7)
    # and the Fantasyland QQ earns (10.23): all 29.23 under fouls, none "Fantasyland
    # missed" (QQ was on top in both plays; only the foul lost it).
    assert graded.parts == pytest.approx(
        {"rows": 0.0, "fouls": 29.23, "royalties": 0.0, "fantasy": 0.0}, abs=exact
    )


def test_a_foul_against_a_fouled_opponent_is_filed_under_fouls() -> None:
    # The opponent fouls too (AA on top over a jack-high middle).  Qh on top: both boards
    # foul, nobody scores: 0.  Qh in the middle: a live board against a fouled one takes
    # the scoop (6) and its royalty (QQ: 7), and enters Fantasyland (10.23): 23.23.  The
    # 23.23 (rows, royalty and Fantasyland) are all lost to the foul, not to the rows.
    fouled = Opponent(0, board("Ac Ad 4c", "7c 8d Td Jh 2s", "Ah Kd 8h 7h 3s"), next_street=5)
    foul = replace(last_street((TOP, DISCARD, MIDDLE)), opponents=(fouled,))
    graded = grade(foul, 16, [1])
    assert graded.loss == pytest.approx(23.23, abs=1e-12)
    assert graded.parts == pytest.approx(
        {"rows": 0.0, "fouls": 23.23, "royalties": 0.0, "fantasy": 0.0}, abs=1e-12
    )


def test_the_safe_play_loses_nothing() -> None:
    graded = grade(last_street((MIDDLE, TOP, DISCARD)), 16, [1])
    assert graded.loss == 0.0
    assert graded.ev[graded.chosen] == pytest.approx(23.23, abs=1e-12)


FLUSH_BOARD = board("", "8c 3d", "Ah Kh 7h")
FLUSH_RIVAL = Opponent(0, board("4s", "Tc Td", "Js Jd 5c 6c"), next_street=2)


def flush(chosen: tuple[int, ...]) -> Decision:
    """Second street: Ah Kh 7h on the bottom, 8c 3d in the middle; dealt 9h 2c 5s."""
    return decision(
        street=1,
        board=FLUSH_BOARD,
        dealt=parse_cards("9h 2c 5s"),
        opponents=(FLUSH_RIVAL,),
        chosen=chosen,
    )


KEEP = (BOTTOM, MIDDLE, DISCARD)  # 9h to the bottom, 2c to the middle, 5s thrown
KILL = (DISCARD, BOTTOM, MIDDLE)  # 9h thrown, 2c to the bottom


def test_killing_an_open_flush_draw_costs_points() -> None:
    # Keeping the draw (9h to the bottom) against killing it (2c to the bottom, 9h thrown).
    # Nine hearts are unseen among 39 cards and the seat sees nine more: a flush comes in
    # about 9 times in 10 when the policy keeps the bottom for it, worth the bottom's 4
    # royalty points and most of its row; a dead A-K-7-2 bottom under a live middle fouls
    # more.  The loss is a few points: more than 1, less than a scoop plus royalties (12).
    values = simulate(flush(KEEP), [index(KEEP), index(KILL)], 400, [7]).total
    diff = values[0] - values[1]
    gap, se = diff.mean(), diff.std(ddof=1) / np.sqrt(len(diff))
    assert 1.0 < gap < 12.0 and gap > 3 * se
    graded = grade(flush(KILL), 64, [3])
    assert graded.loss > 2 * graded.loss_se
    assert 1.0 < graded.loss < 12.0
    assert (graded.ev[~np.isnan(graded.ev)] <= graded.ev[graded.best]).all()


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
    graded = grade(forced, 16, [0])
    assert graded.forced and graded.loss == 0.0 and graded.loss_se == 0.0


def test_common_random_numbers_shrink_the_se() -> None:
    # Same position as the flush test: paired differences against independent estimates.
    values = simulate(flush(KEEP), range(27), 200, [11]).total  # all 27 plays fit
    paired = (values[0] - values[1:]).std(axis=1, ddof=1).mean()
    independent = np.sqrt(values[0].var(ddof=1) + values[1:].var(axis=1, ddof=1)).mean()
    assert paired < 0.8 * independent


def test_a_rollout_is_the_same_for_every_candidate_and_keyed_by_its_index() -> None:
    # Rollouts 8..15 of two plays, asked alone, equal the same rollouts of a longer run
    # beside every other play; the fresh phase draws other cards.
    rows = [index(KEEP), index(KILL)]
    run = simulate(flush(KEEP), range(27), 16, [5]).total
    part = simulate(flush(KEEP), rows, 8, [5], first=8).total
    assert np.array_equal(part, run[rows, 8:])
    fresh = simulate(flush(KEEP), rows, 8, [5], phase=1, first=8).total
    assert not np.array_equal(fresh, part)


def test_same_seed_same_grades_on_any_threads_and_chunks() -> None:
    cases = [
        last_street((TOP, DISCARD, MIDDLE)),
        flush(KILL),
        last_street((MIDDLE, TOP, DISCARD)),
        flush(KEEP),
    ]
    options = GradeOptions(rollouts=16, seed=5)
    one = grade_chunk(cases, options, threads=1)
    two = grade_chunk(cases, options, threads=2)
    halves = [grade_chunk(cases[:1], options, 2), grade_chunk(cases[1:], options, 1)]
    for name in ("grades", "grade_candidates"):
        assert one[name].equals(two[name])
        assert one[name].equals(pa.concat_tables([h[name] for h in halves]))
    other = grade_chunk(cases, GradeOptions(rollouts=16, seed=6), threads=2)
    assert not one["grade_candidates"].equals(other["grade_candidates"])


def test_the_grades_value_a_fantasyland_by_the_room_values_in_the_options() -> None:
    # The sure-foul position again with a room where a 14-card Fantasyland is worth 40:
    # Qh to the middle is worth 6 (scoop) + 7 (QQ) + 40 = 53, the foul -6: a loss of 59.
    # A room the options do not list keeps the published 10.23 (loss 29.23, as above).
    room = tuple(40.0 if n == 14 else 0.0 for n in range(32))
    foul = last_street((TOP, DISCARD, MIDDLE))
    rich = GradeOptions(rollouts=8, fantasy=(("pineapple-progressive", room),))
    other = GradeOptions(rollouts=8, fantasy=(("pineapple", room),))
    for options, loss in ((rich, 59.0), (other, 29.23)):
        (got,) = grade_chunk([foul], options)["grades"]["loss"].to_pylist()
        assert got == pytest.approx(loss, abs=1e-12)


@pytest.mark.parametrize(
    ("bad", "said"), [(float("nan"), "nan"), (float("inf"), "inf"), (-1.0, "-1")]
)
def test_fantasy_values_that_are_not_finite_points_are_refused(bad: float, said: str) -> None:
    # A NaN compares false everywhere: unchecked, every candidate would tie and the first
    # be played.  The wrappers and the core's bindings refuse it, in one line.
    from ofc_stats import _core
    from ofc_stats.core.rules import core_rules
    from ofc_stats.errors import RulesetError
    from ofc_stats.grade.replay import policy_advice
    from ofc_stats.grade.rollout import core_decision, streets

    table = np.zeros(32)
    table[14] = bad
    foul = last_street((TOP, DISCARD, MIDDLE))
    ruleset = foul.ruleset
    why = f"the value of a 14-card Fantasyland must be a finite number of points at least 0, not {said}"
    with pytest.raises(RulesetError, match=why):
        grade_many([foul], 8, [[0]], fantasy=lambda r: table)
    with pytest.raises(RulesetError, match=why):
        policy_advice(fantasy_worth=lambda r, n: bad if n == 14 else 0.0)([foul])
    with pytest.raises(RulesetError, match=why):
        simulate(foul, [0], 1, [0], values=table)
    for call in (
        lambda: _core.policy_plays(core_rules(ruleset), streets(ruleset), table, []),
        lambda: _core.grade_street_decisions(core_rules(ruleset), streets(ruleset), table, [], 8),
        lambda: _core.rollout_values(
            core_rules(ruleset), streets(ruleset), table, core_decision(foul, [0]), [0], 1
        ),
    ):
        with pytest.raises(RulesetError, match="14-card Fantasyland must be a finite") as err:
            call()
        assert "\n" not in str(err.value)
    with pytest.raises(RulesetError, match="33 sizes"):
        _core.policy_plays(core_rules(ruleset), streets(ruleset), np.zeros(33), [])


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
        grade(broken, 8)
    with pytest.raises(UnplayablePosition, match="does not fit the rows"):
        grade(last_street((TOP, TOP, TOP)), 8)
    with pytest.raises(UnplayablePosition, match="cards and destinations do not match"):
        grade(last_street((TOP, DISCARD)), 8)
    rows = grade_chunk([broken, last_street((MIDDLE, TOP, DISCARD))], GradeOptions(rollouts=8))
    statuses = rows["grades"]["status"].to_pylist()
    assert statuses == ["unplayable: a card is outside the deck or seen twice", "graded"]


def test_decisions_graded_together_grade_as_alone() -> None:
    # The core races a chunk's decisions side by side; each draws from its own key only.
    cases = [flush(KILL), last_street((TOP, DISCARD, MIDDLE)), flush(KILL), flush(KEEP)]
    together = grade_many(cases, 32, [[i] for i in range(4)], threads=2)
    for i, case in enumerate(cases):
        alone = grade(case, 32, [i])
        mine = together[i]
        assert isinstance(mine, Graded)
        assert mine.loss == alone.loss and mine.best == alone.best
        assert np.array_equal(mine.ev, alone.ev, equal_nan=True)
    assert isinstance(together[0], Graded) and isinstance(together[2], Graded)
    assert not np.array_equal(together[0].ev, together[2].ev, equal_nan=True)  # other keys


def random_decision(seed: int) -> Decision:
    """A heads-up Pineapple position at a random street, both boards played at random."""
    rng = np.random.default_rng(seed)
    ruleset = get_ruleset("pineapple-progressive")
    streets = ruleset.variant.streets
    street = int(rng.integers(len(streets)))
    deck = rng.permutation(52).tolist()
    opponent_first = bool(rng.integers(2))

    def play(upto: int) -> tuple[list[list[int]], list[int], list[tuple[int, ...]]]:
        rows: list[list[int]] = [[], [], []]
        dead: list[int] = []
        plays = []
        for dealt_count, placed in streets[:upto]:
            cards = [deck.pop() for _ in range(dealt_count)]
            fits = [
                d
                for d in product(range(4), repeat=dealt_count)
                if d.count(DISCARD) == dealt_count - placed
                and all(len(rows[r]) + d.count(r) <= (3, 5, 5)[r] for r in range(3))
            ]
            dest = fits[int(rng.integers(len(fits)))]
            for card, d in zip(cards, dest, strict=True):
                (dead if d == DISCARD else rows[d]).append(card)
            plays.append(dest)
        return rows, dead, plays

    seen = street + 1 if opponent_first else street
    theirs, _, _ = play(seen)
    mine, dead, _ = play(street)
    dealt = [deck.pop() for _ in range(streets[street][0])]
    options = [
        d
        for d in product(range(4), repeat=len(dealt))
        if d.count(DISCARD) == streets[street][0] - streets[street][1]
        and all(len(mine[r]) + d.count(r) <= (3, 5, 5)[r] for r in range(3))
    ]
    return decision(
        hand_key=f"random:{seed}",
        position=1 if opponent_first else 0,
        street=street,
        board=board(*(" ".join(format_card(c) for c in row) for row in mine)),
        dealt=tuple(dealt),
        discards=streets[street][0] - streets[street][1],
        dead=tuple(dead),
        opponents=(
            Opponent(
                0 if opponent_first else 1,
                board(*(" ".join(format_card(c) for c in row) for row in theirs)),
                next_street=seen,
            ),
        ),
        chosen=options[int(rng.integers(len(options)))],
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_laws_of_a_grade(seed: int) -> None:
    """On any position: the loss is never negative, its parts sum to it, it is the best
    play's EV minus the chosen one's (or, when not charged, a gap within 2 SE), no
    candidate is valued above the best, and a street with one legal play loses nothing."""
    graded = grade(random_decision(seed), 16, [seed])
    assert graded.loss >= 0.0 and graded.loss_se >= 0.0
    assert sum(graded.parts[name] for name in PARTS) == pytest.approx(graded.loss, abs=1e-9)
    gap = graded.ev[graded.best] - graded.ev[graded.chosen]
    if graded.loss > 0:
        assert graded.best != graded.chosen
        assert gap == pytest.approx(graded.loss, abs=1e-9)
        assert graded.loss > 2 * graded.loss_se or graded.loss_se == 0.0
    else:
        assert all(v == 0.0 for v in graded.parts.values())
        assert gap <= 2 * graded.loss_se + 1e-9
    valued = graded.ev[~np.isnan(graded.ev)]
    assert valued.max() <= graded.ev[graded.best] + 1e-9
    # The measured gaps keep their sign: a candidate is valued at the best's value minus
    # its gap where positive; it is within the noise of the best when its gap, either way,
    # is at most 2 SE; the play made's gap is what the grades say, within noise exactly
    # when not charged.
    raced = graded.rollouts > 0
    ev_best = graded.ev[graded.best]
    assert graded.gap[graded.best] == 0.0 and graded.within_noise[graded.best]
    expect = ev_best - np.maximum(graded.gap[raced], 0.0)
    assert np.allclose(graded.ev[raced], expect, rtol=0, atol=1e-9)
    within = np.abs(graded.gap[raced]) <= 2 * graded.gap_se[raced]
    assert np.array_equal(graded.within_noise[raced], within)
    assert np.isnan(graded.gap[~raced]).all() and not graded.within_noise[~raced].any()
    assert graded.gap[graded.chosen] == pytest.approx(gap, abs=1e-9)
    assert graded.within_noise[graded.chosen] == (graded.loss == 0.0)
    if graded.forced:
        assert graded.loss == 0.0
    dealt = random_decision(seed).dealt
    assert graded.plays == [play_text(dealt, d) for d in graded.destinations.tolist()]


def test_jokers_are_read_at_their_best_and_named() -> None:
    # Joker Pineapple, last street, the opponent done: top Qs 2h _, middle Kh Kc 4d 5s _,
    # bottom 9c 9d 9h Ts Js; dealt X1 2c 3h.  The joker on top reads as a queen (QQ under
    # KK: 7 royalty points and Fantasyland), the only play that enters; 2c or 3h fills
    # the middle.  The joker in the middle instead (KKK, 2 royalty points) and 2c on top
    # (a pair of deuces) gives up the entry: it loses.
    joker = decision(
        ruleset=get_ruleset("joker-pineapple"),
        street=4,
        board=board("Qs 2h", "Kh Kc 4d 5s", "9c 9d 9h Ts Js"),
        dealt=(52, *parse_cards("2c 3h")),
        dead=parse_cards("6c 6d 6h 6s"),
        opponents=(DONE,),
        chosen=(MIDDLE, TOP, DISCARD),
    )
    graded = grade(joker, 8, [2])
    assert graded.loss > 0 and (graded.rollouts == 1).all()
    assert graded.plays[graded.best].startswith("top X1")
    assert graded.plays == [play_text(joker.dealt, d) for d in graded.destinations.tolist()]


def exact_value(d: Decision, dest: tuple[int, ...]) -> float:
    """A candidate's value on a position with nothing left to deal, by the Python engine:
    the seat's net points against every opponent plus its Fantasyland's published value."""
    from ofc_stats.engine.board import Board
    from ofc_stats.engine.scoring import score_hand

    mine = list(d.board)
    for card, to in zip(d.dealt, dest, strict=True):
        if to != DISCARD:
            start, size = ((0, 3), (3, 5), (8, 5))[to]
            mine[next(i for i in range(start, start + size) if mine[i] == EMPTY)] = card
    boards = [Board.from_flat(o.board) for o in d.opponents]
    boards.insert(d.position, Board.from_flat(tuple(mine)))
    result = score_hand(boards, d.ruleset)
    earned = result.boards[d.position].fantasyland.cards or 0
    return float(result.net[d.position]) + (fantasy_value(earned) if earned else 0.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_last_street_with_nothing_to_deal_is_exact(seed: int) -> None:
    """The seat acting last on the last street, every opponent done: every candidate's
    value equals the Python engine's scoring of the finished boards to 1e-14, from one
    rollout, and the loss is the exact difference."""
    d = random_decision(seed)
    d = random_decision(seed + 1) if d.street != 4 or d.position == 0 else d
    if d.street != 4 or d.position == 0:
        rng = np.random.default_rng(seed)
        d = next(
            x
            for x in (random_decision(int(s)) for s in rng.integers(0, 2**32, 200))
            if x.street == 4 and x.position == 1
        )
    graded = grade(d, 16, [seed])
    assert (graded.rollouts == 1).all() and (graded.se == 0.0).all()
    want = np.array([exact_value(d, tuple(x)) for x in graded.destinations.tolist()])
    assert np.abs(graded.ev - want).max() <= 1e-14
    assert graded.loss == pytest.approx(want.max() - want[graded.chosen], abs=1e-14)
