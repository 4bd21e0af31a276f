"""The core's batch scorer equals the scalar definition, ``score_hand``, hand by hand.

Every preset (jokers included) and custom rulesets built with ``with_options``
(two-four, rows-only fouls, a maximum loss, no stack cap), 2 to the most
seats, random Fantasyland flags and card counts, stacks that cap.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.core.scoring import BatchResult, score_batch
from ofc_stats.core.tables import tables
from ofc_stats.engine.board import Board
from ofc_stats.engine.presets import PRESETS, get_ruleset
from ofc_stats.engine.rules import MajorityBonus, Ruleset, Scoring
from ofc_stats.engine.scoring import BoardResult, rows_against, score_hand
from ofc_stats.errors import HandError
from tests.handgen import random_hands

CUSTOM = {
    "two-four-max-loss": get_ruleset("pineapple").with_options(
        name="two-four-max-loss", scoring=Scoring.TWO_FOUR, max_loss=20
    ),
    "two-four-rows-only": get_ruleset("pineapple").with_options(
        name="two-four-rows-only",
        scoring=Scoring.TWO_FOUR,
        majority_bonus=MajorityBonus.TWO_ROWS,
        foul_policy="rows-only",
    ),
    "classic-uncapped-max-loss": get_ruleset("classic").with_options(
        name="classic-uncapped-max-loss", stack_cap=False, max_loss=7
    ),
    "ultimate-max-loss": get_ruleset("pineapple-ultimate").with_options(
        name="ultimate-max-loss", max_loss=12
    ),
}
NAMES = sorted(PRESETS) + sorted(CUSTOM)


def ruleset_named(name: str) -> Ruleset:
    return CUSTOM[name] if name in CUSTOM else get_ruleset(name)


def assert_equal_to_scalar(ruleset: Ruleset, data: dict[str, np.ndarray]) -> dict[str, int]:
    """Every field of every seated seat against ``score_hand``; counts of what was seen."""
    result = score_batch(ruleset=ruleset, **data)
    key5, key3 = tables().key5, tables().key3
    seen = {"fouled": 0, "entries": 0, "stays": 0, "capped": 0, "jokers": 0}
    for h in range(len(data["boards"])):
        seats = int(data["seated"][h].sum())
        boards = [Board.from_flat(data["boards"][h, s]) for s in range(seats)]
        stacks = data["stacks"][h, :seats]
        scalar = score_hand(
            boards,
            ruleset,
            stacks=None if np.isnan(stacks).any() else stacks.tolist(),
            in_fantasy=data["in_fantasy"][h, :seats].tolist(),
            fantasy_cards=[int(c) or None for c in data["fantasy_cards"][h, :seats]],
        )
        for s, board in enumerate(scalar.boards):
            where = f"{ruleset.name} hand {h} seat {s}: {boards[s]}"
            assert list(board.board.cards) == result.boards[h, s].tolist(), where
            top, middle, bottom = board.ranks
            assert top.key == key3[result.top_class[h, s]], where
            assert middle.key == key5[result.middle_class[h, s]], where
            assert bottom.key == key5[result.bottom_class[h, s]], where
            assert board.fouled == result.fouled[h, s], where
            royalties = (board.royalties.top, board.royalties.middle, board.royalties.bottom)
            got = (result.royalty_top[h, s], result.royalty_middle[h, s])
            assert royalties == (*got, result.royalty_bottom[h, s]), where
            fl = board.fantasyland
            assert fl.qualifies == result.fantasy_qualifies[h, s], where
            assert (fl.cards or 0) == result.fantasy_cards[h, s], where
            assert fl.stays == result.fantasy_stays[h, s], where
            assert (fl.repeat_cards or 0) == result.repeat_cards[h, s], where
            assert (fl.next_cards or 0) == result.next_cards[h, s], where
            seen["fouled"] += board.fouled
            seen["entries"] += fl.qualifies
            seen["stays"] += fl.stays
            seen["jokers"] += any(c >= 52 for c in boards[s].cards)
        assert [list(row) for row in scalar.points] == result.points[h, :seats, :seats].tolist()
        assert_rows_against(scalar.boards, result, h)
        assert list(scalar.net) == result.net[h, :seats].tolist(), h
        assert list(scalar.net_capped) == result.net_capped[h, :seats].tolist(), h
        seen["capped"] += scalar.net_capped != tuple(float(n) for n in scalar.net)
        absent = ~data["seated"][h]
        assert not result.fouled[h, absent].any() and not result.net[h, absent].any()
    return seen


def assert_rows_against(boards: tuple[BoardResult, ...], result: BatchResult, h: int) -> None:
    """The core's rows won and tied per pair, and their sums and scoops per seat."""
    seats = len(boards)
    for i in range(seats):
        outcomes = [rows_against(boards[i], boards[j]) for j in range(seats) if j != i]
        others = [j for j in range(seats) if j != i]
        assert [result.pair_won[h, i, j] for j in others] == [o[0] for o in outcomes], (h, i)
        assert [result.pair_tied[h, i, j] for j in others] == [o[2] for o in outcomes], (h, i)
        sums = [sum(o[k] for o in outcomes) for k in range(3)]
        got = [result.rows_won[h, i], result.rows_lost[h, i], result.rows_tied[h, i]]
        assert got == sums, (h, i)
        scoops = (sum(o[0] == 3 for o in outcomes), sum(o[1] == 3 for o in outcomes))
        assert (result.scoops[h, i], result.scooped[h, i]) == scoops, (h, i)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(NAMES))
