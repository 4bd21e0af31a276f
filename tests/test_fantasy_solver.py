"""The core's exact Fantasyland solver against the plain exhaustive search and hand-built deals.

The exhaustive search (:mod:`ofc_stats.engine.fantasy_exhaustive`) is the
definition: it scores every split on the engine's definitions (``rank_row``,
the ruleset's royalty and repeat functions, ``score_board`` for jokers) and
shares no code with the core's branch and bound, so equal answers (the value and the very
set, ties included) say the bounds never cut a winner.

Royalties below are the american table (pineapple presets) unless a test says
classic: top pairs 66 = 1 .. AA = 9, trips 222 = 10 .. AAA = 22; middle trips 2,
straight 4, flush 8, full house 12, quads 20; bottom straight 2, flush 4, full
house 6, quads 10.  Repeat (progressive, ultimate, unlimited): trips on top or
quads or better on the bottom.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.core.fantasy import FantasySet, check_deal, solve_fantasy, solve_fantasy_batch
from ofc_stats.engine.board import Board
from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.fantasy_exhaustive import exhaustive_fantasy
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rank import Category, rank_row
from ofc_stats.engine.rules import STRICT_REPEAT, FantasyMode, FantasyRules, FrozenMap, Ruleset
from ofc_stats.engine.scoring import score_board
from ofc_stats.errors import HandError

PROGRESSIVE = get_ruleset("pineapple-progressive")
ULTIMATE = get_ruleset("pineapple-ultimate")
RUSSIAN = get_ruleset("pineapple-russian")  # classic royalties, no repeat
JOKERS = get_ruleset("joker-pineapple")
# 004's strict repeat: trips on top AND full house+ in the middle AND quads+ on the bottom.
STRICT = PROGRESSIVE.with_options(
    name="strict",
    fantasy=FantasyRules(FantasyMode.UNLIMITED, FrozenMap({"QQ": 14}), STRICT_REPEAT, 14),
)


def check_against_engine(found: FantasySet, deal: list[int], ruleset: Ruleset, stay: float) -> None:
    """The set uses exactly the dealt cards and the scalar scorer gives its figures."""
    assert sorted(found.top + found.middle + found.bottom + found.discards) == sorted(deal)
    scored = score_board(found.board, ruleset, in_fantasy=True)
    assert not scored.fouled
    assert scored.royalties.total == found.royalties
    assert scored.fantasyland.stays == found.stays
    assert found.value == pytest.approx(found.royalties + stay * found.stays)


def keys(found: FantasySet) -> tuple[int, int, int]:
    """(bottom, middle, top) strength keys of a joker-free set: the tie-break."""
    return (rank_row(found.bottom).key, rank_row(found.middle).key, rank_row(found.top).key)


def compare(deal: list[int], ruleset: Ruleset, stay: float) -> None:
    """Value, royalties, repeat and the very set (ties included) equal the definition's."""
    found = solve_fantasy(deal, ruleset, stay)
    value, royalties, stays, best_keys, split = exhaustive_fantasy(deal, ruleset, stay)
    assert (found.value, found.royalties, found.stays) == (value, royalties, stays), deal
    assert (found.top, found.middle, found.bottom) == split, deal
    if max(deal) < 52:
        assert keys(found) == best_keys, deal
    check_against_engine(found, deal, ruleset, stay)


CASES = [(PROGRESSIVE, 10.0), (RUSSIAN, 0.0), (STRICT, 25.0), (ULTIMATE, 10.23)]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(13, 15),
    st.permutations(range(52)),
    st.sampled_from(CASES),
)
def test_the_core_equals_the_exhaustive_search(
    count: int, cards: list[int], case: tuple[Ruleset, float]
) -> None:
    ruleset, stay = case
    compare(cards[:count], ruleset, stay)


@settings(max_examples=5, deadline=None)
@given(st.integers(1, 2), st.permutations(range(52)), st.sampled_from([0.0, 10.0, 29.5]))
def test_the_core_equals_the_exhaustive_search_with_jokers(
    jokers: int, cards: list[int], stay: float
) -> None:
    # 13 cards: the exhaustive search reads every split's jokers (72,072 boards).
    compare(cards[: 13 - jokers] + [52, 53][:jokers], JOKERS, stay)


@settings(max_examples=2, deadline=None)
@given(st.permutations(range(52)), st.sampled_from([0.0, 10.0, 29.5]))
def test_the_core_equals_the_exhaustive_search_with_a_joker_at_14_cards(
    cards: list[int], stay: float
) -> None:
    # 14 cards, one joker: 1,009,008 splits bounded, those that could win read by the
    # engine (10-40 s a deal; 15 cards can take minutes).
    compare([*cards[:13], 52], JOKERS, stay)


@settings(max_examples=40, deadline=None)
@given(
    st.permutations(range(52)),
    st.integers(13, 17),
    st.lists(st.permutations(range(17)), min_size=1, max_size=30),
)
def test_no_legal_set_beats_the_solver(
    cards: list[int], count: int, orders: list[list[int]]
) -> None:
    deal = cards[:count]
    best = solve_fantasy(deal, PROGRESSIVE, 10.0)
    for order in orders:
        placed = [deal[i] for i in order if i < count][:13]
        board = Board(tuple(placed[0:3]), tuple(placed[3:8]), tuple(placed[8:13]))
        scored = score_board(board, PROGRESSIVE, in_fantasy=True)
        if not scored.fouled:
            assert scored.royalties.total + 10.0 * scored.fantasyland.stays <= best.value


