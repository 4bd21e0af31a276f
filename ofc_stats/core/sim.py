"""The simulator's sessions, played by the core on threads.

The core plays every table's hands in order (``rust/ofc-core/src/sim.rs``):
it deals, sets Fantasyland seats with the exact solver, plays the normal
seats' streets (the bots of ``rust/ofc-core/src/lookahead.rs`` value each
candidate placement by Monte Carlo completions under their style; a timed out
street is placed by the auto-placement rule, ``engine/timeout.py``), scores
the hand, grants the next Fantasyland and moves the button.  Every deck and
decision draws from a stream keyed by (seed, table, hand, ...), so a session's
hands depend on the seed alone, never on the thread count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.rules import Ruleset

STYLE_FIELDS = ("foul_penalty", "fantasy_bonus", "noise", "strength_weight", "top_chase")


@dataclass(frozen=True)
class SessionPart:
    """Hands ``first..first + H`` of every table, as the core played them.

    Columns are (H, T, S), seats in order of action; ``records[j]``, hand-major
    (j = hand * T + table), is each seat's (top, middle, bottom, discards) and every
    seat's placements seat by seat in the order dealt, as values of ``placements``.
    It builds each as it is read: built all at once, tens of thousands of live tuples
    aged through the garbage collector's generations and its full collections
    cost about 13 CPU-us a hand.  ``lines``, when asked for, are the table-hands'
    open-format lines, hand-major, that the core wrote.
    """

    order: npt.NDArray[np.int8]  # table position of the seat acting a-th
    fantasy_cards: npt.NDArray[np.int8]  # cards of the seat's Fantasyland (0: normal hand)
    timed_out: npt.NDArray[np.int16]  # bit s: street s placed by the room
    net: npt.NDArray[np.float64]  # the room's result, capped
    fouled: npt.NDArray[np.bool_]
    qualifies: npt.NDArray[np.bool_]  # the board earns a Fantasyland entry
    error_seat: npt.NDArray[np.int8]  # (H, T): seat whose next Fantasyland the room got wrong
    error_earned: npt.NDArray[np.int8]  # (H, T): the cards that seat had earned
    records: _core.SessionRecords  # each hand's parts, built as they are read
    buttons: npt.NDArray[np.int64]  # (T,) after the last hand
    fantasy_next: npt.NDArray[np.int8]  # (T, S) by table position, after the last hand
    lines: Lines | None


@dataclass(frozen=True)
class Lines:
    """Open-format lines as the core wrote them: one UTF-8 text of every line (each
    with its newline), and the offset in it where each line ends.  Bytes, since
    they go to the file as they are: as ``str`` they were decoded and encoded again."""

    text: bytes
    ends: npt.NDArray[np.int64]

    def between(self, first: int, stop: int) -> memoryview:
        """Lines ``first..stop`` (not ``stop``), as they go to the file."""
        start = int(self.ends[first - 1]) if first else 0
        end = int(self.ends[stop - 1]) if stop else 0
        return memoryview(self.text)[start:end]


@dataclass(frozen=True)
class LineNames:
    """What the core needs to write each hand's open-format line: what every line
    shares, hand ``n``'s ``played_at`` (``start`` + ``n`` * ``step`` seconds since
    1970), and each table's id and players' names by table position."""

    room: str
    ruleset: str
    stakes: float
    currency: str
    start: int
    step: int
    table_ids: list[str]
    names: list[list[str]]

    def fields(self) -> tuple[str, str, float, str, int, int, list[str], list[list[str]]]:
        """The fields in order, as the core takes them (``dataclasses.astuple`` would
        deep-copy every table's names)."""
        return (
            self.room, self.ruleset, self.stakes, self.currency, self.start, self.step,
            self.table_ids, self.names,
        )  # fmt: skip


def play_session(
    ruleset: Ruleset,
    styles: npt.NDArray[np.float64],
    buttons: npt.NDArray[np.int64],
    fantasy_next: npt.NDArray[np.int8],
    *,
    tables: npt.NDArray[np.int64],
    block: int,
    rollouts: int,
    timeout_rate: float,
    seed: int,
    first_hand: int,
    hands: int,
    stay_values: list[float],
    stack: float | None,
    fantasy_errors: float,
    placements: list[Any],
    threads: int = 1,
    lines: LineNames | None = None,
) -> SessionPart:
    """Play ``hands`` hands from ``first_hand`` at every table.

    ``styles`` (T, S, 5) holds each table position's :data:`STYLE_FIELDS`;
    ``buttons`` and ``fantasy_next`` (cards of each position's granted
    Fantasyland) are where the tables stand; ``stay_values[n]`` values a repeat
    for the solver of an n-card Fantasyland; ``placements`` holds every
    placement value a record can share, indexed by
    ``seat << 12 | street << 8 | card << 2 | destination`` (0 top .. 3 discard).
    With ``lines`` the core also writes every table-hand's open-format line.
    """
    columns, records, next_buttons, next_fantasy, encoded = _core.sim_session(
        core_rules(ruleset),
        np.ascontiguousarray(styles, dtype=np.float64),
        np.ascontiguousarray(buttons, dtype=np.int64),
        np.ascontiguousarray(fantasy_next, dtype=np.int8),
        tables=np.ascontiguousarray(tables, dtype=np.int64),
        streets=list(ruleset.variant.streets),
        block=block,
        rollouts=rollouts,
        timeout_rate=timeout_rate,
        seed=seed,
        first_hand=first_hand,
        hands=hands,
        stay_values=stay_values,
        stack=stack,
        button_moves_on_fantasy=ruleset.button_moves_on_fantasy,
        fantasy_errors=fantasy_errors,
        standard_fantasy_cards=int(ruleset.variant.standard_fantasy_cards),
        threads=threads,
        placements=placements,
        lines=None if lines is None else lines.fields(),
    )
    return SessionPart(
        **columns,
        records=records,
        buttons=next_buttons,
        fantasy_next=next_fantasy,
        lines=None if encoded is None else Lines(*encoded),
    )
