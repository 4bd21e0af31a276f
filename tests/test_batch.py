"""The batch engine equals the scalar engine, and the laws of pairwise scoring hold."""

from __future__ import annotations

import json
import math
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.core.scoring import score_batch
from ofc_stats.engine.board import Board
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import MajorityBonus, Ruleset, Scoring
from ofc_stats.engine.scoring import score_hand
from ofc_stats.errors import HandError
from tests.handgen import random_hands

TWO_FOUR = get_ruleset("pineapple").with_options(
    name="two-four-capped", scoring=Scoring.TWO_FOUR, max_loss=20
)
TWO_ROWS = TWO_FOUR.with_options(majority_bonus=MajorityBonus.TWO_ROWS, foul_policy="rows-only")

FAMILIES = [
    # (ruleset, hands): 20,000 random hands for each variant family
    (get_ruleset("pineapple-progressive"), 20_000),
    (get_ruleset("classic"), 20_000),
    (get_ruleset("turbo"), 20_000),
    (get_ruleset("pineapple"), 5_000),
    (get_ruleset("pineapple-ultimate"), 5_000),
    (get_ruleset("classic-american"), 5_000),
    (TWO_FOUR, 5_000),
    (TWO_ROWS, 3_000),
    # the scalar joker search is slow; the batch one is checked on fewer hands
    (get_ruleset("joker-pineapple"), 1_500),
]


def compare(ruleset: Ruleset, data: dict, hands: range) -> dict[str, int]:
    """Assert batch == scalar for the given hands; return coverage counters."""
    result = score_batch(ruleset=ruleset, **data)
    seen = {"fouled": 0, "live": 0, "entries": 0, "stays": 0, "capped": 0, "royalties": 0}
    for h in hands:
        seats = int(data["seated"][h].sum())
        boards = [Board.from_flat(data["boards"][h, s]) for s in range(seats)]
        stacks = data["stacks"][h, :seats]
        stack_list = None if np.isnan(stacks).any() else stacks.tolist()
        scalar = score_hand(
            boards,
            ruleset,
            stacks=stack_list,
            in_fantasy=data["in_fantasy"][h, :seats].tolist(),
            fantasy_cards=[int(c) or None for c in data["fantasy_cards"][h, :seats]],
        )
        for s, board in enumerate(scalar.boards):
            where = f"hand {h} seat {s}: {boards[s]}"
            assert board.fouled == result.fouled[h, s], where
            assert (board.royalties.top, board.royalties.middle, board.royalties.bottom) == (
                result.royalty_top[h, s],
                result.royalty_middle[h, s],
                result.royalty_bottom[h, s],
            ), where
            fl = board.fantasyland
            assert fl.qualifies == result.fantasy_qualifies[h, s], where
            assert (fl.cards or 0) == result.fantasy_cards[h, s], where
            assert fl.stays == result.fantasy_stays[h, s], where
            assert (fl.repeat_cards or 0) == result.repeat_cards[h, s], where
            assert board.ranks[0].key == _key3(result.top_class[h, s])
            seen["fouled" if board.fouled else "live"] += 1
            seen["entries"] += fl.qualifies
            seen["stays"] += fl.stays
            seen["royalties"] += board.royalties.total > 0
        assert np.array_equal(np.array(scalar.points), result.points[h, :seats, :seats]), h
        assert list(scalar.net) == result.net[h, :seats].tolist(), h
        assert np.allclose(scalar.net_capped, result.net_capped[h, :seats]), h
        seen["capped"] += scalar.net_capped != tuple(float(n) for n in scalar.net)
    return seen


def _key3(top_class: int) -> int:
    from ofc_stats.core.tables import tables

    return int(tables().key3[top_class])


@pytest.mark.parametrize(("ruleset", "hands"), FAMILIES, ids=[f[0].name for f in FAMILIES])
def test_batch_equals_scalar(ruleset: Ruleset, hands: int) -> None:
    data = random_hands(ruleset, hands, seed=zlib.crc32(ruleset.name.encode()))
    seen = compare(ruleset, data, range(hands))
    # the comparison is only worth something if every branch was exercised
    assert seen["fouled"] > 0 and seen["live"] > 0 and seen["royalties"] > 0
    assert seen["entries"] > 0 and seen["capped"] > 0
    if ruleset.fantasy.repeat is not None:
        assert seen["stays"] > 0


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(["pineapple", "classic", "turbo", "pineapple-ultimate", "two-four"]),
)
def test_batch_equals_scalar_on_hypothesis_seeds(seed: int, name: str) -> None:
    ruleset = TWO_FOUR if name == "two-four" else get_ruleset(name)
    data = random_hands(ruleset, 40, seed)
    compare(ruleset, data, range(40))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(["pineapple", "classic", "turbo"]))
