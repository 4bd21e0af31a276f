"""Grading a Fantasyland set against the exact solver's.

The objective is the solver's: ``royalties + stay value x repeat``, the stay
value being the published value of the Fantasyland the repeat deals
(:func:`ofc_stats.engine.fantasy_value.documented_stay_value`).  The real set's
royalties and repeat come from the stored results, so it is judged by the
same engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from ofc_stats.core.fantasy import solve_fantasy
from ofc_stats.engine.fantasy_value import documented_stay_value
from ofc_stats.engine.rules import Ruleset
from ofc_stats.grade.position import FantasyDeal


def stay_value(ruleset: Ruleset, cards: int) -> float:
    """Points a repeat of a ``cards``-card Fantasyland is worth: the value of what it deals."""
    return documented_stay_value(ruleset, cards)


@dataclass(frozen=True)
class FantasyGrade:
    best_board: tuple[int, ...]  # 13 cards: top, middle, bottom
    best_discards: tuple[int, ...]
    best_value: float
    best_stays: bool
    real_value: float
    loss: float
    missed_repeat: bool


def grade_set(deal: FantasyDeal, royalties: int, stays: bool) -> FantasyGrade:
    """The solver's set for the deal and what the real set (``royalties``, ``stays``) lost."""
    worth = stay_value(deal.ruleset, len(deal.cards))
    best = solve_fantasy(deal.cards, deal.ruleset, worth)
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
