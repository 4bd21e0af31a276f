"""The simulator's dealing and streets, played by the core on threads.

Every table's deck is shuffled by a random stream keyed by (seed, table,
hand), and every decision's by (seed, table, hand, street, seat), so a
session's hands depend on the seed alone, never on the thread count.  The
bots (``rust/ofc-core/src/lookahead.rs``) value each candidate placement of
a street by Monte Carlo completions of the board under their style; a timed
out street is placed by the auto-placement rule (``engine/timeout.py``).
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


SeatRows = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Streets:
    """What the core played: finished boards, timeouts, and each table's record parts."""

    boards: npt.NDArray[np.int8]  # (T, S, 13)
    timed_out: npt.NDArray[np.int16]  # (T, S): bit s set where street s was timed out
    # Per table: each seat's (top, middle, bottom, discards), and every seat's
    # placements seat by seat in the order dealt, as values of ``placements``.
    records: list[tuple[tuple[SeatRows, ...], tuple[Any, ...]]]


def deal(
    seed: int, hand: int, tables: npt.NDArray[np.int64], deck_size: int, seats: int, block: int
) -> npt.NDArray[np.int8]:
    """(T, S, block) cards: seat s of table t gets ``block`` cards of its hand's deck.

    >>> cards = deal(1, 0, np.arange(2), 52, 3, 17)
    >>> cards.shape, len(set(cards[0].ravel().tolist()))
    ((2, 3, 17), 51)
    """
    return _core.sim_deal(
        seed=seed,
        hand=hand,
        tables=np.ascontiguousarray(tables, dtype=np.int64),
        deck_size=deck_size,
        seats=seats,
        block=block,
    )


def play_streets(
    ruleset: Ruleset,
    cards: npt.NDArray[np.int8],
    boards: npt.NDArray[np.int8],
    in_fantasy: npt.NDArray[np.bool_],
    fantasy_cards: npt.NDArray[np.int8],
    styles: npt.NDArray[np.float64],
    *,
    rollouts: int,
    timeout_rate: float,
    seed: int,
    hand: int,
    tables: npt.NDArray[np.int64],
    placements: list[Any],
    threads: int = 1,
) -> Streets:
    """Play the streets of every normal seat (Fantasyland seats' boards are already set,
    from their first ``fantasy_cards`` cards) and build each table's record parts.

    ``styles`` (T, S, 5) holds each seat's :data:`STYLE_FIELDS` in order of action;
    ``placements`` holds every placement value a record can share, indexed by
    ``seat << 12 | street << 8 | card << 2 | destination`` (0 top .. 3 discard).
    """
    played, timed, records = _core.sim_play(
        core_rules(ruleset),
        np.ascontiguousarray(cards, dtype=np.int8),
        np.ascontiguousarray(boards, dtype=np.int8),
        np.ascontiguousarray(in_fantasy, dtype=bool),
        np.ascontiguousarray(fantasy_cards, dtype=np.int8),
        np.ascontiguousarray(styles, dtype=np.float64),
        streets=list(ruleset.variant.streets),
        rollouts=rollouts,
        timeout_rate=timeout_rate,
        seed=seed,
        hand=hand,
        tables=np.ascontiguousarray(tables, dtype=np.int64),
        threads=threads,
        placements=placements,
    )
    return Streets(played, timed, records)
