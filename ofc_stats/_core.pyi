"""Typed stub of ``ofc_stats._core``, the compiled core (``rust/ofc-py``).

Checked against the built module by ``mypy.stubtest`` in ``make test``.
Arrays are NumPy arrays; card ids are int8 (``-1`` an empty position).
"""

from typing import Any, final

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = [
    "Rules",
    "__version__",
    "check_fantasy_deal",
    "classify_five",
    "classify_three",
    "rank_tables",
    "solve_fantasy",
    "solve_fantasy_batch",
]

# --- row classes (rust/ofc-py/src/tables.rs) ---------------------------------

def rank_tables() -> dict[str, npt.NDArray[Any]]: ...
def classify_five(cards: npt.NDArray[np.int8]) -> npt.NDArray[np.int16]: ...
def classify_three(cards: npt.NDArray[np.int8]) -> npt.NDArray[np.int16]: ...

# --- rulesets (rust/ofc-py/src/rules.rs) --------------------------------------

@final
class Rules:
    def __new__(
        cls,
        *,
        royalty_top: npt.NDArray[np.int16],
        royalty_middle: npt.NDArray[np.int16],
        royalty_bottom: npt.NDArray[np.int16],
        entry_cards: npt.NDArray[np.int8],
        repeat_top: npt.NDArray[np.bool_] | None,
        repeat_middle: npt.NDArray[np.bool_] | None,
        repeat_bottom: npt.NDArray[np.bool_] | None,
        repeat_all: bool,
        repeat_cards: int,
        pair_rows: npt.NDArray[np.int32],
        deck_size: int,
        max_seats: int,
        stack_cap: bool,
        max_loss: float | None,
    ) -> Rules: ...
    @property
    def deck_size(self) -> int: ...

# --- the exact Fantasyland set (rust/ofc-py/src/fantasy.rs) -------------------

def check_fantasy_deal(cards: list[int], rules: Rules) -> list[int]: ...
def solve_fantasy(
    cards: list[int], rules: Rules, stay_value: float
) -> tuple[list[int], list[int], list[int], list[int], int, bool, float]: ...
def solve_fantasy_batch(
    deals: npt.NDArray[np.int8], rules: Rules, stay_value: float
) -> tuple[
    npt.NDArray[np.int8],
    npt.NDArray[np.int8],
    npt.NDArray[np.int32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float64],
]: ...
