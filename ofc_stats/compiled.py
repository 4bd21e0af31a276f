"""A ruleset compiled to lookup arrays for the batch engine.

Each array entry is computed by calling the scalar rule functions
(:mod:`ofc_stats.scoring`, :mod:`ofc_stats.rules`) on the row class it stands
for, so the batch path applies exactly the rules the scalar path applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ofc_stats.rank_tables import tables
from ofc_stats.rules import Combine, Ruleset
from ofc_stats.scoring import row_points


@dataclass(frozen=True)
class CompiledRules:
    """Per-class royalties and Fantasyland flags, and row points by (won, lost)."""

    royalty_top: npt.NDArray[np.int16]  # (455,)
    royalty_middle: npt.NDArray[np.int16]  # (7462,)
    royalty_bottom: npt.NDArray[np.int16]
    entry_cards: npt.NDArray[np.int8]  # (455,) cards of the next hand, 0 = no entry
    repeat_top: npt.NDArray[np.bool_] | None  # None: that row has no repeat condition
    repeat_middle: npt.NDArray[np.bool_] | None
    repeat_bottom: npt.NDArray[np.bool_] | None
    repeat_all: bool  # combine the set conditions with "all" (else "any")
    has_repeat: bool
    repeat_cards: int  # 0 = as many as the Fantasyland hand played
    live_rows: npt.NDArray[np.int16]  # (16,) row points at index won*4+lost
    foul_win: int  # row points for beating a fouled board
    royalty_cap: int


@lru_cache(maxsize=64)
def compile_rules(ruleset: Ruleset) -> CompiledRules:
    t = tables()
    table = ruleset.royalties
    fantasy = ruleset.fantasy
    royalty_top = np.array([table.top_points(r) for r in t.rank3], dtype=np.int16)
    royalty_middle = np.array([table.five_points("middle", r) for r in t.rank5], dtype=np.int16)
    royalty_bottom = np.array([table.five_points("bottom", r) for r in t.rank5], dtype=np.int16)
    entry = np.array([fantasy.entry_cards_for(r) or 0 for r in t.rank3], dtype=np.int8)
    repeat = fantasy.repeat
    top = middle = bottom = None
    if repeat is not None:
        # Each condition alone, evaluated by the scalar RepeatRule on every class.
        if repeat.top is not None:
            only_top = type(repeat)(top=repeat.top, middle=None, bottom=None)
            top = np.array([only_top.holds(r, t.rank5[0], t.rank5[0]) for r in t.rank3])
        if repeat.middle is not None:
            only_mid = type(repeat)(top=None, middle=repeat.middle, bottom=None)
            middle = np.array([only_mid.holds(t.rank3[0], r, t.rank5[0]) for r in t.rank5])
        if repeat.bottom is not None:
            only_bot = type(repeat)(top=None, middle=None, bottom=repeat.bottom)
            bottom = np.array([only_bot.holds(t.rank3[0], t.rank5[0], r) for r in t.rank5])
    live_rows = np.zeros(16, dtype=np.int16)
    for won in range(4):
        for lost in range(4 - won):
            live_rows[won * 4 + lost] = row_points(ruleset, won, lost, foul=False)
    return CompiledRules(
        royalty_top=royalty_top,
        royalty_middle=royalty_middle,
        royalty_bottom=royalty_bottom,
        entry_cards=entry,
        repeat_top=top,
        repeat_middle=middle,
        repeat_bottom=bottom,
        repeat_all=repeat is not None and repeat.combine is Combine.ALL,
        has_repeat=repeat is not None,
        repeat_cards=fantasy.repeat_cards or 0,
        live_rows=live_rows,
        foul_win=row_points(ruleset, 3, 0, foul=True),
        royalty_cap=int(royalty_top.max() + royalty_middle.max() + royalty_bottom.max()),
    )
