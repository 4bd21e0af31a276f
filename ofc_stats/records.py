"""The hand-record model: what every parser and the simulator produce.

Frozen dataclasses with card ids only; the dataset writer turns batches of
them into the Parquet tables.  :func:`validate_hand` is the one place that
decides whether a record is storable; parsers call it and quarantine what it
rejects, with its message as the reason.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable
from dataclasses import MISSING, dataclass, fields
from datetime import datetime
from typing import Any, Protocol, TypeVar

from ofc_stats.engine.board import DESTINATIONS, ROW_SIZES, ROWS
from ofc_stats.engine.cards import JOKERS, format_cards
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import HandError


@dataclass(frozen=True)
class Placement:
    """One card of one seat: the street it came on (0 = first; a Fantasyland set is 0)."""

    seat: int
    street: int
    card: int
    destination: str  # top | middle | bottom | discard


@dataclass(frozen=True)
class SeatRecord:
    """One seat of one hand, in order of action (seat 0 acts first, last is the button)."""

    seat: int
    player: str
    top: tuple[int, ...]
    middle: tuple[int, ...]
    bottom: tuple[int, ...]
    discards: tuple[int, ...] | None = None  # None: the room hid them
    player_id: str | None = None
    hero: bool = False
    in_fantasy: bool = False
    reported_points: float | None = None
    reported_money: float | None = None
    stack: float | None = None

    @property
    def complete(self) -> bool:
        return (len(self.top), len(self.middle), len(self.bottom)) == ROW_SIZES

    @property
    def fantasy_cards(self) -> int | None:
        """Cards dealt to a Fantasyland seat, when its discards are known."""
        if not self.in_fantasy or self.discards is None:
            return None
        return len(self.top) + len(self.middle) + len(self.bottom) + len(self.discards)


@dataclass(frozen=True)
class HandRecord:
    """One hand as a room reported it."""

    format: str
    room: str
    table_id: str
    room_hand_id: str
    ruleset: str
    seats: tuple[SeatRecord, ...]
    placements: tuple[Placement, ...] = ()
    played_at: datetime | None = None
    rules_text: str | None = None
    stakes: float | None = None
    currency: str | None = None
    source_file: str = ""
    source_line: int | None = None
    source_offset: int | None = None
    raw_text: str = ""
    key_suffix: str = ""  # set when the room reused a hand id for another hand

    @property
    def hand_key(self) -> str:
        """Stable across re-imports and files: format, room, table, the room's hand id."""
        return f"{self.format}:{self.room}:{self.table_id}:{self.room_hand_id}{self.key_suffix}"

    @property
    def fingerprint(self) -> str:
        """Who sat where with which cards, hashed: equal for the same hand in any file.

        md5 of ``player US top,ids|middle|bottom|discards`` per seat joined by ``;``
        (US = chr(31)); the columnar importer computes the same string in SQL.
        """
        return fingerprint_of(self.seats)

    @property
    def complete(self) -> bool:
        return all(seat.complete for seat in self.seats)


@dataclass(frozen=True)
class Quarantined:
    """A hand or fragment that could not be imported, kept with the reason."""

    source_file: str
    reason: str
    raw_text: str
    line: int | None = None
    offset: int | None = None
    hand_id: str | None = None
    # False: a fragment that holds no hand (an unreadable capture line), not counted as one
    hand: bool = True

    def message(self) -> str:
        where = f"{self.source_file}:{self.line}" if self.line else self.source_file
        hand = f" (hand {self.hand_id})" if self.hand_id else ""
        return f"{where}{hand}: {self.reason}"


@dataclass(frozen=True)
class Partial:
    """A record cut off at the end of a file: the file is still being written.

    Neither stored nor quarantined: the file's next import reads it whole.
    """

    source_file: str
    line: int | None
    offset: int | None
    reason: str

    def message(self) -> str:
        where = f"{self.source_file}:{self.line}" if self.line else self.source_file
        return f"{where}: {self.reason}; left for the next import"


R = TypeVar("R")


