"""The exact Fantasyland set: the best 13 of 13-18 cards, solved by the core.

Objective: ``value = royalties + stay_value × stays`` over every non-fouling
split of the dealt cards into top 3 / middle 5 / bottom 5 (the rest
discarded), where ``stays`` is the ruleset's Fantasyland repeat.  Ties go to
the strongest bottom, then middle, then top (strength classes of the rank
tables); sets still equal after that (same ranks, other suits) go to the first
split in a fixed enumeration of the cards sorted by id, so the answer never
depends on the input order.  Jokers are read by the engine's whole-board
reading, so a joker set gets exactly the royalties and repeat the scorer gives
it.

The search is branch and bound in ``rust/ofc-core/src/fantasy.rs``; its
definition is the plain search over every split,
:mod:`ofc_stats.engine.fantasy_exhaustive`, which the tests hold it to (the
value and the very set).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.board import Board, outside_deck
from ofc_stats.engine.cards import format_cards
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import HandError


@dataclass(frozen=True)
class FantasySet:
    """A Fantasyland set: rows and discards as card ids (jokers as 52/53, as placed).

    ``value`` is ``royalties + stay_value × stays``.
    """

    top: tuple[int, ...]
    middle: tuple[int, ...]
    bottom: tuple[int, ...]
    discards: tuple[int, ...]
    royalties: int
    stays: bool
    value: float

    @property
    def board(self) -> Board:
        return Board(self.top, self.middle, self.bottom)

    def __str__(self) -> str:
        rows = (self.top, self.middle, self.bottom)
        return " / ".join(format_cards(row) for row in rows)


def check_deal(cards: Sequence[int], ruleset: Ruleset, where: str = "") -> tuple[int, ...]:
    """The dealt cards as a tuple, or :class:`HandError` naming what is wrong.

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> check_deal([0, 1, 2], get_ruleset("pineapple"), "deal 7")
    Traceback (most recent call last):
    ...
    ofc_stats.errors.HandError: deal 7: 3 cards; a Fantasyland deal has 13 to 18
    """
    try:
        return tuple(_core.check_fantasy_deal([int(card) for card in cards], core_rules(ruleset)))
    except HandError as error:
        if not where:
            raise
        raise HandError(f"{where}: {error}") from None


def _stay(stay_value: float) -> float:
    if not math.isfinite(stay_value) or stay_value < 0:
        raise ValueError(f"stay_value must be a finite number ≥ 0, not {stay_value!r}")
    return float(stay_value)


def solve_fantasy(cards: Sequence[int], ruleset: Ruleset, stay_value: float = 0.0) -> FantasySet:
    """The set of 13 of ``cards`` maximising royalties + ``stay_value`` × repeat.

    Exact over every non-fouling split; ties go to the strongest rows from the
    bottom up.  Rows are listed highest card id first.

    >>> from ofc_stats.engine.cards import parse_cards
    >>> from ofc_stats.engine.presets import get_ruleset
    >>> deal = parse_cards("Ah Kh Qh Jh Th 9s 9d 9c 5s 5d 3c 3d 2s Qd")
    >>> best = solve_fantasy(deal, get_ruleset("pineapple-progressive"), stay_value=10)
    >>> print(best, "|", format_cards(best.discards), best.royalties, best.stays, best.value)
    Qd 3d 3c / 9s 9d 9c 5s 5d / Ah Kh Qh Jh Th | 2s 37 True 47.0
    """
    stay = _stay(stay_value)
    deal = [int(card) for card in cards]
    top, middle, bottom, discards, royalties, stays, value = _core.solve_fantasy(
        deal, core_rules(ruleset), stay
    )
    return FantasySet(
        tuple(top), tuple(middle), tuple(bottom), tuple(discards), royalties, stays, value
    )


def solve_fantasy_batch(
    cards: npt.ArrayLike, ruleset: Ruleset, stay_value: float = 0.0
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], list[FantasySet]]:
    """Solve (k, n) deals in parallel: boards (k, 13: top, middle, bottom), discards, sets.

    Card ids 0..13 are the 2s, 3s and 4s and 5c 5d: trip 4s on top (12), 2222
    in the middle (20) and 3333 on the bottom (10) make 42.

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> boards, thrown, sets = solve_fantasy_batch([range(14)], get_ruleset("pineapple"))
    >>> boards.shape, thrown.shape, str(sets[0]), sets[0].royalties
    ((1, 13), (1, 1), '4h 4d 4c / 5d 2s 2h 2d 2c / 5c 3s 3h 3d 3c', 42)
    """
    stay = _stay(stay_value)
    deals = np.asarray(cards)
    if deals.ndim != 2:
        raise HandError(f"deals must be a (deals, cards) array, not shape {deals.shape}")
    if deals.size and (deals.min() < -128 or deals.max() > 127):
        bad = sorted({int(c) for c in deals.ravel() if not 0 <= c < ruleset.deck.size})
        raise HandError(outside_deck(bad, ruleset.deck))
    boards, thrown, royalties, stays, values = _core.solve_fantasy_batch(
        np.ascontiguousarray(deals, dtype=np.int8), core_rules(ruleset), stay
    )
    sets = [
        FantasySet(
            tuple(board[0:3]),
            tuple(board[3:8]),
            tuple(board[8:13]),
            tuple(discards),
            int(royalty),
            bool(stay_flag),
            float(value),
        )
        for board, discards, royalty, stay_flag, value in zip(
            boards.tolist(),
            thrown.tolist(),
            royalties.tolist(),
            stays.tolist(),
            values.tolist(),
            strict=True,
        )
    ]
    return boards, thrown, sets
