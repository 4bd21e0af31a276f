"""fpdb-3 rows a chunk at a time: a typed msgspec decode of each rawJson, then NumPy per chunk.

Walking each rawJson's dicts in Python (players, rows, every round record)
cost more than half of fpdb import, so this lane decodes a row straight into
structs holding only the fields :func:`parsers.fpdb.hand_parts` reads;
``parsers/fpdb_columns.py`` lays a chunk of such hands out as the dataset's
columns with NumPy.

A row takes the lane only where the answer is surely ``hand_parts``'s:

* its text is short and shallow enough that ``json.loads`` reads it without
  a recursion or digit-limit error, and holds no run of 19 digits (so every
  integer is one msgspec and json read alike);
* msgspec accepts it under the structs, whose fields are typed so that each
  value means what ``hand_parts`` makes of it (a ``null`` where it reads
  ``or {}`` and the like is refused rather than re-derived); a round's card
  lists are kept as their JSON text (``msgspec.Raw``: a list and a string per
  card were a third of the decode), which ``parsers/fpdb_rounds.py`` reads a
  chunk at a time, refusing any list not in a plain form;
* the hand passes the checks ``fpdb_columns`` makes per chunk of what
  validate_hand surely accepts.

Anything else, row or hand, goes to the per-row path of ``parsers/fpdb.py``,
which gives exactly what it gave before this lane existed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import msgspec

from ofc_stats.engine.cards import parse_card
from ofc_stats.errors import FpdbError


def _spellings() -> dict[str, int]:
    """The ASCII texts of a card a room is likely to write (parse_card reads more), with ids."""
    ranks = [*"23456789TJQKAtjqka", "10"]
    texts = {f"{rank}{suit}" for rank in ranks for suit in "cdhsCDHS"}  # ASCII only
    return {text: parse_card(text) for text in sorted(texts)}


SPELLED = _spellings()
if TYPE_CHECKING:
    CardText = str
else:
    # A Literal: only these spellings pass (any other text refuses the row, which the
    # per-row path then reads), so fpdb_columns reads every card from its bytes, and
    # msgspec hands back one shared string per spelling instead of a new one per card.
    CardText = Literal[(*SPELLED, "--")]
Texts = list[CardText]
Number = str | int | float | None
# One pass for both checks: every digit read as "0", "[" and "{" as "[", the rest as " ".
_DIGITS_AND_OPENERS = bytes(
    48 if 48 <= byte <= 57 else 91 if byte in (91, 123) else 32 for byte in range(256)
)
_LONG_NUMBER = b"0" * 19
_MAX_BRACKETS = 400  # far below json's recursion limit (fast_json's bound)


class Variant(msgspec.Struct, gc=False):
    variant: str = "ofcp"
    pineapple: bool | msgspec.UnsetType = msgspec.UNSET  # unset: the variant's own
    deuce_to_seven: bool | None = None


# A null where hand_parts reads ``or []`` refuses the row (the per-row path reads it):
# defaults that are never None let a chunk gather each field with one map.
class Player(msgspec.Struct, gc=False):
    name: str
    seat_idx: int | None = None
    top: Texts = []
    middle: Texts = []
    bottom: Texts = []
    points: Number = None


# A round's card lists are kept as their JSON text (no list or string object per card):
# ``fpdb_rounds`` reads a chunk's lists at once and refuses any that is not plainly
# ``["Ah", "Kd"]``, sending its hand to the per-row path.
EMPTY = msgspec.Raw(b"[]")


class Placed(msgspec.Struct, gc=False, frozen=True):
    top: msgspec.Raw = EMPTY
    middle: msgspec.Raw = EMPTY
    bottom: msgspec.Raw = EMPTY


class Round(msgspec.Struct, gc=False):
    player: str
    round: int = 0
    dealt: msgspec.Raw = EMPTY  # only whether any card was dealt counts
    placed: Placed = Placed()
    discarded: msgspec.Raw = EMPTY


class Result(msgspec.Struct, gc=False):
    points_settled: dict[str, Number] | None = None


class RawHand(msgspec.Struct, gc=False):
    hand_id: str | int | None = None
    site: str | None = None
    table_id: str | int | None = None
    timestamp: str | None = None
    variant: Variant | None = None
    players: list[Player] | None = None
    rounds: list[Round] | None = None
    result: Result | None = None


DECODER = msgspec.json.Decoder(RawHand)
VARIANTS = {"ofc": "classic-american", "ofcp": "pineapple"}
HIDDEN = -2  # "--": a card not shown, left out as _cards leaves it out


def typed(text: object) -> RawHand | None:
    """The row's rawJson decoded into the structs, or None if the per-row path must read it."""
    if not isinstance(text, str):
        return None  # a BLOB: its stored text is its canonical JSON, the per-row path's job
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None  # a lone surrogate: json's reading of it decides
    shape = data.translate(_DIGITS_AND_OPENERS)
    if shape.count(b"[") >= _MAX_BRACKETS or _LONG_NUMBER in shape:
        return None
    try:
        return DECODER.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None


class Prepared(NamedTuple):
    """One typed hand past the checks that need no cards: what the chunk builder reads."""

    line: int
    raw_text: str
    room: str
    table_id: str
    room_hand_id: str
    ruleset: str
    rules_text: str
    pineapple: bool
    played_at: datetime | None
    players: list[Player]
    index_of: dict[str, int]
    points: list[float | None]
    rounds: list[Round]


_TIMES: dict[str, datetime | None] = {}


def _played_at(text: str | None) -> datetime | None:
    if not text:
        return None
    if text not in _TIMES:
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            moment = None
        if len(_TIMES) > 4096:
            _TIMES.clear()
        _TIMES[text] = moment
    return _TIMES[text]


def prepare(
    hand: RawHand, line: int, raw_text: str, number: Callable[[Any], float | None]
) -> Prepared | None:
    """``hand_parts``'s checks of a typed hand, bar its cards; None: the per-row path reads it."""
    variant = hand.variant
    name, pineapple = "ofcp", True
    if variant is not None:
        name = variant.variant
        if variant.deuce_to_seven or name not in VARIANTS:
            return None
        pineapple = name == "ofcp" if variant.pineapple is msgspec.UNSET else variant.pineapple
    table_id = hand.table_id
    if not table_id or not hand.players:
        return None
    players = hand.players
    seats = [p.seat_idx or 0 for p in players]
    if seats != sorted(seats):
        players = sorted(players, key=lambda p: p.seat_idx or 0)  # stably, as hand_parts
    index_of = {p.name: i for i, p in enumerate(players)}
    if len(index_of) != len(players):
        return None  # two seats of one name share a state in hand_parts
    settled = None if hand.result is None else hand.result.points_settled
    try:
        if settled:
            values = [settled.get(p.name, p.points) for p in players]
            # An int (under 19 digits: typed's check) is what number() makes of it, as a float.
            points = [float(v) if type(v) is int else number(v) for v in values]
        else:
            points = [None] * len(players)
    except FpdbError:
        return None
    return Prepared(  # (positional: a third cheaper than by name)
        line,
        raw_text,
        hand.site or "SealsWithClubs",
        str(table_id),
        str(hand.hand_id),
        VARIANTS[name],
        name,
        pineapple,
        _played_at(hand.timestamp),
        players,
        index_of,
        points,
        hand.rounds or [],
    )
