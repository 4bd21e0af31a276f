"""Typed stub of ``ofc_stats._core``, the compiled core (``rust/ofc-py``).

Checked against the built module by ``mypy.stubtest`` in ``make test``.
Arrays are NumPy arrays; card ids are int8 (``-1`` an empty position).
"""

from collections.abc import Callable
from typing import Any, final

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = [
    "AppDecoder",
    "OpenDecoder",
    "Rules",
    "__version__",
    "classify_five",
    "classify_three",
    "rank_tables",
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

# --- import decoders (rust/ofc-py/src/decode.rs) ------------------------------
# resolve: rule text -> (preset name, max seats, deck size), or None (refused).
# decode() gives the block's columns as NumPy arrays (names as in store/schema.py,
# strings as "<name>.offsets"/".data"/".valid"), "units" (n, 4) int64 rows
# (kind 0 hands start..stop | kind 1 bytes start..stop from line), "span_*",
# "presets", "consumed" and "consumed_lines" (ofc_stats.core.decode reads it).

@final
class AppDecoder:
    def __new__(cls, resolve: Callable[[str], tuple[str, int, int] | None]) -> AppDecoder: ...
    def decode(
        self, data: bytes, first_line: int, first_offset: int, file_start: bool, last: bool
    ) -> dict[str, Any]: ...

@final
class OpenDecoder:
    def __new__(cls, resolve: Callable[[str], tuple[str, int, int] | None]) -> OpenDecoder: ...
    def decode(
        self, data: bytes, first_line: int, first_offset: int, file_start: bool, last: bool
    ) -> dict[str, Any]: ...