def builder(cls: type[R]) -> Callable[..., R]:
    """A constructor of the frozen record class ``cls`` for producers of many
    records (the simulator): ``builder(cls)(**given)`` equals ``cls(**given)``.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``
    (about 1.5 us a SeatRecord, 1.7 a HandRecord); this sets the instance's field
    dict at once, the fields not given at their defaults.  It runs no
    ``__init__``, so it refuses classes that check or derive anything there.
    """
    if hasattr(cls, "__post_init__") or any(
        f.default_factory is not MISSING
        for f in fields(cls)  # type: ignore[arg-type]
    ):
        raise TypeError(f"{cls.__name__} builds fields in __init__")
    defaults = {
        f.name: f.default
        for f in fields(cls)  # type: ignore[arg-type]
        if f.default is not MISSING
    }
    new, set_field = object.__new__, object.__setattr__

    def build(**given: Any) -> R:
        record = new(cls)
        set_field(record, "__dict__", {**defaults, **given})
        return record

    return build


def growth(item: HandRecord, stored_complete: bool, stored: Callable[[], object | None]) -> str:
    """``"newer"`` if ``item`` completes a stored incomplete copy of itself, ``"older"`` if the
    stored copy completes ``item``, else ``"other"`` (``stored()`` gives the stored seats).

    Either way the seats are the same players and every stored row is a
    prefix of the other's (a placed card never leaves its row).
    """
    if stored_complete:
        if item.complete:
            return "other"
        seats = stored()
        return "older" if seats is not None and continues(item.seats, seats) else "other"
    seats = stored()
    if seats is None:
        return "other"
    if continues(seats, item.seats):
        return "newer"
    return "older" if continues(item.seats, seats) else "other"


def continues(shorter: object, longer: object) -> bool:
    """Whether the seats ``longer`` continue ``shorter``: same players, each row a prefix."""
    first, second = _seat_rows(shorter), _seat_rows(longer)
    if len(first) != len(second):
        return False
    grew = False
    for (player_a, rows_a), (player_b, rows_b) in zip(first, second, strict=True):
        if player_a != player_b:
            return False
        for a, b in zip(rows_a, rows_b, strict=True):
            if list(b[: len(a)]) != list(a):
                return False
            grew |= len(b) > len(a)
    return grew


def _seat_rows(seats: object) -> list[tuple[str, tuple[tuple[int, ...], ...]]]:
    """(player, (top, middle, bottom, discards)) of SeatRecords or stored seat rows."""
    out = []
    for seat in seats:  # type: ignore[attr-defined]
        if isinstance(seat, dict):
            rows = tuple(tuple(seat.get(n) or ()) for n in ("top", "middle", "bottom", "discards"))
            out.append((str(seat["player"]), rows))
        else:
            rows = (seat.top, seat.middle, seat.bottom, seat.discards or ())
            out.append((seat.player, rows))
    return out


class SeatCards(Protocol):
    """What the fingerprint reads of a seat (a SeatRecord, or a parser's lighter row)."""

    @property
    def player(self) -> str: ...
    @property
    def top(self) -> tuple[int, ...]: ...
    @property
    def middle(self) -> tuple[int, ...]: ...
    @property
    def bottom(self) -> tuple[int, ...]: ...
    @property
    def discards(self) -> tuple[int, ...] | None: ...


def fingerprint_text(seats: Iterable[SeatCards]) -> str:
    def ids(cards: tuple[int, ...] | None) -> str:
        return ",".join(map(str, cards or ()))

    return ";".join(
        f"{s.player}\x1f{ids(s.top)}|{ids(s.middle)}|{ids(s.bottom)}|{ids(s.discards)}"
        for s in seats
    )


def fingerprint_of(seats: Iterable[SeatCards]) -> str:
    """:attr:`HandRecord.fingerprint` of these seats: md5 of :func:`fingerprint_text`, 16 hex."""
    return hashlib.md5(fingerprint_text(seats).encode("utf-8")).hexdigest()[:16]


SMALL_INT = 127  # seats and streets are stored as int8
# Characters of a room, table or hand id or a player's name or id: real ones hold tens; a
# longer one is refused, so no cost downstream (keys, hashes, indexes) grows with it.
MAX_ID = 1_000


