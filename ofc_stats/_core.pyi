"""Typed stub of ``ofc_stats._core``, the compiled core (``rust/ofc-py``).

Checked against the built module by ``mypy.stubtest`` in ``make test``.
Arrays are NumPy arrays; card ids are int8 (``-1`` an empty position).
"""

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, final

import numpy as np
import numpy.typing as npt

from ofc_stats.errors import UnplayablePosition

__version__: str
__all__ = [
    "VALUE_FEATURES",
    "AppDecoder",
    "FpdbDecoder",
    "OpenDecoder",
    "Rules",
    "SessionRecords",
    "StreetGrade",
    "SwcDecoder",
    "ValueFunction",
    "__version__",
    "check_fantasy_deal",
    "classify_five",
    "classify_three",
    "count_lines",
    "fantasy_chain_hands",
    "foul_unavoidable_after",
    "grade_street_decisions",
    "offered_candidates",
    "policy_plays",
    "rank_tables",
    "rollout_values",
    "score_batch",
    "score_lines",
    "sim_session",
    "solve_fantasy",
    "solve_fantasy_batch",
    "timeout_mask",
    "train_value",
]

# --- row classes (rust/ofc-py/src/tables.rs) ---------------------------------

def rank_tables() -> dict[str, npt.NDArray[Any]]: ...
def classify_five(cards: npt.NDArray[np.int8]) -> npt.NDArray[np.int16]: ...
def classify_three(cards: npt.NDArray[np.int8]) -> npt.NDArray[np.int16]: ...

# --- when a foul became unavoidable (rust/ofc-py/src/certain.rs) -------------

def foul_unavoidable_after(
    cards: npt.NDArray[np.int16], streets: npt.NDArray[np.int16], discards: npt.NDArray[np.int16]
) -> npt.NDArray[np.int16]: ...

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

# --- the grader's races (rust/ofc-py/src/grade.rs) ----------------------------

# (key, street, seat in order of action, board (13, -1 empty), dealt, discards, dead,
#  opponents as (seat, board, next street, Fantasyland cards), chosen destinations)
_Decision: TypeAlias = tuple[
    list[int],
    int,
    int,
    Sequence[int],
    Sequence[int],
    int,
    Sequence[int],
    list[tuple[int, Sequence[int], int, int]],
    Sequence[int],
]

@final
class StreetGrade:
    @property
    def candidates(self) -> npt.NDArray[np.int64]: ...
    @property
    def destinations(self) -> npt.NDArray[np.int8]: ...
    @property
    def ev(self) -> npt.NDArray[np.float64]: ...
    @property
    def se(self) -> npt.NDArray[np.float64]: ...
    @property
    def rollouts(self) -> npt.NDArray[np.int32]: ...
    @property
    def gap(self) -> npt.NDArray[np.float64]: ...
    @property
    def gap_se(self) -> npt.NDArray[np.float64]: ...
    @property
    def within_noise(self) -> npt.NDArray[np.bool_]: ...
    @property
    def chosen(self) -> int: ...
    @property
    def best(self) -> int: ...
    @property
    def loss(self) -> float: ...
    @property
    def loss_se(self) -> float: ...
    @property
    def loss_se_independent(self) -> float: ...
    @property
    def plays(self) -> list[str]: ...
    @property
    def parts(self) -> tuple[float, float, float, float]: ...