@pytest.mark.parametrize("count", [14, 15])
def test_solver_equals_exhaustive_search_on_200_random_deals(count: int) -> None:
    rng = np.random.default_rng(count)
    for index in range(200):
        ruleset, stay = CASES[index % len(CASES)]
        compare(rng.permutation(52)[:count].tolist(), ruleset, stay)


@pytest.mark.parametrize(("count", "deals"), [(16, 3), (17, 1)])
def test_solver_equals_exhaustive_search_on_16_and_17_cards(count: int, deals: int) -> None:
    rng = np.random.default_rng(count)
    for _ in range(deals):
        compare(rng.permutation(52)[:count].tolist(), ULTIMATE, 10.0)


# Ac Ad | 2c 2d 2h | Kc Kd Kh | Qc Qd | Jc Jd | 9c 8c.  Without trips on top the
# most royalties are top AA (9) + middle full house (12) + bottom full house
# (6) = 27: no quads, no straight flush (no Tc), only two sets of trips.  The
# strongest 27: bottom KKKQQ, middle 222JJ, top AA9, 8c thrown.
# A repeat needs trips on top.  KKK on top needs a middle above KKK (a full
# house or the club flush) and a bottom above that: impossible with the one
# other set of trips.  222 on top (10) takes middle KKK (2; a full house there
# would need a bottom full house from trips we no longer have) and bottom the
# club flush without Kc and 2c, Ac Qc Jc 9c 8c (4): 16 and a repeat.
STAY_DEAL = "Ac Ad 2c 2d 2h Qc Qd Kc Kd Kh Jc Jd 9c 8c"
NO_REPEAT = "Ad Ac 9c / Jd Jc 2h 2d 2c / Kh Kd Kc Qd Qc"
REPEAT = "2h 2d 2c / Ad Kh Kd Kc Qd / Ac Qc Jc 9c 8c"


@pytest.mark.parametrize(
    ("stay", "expected", "royalties", "stays"),
    [
        (0.0, NO_REPEAT, 27, False),
        (10.0, NO_REPEAT, 27, False),  # 16 + 10 = 26 < 27
        (11.0, NO_REPEAT, 27, False),  # 27 = 27: the stronger bottom (full house) wins
        (12.0, REPEAT, 16, True),  # 16 + 12 = 28 > 27
    ],
)
def test_the_stay_value_decides_between_royalties_and_a_repeat(
    stay: float, expected: str, royalties: int, stays: bool
) -> None:
    deal = list(parse_cards(STAY_DEAL))
    found = solve_fantasy(deal, PROGRESSIVE, stay)
    assert (str(found), found.royalties, found.stays) == (expected, royalties, stays)
    check_against_engine(found, deal, PROGRESSIVE, stay)
    assert found.value == exhaustive_fantasy(deal, PROGRESSIVE, stay)[0]


def test_a_queens_top_is_never_chosen_when_every_queens_top_fouls() -> None:
    # Without Qs Qh the other 12 cards hold only the pairs 22 and 33, no
    # straight (no 5, 9 or Q among them) and at most 4 of a suit, so no
    # middle and bottom can both beat QQ: every QQ top fouls.  The best set
    # is the only straight, A-K-Q-J-T on the bottom (2), with 33/22 in the
    # middle (0) and a high-card top (0): 2 points.
    deal = list(parse_cards("Qs Qh Ac Kh Jd Tc 8d 7c 6s 4h 3d 2c 2s 3h"))
    queens = set(parse_cards("Qs Qh"))
    rest = [card for card in deal if card not in queens]
    ruleset = get_ruleset("pineapple")
    for kicker in rest:
        others = [card for card in rest if card != kicker]
        for middle in combinations(others, 5):
            left = [card for card in others if card not in middle]
            for bottom in combinations(left, 5):
                board = Board((*queens, kicker), middle, bottom)
                assert score_board(board, ruleset, in_fantasy=True).fouled
    found = solve_fantasy(deal, ruleset, 0.0)
    assert found.royalties == 2 and not found.stays
    assert score_board(found.board, ruleset, True).ranks[2].category == Category.STRAIGHT
    assert not queens <= set(found.top)
    check_against_engine(found, deal, ruleset, 0.0)


