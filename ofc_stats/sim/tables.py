"""Many tables played by the core at once, and their hand records.

Each table seats players from the pool for a whole session.  The core plays
the hands (:mod:`ofc_stats.core.sim`), tables on threads: the button rotates
(and stays put after a Fantasyland hand unless the ruleset says it moves),
Fantasyland seats are set by the exact solver, the other seats' streets are
played by the core's bots, Fantasyland is granted by the core's scorer (the
engine's twin), and the room's reported points are the capped results.  Decks
and decisions draw from streams keyed by (seed, table, hand): the same seed
gives the same hands on any number of threads.  The core writes each hand's
open-format line when asked; this module builds the records of the hands
that need one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ofc_stats.core.sim import STYLE_FIELDS, LineNames, SessionPart, play_session
from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.engine.fantasy_value import documented_stay_value
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, Placement, SeatRecord, builder

START = datetime(2026, 1, 1, 12, 0, 0)
EPOCH = datetime(1970, 1, 1)


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
    run: str = ""  # the session's name: its tables are <run>-T0000, ... ("": T0000, ...)


def table_id(run: str, table: int) -> str:
    """Table ``table``'s id in session ``run``: two sessions with other names never share
    one, so their hands' keys do not repeat in one dataset."""
    return f"{run}-T{table:04d}" if run else f"T{table:04d}"


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
    the open-format writer records)."""

    record: HandRecord
    truth: dict[str, object] | None
    timed_out: tuple[int, ...]


# The records' constructors without a frozen dataclass's per-field __setattr__
# (about 5 of the 12 CPU-us a hand the records took).
_seat_record = builder(SeatRecord)
_hand_record = builder(HandRecord)

HANDS_A_CALL = 4096  # table-hands the core plays per call (hands stream out between calls)
HAND_SECONDS = 90  # between a table's hands (``played_at``)


class PartPlayed:
    """Hands ``first..first + count`` of every table as the core played them,
    hand-major (index ``j = k * tables + i``: hand ``first + k`` of table ``i``).

    ``lines`` holds the hands' open-format lines as the core wrote them (when asked
    for); :meth:`record` builds the hand's record only for a hand that needs one
    (one Python needs to change, or an output the core does not write).
    ``truths[j]`` is the truth entry of the room's Fantasyland mistake that hand ``j``
    shows.
    """

    def __init__(
        self,
        spec: TableSpec,
        tables: list[list[Player]],
        names: LineNames,
        part: SessionPart,
        first: int,
        truths: dict[int, dict[str, object]],
    ) -> None:
        self.spec, self.tables, self.names, self.part = spec, tables, names, part
        self.first, self.truths = first, truths
        self.lines = part.lines
        self._tables, self._records = len(tables), part.records
        self._k = -1
        self._last: tuple[int, HandRecord] | None = None

    def __len__(self) -> int:
        return len(self.part.records)

    def _columns(self, k: int) -> None:
        """Hand ``k``'s columns as lists, for the records of its tables.

        One hand's at a time: the whole part's nested lists lived long enough to
        push the garbage collector into full collections."""
        part = self.part
        self._k = k
        self._orders, self._flags = part.order[k].tolist(), (part.fantasy_cards[k] > 0).tolist()
        self._nets, self._timed = part.net[k].tolist(), part.timed_out[k].tolist()
        self._hand_id = str(self.first + k)
        self._played_at = START + timedelta(seconds=HAND_SECONDS * (self.first + k))

    def record(self, j: int) -> HandRecord:
        """Hand ``j``'s record (the last one built is kept: the room's changes read it
        twice)."""
        if self._last is not None and self._last[0] == j:
            return self._last[1]
        spec = self.spec
        k, i = divmod(j, self._tables)
        if k != self._k:
            self._columns(k)
        rows, moves = self._records[j]
        net, order, in_fantasy = self._nets[i], self._orders[i], self._flags[i]
        names = self.names.names[i]
        stakes, stack = float(spec.stakes), spec.stack  # as the core writes it (1.0, not 1)
        seats = tuple(
            _seat_record(
                seat=seat,
                player=names[order[seat]],
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
        record: HandRecord = _hand_record(
            format="open",
            room=spec.room,
            table_id=self.names.table_ids[i],
            room_hand_id=self._hand_id,
            ruleset=self.names.ruleset,
            seats=seats,
            placements=moves,
            played_at=self._played_at,
            stakes=stakes,
            currency=self.names.currency,
        )
        self._last = (j, record)
        return record

    def timed_out(self, j: int) -> tuple[int, ...]:
        """Per seat of hand ``j``, the streets the room placed (bit s: street s)."""
        k, i = divmod(j, self._tables)
        if k != self._k:
            self._columns(k)
        return tuple(self._timed[i])

    def played(self, j: int) -> Played:
        """Hand ``j`` as a :class:`Played`, its record built."""
        record = self.record(j)  # and hand j's columns read
        truth = self.truths.get(j)
        if truth is not None:
            truth["hand_key"] = record.hand_key
        return Played(record, truth, self.timed_out(j))

    def styles(self) -> tuple[list[str], npt.NDArray[np.intp]]:
        """The styles at these tables, and per hand, table and seat (in order of
        action; hand-major rows) the index of the seat's style among them."""
        names = sorted({p.style.name for players in self.tables for p in players})
        at = np.array([[names.index(p.style.name) for p in players] for players in self.tables])
        order = self.part.order.astype(np.intp)
        seat_styles = np.take_along_axis(np.broadcast_to(at, order.shape), order, axis=2)
        return names, seat_styles.reshape(len(self), -1)