def grade_street_decisions(
    rules: Rules,
    streets: list[tuple[int, int]],
    fantasy_values: npt.NDArray[np.float64],
    decisions: list[_Decision],
    budget: int,
    threads: int | None = None,
    value: ValueFunction | None = None,
    tie: float | None = None,
    extra: int | None = None,
    stick: bool = True,
    search: tuple[int, int, int, int] | None = None,
    search_next_only: bool = False,
    screen: tuple[int, int, int, int] | None = None,
    recall: bool = True,
    settle: bool = True,
) -> list[StreetGrade | UnplayablePosition]: ...
def policy_plays(
    rules: Rules,
    streets: list[tuple[int, int]],
    fantasy_values: npt.NDArray[np.float64],
    decisions: list[_Decision],
    dreams: int | None = None,
    threads: int | None = None,
    ahead: int | None = None,
    value: ValueFunction | None = None,
    search: tuple[int, int, int, int] | None = None,
    deep: tuple[int, int, int, int] | None = None,
) -> list[tuple[int, ...] | UnplayablePosition]: ...
def rollout_values(
    rules: Rules,
    streets: list[tuple[int, int]],
    fantasy_values: npt.NDArray[np.float64],
    decision: _Decision,
    rows: list[int],
    rollouts: int,
    phase: int = 0,
    first: int = 0,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

# --- the learned board value (rust/ofc-py/src/value.rs) ----------------------

@final
class ValueFunction:
    def __new__(cls, text: str) -> ValueFunction: ...
    def to_json(self) -> str: ...
    @property
    def placed(self) -> list[int]: ...

def train_value(
    rules: Rules,
    streets: list[tuple[int, int]],
    fantasy_values: list[float],
    *,
    seed: int,
    seats: int,
    first_hands: int,
    hands: int,
    rounds: int,
    explore: float = 0.5,
    ridge: float = 1.0,
    keep: bool = False,
    lookahead: int = 0,
    target_deals: int = 0,
    lambda_: float = 1.0,
    lambda_fantasy: float | None = None,
    threads: int | None = None,
) -> ValueFunction: ...

# --- self-play hands for the Fantasyland chain (rust/ofc-py/src/fantasy_chain.rs) -

def fantasy_chain_hands(
    rules: Rules,
    streets: list[tuple[int, int]],
    fantasy_values: list[float],
    *,
    seats: int,
    fantasy: int,
    hands: int,
    seed: int,
    first: int = 0,
    value: ValueFunction | None = None,
    threads: int | None = None,
) -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]
]: ...

# --- the simulator (rust/ofc-py/src/sim.rs) -----------------------------------

def sim_session(
    rules: Rules,
    styles: npt.NDArray[np.float64],
    buttons: npt.NDArray[np.int64],
    fantasy_next: npt.NDArray[np.int8],
    *,
    tables: npt.NDArray[np.int64],
    streets: list[tuple[int, int]],
    block: int,
    rollouts: int,
    timeout_rate: float,
    seed: int,
    first_hand: int,
    hands: int,
    stay_values: list[float],
    stack: float | None,
    button_moves_on_fantasy: bool,
    fantasy_errors: float,
    standard_fantasy_cards: int,
    threads: int,
    placements: list[Any],
    lines: tuple[str, str, float, str, int, int, list[str], list[list[str]]] | None = None,
) -> tuple[
    dict[str, npt.NDArray[Any]],
    SessionRecords,
    npt.NDArray[np.int64],
    npt.NDArray[np.int8],
    tuple[bytes, npt.NDArray[np.int64]] | None,
]: ...

@final
class SessionRecords:
    """A session part's record parts, hand-major, each built when read."""

    def __getitem__(self, key: int, /) -> tuple[tuple[Any, ...], tuple[Any, ...]]: ...
    def __len__(self) -> int: ...

# --- import decoders (rust/ofc-py/src/decode.rs) ------------------------------
# resolve: rule text -> (preset name, max seats, deck size), or None (refused).
# decode() gives the block's columns as NumPy arrays (names as in store/schema.py,
# strings as "<name>.offsets"/".data"/".valid"), "units" (n, 4) int64 rows
# (kind 0 hands start..stop | kind 1 bytes start..stop from line), "span_*",
# "presets", "consumed" and "consumed_lines" (ofc_stats.core.decode reads it).

def count_lines(data: bytes) -> int: ...

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

@final
class FpdbDecoder:
    def __new__(cls, resolve: Callable[[str], tuple[str, int, int] | None]) -> FpdbDecoder: ...
    def decode(self, rows: list[tuple[int | None, str | None, str, Any]]) -> dict[str, Any]: ...

@final
class SwcDecoder:
    def __new__(cls, resolve: Callable[[str], tuple[str, int, int] | None]) -> SwcDecoder: ...
    def decode(
        self, head: bytes, reads: list[bytes], end: int, first_line: int, last: bool
    ) -> dict[str, Any]: ...

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
def score_lines(rules: Rules, lines: list[str]) -> list[str | None]: ...
def timeout_mask(
    streets: npt.NDArray[np.int8], in_fantasy: npt.NDArray[np.bool_], *, placed: list[int]
) -> npt.NDArray[np.int16]: ...

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

# --- real decisions' candidates as the board value sees them (rust/ofc-py/src/imitate.rs)

VALUE_FEATURES: int  # the board value's features (ofc_core::value::DIM)

def offered_candidates(
    rules: Rules,
    streets: list[tuple[int, int]],
    fantasy_values: npt.NDArray[np.float64],
    decisions: list[_Decision],
    value: ValueFunction,
    threads: int | None = None,
) -> list[
    tuple[
        int,
        int,
        npt.NDArray[np.float64],
        npt.NDArray[np.int32],
        npt.NDArray[np.float32],
    ]
    | UnplayablePosition
]: ...
