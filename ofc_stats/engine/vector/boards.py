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


def classify_columns(cols: npt.NDArray[np.integer], rules: CompiledRules) -> BoardColumns:
    """Rank, foul-check and pay royalties for joker-free boards in the (13, N) column layout."""
    top = classify_three_columns(cols[0:3])
    middle = classify_five_columns(cols[3:8])
    bottom = classify_five_columns(cols[8:13])
    # Middle against bottom compare on one dense scale; top against middle through
    # the highest top class each middle class allows (one gather, no keys).
    fouled = top > np.take(tables().top_limit, middle)
    fouled |= middle > bottom
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