def test_points_sum_to_zero_before_and_after_caps(seed: int, name: str) -> None:
    ruleset = get_ruleset(name)
    data = random_hands(ruleset, 500, seed)
    result = score_batch(ruleset=ruleset, **data)
    assert np.all(result.net.sum(axis=1) == 0)
    assert np.allclose(result.net_capped.sum(axis=1), 0)
    assert np.array_equal(result.points, -result.points.transpose(0, 2, 1))
    # a capped result never exceeds the uncapped one in size
    assert np.all(np.abs(result.net_capped) <= np.abs(result.points).sum(axis=2) + 1e-9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(["pineapple-progressive", "classic", "turbo"]),
    data=st.data(),
)
def test_permuting_seats_permutes_results(seed: int, name: str, data: st.DataObject) -> None:
    ruleset = get_ruleset(name)
    seats = ruleset.max_seats
    hands = random_hands(ruleset, 300, seed, min_seats=seats)
    order = np.array(data.draw(st.permutations(range(seats))))
    base = score_batch(ruleset=ruleset, **{k: v for k, v in hands.items() if k != "stacks"})
    moved = {k: v[:, order] for k, v in hands.items() if k != "stacks"}
    permuted = score_batch(ruleset=ruleset, **moved)
    assert np.array_equal(permuted.net, base.net[:, order])
    assert np.array_equal(permuted.fouled, base.fouled[:, order])
    assert np.array_equal(permuted.points, base.points[:, order][:, :, order])
    assert np.array_equal(permuted.fantasy_cards, base.fantasy_cards[:, order])


def test_batch_rejects_duplicates_and_bad_cards() -> None:
    ruleset = get_ruleset("pineapple")
    data = random_hands(ruleset, 10, seed=1, min_seats=3)
    data["boards"][7, 1, 4] = data["boards"][7, 0, 0]
    with pytest.raises(HandError, match="hand 7: a card appears twice"):
        score_batch(ruleset=ruleset, **data)
    data = random_hands(ruleset, 10, seed=1, min_seats=3)
    data["boards"][3, 2, 0] = 52  # a joker in a 52-card game
    with pytest.raises(HandError, match="hand 3: card id outside the 52-card deck"):
        score_batch(ruleset=ruleset, **data)
    with pytest.raises(HandError, match="seats"):
        score_batch(np.zeros((2, 4, 13), dtype=np.int8), ruleset)


def test_absent_seats_score_nothing() -> None:
    ruleset = get_ruleset("classic")
    data = random_hands(ruleset, 200, seed=3)
    result = score_batch(ruleset=ruleset, **data)
    absent = ~data["seated"]
    assert not result.fouled[absent].any()
    assert np.all(result.net[absent] == 0)
    assert np.all(result.points[absent] == 0)
    assert math.isclose(float(np.abs(result.net_capped[absent]).sum()), 0.0)


