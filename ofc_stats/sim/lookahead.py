"""Choosing placements for many tables at once by Monte Carlo completion.

Every legal way to place a street's cards is one row of a fixed candidate
table (232 for the first five cards, 27 for a Pineapple street with its
discard).  For each table and candidate the board is completed at random
from the cards the player has not seen, in two plans per draw (strongest
groups to the bottom first, or to the middle first: the player adapts to the
cards), the completed boards are ranked with the engine's tables, and the
candidate with the best average value under the player's style wins.  Large
candidate tables are screened with one rollout first.  Nothing loops over
tables in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.board import DISCARD_CODE, ROW_SIZES, ROW_SLICES
from ofc_stats.engine.vector.boards import classify_columns
from ofc_stats.engine.vector.jokers import resolve_jokers
from ofc_stats.engine.vector.rule_arrays import CompiledRules

SCREEN_ABOVE = 64  # candidate tables larger than this are screened first
SCREEN_KEEP = 32  # candidates per table kept for the full look-ahead
ROW_START = np.array([row.start for row in ROW_SLICES])
ROW_SIZE = np.array(ROW_SIZES)
DISCARD = DISCARD_CODE
EMPTY = -1


@dataclass(frozen=True)
class Candidates:
    """Destinations (C, k): row 0-2 or DISCARD for each of a street's k cards."""

    dest: npt.NDArray[np.int8]
    count: npt.NDArray[np.int8]  # (C, 3) cards each candidate adds to each row
    within: npt.NDArray[np.int8]  # (C, k) position of each card among its row's new cards


@lru_cache(maxsize=16)
def candidates(cards: int, discards: int) -> Candidates:
    """Every assignment of ``cards`` cards with exactly ``discards`` discarded."""
    options = []
    for dest in product(range(4), repeat=cards):
        if dest.count(DISCARD) != discards:
            continue
        counts = [dest.count(row) for row in range(3)]
        if any(c > s for c, s in zip(counts, ROW_SIZE, strict=True)):
            continue
        options.append(dest)
    dest_array = np.array(options, dtype=np.int8)
    count = np.stack([(dest_array == row).sum(axis=1) for row in range(3)], axis=1)
    within = np.zeros_like(dest_array)
    for row in range(3):
        mask = dest_array == row
        within += ((np.cumsum(mask, axis=1) - 1) * mask).astype(np.int8)
    return Candidates(dest_array, count.astype(np.int8), within)


