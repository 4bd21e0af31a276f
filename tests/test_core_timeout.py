"""The core's timeout mask equals the engine's definition (:mod:`ofc_stats.engine.timeout`).

Boards whose streets deal a variant's plan, shuffled over the 13 slots, are
flagged street by street as ``timeout_streets(ordered=False)`` flags them;
a seat with an unknown street, and a Fantasyland seat, never are; any other
street numbers give a mask, never a crash.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.core.timeout import timeout_mask
from ofc_stats.engine.board import DISCARD, ROWS
from ofc_stats.engine.rules import Variant
from ofc_stats.engine.timeout import Street, timeout_streets
from ofc_stats.errors import HandError

ROW_OF_SLOT = [0] * 3 + [1] * 5 + [2] * 5


def _definition(streets: list[int], variant: Variant) -> int:
    """The engine's flags of one seat, as a mask: each street's cards go to the rows of
    its slots, in slot order, then the street's discards."""
    seat = []
    for number, (dealt, placed) in enumerate(variant.streets):
        rows = [ROWS[ROW_OF_SLOT[slot]] for slot, s in enumerate(streets) if s == number]
        assert len(rows) == placed
        seat.append(Street(tuple(range(dealt)), tuple(rows) + (DISCARD,) * (dealt - placed)))
    flags = timeout_streets(variant, seat, ordered=False)
    return sum(1 << number for number, flag in enumerate(flags) if flag)


def _plausible(rng: np.random.Generator, variant: Variant, count: int) -> np.ndarray:
    """Boards whose streets deal the variant's plan, cards shuffled over the 13 slots."""
    plan = np.repeat(np.arange(len(variant.streets)), [n for _, n in variant.streets])
    return np.array([rng.permutation(plan) for _ in range(count)], dtype=np.int8)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(list(Variant)))
def test_the_core_flags_what_the_engine_flags(seed: int, variant: Variant) -> None:
    rng = np.random.default_rng(seed)
    boards = _plausible(rng, variant, 60)
    fantasy = rng.random(len(boards)) < 0.1
    mask = timeout_mask(boards, fantasy, variant)
    assert mask.dtype == np.int16
    want = [
        0 if f else _definition(b.tolist(), variant) for b, f in zip(boards, fantasy, strict=True)
    ]
    assert mask.tolist() == want
    # An unknown street (-1, or past the plan) anywhere: never flagged.
    unknown = boards.copy()
    slot = rng.integers(0, 13, size=len(boards))
    unknown[np.arange(len(boards)), slot] = rng.choice([-1, len(variant.streets)], len(boards))
    assert not timeout_mask(unknown, np.zeros(len(boards), bool), variant).any()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(list(Variant)))
def test_streets_that_do_not_deal_the_plan_still_give_a_mask(seed: int, variant: Variant) -> None:
    rng = np.random.default_rng(seed)
    anything = rng.integers(-3, len(variant.streets) + 2, size=(200, 13)).astype(np.int8)
    mask = timeout_mask(anything, np.zeros(200, bool), variant)
    assert mask.shape == (200,)
    assert ((mask >= 0) & (mask < 1 << len(variant.streets))).all()


def test_a_hand_worked_board() -> None:
    # Streets by slot, top 3 | middle 5 | bottom 5.  Street 0 split 3 bottom + 2 middle
    # (the rule puts all 5 on the bottom): no bit.  Street 1, free (3, 3, 2): the rule
    # and the board put both on the bottom: bit 1.  Street 2, free (3, 3, 0): the rule
    # puts two in the middle, the board one middle one top: no bit.  Street 3, free
    # (2, 2, 0): two in the middle both ways: bit 3.  Street 4: only the top is open,
    # forced.  2 + 8 = 10.
    split = [[2, 4, 4, 0, 0, 2, 3, 3, 0, 0, 0, 1, 1]]
    assert timeout_mask(split, [False], Variant.PINEAPPLE).tolist() == [10]
    assert _definition(split[0], Variant.PINEAPPLE) == 10


def test_a_wrong_shape_is_a_hand_error() -> None:
    with pytest.raises(HandError):
        timeout_mask(np.zeros((2, 13), np.int8), np.zeros(3, bool), Variant.PINEAPPLE)
