"""A ruleset as the core reads it: per-class arrays computed by the definitions.

Each array entry comes from calling the scalar rule functions
(:mod:`ofc_stats.engine.rules`, :mod:`ofc_stats.engine.scoring`) on the row
class it stands for (the classes' ranks from :func:`ofc_stats.core.tables.tables`,
which the core builds in milliseconds), so the core applies exactly the rules
the scalar path applies and a ruleset's many options keep one definition (the
core never re-implements them).  Built once per ruleset per process (~0.1 s).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ofc_stats import _core
from ofc_stats.core.tables import tables
from ofc_stats.engine.rules import Combine, Ruleset
from ofc_stats.engine.scoring import row_points


@lru_cache(maxsize=64)
def core_rules(ruleset: Ruleset) -> _core.Rules:
    """The ruleset's arrays and options, held by the core.

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> core_rules(get_ruleset("joker-pineapple")).deck_size
    54
    """
    return _core.Rules(**rule_arrays(ruleset))


def rule_arrays(ruleset: Ruleset) -> dict[str, Any]:
    """The arguments of :class:`_core.Rules` for ``ruleset`` (what :func:`core_rules`
    hands the core; Rust's own tests read two presets of them from a fixture)."""
    t = tables()
    table = ruleset.royalties
    fantasy = ruleset.fantasy
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
    return dict(
        royalty_top=np.array([table.top_points(r) for r in t.rank3], dtype=np.int16),
        royalty_middle=np.array([table.five_points("middle", r) for r in t.rank5], np.int16),
        royalty_bottom=np.array([table.five_points("bottom", r) for r in t.rank5], np.int16),
        entry_cards=np.array([fantasy.entry_cards_for(r) or 0 for r in t.rank3], dtype=np.int8),
        repeat_top=top,
        repeat_middle=middle,
        repeat_bottom=bottom,
        repeat_all=repeat is not None and repeat.combine is Combine.ALL,
        repeat_cards=fantasy.repeat_cards or 0,
        pair_rows=pair_rows(ruleset),
        deck_size=ruleset.deck.size,
        max_seats=ruleset.max_seats,
        stack_cap=ruleset.stack_cap,
        max_loss=None if ruleset.max_loss is None else float(ruleset.max_loss),
    )


def pair_rows(ruleset: Ruleset) -> np.ndarray[tuple[int], np.dtype[np.int32]]:
    """Row points of a pair by code 54*a_fouled + 27*b_fouled + 9*(top+1) + 3*(middle+1)
    + (bottom+1), each row -1 lost, 0 tied, +1 won from side a (:func:`row_points`).

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> rows = pair_rows(get_ruleset("pineapple"))
    >>> int(rows[26]), int(rows[24]), int(rows[54 + 13])  # scoop 3+3; won 2 lost 1; a foul
    (6, 1, -6)
    """
    foul_win = row_points(ruleset, 3, 0, foul=True)
    out = np.zeros(108, dtype=np.int32)
    for code in range(108):
        fouls, signs = divmod(code, 27)
        a_fouled, b_fouled = divmod(fouls, 2)
        rows = [signs // 9 - 1, signs // 3 % 3 - 1, signs % 3 - 1]
        if a_fouled and b_fouled:
            out[code] = 0
        elif a_fouled or b_fouled:
            out[code] = -foul_win if a_fouled else foul_win
        else:
            out[code] = row_points(ruleset, rows.count(1), rows.count(-1), foul=False)
    return out
