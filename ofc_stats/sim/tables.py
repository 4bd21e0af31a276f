"""Many tables played by the core at once, and their hand records.

Each table seats players from the pool for a whole session.  The core plays
the hands (:mod:`ofc_stats.core.sim`), tables on threads: the button rotates
(and stays put after a Fantasyland hand unless the ruleset says it moves),
Fantasyland seats are set by the exact solver, the other seats' streets are
played by the core's bots, Fantasyland is granted by the core's scorer (the
engine's twin), and the room's reported points are the capped results.  Decks
and decisions draw from streams keyed by (seed, table, hand): the same seed
gives the same hands on any number of threads.  This module builds the records.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ofc_stats.core.sim import STYLE_FIELDS, play_session
from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.engine.fantasy_value import documented_stay_value
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, Placement, SeatRecord, builder

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
        """The fields the core reads, in ``ofc_stats.core.sim.STYLE_FIELDS`` order
        (read by name: ``dataclasses.astuple`` deep-copies every field; 300
        tables' seats took 5 ms that way, 0.9 CPU-us a hand of 6,000)."""
        return tuple(getattr(self, name) for name in STYLE_FIELDS)


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


class Played(NamedTuple):
    """One hand as played: its record, the truth entry of a room mistake it shows,
    and per seat the streets the room placed on a timeout (bit s: street s, which
    the open-format writer records) and whether its board fouled and earned a
    Fantasyland entry (the core's scores, for the summary)."""

    record: HandRecord
    truth: dict[str, object] | None
    timed_out: tuple[int, ...]
    outcome: tuple[tuple[bool, bool], ...]


# The records' constructors without a frozen dataclass's per-field __setattr__
# (about 5 of the 12 CPU-us a hand the records took).
_seat_record = builder(SeatRecord)
_hand_record = builder(HandRecord)

HANDS_A_CALL = 4096  # table-hands the core plays per call (hands stream out between calls)


def play_hands(
    spec: TableSpec,
    tables: list[list[Player]],
    hands: int,
    seed: int,
    first_hand: int = 0,
    fantasy_errors: float = 0.0,
) -> Iterator[Played]:
    """Play ``hands`` hands at each table; yield each :class:`Played`, hand by hand,
    each hand at every table in turn.

    The core plays the hands (:func:`ofc_stats.core.sim.play_session`); this builds
    the records.  With ``fantasy_errors`` the room, on that share of table-hands,
    gets the next hand's Fantasyland wrong for one seat (misses an earned one, or
    deals one not earned); the truth entry comes with the hand that shows it.
    """
    ruleset = spec.ruleset
    pending: dict[int, dict[str, object]] = {}
    t, s = len(tables), spec.seats
    block = _block(spec)
    ids = np.arange(t, dtype=np.int64)
    buttons = np.random.default_rng(seed).integers(0, s, size=t).astype(np.int64)
    fantasy_next = np.zeros((t, s), dtype=np.int8)
    placements = _placements()
    styles = np.array([[p.style.numbers() for p in players] for players in tables])
    names = [[p.name for p in players] for players in tables]
    stay_values = [
        documented_stay_value(ruleset, n) if 13 <= n <= block else 0.0 for n in range(block + 1)
    ]
    table_ids = [f"T{i:04d}" for i in range(t)]
    step = max(1, HANDS_A_CALL // t)
    stakes, stack, room, ruleset_name = spec.stakes, spec.stack, spec.room, ruleset.name
    hand = first_hand
    while hand < first_hand + hands:
        count = min(step, first_hand + hands - hand)
        part = play_session(
            ruleset,
            styles,
            buttons,
            fantasy_next,
            tables=ids,
            block=block,
            rollouts=spec.rollouts,
            timeout_rate=spec.timeout_rate,
            seed=seed,
            first_hand=hand,
            hands=count,
            stay_values=stay_values,
            stack=spec.stack,
            fantasy_errors=fantasy_errors,
            placements=placements,
            threads=spec.threads,
        )
        buttons, fantasy_next = part.buttons, part.fantasy_next
        records = iter(part.records)
        in_fantasy_of = part.fantasy_cards > 0
        for k in range(count):
            played_at = START + timedelta(seconds=90 * (hand + k))
            hand_id = str(hand + k)
            # One hand's columns as lists at a time: the whole part's nested lists
            # lived long enough to push the garbage collector into full collections.
            orders, flags = part.order[k].tolist(), in_fantasy_of[k].tolist()
            nets, timed = part.net[k].tolist(), part.timed_out[k].tolist()
            fouled, entered = part.fouled[k].tolist(), part.qualifies[k].tolist()
            error_seats, earned_of = part.error_seat[k].tolist(), part.error_earned[k].tolist()
            for i in range(t):
                rows, moves = next(records)
                net, order, in_fantasy = nets[i], orders[i], flags[i]
                seats = tuple(
                    _seat_record(
                        seat=seat,
                        player=names[i][order[seat]],
                        top=top,
                        middle=middle,
                        bottom=bottom,
                        discards=thrown,
                        in_fantasy=in_fantasy[seat],
                        reported_points=net[seat],
                        reported_money=round(net[seat] * stakes, 2),
                        stack=stack,
                    )
                    for seat, (top, middle, bottom, thrown) in enumerate(rows)
                )
                record = _hand_record(
                    format="open",
                    room=room,
                    table_id=table_ids[i],
                    room_hand_id=hand_id,
                    ruleset=ruleset_name,
                    seats=seats,
                    placements=moves,
                    played_at=played_at,
                    stakes=stakes,
                    currency="PTS",
                )
                truth = pending.pop(i, None)
                if truth is not None:
                    truth["hand_key"] = record.hand_key
                yield Played(
                    record,
                    truth,
                    tuple(timed[i]),
                    tuple(zip(fouled[i], entered[i], strict=True)),
                )
                if error_seats[i] >= 0:
                    pending[i] = _fantasy_truth(
                        names[i][order[error_seats[i]]],
                        earned_of[i],
                    )
        hand += count


def _fantasy_truth(player: str, earned: int) -> dict[str, object]:
    """The truth entry of the room's Fantasyland mistake for ``player``."""
    return {
        "kind": "missed_fantasy" if earned else "extra_fantasy",
        "player": player,
        "detail": (
            f"earned {earned} cards of Fantasyland in the previous hand; not dealt"
            if earned
            else "dealt Fantasyland without earning it in the previous hand"
        ),
    }


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
