"""Grading a Fantasyland set against the exact solver's.

The objective is the solver's: ``royalties + stay value x repeat``, the stay
value being the published value of the Fantasyland the repeat deals
(:func:`ofc_stats.grade.rollout.fantasy_value`).  The real set's royalties and
repeat come from the stored results, so it is judged by the same engine.

HOOK: the solver (:mod:`ofc_stats.engine.fantasy_solver`, issue 11 part 1) is
built on another branch.  Until it is merged, :func:`solver` returns None and
Fantasyland hands are stored with the status ``no solver``; nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ofc_stats.engine.rules import Ruleset
from ofc_stats.grade.position import FantasyDeal
from ofc_stats.grade.rollout import fantasy_value

Solver = Callable[[Sequence[int], Ruleset, float], Any]


def solver() -> Solver | None:
    """The exact Fantasyland solver, when it is installed (see the module's HOOK)."""
    try:
        from ofc_stats.engine.fantasy_solver import solve_fantasy  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    found: Solver = solve_fantasy
    return found


def stay_value(ruleset: Ruleset, cards: int) -> float:
    """Points a repeat of a ``cards``-card Fantasyland is worth: the value of what it deals."""
    fantasy = ruleset.fantasy
    if fantasy.repeat is None:
        return 0.0
    return fantasy_value(fantasy.repeat_cards or cards, ruleset.deck)


@dataclass(frozen=True)
class FantasyGrade:
    best_board: tuple[int, ...]  # 13 cards: top, middle, bottom
    best_discards: tuple[int, ...]
    best_value: float
    best_stays: bool
    real_value: float
    loss: float
    missed_repeat: bool


def grade_set(deal: FantasyDeal, royalties: int, stays: bool, solve: Solver) -> FantasyGrade:
    """The solver's set for the deal and what the real set (``royalties``, ``stays``) lost."""
    worth = stay_value(deal.ruleset, len(deal.cards))
    best = solve(deal.cards, deal.ruleset, worth)
    real = royalties + worth * stays
    return FantasyGrade(
        best_board=tuple(best.top) + tuple(best.middle) + tuple(best.bottom),
        best_discards=tuple(best.discards),
        best_value=float(best.value),
        best_stays=bool(best.stays),
        real_value=float(real),
        loss=max(float(best.value) - real, 0.0),
        missed_repeat=bool(best.stays) and not stays,
    )
