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
    "classify_five",
    "classify_three",
    "rank_tables",
    "repeated_cards",
    "score_batch",
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

# --- batch scoring (rust/ofc-py/src/score.rs) ---------------------------------

def score_batch(
    rules: Rules,
    boards: npt.NDArray[np.int8],
    *,
    seated: npt.NDArray[np.bool_] | None = None,
    in_fantasy: npt.NDArray[np.bool_] | None = None,
    fantasy_cards: npt.NDArray[np.int8] | None = None,
    stacks: npt.NDArray[np.float64] | None = None,
    forced_fouls: npt.NDArray[np.bool_] | None = None,
) -> dict[str, npt.NDArray[Any]]: ...
def repeated_cards(
    boards: npt.NDArray[np.int8], seated: npt.NDArray[np.bool_] | None = None
) -> npt.NDArray[np.bool_]: ...