def test_core_equals_score_hand(seed: int, name: str) -> None:
    ruleset = ruleset_named(name)
    jokers = ruleset.deck.size > 52  # the scalar joker search is slow: fewer hands
    data = random_hands(ruleset, 15 if jokers else 40, seed)
    assert_equal_to_scalar(ruleset, data)


@pytest.mark.parametrize("name", NAMES)
def test_every_ruleset_exercises_every_branch(name: str) -> None:
    """One fixed sample per ruleset big enough that fouls, entries, caps (and jokers,
    and repeats where the ruleset has them) all occur: the comparison means something."""
    ruleset = ruleset_named(name)
    jokers = ruleset.deck.size > 52
    data = random_hands(ruleset, 300 if jokers else 600, seed=len(name))
    seen = assert_equal_to_scalar(ruleset, data)
    assert seen["fouled"] and seen["entries"] and seen["capped"], seen
    if jokers:
        assert seen["jokers"], seen
    if ruleset.fantasy.repeat is not None and not jokers:
        assert seen["stays"], seen


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(["pineapple", "classic"]))
def test_forcing_the_boards_own_fouls_changes_nothing(seed: int, name: str) -> None:
    ruleset = get_ruleset(name)
    data = random_hands(ruleset, 200, seed)
    own = score_batch(ruleset=ruleset, **data)
    forced = score_batch(ruleset=ruleset, forced_fouls=own.fouled, **data)
    for field in ("fouled", "royalty_top", "points", "net", "net_capped", "fantasy_cards"):
        assert np.array_equal(getattr(own, field), getattr(forced, field)), field


def test_forced_fouls_pay_no_royalties() -> None:
    # Alice (15 royalties) forced to foul, Bob (trips in the middle, 2) forced live:
    # Bob wins the 6 of a foul plus his 2 royalties.
    alice = Board.parse("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah").cards
    bob = Board.parse("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c").cards
    result = score_batch(
        [[alice, bob]], get_ruleset("pineapple-progressive"), forced_fouls=[[True, False]]
    )
    assert result.net.tolist() == [[-8, 8]]
    assert result.royalty_total.tolist() == [[0, 2]]


def test_bad_input_is_a_hand_error() -> None:
    ruleset = get_ruleset("pineapple")
    data = random_hands(ruleset, 10, seed=1, min_seats=3)
    data["boards"][4, 0, 0] = -7  # outside the deck, checked even with check=False
    with pytest.raises(HandError, match="hand 4: card id outside the 52-card deck"):
        score_batch(ruleset=ruleset, check=False, **data)
    with pytest.raises(HandError, match=r"stacks have shape \(10, 2\), boards need \(10, 3\)"):
        score_batch(data["boards"], ruleset, stacks=np.zeros((10, 2)))
    with pytest.raises(HandError, match="boards must have shape"):
        score_batch(np.zeros((2, 3, 12), np.int8), ruleset)


def test_a_repeated_card_counts_only_in_seated_seats() -> None:
    ruleset = get_ruleset("pineapple")
    first = list(range(13))
    again = [0, *range(14, 26)]  # the 2c of the first board again
    score_batch([[first, again]], ruleset, seated=[[True, False]])  # the absent seat's 2c
    with pytest.raises(HandError, match="hand 0: a card appears twice"):
        score_batch([[first, again]], ruleset)


def test_any_memory_layout_scores_alike() -> None:
    """Fortran-ordered and strided views are read in their logical order, not their memory's."""
    ruleset = get_ruleset("pineapple-progressive")
    data = random_hands(ruleset, 300, seed=11)
    base = score_batch(ruleset=ruleset, **data)
    fortran = {k: np.asfortranarray(v) for k, v in data.items()}
    strided = {k: np.repeat(v, 2, axis=0)[::2] for k, v in data.items()}
    for other in (fortran, strided):
        again = score_batch(ruleset=ruleset, **other)
        for field in ("boards", "points", "net", "net_capped", "fantasy_cards", "repeat_cards"):
            assert np.array_equal(getattr(base, field), getattr(again, field)), field


def test_a_forked_process_scores_too() -> None:
    """A fork copies only the forking thread: the child must not wait on the parent's
    (absent) rayon threads, but score on its own and get the parent's answer."""
    import multiprocessing

    ruleset = get_ruleset("pineapple")
    data = random_hands(ruleset, 3000, seed=5)
    here = score_batch(ruleset=ruleset, **data).net  # the pool's threads are running now
    with multiprocessing.get_context("fork").Pool(1) as pool:
        there = pool.apply_async(_net_of, (data,)).get(timeout=120)
    assert np.array_equal(here, there)


def _net_of(data: dict[str, np.ndarray]) -> np.ndarray:
    return score_batch(ruleset=get_ruleset("pineapple"), **data).net