def play_parts(
    spec: TableSpec,
    tables: list[list[Player]],
    hands: int,
    seed: int,
    first_hand: int = 0,
    fantasy_errors: float = 0.0,
    lines: bool = False,
) -> Iterator[PartPlayed]:
    """Play ``hands`` hands at each table; yield them as the core plays them, a
    :class:`PartPlayed` of up to ``HANDS_A_CALL`` table-hands at a time.

    The core plays the hands (:func:`ofc_stats.core.sim.play_session`) and, with
    ``lines``, writes their open-format lines.  With ``fantasy_errors`` the room,
    on that share of table-hands, gets the next hand's Fantasyland wrong for one
    seat (misses an earned one, or deals one not earned); the truth entry comes
    with the hand that shows it.
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
    stay_values = [
        documented_stay_value(ruleset, n) if 13 <= n <= block else 0.0 for n in range(block + 1)
    ]
    names = LineNames(
        room=spec.room,
        ruleset=ruleset.name,
        stakes=float(spec.stakes),
        currency="PTS",
        start=int((START - EPOCH).total_seconds()),
        step=HAND_SECONDS,
        table_ids=[table_id(spec.run, i) for i in range(t)],
        names=[[p.name for p in players] for players in tables],
    )
    step = max(1, HANDS_A_CALL // t)
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
            lines=names if lines else None,
        )
        buttons, fantasy_next = part.buttons, part.fantasy_next
        # A mistake after hand k of table i shows in its next hand (k + 1, or the
        # next part's first).
        truths = {i: truth for i, truth in pending.items()}
        pending = {}
        mistakes = np.nonzero(part.error_seat >= 0)
        for k, i in zip(mistakes[0].tolist(), mistakes[1].tolist(), strict=True):
            seat, earned = int(part.error_seat[k, i]), int(part.error_earned[k, i])
            truth = _fantasy_truth(tables[i][int(part.order[k, i, seat])].name, earned)
            if k + 1 < count:
                truths[(k + 1) * t + i] = truth
            else:
                pending[i] = truth
        yield PartPlayed(spec, tables, names, part, hand, truths)
        hand += count


def play_hands(
    spec: TableSpec,
    tables: list[list[Player]],
    hands: int,
    seed: int,
    first_hand: int = 0,
    fantasy_errors: float = 0.0,
) -> Iterator[Played]:
    """:func:`play_parts`' hands one by one, each hand at every table in turn, each
    with its record."""
    for part in play_parts(spec, tables, hands, seed, first_hand, fantasy_errors):
        for j in range(len(part)):
            yield part.played(j)


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