def test_a_13_card_classic_deal_places_every_card() -> None:
    # Classic royalties: bottom royal flush 15, middle full house 12, top KK 8.
    # 999-44 in the middle leaves KK for the top: 15 + 12 + 8 = 35; 999-KK in
    # the middle would leave 44 on top (0): 27.  Classic has no repeat.
    classic = get_ruleset("classic")
    deal = list(parse_cards("As Ks Qs Js Ts 9h 9d 9c 4h 4d Kh Kd 2c"))
    found = solve_fantasy(deal, classic, 10.0)
    assert str(found) == "Kh Kd 2c / 9h 9d 9c 4h 4d / As Ks Qs Js Ts"
    assert (found.royalties, found.stays, found.value, found.discards) == (35, False, 35.0, ())
    # Every one of the 72,072 splits scored by the scalar scorer: none beats 35.
    best = 0
    for bottom in combinations(deal, 5):
        rest = [card for card in deal if card not in bottom]
        for middle in combinations(rest, 5):
            top = tuple(card for card in rest if card not in middle)
            scored = score_board(Board(top, middle, bottom), classic, in_fantasy=True)
            if not scored.fouled:
                best = max(best, scored.royalties.total)
    assert best == 35


@pytest.mark.parametrize(("jokers", "seed"), [(1, 1), (1, 2), (2, 3)])
def test_joker_deals_equal_the_exhaustive_search(jokers: int, seed: int) -> None:
    # 13 cards keep the exhaustive search (every split read by the engine) short.
    rng = np.random.default_rng(seed)
    deal = rng.permutation(52)[: 13 - jokers].tolist() + [52, 53][:jokers]
    compare(deal, JOKERS, 10.0)


def test_a_joker_completes_the_royal_flush() -> None:
    # Ah Kh Qh Jh + joker: the joker reads as Th, a royal flush on the bottom
    # (25) and a repeat (quads or better on the bottom); 999-55 in the middle
    # (12) and 33Q on top (0), 2s thrown: 37 + 10.
    deal = list(parse_cards("Ah Kh Qh Jh X1 9s 9d 9c 5s 5d 3c 3d 2s Qd"))
    found = solve_fantasy(deal, JOKERS, 10.0)
    assert str(found) == "Qd 3d 3c / 9s 9d 9c 5s 5d / X1 Ah Kh Qh Jh"
    assert (found.royalties, found.stays, found.value) == (37, True, 47.0)
    check_against_engine(found, deal, JOKERS, 10.0)


def test_batch_form_and_input_order() -> None:
    rng = np.random.default_rng(3)
    deals = np.array([rng.permutation(52)[:14] for _ in range(5)], dtype=np.int8)
    boards, thrown, sets = solve_fantasy_batch(deals, PROGRESSIVE, 10.0)
    assert boards.shape == (5, 13) and thrown.shape == (5, 1)
    for row, found, board, discards in zip(deals, sets, boards, thrown, strict=True):
        assert solve_fantasy(row[::-1].tolist(), PROGRESSIVE, 10.0) == found
        assert board.tolist() == [*found.top, *found.middle, *found.bottom]
        assert discards.tolist() == list(found.discards)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("As Kd Qh", "3 cards; a Fantasyland deal has 13 to 18"),
        ("As As Qh Jd Tc 9s 8d 7h 6c 5s 4d 3h 2c Kc", "duplicate card As"),
        (
            "X1 As Qh Jd Tc 9s 8d 7h 6c 5s 4d 3h 2c Kc",
            r"joker X1 in the standard52 deck, which has no jokers \(jokers need the joker54 deck\)",
        ),
    ],
)
def test_bad_deals_are_refused(cards: str, message: str) -> None:
    deal = list(parse_cards(cards))
    with pytest.raises(HandError, match=message):
        solve_fantasy(deal, PROGRESSIVE)
    with pytest.raises(HandError, match=f"^deal 3: {message}"):
        check_deal(deal, PROGRESSIVE, "deal 3")
    padded = (deal * 5)[:14]  # same fault in a batch row (the short deal repeated)
    with pytest.raises(HandError, match=message if len(deal) > 3 else "duplicate card"):
        solve_fantasy_batch(np.array([list(range(20, 34)), padded]), PROGRESSIVE)


def test_a_card_outside_the_deck_is_named_with_its_id() -> None:
    deal = [*range(13), -1]
    with pytest.raises(HandError, match=r"card ids \[-1\] are not in the standard52 deck$"):
        solve_fantasy(deal, PROGRESSIVE)
    assert check_deal([*range(13), 53], JOKERS) == (*range(13), 53)


def test_a_negative_stay_value_is_refused() -> None:
    with pytest.raises(ValueError, match="stay_value"):
        solve_fantasy(list(range(14)), PROGRESSIVE, -1.0)


def test_the_docstring_examples_hold() -> None:
    import doctest

    from ofc_stats.core import fantasy

    assert doctest.testmod(fantasy).failed == 0


def _solve_in_child(deals: np.ndarray) -> None:
    solve_fantasy_batch(deals, PROGRESSIVE, 10.0)


def test_a_forked_child_still_solves_batches() -> None:
    # The simulator's workers fork after the parent has used the core's thread
    # pool, whose threads do not survive a fork: the child must not wait on them.
    import multiprocessing

    deals = np.array([np.random.default_rng(5).permutation(52)[:15] for _ in range(8)])
    solve_fantasy_batch(deals, PROGRESSIVE, 10.0)  # the parent's pool is up
    child = multiprocessing.get_context("fork").Process(target=_solve_in_child, args=(deals,))
    child.start()
    child.join(60)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive and child.exitcode == 0