def apply(
    boards: npt.NDArray[np.int8],
    fill: npt.NDArray[np.int8],
    dealt: npt.NDArray[np.int8],
    cands: Candidates,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """Boards (T, C, 13) after each candidate, and which candidates fit (T, C)."""
    t, c = len(boards), len(cands.dest)
    fits = np.all(fill[:, None, :] + cands.count[None, :, :] <= ROW_SIZE, axis=2)
    out = np.repeat(boards[:, None, :], c, axis=1)
    placed = cands.dest != DISCARD  # (C, k)
    dest = np.where(placed, cands.dest, 0)
    position = ROW_START[dest][None] + fill[:, dest] + cands.within[None]  # (T, C, k)
    position = np.where(fits[:, :, None] & placed[None], position, 13)  # 13: nowhere
    rows = np.arange(t)[:, None, None]
    cols = np.arange(c)[None, :, None]
    padded = np.concatenate([out, np.full((t, c, 1), EMPTY, np.int8)], axis=2)
    padded[rows, cols, position] = np.broadcast_to(dealt[:, None, :], position.shape)
    return padded[:, :, :13], fits


@dataclass(frozen=True)
class Style:
    """How a bot values a completed board."""

    name: str
    foul_penalty: float  # points a foul costs it, in its mind
    fantasy_bonus: float  # points an entry into Fantasyland is worth to it
    noise: float  # random spread added to each candidate's value (weak play)
    strength_weight: float = 2.0  # value of strong middle and bottom rows (winning rows)
    top_chase: float = 0.0  # value of each queen or better already on the top row


def _pair_the_top(
    boards: npt.NDArray[np.int8],
    after: npt.NDArray[np.int8],
    draws: npt.NDArray[np.int8],
    free: npt.NDArray[np.int32],
) -> None:
    """Move a drawn card that pairs a top card (sixes or better) onto the top, in place.

    A player who catches such a card puts it on top when there is room; the
    plain high-to-bottom completion never would, and would never value a
    queen on top.  ``boards`` are plan A's (bottom, then middle, then top), so
    draw k sits at a position known from the rows' free slots ``free``.
    """
    tc = np.nonzero(free[:, :, 0] > 0)  # boards whose top still has room
    if not len(tc[0]):
        return
    top = after[tc][:, :3]  # (B, 3)
    ranks = np.where(top >= 0, top >> 2, 0).astype(np.int32)
    mask = np.bitwise_or.reduce(np.where((top >= 0) & (ranks >= 4), 1 << ranks, 0), axis=1)
    drawn = (draws[tc[0]] >> 2).astype(np.int32)  # (B, R, need)
    pairs = (mask[:, None, None] >> drawn) & 1 == 1
    which = pairs.argmax(axis=2)  # (B, R): the draw that pairs the top
    room = free[tc]  # (B, 3)
    bottom, middle = room[:, 2:3], room[:, 1:2]
    move = pairs.any(axis=2) & (which < bottom + middle)  # it landed below the top
    source = np.where(which < bottom, 12 - which, 7 - (which - bottom))
    b, r = np.nonzero(move)
    if not len(b):
        return
    t, c = tc[0][b], tc[1][b]
    target = 3 - room[b, 0]  # the top's first empty slot
    src = source[b, r]
    moved = boards[t, c, r, src].copy()
    boards[t, c, r, src] = boards[t, c, r, target]
    boards[t, c, r, target] = moved


# For each board position: the slots after it in its row.
WITHIN = np.array([2, 1, 0, 4, 3, 2, 1, 0, 4, 3, 2, 1, 0], dtype=np.int32)


def _fill_ranks(
    free: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """(T, C, 13) fill ranks of the empty positions in two plans' orders.

    ``free`` (T, C, 3) is each row's empty slots.  Rows fill left to right, so
    a row's empty slots are its last ones; taking each row from its last
    slot, an empty position's rank is the slots after it in its row plus the
    empty slots of the rows filled before.  Plan A fills the bottom, then the
    middle, then the top; plan B the middle, then the bottom, then the top.
    Filled positions get ranks that are never used.
    """
    middle, bottom = free[:, :, 1:2], free[:, :, 2:3]
    after_top, after_middle, after_bottom = WITHIN[0:3], WITHIN[3:8], WITHIN[8:13]
    rank_a = np.concatenate(
        [after_top + (bottom + middle), after_middle + bottom, after_bottom + 0 * bottom], axis=2
    )
    rank_b = np.concatenate(
        [after_top + (middle + bottom), after_middle + 0 * middle, after_bottom + middle], axis=2
    )
    return rank_a.astype(np.int32), rank_b.astype(np.int32)


def completion_values(
    after: npt.NDArray[np.int8],
    free: npt.NDArray[np.int32],
    unseen: npt.NDArray[np.bool_],
    rollouts: int,
    rng: np.random.Generator,
    rules: CompiledRules,
    style_terms: tuple[npt.NDArray[np.float64], ...],
    both_plans: bool = True,
) -> npt.NDArray[np.float64]:
    """Average value (T, C) of completing each candidate board at random ``rollouts`` times.

    ``free`` (T, C, 3) counts each row's empty slots after the candidate;
    ``both_plans`` False completes with plan A only (a rough screening).
    """
    t = after.shape[0]
    empty = after == EMPTY
    # Cards still to come: every candidate that fits leaves the same number of empty
    # slots; one that does not fit placed nothing and leaves more.
    need = int(free.sum(axis=2).min())
    if need:
        # One set of draws per table and rollout, shared by all its candidates.
        keys = rng.random((t, rollouts, unseen.shape[1])) + (~unseen)[:, None, :]
        # The ``need`` smallest keys: the first cards of a random order of the unseen
        # cards (their order does not matter; they are sorted into groups below).
        draws = np.argpartition(keys, need - 1, axis=2)[:, :, :need].astype(np.int8)
        # A sensible future: drawn pairs and trips stay together, and the
        # strongest groups fill the lowest rows first.
        ranks = draws.astype(np.int16) >> 2
        groups = (ranks[:, :, :, None] == ranks[:, :, None, :]).sum(axis=3)
        order = np.argsort(-(groups * 64 + draws), axis=2)
        draws = np.take_along_axis(draws, order, axis=2)
        # Where each drawn card goes, as a gather: an empty position's rank among the
        # empty positions in a plan's fill order is the index of the draw it takes.
        # (A candidate that does not fit has more empty slots than ``need``; it is
        # never chosen, so its extra slots just repeat the last draw.)
        rank_a, rank_b = _fill_ranks(free)
        np.minimum(rank_a, need - 1, out=rank_a)
        np.minimum(rank_b, need - 1, out=rank_b)
        # Flat indices into draws (T, R, need), one int32 add per element: cheaper than
        # broadcasting three index arrays.
        base = (
            np.arange(t, dtype=np.int32)[:, None, None, None] * (rollouts * need)
            + np.arange(rollouts, dtype=np.int32)[None, None, :, None] * need
        )
        flat_draws = draws.reshape(-1)
        blank = empty[:, :, None, :]
        keep = after[:, :, None, :]
        boards = np.where(blank, np.take(flat_draws, base + rank_a[:, :, None, :]), keep)
        _pair_the_top(boards, after, draws, free)
        plans = 1
        if both_plans:
            plan_b = np.where(blank, np.take(flat_draws, base + rank_b[:, :, None, :]), keep)
            boards = np.concatenate([boards, plan_b], axis=2)  # (T, C, 2R, 13)
            plans = 2
    else:
        boards = after[:, :, None, :]
        plans = 1
    flat = boards.reshape(-1, 13)
    if unseen.shape[1] > 52 and flat.max() >= 52:  # a joker deck
        flat = resolve_jokers(flat, rules)
    scored = classify_columns(np.ascontiguousarray(flat.T), rules)
    foul_penalty, fantasy_bonus, strength_weight = style_terms
    royalty = scored.royalty_top.astype(np.float64) + scored.royalty_middle + scored.royalty_bottom
    live = ~scored.fouled
    entry = (rules.entry_cards[scored.top_class] > 0) & live
    strength = (scored.middle_class.astype(np.float64) + scored.bottom_class) / 7462.0 * live
    shape = boards.shape[:3]
    value = royalty.reshape(shape)
    value = value - foul_penalty[:, None, None] * scored.fouled.reshape(shape)
    value = value + fantasy_bonus[:, None, None] * entry.reshape(shape)
    value = value + strength_weight[:, None, None] * strength.reshape(shape)
    if plans == 2:  # the better plan for each draw: the player adapts to the cards
        value = np.maximum(value[:, :, :rollouts], value[:, :, rollouts:])
    result: npt.NDArray[np.float64] = value.mean(axis=2)
    return result


def choose(
    boards: npt.NDArray[np.int8],
    fill: npt.NDArray[np.int8],
    dealt: npt.NDArray[np.int8],
    unseen: npt.NDArray[np.bool_],
    discards: int,
    styles: list[Style],
    rollouts: int,
    rng: np.random.Generator,
    rules: CompiledRules,
) -> npt.NDArray[np.int8]:
    """Destinations (T, k) for each table's dealt cards: its style's best candidate."""
    cands = candidates(dealt.shape[1], discards)
    after, fits = apply(boards, fill, dealt, cands)
    terms = tuple(
        np.array([getattr(s, name) for s in styles], dtype=np.float64)
        for name in ("foul_penalty", "fantasy_bonus", "strength_weight")
    )
    chase = np.array([s.top_chase for s in styles])[:, None]
    noise = np.array([s.noise for s in styles])[:, None]

    # Empty slots per row after each candidate (a misfit places nothing).
    filled = np.where(fits[:, :, None], fill[:, None, :] + cands.count[None], fill[:, None, :])
    free = (ROW_SIZE - filled).astype(np.int32)

    def judged(
        boards: npt.NDArray[np.int8], room: npt.NDArray[np.int32], draws: int, both: bool
    ) -> npt.NDArray[np.float64]:
        value = completion_values(boards, room, unseen, draws, rng, rules, terms, both)
        top = boards[:, :, :3]
        queens: npt.NDArray[np.float64] = chase * ((top >= 0) & ((top >> 2) >= 10)).sum(axis=2)
        return value + queens

    index = np.broadcast_to(np.arange(len(cands.dest)), fits.shape)
    if len(cands.dest) > SCREEN_ABOVE:
        # Many candidates (the first street's 232): one cheap rollout each (one plan),
        # then the full look-ahead for the most promising few of each table.
        rough = judged(after, free, 1, False)
        rough[~fits] = -np.inf
        index = np.argpartition(-rough, SCREEN_KEEP - 1, axis=1)[:, :SCREEN_KEEP]
        after = np.take_along_axis(after, index[:, :, None], axis=1)
        fits = np.take_along_axis(fits, index, axis=1)
        free = np.take_along_axis(free, index[:, :, None], axis=1)
    value = judged(after, free, rollouts, True)
    value = value + noise * rng.standard_normal(value.shape)
    value[~fits] = -np.inf
    best = np.take_along_axis(index, value.argmax(axis=1)[:, None], axis=1)[:, 0]
    chosen: npt.NDArray[np.int8] = cands.dest[best]
    return chosen