def _score_line_cases(seed: int, count: int) -> list[str]:
    """Input lines for `score`: mostly the usual shape, and every way a line can differ."""
    from ofc_stats.engine.cards import format_cards

    rng = np.random.default_rng(seed)
    lines = []
    for number in range(count):
        seats = 4 if number % 29 == 0 else int(rng.integers(2, 4))  # 4: too many for pineapple
        deck = rng.permutation(52)
        boards = []
        for seat in range(seats):
            cards = deck[seat * 13 : seat * 13 + 13].tolist()
            boards.append(
                {
                    "top": format_cards(cards[0:3]),
                    "middle": format_cards(cards[3:8]),
                    "bottom": format_cards(cards[8:13]),
                }
            )
        hand: dict[str, object] = {"boards": boards}
        kind = number % 13
        if kind == 1:
            hand["stacks"] = [float(rng.integers(0, 40)) for _ in range(seats)]
        elif kind == 2:
            hand["in_fantasy"] = [bool(rng.integers(0, 2)) for _ in range(seats)]
            hand["fantasy_cards"] = [int(rng.choice([14, 15, 16, 17])) for _ in range(seats)]
        elif kind == 3:
            boards[0]["top"] = boards[0]["top"].replace("s", "♠")  # suit symbols: the slow path
        elif kind == 4:
            boards[1]["bottom"] = boards[0]["bottom"]  # a card on two boards
        elif kind == 5:
            boards[0]["middle"] = boards[0]["middle"][:-1] + "x"  # no such suit
        elif kind == 6:
            boards[0]["top"] = boards[0]["top"].split()  # rows as lists
        elif kind == 7:
            hand["stacks"] = [-1.0] * seats
        elif kind == 8:
            hand["in_fantasy"] = [True]  # one flag for several seats
        elif kind == 9:
            lines.append("{not json")
            continue
        elif kind == 10:
            lines.append("   ")
            continue
        elif kind == 11:
            boards[0]["top"] = boards[0]["top"].replace(" ", "  ", 1)  # two spaces
        elif kind == 12:
            hand["stacks"] = [12.5, 7.25, 3.0, 1.0][:seats]  # caps with fractions
        lines.append(json.dumps(hand, ensure_ascii=bool(number % 2)))
    return lines


@pytest.mark.parametrize(
    "name", ["pineapple-progressive", "classic", "pineapple", "joker-pineapple"]
)
def test_score_lines_write_what_the_record_path_writes(name: str) -> None:
    """`score --format json` end to end (the core reads and writes) against parse_hand + json.dumps of
    result_record, line for line, errors included; small chunks cross their boundaries."""
    from ofc_stats.cli.score_io import LineError, score_lines, score_stream

    ruleset = get_ruleset(name)
    if name == "pineapple":
        ruleset = ruleset.with_options(name="capped", max_loss=15)
    lines = _score_line_cases(seed=len(name), count=600)
    fast = list(score_lines(lines, ruleset, "in.jsonl", chunk=37))
    slow = [
        item if isinstance(item, LineError) else json.dumps(item[1], separators=(", ", ": "))
        for item in score_stream(lines, ruleset, "in.jsonl")
    ]
    assert fast == slow
    errors = sum(isinstance(item, LineError) for item in fast)
    assert 50 < errors < len(fast) // 2  # both kinds are really there
    only_errors = ["{not json", json.dumps({"boards": []}), "  "]
    assert list(score_lines(only_errors, ruleset, "x")) == list(
        score_stream(only_errors, ruleset, "x")
    )


def test_the_scorer_refuses_exactly_the_hands_with_a_card_twice() -> None:
    """Against a set per hand, with absent seats (whose cards never count) and copies
    planted within a board, across boards, and in an absent seat only (not a repeat)."""
    classic = get_ruleset("classic")  # four seats of a 52-card deck
    rng = np.random.default_rng(5)
    hands, seats = 40_000, 4  # more than two chunks of the check
    boards = rng.permuted(np.tile(np.arange(52, dtype=np.int8), (hands, 1)), axis=1)
    boards = boards[:, : seats * 13].reshape(hands, seats, 13).copy()
    seated = rng.random((hands, seats)) < 0.8
    seated[:, :2] = True
    plant = rng.integers(0, 4, hands)  # 0 none, 1 same board, 2 other board, 3 absent seat
    for hand in np.flatnonzero(plant).tolist():
        if plant[hand] == 1:
            boards[hand, 0, 5] = boards[hand, 0, 1]
        elif plant[hand] == 2:
            boards[hand, 1, 12] = boards[hand, 0, 0]
        elif not seated[hand, 3]:
            boards[hand, 3, 0] = boards[hand, 0, 0]
    want = np.array(
        [
            len(cards) != len(set(cards))
            for cards in (
                [c for s in range(seats) if seated[h, s] for c in boards[h, s].tolist()]
                for h in range(hands)
            )
        ]
    )
    assert want.sum() > hands // 3
    score_batch(boards[~want], classic, seated=seated[~want])  # no hand refused wrongly
    first = int(np.flatnonzero(want)[0])
    with pytest.raises(HandError, match=f"hand {first}: a card appears twice"):
        score_batch(boards, classic, seated=seated)
    for hand in rng.choice(np.flatnonzero(want), 300, replace=False).tolist():
        with pytest.raises(HandError, match="hand 0: a card appears twice"):
            score_batch(boards[hand : hand + 1], classic, seated=seated[hand : hand + 1])
