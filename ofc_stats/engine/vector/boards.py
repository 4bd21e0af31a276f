"""Per-board evaluation on arrays: rank the three rows, check the foul, pay royalties."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.vector.rank_tables import (
    classify_five_columns,
    classify_three_columns,
    tables,
)
from ofc_stats.engine.vector.rule_arrays import CompiledRules


@dataclass(frozen=True)
class BoardColumns:
    """Per-board results; arrays of shape (boards,)."""

    top_class: npt.NDArray[np.int16]
    middle_class: npt.NDArray[np.int16]
    bottom_class: npt.NDArray[np.int16]
    fouled: npt.NDArray[np.bool_]
    royalty_top: npt.NDArray[np.int16]
    royalty_middle: npt.NDArray[np.int16]
    royalty_bottom: npt.NDArray[np.int16]


def fouled_rows(
    top: npt.NDArray[np.integer], middle: npt.NDArray[np.integer], bottom: npt.NDArray[np.integer]
) -> npt.NDArray[np.bool_]:
    """Where a board fouls, from its rows' classes (arrays of one shape): the one home of the rule.

    Middle against bottom compare on one dense scale; top against middle
    through the highest top class each middle class allows (one gather, no
    keys).  Aces on top over a pair of kings in the middle foul; over a
    middle flush they do not:

    >>> from ofc_stats.engine.cards import parse_cards
    >>> from ofc_stats.engine.vector.rank_tables import classify_five, classify_three
    >>> top = classify_three(np.array([parse_cards("Ah Ad 2c")] * 2, np.int8))
    >>> middle = classify_five(np.array([parse_cards("Kh Kd 3c 4d 5s"),
    ...                                  parse_cards("2h 6h 8h Th Jh")], np.int8))
    >>> bottom = classify_five(np.array([parse_cards("9c 9d 9s 7c 7d")] * 2, np.int8))
    >>> fouled_rows(top, middle, bottom).tolist()
    [True, False]
    """
    fouled = top > np.take(tables().top_limit, middle)
    fouled |= middle > bottom
    return np.asarray(fouled, dtype=bool)


def royalty_sum(
    rules: CompiledRules,
    top: npt.NDArray[np.integer],
    middle: npt.NDArray[np.integer],
    bottom: npt.NDArray[np.integer],
) -> npt.NDArray[np.int64]:
    """The three rows' royalties added (int64), fouled or not: the caller decides a foul's worth.

    Queens on top pay 7, a middle flush 8 and a bottom full house 6 in
    standard Pineapple:

    >>> from ofc_stats.engine.cards import parse_cards
    >>> from ofc_stats.engine.presets import get_ruleset
    >>> from ofc_stats.engine.vector.rank_tables import classify_five, classify_three
    >>> from ofc_stats.engine.vector.rule_arrays import compile_rules
    >>> rules = compile_rules(get_ruleset("pineapple"))
    >>> top = classify_three(np.array([parse_cards("Qh Qd 2c")], np.int8))
    >>> middle = classify_five(np.array([parse_cards("2h 6h 8h Th Jh")], np.int8))
    >>> bottom = classify_five(np.array([parse_cards("9c 9d 9s 7c 7d")], np.int8))
    >>> royalty_sum(rules, top, middle, bottom).tolist()
    [21]
    """
    total: npt.NDArray[np.int64] = rules.royalty_top[top].astype(np.int64)
    total += rules.royalty_middle[middle]
    total += rules.royalty_bottom[bottom]
    return total


def classify_columns(cols: npt.NDArray[np.integer], rules: CompiledRules) -> BoardColumns:
    """Rank, foul-check and pay royalties for joker-free boards in the (13, N) column layout."""
    top = classify_three_columns(cols[0:3])
    middle = classify_five_columns(cols[3:8])
    bottom = classify_five_columns(cols[8:13])
    fouled = fouled_rows(top, middle, bottom)
    live = ~fouled
    return BoardColumns(
        top_class=top,
        middle_class=middle,
        bottom_class=bottom,
        fouled=fouled,
        royalty_top=rules.royalty_top[top] * live,
        royalty_middle=rules.royalty_middle[middle] * live,
        royalty_bottom=rules.royalty_bottom[bottom] * live,
    )
