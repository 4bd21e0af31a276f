"""What a Fantasyland repeat is worth, in points: published figures and an estimate.

The exact setter (:mod:`ofc_stats.core.fantasy`) maximises
``royalties + stay_value × stays``; ``stay_value`` is what the repeat's
Fantasyland hand is worth over a normal hand.  ``--stay-value auto`` uses
:func:`documented_stay_value`: a published figure for the card count the
repeat deals.  :func:`fantasy_values` estimates the same thing from a
dataset's own results (real or simulated), as a small Markov chain over
"normal hand" and "Fantasyland with n cards"; the store can feed it columns.
Pure: NumPy only, no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.rules import Deck, Ruleset

# Value of a Fantasyland over a normal hand, by cards dealt (points, source).
PUBLISHED: dict[int, tuple[float, str]] = {
    13: (2.3, "openfaceodds.com (13 cards)"),
    14: (10.23, "giovinco0807/pineapple README: regular 14-card Fantasyland, direct simulation"),
    15: (12.4, "openfaceodds.com (15 cards)"),
}
# Two jokers in the deck: victorywys/OFC_Solver tables/fantasy_ev.py, V(tier) - V(normal),
# two players, tiers F14..F17.
PUBLISHED_JOKERS: dict[int, tuple[float, str]] = {
    14: (29.5, "victorywys/OFC_Solver, jokers, F14"),
    15: (42.4, "victorywys/OFC_Solver, jokers, F15"),
    16: (40.6, "victorywys/OFC_Solver, jokers, F16"),
    17: (67.2, "victorywys/OFC_Solver, jokers, F17"),
}


def nearest_size(sizes: Collection[int], cards: int) -> int:
    """The size among ``sizes`` (not empty) whose figure a ``cards``-card Fantasyland takes:
    the largest not above ``cards`` (a floor, since more cards never make a Fantasyland
    worse), else the smallest.

    >>> nearest_size({14, 15, 17}, 16), nearest_size({14, 15, 17}, 17), nearest_size({14, 15}, 13)
    (15, 17, 14)
    """
    below = [n for n in sizes if n <= cards]
    return max(below) if below else min(sizes)


def published_value(cards: int, deck: Deck = Deck.STANDARD52) -> tuple[float, str]:
    """The published value of a ``cards``-card Fantasyland and where it comes from.

    No figure is published for 16-18 cards without jokers (or 18 with them):
    the largest smaller count's figure is used, a floor since more cards never
    make a Fantasyland worse.  Fewer cards than any figure: the smallest.
    """
    table = PUBLISHED_JOKERS if deck is Deck.JOKER54 else PUBLISHED
    value, source = table[nearest_size(table.keys(), cards)]
    if cards not in table:
        source += f"; no published {cards}-card figure, nearest smaller count used"
    return value, source


def repeat_cards(ruleset: Ruleset, cards: int) -> int | None:
    """Cards a repeat of a ``cards``-card Fantasyland deals, None if it cannot repeat."""
    fantasy = ruleset.fantasy
    if fantasy.repeat is None:
        return None
    return fantasy.repeat_cards if fantasy.repeat_cards is not None else cards


def documented_stay_value(ruleset: Ruleset, cards: int) -> float:
    """``--stay-value auto``: the published value of the Fantasyland a repeat deals.

    0 when the ruleset has no repeat (the objective is then royalties alone).

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> documented_stay_value(get_ruleset("pineapple-progressive"), 16)  # repeats deal 14
    10.23
    >>> documented_stay_value(get_ruleset("pineapple"), 14)  # no repeat
    0.0
    """
    count = repeat_cards(ruleset, cards)
    return 0.0 if count is None else published_value(count, ruleset.deck)[0]


@dataclass(frozen=True)
class FantasyValues:
    """Estimated value of each Fantasyland card count over a normal hand.

    ``value[n]``: points a Fantasyland of n cards is worth more than a normal
    hand, repeats included; ``hands[n]``: Fantasyland hands of n cards seen;
    ``stay_rate[n]``: their share that earned a repeat; ``per_hand``: the
    long-run mean points per hand (the chain's average reward).
    """

    value: dict[int, float]
    hands: dict[int, int]
    stay_rate: dict[int, float]
    per_hand: float

    def stay_value(self, ruleset: Ruleset, cards: int) -> float | None:
        """The estimated value of the repeat of a ``cards``-card Fantasyland, if seen."""
        count = repeat_cards(ruleset, cards)
        if count is None:
            return 0.0
        return self.value.get(count)


def fantasy_values(
    cards: npt.ArrayLike,
    points: npt.ArrayLike,
    next_cards: npt.ArrayLike,
    fixed: Mapping[int, float] | None = None,
) -> FantasyValues:
    """Estimate Fantasyland values from per-seat results (NumPy arrays or pandas columns).

    One entry per seat and hand: ``cards`` dealt as a Fantasyland (0 for a
    normal hand), the seat's ``points`` in that hand, and ``next_cards``: the
    Fantasyland the seat earned for its next hand (0 for none; a repeat's
    count for a stay).  States are "normal" and each Fantasyland count; with
    r(s) the mean points in state s and P the observed transitions, the
    relative values h solve ``h(s) = r(s) - g + sum P(s, s') h(s')`` with
    h(normal) = 0 and g the mean points per hand: a Fantasyland is worth its
    own hand's points over the average plus its chance to repeat times the
    repeat's value.  Needs normal hands and at least one Fantasyland.

    ``fixed`` gives some counts' h from elsewhere (self-play, for a count the
    results hold too few hands of): their rows are not read, and a move into
    one adds its given value to the reward of the state it leaves, so
    ``h(s) = r(s) + sum_fixed P(s, f) h(f) - g + sum_estimated P(s, s') h(s')``.
    """
    dealt = np.asarray(cards, dtype=np.int64)
    won = np.asarray(points, dtype=np.float64)
    after = np.asarray(next_cards, dtype=np.int64)
    given = {int(n): float(v) for n, v in (fixed or {}).items()}
    if not dealt.shape == won.shape == after.shape or dealt.ndim != 1:
        raise ValueError("cards, points and next_cards must be 1-D and the same length")
    counts = sorted({int(c) for c in dealt[dealt > 0]} - set(given))
    if not (dealt == 0).any() or not (counts or given):
        raise ValueError("the estimate needs normal hands and Fantasyland hands")
    states = [0, *counts]
    where = {state: i for i, state in enumerate(states)}
    size = len(states)
    reward = np.array([won[dealt == s].mean() for s in states])
    moves = np.zeros((size, size))
    for state in states:
        mine = after[dealt == state]
        for target in np.unique(mine).tolist():
            share = float((mine == target).mean())
            if int(target) in given:
                reward[where[state]] += share * given[int(target)]
            elif int(target) in where:
                moves[where[state], where[int(target)]] = share
            else:
                raise ValueError(f"next_cards {target} is never dealt as a Fantasyland here")
    # Unknowns: h(1..) and g; h(normal) = 0.  Row s: h(s) - sum P h + g = r(s).
    system = np.eye(size) - moves
    system[:, 0] = 1.0  # the normal state's column carries g instead of h(normal)
    try:
        solved = np.linalg.solve(system, reward)
    except np.linalg.LinAlgError:
        raise ValueError("the transitions never return to a normal hand") from None
    return FantasyValues(
        value={s: float(solved[where[s]]) for s in counts},
        hands={s: int((dealt == s).sum()) for s in counts},
        stay_rate={s: float((after[dealt == s] > 0).mean()) for s in counts},
        per_hand=float(solved[0]),
    )
