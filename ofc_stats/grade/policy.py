"""The continuation policy: how the grader plays a board on after the graded decision.

It chooses street by street and sees only the cards dealt so far.  Each legal
placement of a street's cards is valued by one *imagined* completion: the
cards the seat has not seen, in an order drawn at random (one order per
rollout, shared by every candidate so candidates are compared on the same
imagination), pairs kept together and the strongest groups first, filled into
the bottom, then the middle, then the top.  The completed board is worth
``royalties - FOUL_PENALTY x foul + FANTASY_BONUS x entry + STRENGTH_WEIGHT x
strength`` (the simulator's ``careful`` style without its noise); the best
candidate is played.  The same policy plays every opponent's remaining
streets.  A one-sample imagination is a cheap, honest player: it never looks
at the real cards to come, which is what overvalues draws in peers' graders.

Speed: a board's rows fill left to right, so a table's state is its row fills
(4 x 6 x 6 states).  For each state and candidate, :func:`layout` says where
each of the 13 positions of the imagined board comes from (the board, the
dealt cards or the imagination), so a whole street of candidates for every
table is one gather and one ranking.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.board import DISCARD_CODE, ROW_SIZES, ROW_SLICES
from ofc_stats.engine.vector.boards import classify_columns
from ofc_stats.engine.vector.jokers import resolve_jokers
from ofc_stats.engine.vector.rule_arrays import CompiledRules
from ofc_stats.sim.lookahead import candidates

FOUL_PENALTY = 9.0
FANTASY_BONUS = 60.0
STRENGTH_WEIGHT = 2.0
STATES = 4 * 6 * 6  # row fills (top 0-3, middle 0-5, bottom 0-5)
FILL_ORDER = (2, 1, 0)  # imagined cards go to the bottom first, then the middle, the top

Cards = npt.NDArray[np.int8]


def state_of(fill: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """The state code of each table's row fills (N, 3)."""
    f = fill.astype(np.int64)
    code: npt.NDArray[np.int64] = f[..., 0] * 36 + f[..., 1] * 6 + f[..., 2]
    return code


@dataclass(frozen=True)
class Layout:
    """For every (state, candidate): the source of each position, fit, and new state."""

    dream: npt.NDArray[np.int32]  # (13, STATES, K) into [board 13 | dealt k | imagined | empty]
    placed: npt.NDArray[np.int32]  # the same with imagined slots left empty
    fits: npt.NDArray[np.bool_]  # (STATES, K)
    next_state: npt.NDArray[np.int64]  # (STATES, K)
    width: int  # 13 + k + imagined + 1


@lru_cache(maxsize=32)
def layout(dealt: int, discards: int, imagined: int) -> Layout:
    """The gather indices for a street of ``dealt`` cards, ``imagined`` slots left after it."""
    cands = candidates(dealt, discards)
    k = len(cands.dest)
    width = 13 + dealt + imagined + 1
    empty = width - 1
    dream = np.full((STATES, k, 13), empty, dtype=np.int32)
    placed = np.full((STATES, k, 13), empty, dtype=np.int32)
    fits = np.zeros((STATES, k), dtype=bool)
    next_state = np.zeros((STATES, k), dtype=np.int64)
    for top in range(4):
        for middle in range(6):
            for bottom in range(6):
                state = top * 36 + middle * 6 + bottom
                fill = (top, middle, bottom)
                for c, dest in enumerate(cands.dest.tolist()):
                    count = [dest.count(row) for row in range(3)]
                    after = [f + n for f, n in zip(fill, count, strict=True)]
                    if any(a > s for a, s in zip(after, ROW_SIZES, strict=True)):
                        continue
                    fits[state, c] = True
                    next_state[state, c] = after[0] * 36 + after[1] * 6 + after[2]
                    rank = 0
                    for row in FILL_ORDER:
                        start = ROW_SLICES[row].start
                        mine = [i for i, d in enumerate(dest) if d == row]
                        for slot in range(ROW_SIZES[row]):
                            position = start + slot
                            if slot < fill[row]:
                                source = position
                            elif slot < after[row]:
                                source = 13 + mine[slot - fill[row]]
                            else:
                                source = 13 + dealt + min(rank, max(imagined - 1, 0))
                                rank += 1
                                dream[state, c, position] = source if imagined else empty
                                continue
                            dream[state, c, position] = source
                            placed[state, c, position] = source
    assert DISCARD_CODE == 3
    return Layout(np.ascontiguousarray(dream.transpose(2, 0, 1)), placed, fits, next_state, width)


