"""A ruleset as the core reads it: per-class arrays computed by the definitions.

Each array entry comes from calling the scalar rule functions
(:mod:`ofc_stats.engine.rules`, :mod:`ofc_stats.engine.scoring`) on the row
class it stands for, so the core applies exactly the rules the scalar path
applies and a ruleset's many options keep one definition (the core never
re-implements them).  Built once per ruleset per process.
"""

from __future__ import annotations

from functools import lru_cache

from ofc_stats import _core
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.vector.rule_arrays import compile_rules


@lru_cache(maxsize=64)
def core_rules(ruleset: Ruleset) -> _core.Rules:
    """The ruleset's arrays and options, held by the core.

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> core_rules(get_ruleset("joker-pineapple")).deck_size
    54
    """
    arrays = compile_rules(ruleset)
    return _core.Rules(
        royalty_top=arrays.royalty_top,
        royalty_middle=arrays.royalty_middle,
        royalty_bottom=arrays.royalty_bottom,
        entry_cards=arrays.entry_cards,
        repeat_top=arrays.repeat_top,
        repeat_middle=arrays.repeat_middle,
        repeat_bottom=arrays.repeat_bottom,
        repeat_all=bool(arrays.repeat_all),
        repeat_cards=int(arrays.repeat_cards),
        pair_rows=arrays.pair_rows,
        deck_size=ruleset.deck.size,
        max_seats=ruleset.max_seats,
        stack_cap=ruleset.stack_cap,
        max_loss=None if ruleset.max_loss is None else float(ruleset.max_loss),
    )