def storable_text(text: str) -> bool:
    r"""Whether ``text`` is valid Unicode, so Arrow and Parquet can store it.

    JSON can spell a lone surrogate (``"\ud800"``), which no UTF-8 holds;
    :func:`validate_hand` refuses a hand with one (the fast readers ask
    this first, to leave such a hand to the record path).

    >>> storable_text("Zoë"), storable_text("\ud800")
    (True, False)
    """
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_text(hand: HandRecord) -> None:
    """Every text field must be storable Unicode (JSON can spell lone surrogates)."""
    texts = [hand.format, hand.room, hand.table_id, hand.room_hand_id, hand.ruleset]
    texts += [hand.rules_text or "", hand.currency or "", hand.raw_text, hand.source_file]
    for seat in hand.seats:
        texts += [seat.player, seat.player_id or ""]
    for text in texts:
        if storable_text(text):
            continue
        try:
            text.encode("utf-8")  # fails: where, for the reason
        except UnicodeEncodeError as error:
            bad = text[error.start : error.end].encode("utf-8", "backslashreplace").decode()
            raise HandError(
                f"text holds {bad}, which is not a character (lone surrogate)"
            ) from None


def _check_ids(hand: HandRecord) -> None:
    ids = [("room", hand.room), ("table id", hand.table_id), ("hand id", hand.room_hand_id)]
    for seat in hand.seats:
        ids += [(f"seat {seat.seat} player", seat.player)]
        ids += [(f"seat {seat.seat} player id", seat.player_id or "")]
    for what, text in ids:
        if len(text) > MAX_ID:
            raise HandError(f"{what} of {len(text):,} characters is over the {MAX_ID:,} allowed")


def _check_numbers(hand: HandRecord) -> None:
    values = [("stakes", hand.stakes)]
    for seat in hand.seats:
        values += [
            (f"seat {seat.seat} points", seat.reported_points),
            (f"seat {seat.seat} money", seat.reported_money),
            (f"seat {seat.seat} stack", seat.stack),
        ]
    for name, value in values:
        if value is not None and not math.isfinite(value):
            raise HandError(f"{name} {value} is not a finite number")


def _outside_deck(card: int, ruleset: str, deck: int) -> str:
    """Why a card cannot be in this hand: a joker where the ruleset has none, or no card."""
    if card in JOKERS:
        return f"joker {format_cards([card])}, but {ruleset} has no jokers"
    return f"card id {card} is not in a {deck}-card deck"


def validate_hand(hand: HandRecord, ruleset: Ruleset) -> None:
    """Raise HandError for anything impossible or unstorable; incomplete boards are allowed.

    Storable means it fits the dataset's columns (int8 seats and streets,
    finite numbers, valid Unicode), so no batch write can fail on it later.
    """
    max_seats, deck = ruleset.max_seats, ruleset.deck.size
    if not 2 <= len(hand.seats) <= max_seats:
        count = len(hand.seats)
        raise HandError(
            f"{count} seat{'' if count == 1 else 's'}; {hand.ruleset} seats 2 to {max_seats}"
        )
    _check_ids(hand)
    _check_text(hand)
    _check_numbers(hand)
    seen: dict[int, str] = {}
    for seat in hand.seats:
        if not 0 <= seat.seat <= SMALL_INT:
            raise HandError(f"seat position {seat.seat} is out of range 0-{SMALL_INT}")
        for name, row, size in zip(
            ROWS, (seat.top, seat.middle, seat.bottom), ROW_SIZES, strict=True
        ):
            if len(row) > size:
                raise HandError(  # the player last: a name is free text, the kind is ours
                    f"seat {seat.seat}: {name} row has {len(row)} cards: player {seat.player!r}"
                )
        cards = seat.top + seat.middle + seat.bottom + (seat.discards or ())
        for card in cards:
            if not 0 <= card < deck:
                raise HandError(f"seat {seat.seat}: {_outside_deck(card, hand.ruleset, deck)}")
            if card in seen:
                owner = seen[card]
                raise HandError(
                    f"card {format_cards([card])} appears twice ({owner} and seat {seat.seat})"
                )
            seen[card] = f"seat {seat.seat}"
    if len({seat.seat for seat in hand.seats}) != len(hand.seats):
        raise HandError("two seats have the same position")
    positions = {seat.seat for seat in hand.seats}
    for placement in hand.placements:
        if placement.destination not in DESTINATIONS:
            raise HandError(f"unknown destination {placement.destination!r}")
        if placement.seat not in positions:
            raise HandError(f"a card is placed for seat {placement.seat}, which is not in the hand")
        if not 0 <= placement.street <= SMALL_INT:
            raise HandError(f"street {placement.street} is out of range 0-{SMALL_INT}")
        if not 0 <= placement.card < deck:
            raise HandError(_outside_deck(placement.card, hand.ruleset, deck))
