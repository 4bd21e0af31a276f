"""Playing many tables in lockstep: every table plays the same hand together.

Each table seats players from the pool for a whole session; the button
rotates (and stays put after a Fantasyland hand unless the ruleset says it
moves), Fantasyland seats are set by the exact solver, the other seats'
streets are played by the core's bots on threads (:mod:`ofc_stats.core.sim`),
Fantasyland is granted by the engine's own results, and the room's reported
points are the engine's capped results.  Decks and decisions draw from
streams keyed by (seed, table, hand): the same seed gives the same hands on
any number of threads.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import astuple, dataclass
from datetime import datetime, timedelta
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ofc_stats.core.fantasy import solve_fantasy_batch
from ofc_stats.core.scoring import score_batch
from ofc_stats.core.sim import deal, play_streets
from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.engine.fantasy_value import documented_stay_value
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, Placement, SeatRecord

START = datetime(2026, 1, 1, 12, 0, 0)


@dataclass(frozen=True)
class Style:
    """How a bot values a completed board."""

    name: str
    foul_penalty: float  # points a foul costs it, in its mind
    fantasy_bonus: float  # points an entry into Fantasyland is worth to it
    noise: float  # random spread added to each candidate's value (weak play)
    strength_weight: float = 2.0  # value of strong middle and bottom rows (winning rows)
    top_chase: float = 0.0  # value of each queen or better already on the top row

    def numbers(self) -> tuple[float, ...]:
        """The fields the core reads, in ``ofc_stats.core.sim.STYLE_FIELDS`` order."""
        return astuple(self)[1:]


@dataclass(frozen=True)
class Player:
    name: str
    style: Style


@dataclass(frozen=True)
class TableSpec:
    """Options of a simulated session."""

    ruleset: Ruleset
    seats: int
    rollouts: int = 5
    timeout_rate: float = 0.0
    stack: float | None = None  # points each player brings to every hand (caps)
    stakes: float = 1.0
    room: str = "ofc-stats-sim"
    threads: int = 1  # the core's threads; the hands do not depend on it


def _block(spec: TableSpec) -> int:
    """Cards reserved for each seat: its whole hand, discards and Fantasyland included."""
    streets = spec.ruleset.variant.streets
    normal = sum(dealt for dealt, _ in streets)
    most_fantasy = max(spec.ruleset.fantasy.entry_cards.values(), default=13)
    most_fantasy = max(most_fantasy, spec.ruleset.fantasy.repeat_cards or 0)
    block = max(normal, most_fantasy)
    if block * spec.seats > spec.ruleset.deck.size:
        raise OfcError(
            f"{spec.seats} seats need {block * spec.seats} cards; "
            f"the deck has {spec.ruleset.deck.size}"
        )
    return block


def play_hands(
    spec: TableSpec,
    tables: list[list[Player]],
    hands: int,
    seed: int,
    first_hand: int = 0,
    fantasy_errors: float = 0.0,
    error_rng: np.random.Generator | None = None,
) -> Iterator[tuple[HandRecord, dict[str, object] | None, tuple[int, ...]]]:
    """Play ``hands`` hands at each table in lockstep; yield each record, its truth, and
    per seat the streets the room placed on a timeout (bit s: street s), which the
    open-format writer records.

    With ``fantasy_errors`` the room, on that share of table-hands, gets the
    next hand's Fantasyland wrong for one seat (misses an earned one, or deals
    one not earned); the truth entry comes with the hand that shows it.
    """
    ruleset = spec.ruleset
    errors = error_rng or np.random.default_rng(0)
    pending: dict[int, dict[str, object]] = {}
    t, s = len(tables), spec.seats
    block = _block(spec)
    ids = np.arange(t, dtype=np.int64)
    button = np.random.default_rng(seed).integers(0, s, size=t)
    fantasy_next = np.zeros((t, s), dtype=np.int8)  # by table position: cards of a granted FL
    placements = _placements()
    style_numbers = np.array([[p.style.numbers() for p in players] for players in tables])
    for hand in range(first_hand, first_hand + hands):
        # order[t, a]: table position of the seat acting a-th (0 = left of the button).
        order = (button[:, None] + 1 + np.arange(s)[None, :]) % s
        in_fantasy = np.take_along_axis(fantasy_next, order, axis=1) > 0
        fantasy_cards = np.take_along_axis(fantasy_next, order, axis=1)
        blocks = deal(seed, hand, ids, ruleset.deck.size, s, block)
        boards = np.full((t, s, 13), -1, dtype=np.int8)
        _set_fantasies(ruleset, blocks, in_fantasy, fantasy_cards, boards)
        played = play_streets(
            ruleset,
            blocks,
            boards,
            in_fantasy,
            fantasy_cards,
            np.take_along_axis(style_numbers, order[:, :, None], axis=1),
            rollouts=spec.rollouts,
            timeout_rate=spec.timeout_rate,
            seed=seed,
            hand=hand,
            tables=ids,
            placements=placements,
            threads=spec.threads,
        )
        result = score_batch(
            played.boards,
            ruleset,
            in_fantasy=in_fantasy,
            fantasy_cards=fantasy_cards,
            stacks=None if spec.stack is None else np.full((t, s), spec.stack),
            check=False,
        )
        net_of = result.net_capped.tolist()
        order_of = order.tolist()
        fantasy_of = in_fantasy.tolist()
        timed_of = played.timed_out.tolist()
        played_at = START + timedelta(seconds=90 * hand)
        for i, (rows, moves) in enumerate(played.records):
            nets, names, flags = net_of[i], order_of[i], fantasy_of[i]
            seats = tuple(
                SeatRecord(
                    seat=seat,
                    player=tables[i][names[seat]].name,
                    top=top,
                    middle=middle,
                    bottom=bottom,
                    discards=thrown,
                    in_fantasy=flags[seat],
                    reported_points=nets[seat],
                    reported_money=round(nets[seat] * spec.stakes, 2),
                    stack=spec.stack,
                )
                for seat, (top, middle, bottom, thrown) in enumerate(rows)
            )
            record = HandRecord(
                format="open",
                room=spec.room,
                table_id=f"T{i:04d}",
                room_hand_id=str(hand),
                ruleset=ruleset.name,
                seats=seats,
                placements=moves,
                played_at=played_at,
                stakes=spec.stakes,
                currency="PTS",
            )
            truth = pending.pop(i, None)
            if truth is not None:
                truth["hand_key"] = record.hand_key
            yield record, truth, tuple(timed_of[i])
        granted = np.where(result.fantasy_stays, result.repeat_cards, result.fantasy_cards)
        if fantasy_errors:
            granted = granted.astype(np.int8)
            for wrong in np.flatnonzero(errors.random(t) < fantasy_errors).tolist():
                seat = int(errors.integers(0, s))
                earned = int(granted[wrong, seat])
                granted[wrong, seat] = 0 if earned else int(ruleset.variant.standard_fantasy_cards)
                pending[wrong] = {
                    "kind": "missed_fantasy" if earned else "extra_fantasy",
                    "player": tables[wrong][int(order[wrong, seat])].name,
                    "detail": (
                        f"earned {earned} cards of Fantasyland in the previous hand; not dealt"
                        if earned
                        else "dealt Fantasyland without earning it in the previous hand"
                    ),
                }
        next_by_position = np.zeros_like(fantasy_next)
        np.put_along_axis(next_by_position, order, granted.astype(np.int8), axis=1)
        fantasy_next = next_by_position
        moves_button = ruleset.button_moves_on_fantasy | ~in_fantasy.any(axis=1)
        button = (button + moves_button) % s


@lru_cache(maxsize=1)
def _placements() -> list[Placement]:
    """Every placement a record can hold, at index ``seat << 12 | street << 8 | card << 2 |
    destination`` (``ofc_core::sim::placement_key``): records share these values."""
    return [
        Placement(seat, street, card, DESTINATIONS[to])
        for seat in range(4)
        for street in range(16)
        for card in range(64)
        for to in range(4)
    ]


def _set_fantasies(
    ruleset: Ruleset,
    blocks: npt.NDArray[np.int8],
    in_fantasy: npt.NDArray[np.bool_],
    fantasy_cards: npt.NDArray[np.int8],
    boards: npt.NDArray[np.int8],
) -> None:
    """Fantasyland seats set their exact best (a repeat valued at the published figure)."""
    for count in np.unique(fantasy_cards[in_fantasy]):
        tables_here, seats_here = np.nonzero(in_fantasy & (fantasy_cards == count))
        cards = blocks[tables_here, seats_here, :count]
        stay = documented_stay_value(ruleset, int(count))
        set_boards, _, _ = solve_fantasy_batch(cards, ruleset, stay)
        boards[tables_here, seats_here] = set_boards