def imagine(
    known: npt.NDArray[np.bool_], need: int, rng: np.random.Generator
) -> npt.NDArray[np.int8]:
    """(R, need) cards a seat imagines to come, from the cards it does not know.

    Sorted the way a player would fill them in: pairs and trips together,
    strongest first.
    """
    keys = rng.random(known.shape) + known
    draws = np.argpartition(keys, need - 1, axis=1)[:, :need].astype(np.int8)
    ranks = draws.astype(np.int16) >> 2
    groups = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)
    order = np.argsort(-(groups * 64 + draws), axis=1)
    return np.take_along_axis(draws, order, axis=1)


def board_value(cols: Cards, rules: CompiledRules, jokers: bool) -> npt.NDArray[np.float64]:
    """The policy's value of complete boards in the (13, N) column layout."""
    if jokers and cols.size and cols.max() >= 52:
        cols = np.ascontiguousarray(resolve_jokers(np.ascontiguousarray(cols.T), rules).T)
    scored = classify_columns(cols, rules)
    live = ~scored.fouled
    royalty = scored.royalty_top.astype(np.float64) + scored.royalty_middle + scored.royalty_bottom
    entry = (rules.entry_cards[scored.top_class] > 0) & live
    strength = (scored.middle_class.astype(np.float64) + scored.bottom_class) / 7462.0 * live
    value: npt.NDArray[np.float64] = (
        royalty - FOUL_PENALTY * scored.fouled + FANTASY_BONUS * entry + STRENGTH_WEIGHT * strength
    )
    return value


def candidate_values(
    boards: Cards,
    state: npt.NDArray[np.int64],
    dealt: Cards,
    discards: int,
    imagined: Cards | None,
    rules: CompiledRules,
    jokers: bool,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int8], Layout]:
    """The policy's value (N, K) of every candidate of every table, -inf where it does not fit.

    Also the gather source and the layout, so the caller can build the boards it picks.
    """
    n, k = dealt.shape
    need = 0 if imagined is None else imagined.shape[1]
    plan = layout(k, discards, need)
    parts = [boards, dealt] + ([] if imagined is None else [imagined])
    source = np.concatenate([*parts, np.full((n, 1), -1, np.int8)], axis=1).reshape(-1)
    base = np.arange(n, dtype=np.int32) * plan.width
    choices = plan.dream.shape[2]
    # Column layout (13, N, K) straight from the gather: what the ranker reads.
    index = plan.dream[:, state]
    index += base[None, :, None]
    cols = np.take(source, index).reshape(13, -1)
    value = board_value(cols, rules, jokers).reshape(n, choices)
    value[~plan.fits[state]] = -np.inf
    return value, source, plan


def play_street(
    boards: Cards,
    state: npt.NDArray[np.int64],
    dealt: Cards,
    discards: int,
    imagined: Cards | None,
    rules: CompiledRules,
    jokers: bool,
) -> tuple[Cards, npt.NDArray[np.int64]]:
    """Boards (N, 13) and states after the policy places ``dealt`` (N, k).

    ``imagined`` (N, need) are the cards each table imagines for its empty
    slots after this street (None on the last street).
    """
    value, source, plan = candidate_values(boards, state, dealt, discards, imagined, rules, jokers)
    best = value.argmax(axis=1)
    base = (np.arange(len(boards), dtype=np.int32) * plan.width)[:, None]
    chosen = np.take(source, plan.placed[state, best] + base)
    return chosen, plan.next_state[state, best]
