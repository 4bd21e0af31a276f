"""A ruleset compiled to lookup arrays for the batch engine.

Each array entry is computed by calling the scalar rule functions
(:mod:`ofc_stats.engine.scoring`, :mod:`ofc_stats.engine.rules`) on the row class it stands
for, so the batch path applies exactly the rules the scalar path applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.rules import Combine, Ruleset
from ofc_stats.engine.scoring import row_points
from ofc_stats.engine.vector.rank_tables import tables


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
    # Row points of a pair by code 54*a_fouled + 27*b_fouled + 9*(top+1) + 3*(middle+1)
    # + (bottom+1), each row -1 lost, 0 tied, +1 won from side a.
    pair_rows: npt.NDArray[np.int32]  # (108,)


_COMPILED: dict[Ruleset, CompiledRules] = {}  # by ruleset, built on first use or installed
COMPILED_LIMIT = 64


def compile_rules(ruleset: Ruleset) -> CompiledRules:
    """The ruleset's arrays, compiled once per process (~30 ms) unless installed."""
    found = _COMPILED.get(ruleset)
    if found is None:
        if len(_COMPILED) >= COMPILED_LIMIT:
            _COMPILED.pop(next(iter(_COMPILED)))
        found = _COMPILED[ruleset] = _compile(ruleset)
    return found


def install_rules(ruleset: Ruleset, compiled: CompiledRules) -> None:
    """Use ``compiled`` for ``ruleset`` (e.g. :func:`rules_from_arrays` of a saved copy)."""
    _COMPILED[ruleset] = compiled


def rules_to_arrays(compiled: CompiledRules) -> dict[str, npt.NDArray[np.generic]]:
    """The compiled arrays and flags as plain arrays (absent repeat conditions left out)."""
    return {name: np.asarray(value) for name, value in vars(compiled).items() if value is not None}


def rules_from_arrays(arrays: Mapping[str, npt.NDArray[np.generic]]) -> CompiledRules:
    """:func:`rules_to_arrays` back (KeyError or ValueError when it is not that)."""
    values: dict[str, object] = {}
    for name, kind in COMPILED_FIELDS.items():
        if name not in arrays and name.startswith("repeat_") and kind is np.bool_:
            values[name] = None
            continue
        array = np.asarray(arrays[name])
        if array.dtype != kind:
            raise ValueError(f"{name}: {array.dtype}, not {np.dtype(kind)}")
        values[name] = array.item() if array.ndim == 0 else array
    return CompiledRules(**values)  # type: ignore[arg-type]


COMPILED_FIELDS: dict[str, type] = {
    "royalty_top": np.int16,
    "royalty_middle": np.int16,
    "royalty_bottom": np.int16,
    "entry_cards": np.int8,
    "repeat_top": np.bool_,
    "repeat_middle": np.bool_,
    "repeat_bottom": np.bool_,
    "repeat_all": np.bool_,
    "has_repeat": np.bool_,
    "repeat_cards": np.int64,
    "pair_rows": np.int32,
}


def _compile(ruleset: Ruleset) -> CompiledRules:
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
    foul_win = row_points(ruleset, 3, 0, foul=True)
    pair_rows = np.zeros(108, dtype=np.int32)
    for code in range(108):
        fouls, signs = divmod(code, 27)
        a_fouled, b_fouled = divmod(fouls, 2)
        rows = [signs // 9 - 1, signs // 3 % 3 - 1, signs % 3 - 1]
        if a_fouled and b_fouled:
            pair_rows[code] = 0
        elif a_fouled or b_fouled:
            pair_rows[code] = -foul_win if a_fouled else foul_win
        else:
            pair_rows[code] = row_points(ruleset, rows.count(1), rows.count(-1), foul=False)
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
        pair_rows=pair_rows,
    )
