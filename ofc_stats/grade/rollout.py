"""The value of each candidate play: expected final points by Monte Carlo rollouts, in the core.

A rollout deals the cards the player has not seen in a random order and hands
them out in blocks: the seat's own later streets first, then each opponent's
remaining streets (or its whole Fantasyland deal).  Boards are played on by
the continuation policy (``rust/ofc-core/src/policy.rs``: one imagined
completion a street, boards valued ``royalties - 9 x foul + 60 x entry + 2 x
strength``); hidden Fantasyland opponents are set by a greedy setter
(``setter.rs``).  Every random draw comes from a stream keyed by the decision's
key, the rollout's index and its purpose, so every candidate gets the *same*
rollouts (common random numbers) and nothing depends on threads or batching.
A candidate's value is the seat's net points (uncapped) plus the value of the
Fantasyland its board earns (:func:`fantasy_value`); it splits into four
parts that sum to it: row points on live boards, row points lost to fouls,
royalties (own minus each opponent's), and Fantasyland.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.fantasy_value import published_value
from ofc_stats.engine.rules import Deck, Ruleset
from ofc_stats.errors import RulesetError
from ofc_stats.grade.position import Decision

if TYPE_CHECKING:  # the core's own description of a decision, in its stub
    from ofc_stats._core import _Decision as CoreDecision

PARTS = ("rows", "fouls", "royalties", "fantasy")
U64 = (1 << 64) - 1


def fantasy_value(cards: int, deck: Deck = Deck.STANDARD52) -> float:
    """Points a ``cards``-card Fantasyland is worth over a normal hand; 0 for no entry.

    The published figures the solver's ``--stay-value auto`` uses
    (:func:`ofc_stats.engine.fantasy_value.published_value`).
    """
    return published_value(cards, deck)[0] if cards else 0.0


@lru_cache(maxsize=4)
def fantasy_values(deck: Deck) -> npt.NDArray[np.float64]:
    """:func:`fantasy_value` of every entry (0..31 cards), the table the core looks up."""
    values = np.array([fantasy_value(n, deck) for n in range(32)], dtype=np.float64)
    values.flags.writeable = False
    return values


def checked_values(values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """A table of Fantasyland values by cards dealt (at most 32 sizes), refused with one
    line when a value is not a finite number of points at least 0: a NaN compares false
    everywhere and would silently pick the first candidate."""
    table = np.asarray(values, dtype=np.float64).reshape(-1)
    if len(table) > 32:
        raise RulesetError(f"Fantasyland values are given for {len(table)} sizes, at most 32")
    bad = np.flatnonzero(~np.isfinite(table) | (table < 0))
    if len(bad):
        n = int(bad[0])
        raise RulesetError(
            f"the value of a {n}-card Fantasyland must be a finite number of points at least "
            f"0, not {table[n]}"
        )
    return table


def streets(ruleset: Ruleset) -> list[tuple[int, int]]:
    """(cards dealt, cards placed) of each street."""
    return [(int(dealt), int(placed)) for dealt, placed in ruleset.variant.streets]


def core_decision(decision: Decision, key: Sequence[int]) -> CoreDecision:
    """The decision as the core reads it, with its random ``key`` (any integers)."""
    return (
        [k & U64 for k in key],
        decision.street,
        decision.position,
        decision.board,
        decision.dealt,
        decision.discards,
        decision.dead,
        [(o.seat, o.board, o.next_street, o.fantasy_cards) for o in decision.opponents],
        decision.chosen,
    )


@dataclass(frozen=True)
class Rollouts:
    """Values (C, R) of C candidates over R common rollouts, and their parts."""

    total: npt.NDArray[np.float64]
    parts: dict[str, npt.NDArray[np.float64]]


def simulate(
    decision: Decision,
    rows: Sequence[int],
    rollouts: int,
    key: Sequence[int],
    *,
    phase: int = 0,
    first: int = 0,
    values: npt.ArrayLike | None = None,
) -> Rollouts:
    """The values of candidates ``rows`` (indices into the street's candidate table) over
    rollouts ``first..first + rollouts`` of ``phase`` (0: the race's, 1: fresh re-measures),
    a Fantasyland valued by ``values`` (by cards dealt; None: the published figures).

    Raises :class:`~ofc_stats.errors.UnplayablePosition` for a position that cannot be
    replayed or a candidate that does not fit.
    """
    ruleset = decision.ruleset
    total, parts = _core.rollout_values(
        core_rules(ruleset),
        streets(ruleset),
        checked_values(fantasy_values(ruleset.deck) if values is None else values),
        core_decision(decision, key),
        [int(r) for r in rows],
        rollouts,
        phase,
        first,
    )
    return Rollouts(total, {name: parts[:, :, i] for i, name in enumerate(PARTS)})
