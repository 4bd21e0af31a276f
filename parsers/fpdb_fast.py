"""fpdb-3 rows a chunk at a time: a typed msgspec decode of each rawJson, then NumPy per chunk.

Walking each rawJson's dicts in Python (players, rows, every round record)
cost more than half of fpdb import, so this lane decodes a row straight into
structs holding only the fields :func:`parsers.fpdb.hand_parts` reads, and
lays a chunk of such hands out as the dataset's columns with one pass over
its card texts and NumPy for streets, Fantasyland and discards.

A row takes the lane only where the answer is surely ``hand_parts``'s:

* its text is short and shallow enough that ``json.loads`` reads it without
  a recursion or digit-limit error, and holds no run of 19 digits (so every
  integer is one msgspec and json read alike);
* msgspec accepts it under the structs, whose fields are typed so that each
  value means what ``hand_parts`` makes of it (a ``null`` where it reads
  ``or {}`` and the like is refused rather than re-derived);
* the hand passes every check of :func:`parsers.hand_columns.surely_valid`
  (computed here per chunk).

Anything else, row or hand, goes to the per-row path of ``parsers/fpdb.py``,
which gives exactly what it gave before this lane existed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from datetime import datetime
from itertools import chain
from typing import Any, NamedTuple

import msgspec
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ofc_stats.engine.board import DESTINATIONS, DISCARD_CODE, ROW_SIZES
from ofc_stats.engine.cards import format_card, parse_card
from ofc_stats.errors import CardError, FpdbError
from parsers.base import ColumnarHands
from parsers.hand_columns import limits, streets_and_discards

Texts = list[str] | None
Number = str | int | float | None
_DIGIT_RUNS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
_LONG_NUMBER = b"0" * 19
_MAX_BRACKETS = 400  # far below json's recursion limit (fast_json's bound)


class Variant(msgspec.Struct, gc=False):
    variant: str = "ofcp"
    pineapple: bool | msgspec.UnsetType = msgspec.UNSET  # unset: the variant's own
    deuce_to_seven: bool | None = None


class Player(msgspec.Struct, gc=False):
    name: str
    seat_idx: int | None = None
    top: Texts = None
    middle: Texts = None
    bottom: Texts = None
    points: Number = None


class Placed(msgspec.Struct, gc=False):
    top: Texts = None
    middle: Texts = None
    bottom: Texts = None


class Round(msgspec.Struct, gc=False):
    player: str
    round: int | None = None
    dealt: list[msgspec.Raw] | None = None  # only whether any card was dealt counts
    placed: Placed | None = None
    discarded: Texts = None


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
NO_CARDS: list[str] = []
HIDDEN = -2  # "--": a card not shown, left out as _cards leaves it out
UNKNOWN = -1  # a text parse_card refuses: the hand goes to the per-row path
_CARD_IDS: dict[str, int] = {"--": HIDDEN}
for _card in range(52):
    _CARD_IDS[format_card(_card)] = _card
    _CARD_IDS[format_card(_card).replace("T", "10")] = _card


def typed(text: object) -> RawHand | None:
    """The row's rawJson decoded into the structs, or None if the per-row path must read it."""
    if not isinstance(text, str):
        return None  # a BLOB: its stored text is its canonical JSON, the per-row path's job
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None  # a lone surrogate: json's reading of it decides
    if data.count(b"[") + data.count(b"{") >= _MAX_BRACKETS:
        return None
    if _LONG_NUMBER in data.translate(_DIGIT_RUNS):
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
    players = sorted(hand.players, key=lambda p: p.seat_idx or 0)
    index_of = {p.name: i for i, p in enumerate(players)}
    if len(index_of) != len(players):
        return None  # two seats of one name share a state in hand_parts
    settled = None if hand.result is None else hand.result.points_settled
    try:
        if settled:
            points = [number(settled.get(p.name, p.points)) for p in players]
        else:
            points = [None] * len(players)
    except FpdbError:
        return None
    return Prepared(
        line=line,
        raw_text=raw_text,
        room=hand.site or "SealsWithClubs",
        table_id=str(table_id),
        room_hand_id=str(hand.hand_id),
        ruleset=VARIANTS[name],
        rules_text=name,
        pineapple=pineapple,
        played_at=_played_at(hand.timestamp),
        players=players,
        index_of=index_of,
        points=points,
        rounds=hand.rounds or [],
    )


def _card_ids(texts: list[str]) -> npt.NDArray[np.int64]:
    """Each text's card id; HIDDEN for "--", UNKNOWN where parse_card refuses it."""
    try:
        return np.fromiter(map(_CARD_IDS.__getitem__, texts), np.int64, len(texts))
    except KeyError:
        pass
    for text in set(texts) - _CARD_IDS.keys():
        try:
            card = parse_card(text)
        except CardError:
            card = UNKNOWN
        if len(_CARD_IDS) < 4096:
            _CARD_IDS[text] = card
    return np.fromiter((_CARD_IDS.get(t, UNKNOWN) for t in texts), np.int64, len(texts))


def _segments(lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.repeat(np.arange(len(lengths)), lengths)


def _group_running(
    groups: npt.NDArray[np.int64], values: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """The running sum of ``values`` within each run of equal ``groups`` (groups sorted)."""
    total = np.cumsum(values)
    if not len(values):
        return total
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    lengths = np.diff(np.r_[starts, len(values)])
    return total - np.repeat(total[starts] - values[starts], lengths)


def build(
    hands: Sequence[Prepared], fmt: str, source: str
) -> tuple[list[bool], ColumnarHands | None]:
    """The hands as tables, if every one surely passes validate_hand; else which do."""
    count = len(hands)
    seat_counts = np.fromiter((len(h.players) for h in hands), np.int64, count)
    seat_hand = _segments(seat_counts)
    seat_start = np.zeros(count, dtype=np.int64)
    np.cumsum(seat_counts[:-1], out=seat_start[1:])

    # Every card text of the chunk in one list: each seat's three rows, then each
    # round's top, middle, bottom and discards.
    players = list(chain.from_iterable(h.players for h in hands))
    lists: list[list[str]] = []
    for p in players:
        lists += (p.top or NO_CARDS, p.middle or NO_CARDS, p.bottom or NO_CARDS)
    round_hand: list[int] = []
    round_seat: list[int] = []
    round_number: list[int] = []
    dealt_seats: list[int] = []
    for position, hand in enumerate(hands):
        index_of = hand.index_of
        start = int(seat_start[position])
        for record in hand.rounds:
            seat = index_of.get(record.player)
            if seat is None:
                continue
            round_hand.append(position)
            round_seat.append(start + seat)
            round_number.append(record.round or 0)
            if record.dealt:
                dealt_seats.append(start + seat)
            placed = record.placed
            if placed is None:
                lists += (NO_CARDS, NO_CARDS, NO_CARDS, record.discarded or NO_CARDS)
            else:
                lists += (
                    placed.top or NO_CARDS,
                    placed.middle or NO_CARDS,
                    placed.bottom or NO_CARDS,
                    record.discarded or NO_CARDS,
                )
    texts = list(chain.from_iterable(lists))
    ids = _card_ids(texts)
    owner = _segments(np.fromiter(map(len, lists), np.int64, len(lists)))
    shown = ids != HIDDEN
    ids, owner = ids[shown], owner[shown]
    lengths = np.bincount(owner, minlength=len(lists))

    seats_total = len(players)
    rows = lengths[: 3 * seats_total].reshape(-1, 3)
    rounds = len(round_hand)
    per_round = lengths[3 * seats_total :].reshape(-1, 4)
    hand_of_round = np.asarray(round_hand, dtype=np.int64)
    seat_of_round = np.asarray(round_seat, dtype=np.int64)

    # Rounds in hand_parts' order (stably by round number within each hand), then the
    # cards each seat had placed after each round, and whether it was in Fantasyland.
    order = np.lexsort((np.arange(rounds), np.asarray(round_number, np.int64), hand_of_round))
    by_seat = order[np.argsort(seat_of_round[order], kind="stable")]
    placed_count = per_round[:, :3].sum(axis=1)
    running = _group_running(seat_of_round[by_seat], placed_count[by_seat])
    fantasy_flag = (placed_count > 5).astype(np.int64)
    fantasy_so_far = _group_running(seat_of_round[by_seat], fantasy_flag[by_seat]) > 0
    pineapple = np.fromiter((h.pineapple for h in hands), bool, count)[hand_of_round[by_seat]]
    street = np.where(
        fantasy_so_far | (running <= 5), 0, np.where(pineapple, (running - 4) // 2, running - 5)
    )
    round_street = np.empty(rounds, dtype=np.int64)
    round_street[by_seat] = street
    rank = np.empty(rounds, dtype=np.int64)
    rank[order] = np.arange(rounds)
    hero = np.zeros(seats_total, dtype=bool)
    hero[np.asarray(dealt_seats, dtype=np.int64)] = True
    in_fantasy = np.zeros(seats_total, dtype=bool)
    in_fantasy[seat_of_round[placed_count > 5]] = True

    # The moves: each round's cards in hand_parts' order (rows, then discards).
    first_move = 3 * seats_total
    from_rounds = owner >= first_move
    move_list = owner[from_rounds] - first_move
    move_round = move_list // 4
    move_order = np.argsort(rank[move_round], kind="stable")
    move_round = move_round[move_order]
    move_cards = ids[from_rounds][move_order]
    move_kind = (move_list % 4)[move_order]
    move_dest = np.where(move_kind == 3, DISCARD_CODE, move_kind)
    move_seat_global = seat_of_round[move_round]
    move_hand = hand_of_round[move_round]
    move_seat = move_seat_global - seat_start[move_hand]
    move_street = round_street[move_round]
    move_counts = np.bincount(move_hand, minlength=count)

    # Each seat's discards (its rounds' in order) count only for a seat dealt to.
    gone = move_dest == DISCARD_CODE
    gone_seat = move_seat_global[gone]
    gone_order = np.argsort(gone_seat, kind="stable")
    gone_cards = move_cards[gone][gone_order]
    gone_lengths = np.bincount(gone_seat, minlength=seats_total)

    # surely_valid, for the whole chunk at once.
    seat_cards = ids[~from_rounds]
    seat_owner = owner[~from_rounds] // 3
    seat_owner_kind = owner[~from_rounds] % 3
    deck = np.fromiter((limits(h.ruleset)[1] for h in hands), np.int64, count)
    most = np.fromiter((limits(h.ruleset)[0] for h in hands), np.int64, count)
    valid = (seat_counts >= 2) & (seat_counts <= most)
    oversize = (rows > np.asarray(ROW_SIZES)).any(axis=1)
    valid &= np.bincount(seat_hand[oversize], minlength=count) == 0
    hero_gone = hero[gone_seat[gone_order]]
    held = np.concatenate([seat_cards, gone_cards[hero_gone]])
    held_hand = seat_hand[np.concatenate([seat_owner, gone_seat[gone_order][hero_gone]])]
    bad_card = (held < 0) | (held >= deck[held_hand])
    keys = np.sort(held_hand * 256 + np.where(held < 0, 255, held))
    twice = keys[1:][keys[1:] == keys[:-1]] // 256
    valid &= np.bincount(held_hand[bad_card], minlength=count) == 0
    valid &= np.bincount(twice, minlength=count) == 0
    bad_move = (move_cards < 0) | (move_cards >= deck[move_hand]) | (move_street > 127)
    valid &= np.bincount(move_hand[bad_move], minlength=count) == 0
    names = [p.name for p in players]
    texts_ok = (
        "".join(names).isascii()
        and "".join(
            chain.from_iterable((h.room, h.table_id, h.room_hand_id, h.raw_text) for h in hands)
        ).isascii()
    )
    if not texts_ok:
        valid &= np.fromiter((_storable_hand(h) for h in hands), bool, count)
    if not source.isascii() and not _storable(source):
        valid[:] = False
    if not valid.all():
        return valid.tolist(), None

    # The seats' cards as Python tuples, for the fingerprint and the board streets.
    flat = seat_cards.tolist()
    row_ends = np.cumsum(rows.reshape(-1)).tolist()
    gone_flat = gone_cards.tolist()
    gone_ends = np.cumsum(gone_lengths).tolist()
    boards: list[tuple[int, ...] | None] = []
    discards: list[tuple[int, ...] | None] = []
    fingerprint_parts = []
    start = gone_start = 0
    for seat, (name, dealt) in enumerate(zip(names, hero.tolist(), strict=True)):
        a, b, c = row_ends[3 * seat : 3 * seat + 3]
        top, middle, bottom = flat[start:a], flat[a:b], flat[b:c]
        boards.append(tuple(flat[start:c]) if c - start == 13 else None)
        start = c
        end = gone_ends[seat]
        gone_cards_of = gone_flat[gone_start:end] if dealt else None
        gone_start = end
        discards.append(None if gone_cards_of is None else tuple(gone_cards_of))
        fingerprint_parts.append(
            f"{name}\x1f{_ids(top)}|{_ids(middle)}|{_ids(bottom)}|{_ids(gone_cards_of)}"
        )
    seat_ends = np.cumsum(seat_counts).tolist()
    fingerprints = [
        hashlib.md5(";".join(fingerprint_parts[s - n : s]).encode("utf-8")).hexdigest()[:16]
        for s, n in zip(seat_ends, seat_counts.tolist(), strict=True)
    ]

    full = (rows == np.asarray(ROW_SIZES)).all(axis=1)
    complete = np.bincount(seat_hand[~full], minlength=count) == 0
    hand_keys = pa.array([f"{fmt}:{h.room}:{h.table_id}:{h.room_hand_id}" for h in hands])
    lines = np.fromiter((h.line for h in hands), np.int64, count)
    numbers = {
        "seat": move_seat,
        "street": move_street,
        "card": move_cards,
        "destination": move_dest,
    }
    board_streets, discards_in_order = streets_and_discards(
        seat_counts.tolist(), move_counts.tolist(), boards, discards, numbers
    )
    hands_table = pa.table(
        {
            "hand_key": hand_keys,
            "format": pa.array([fmt] * count, pa.string()),
            "room": pa.array([h.room for h in hands], pa.string()),
            "table_id": pa.array([h.table_id for h in hands], pa.string()),
            "room_hand_id": pa.array([h.room_hand_id for h in hands], pa.string()),
            "played_at": pa.array([h.played_at for h in hands], pa.timestamp("us")),
            "rules_text": pa.array([h.rules_text for h in hands], pa.string()),
            "ruleset": pa.array([h.ruleset for h in hands], pa.string()),
            "seat_count": pa.array(seat_counts, pa.int8()),
            "complete": pa.array(complete),
            "stakes": pa.nulls(count, pa.float64()),
            "currency": pa.nulls(count, pa.string()),
            "source_file": pa.array([source] * count, pa.string()),
            "source_line": pa.array(lines),
            "source_offset": pa.nulls(count, pa.int64()),
            "raw_text": pa.array([h.raw_text for h in hands], pa.string()),
            "fingerprint": pa.array(fingerprints, pa.string()),
            "batch": pa.array([""] * count, pa.string()),
        }
    )
    board_size = rows.sum(axis=1)
    gone_count = np.where(hero, gone_lengths, 0)
    fantasy_cards = pa.array(board_size + gone_count, pa.int8(), mask=~(in_fantasy & hero))
    seat_kind = seat_owner_kind
    full_cards = seat_cards.reshape(-1)  # rows in seat order: a full seat's 13 are adjacent
    in_full = full[seat_owner]
    board = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(13),
        seats_total,
        [pa.array(full).buffers()[1], pa.py_buffer(_board_bytes(full_cards, in_full, full))],
        null_count=seats_total - int(full.sum()),
    )
    seats_table = pa.table(
        {
            "hand_key": hand_keys.take(pa.array(seat_hand)),
            "seat": pa.array(np.arange(seats_total) - seat_start[seat_hand], pa.int8()),
            "player": pa.array(names, pa.string()),
            "player_id": pa.nulls(seats_total, pa.string()),
            "hero": pa.array(hero),
            "in_fantasy": pa.array(in_fantasy),
            "fantasy_cards": fantasy_cards,
            "top": _row_column(seat_cards, seat_kind, 0, rows[:, 0]),
            "middle": _row_column(seat_cards, seat_kind, 1, rows[:, 1]),
            "bottom": _row_column(seat_cards, seat_kind, 2, rows[:, 2]),
            "board": board,
            "board_streets": board_streets,
            "discards": discards_in_order,
            "reported_points": pa.array(
                list(chain.from_iterable(h.points for h in hands)), pa.float64()
            ),
            "reported_money": pa.nulls(seats_total, pa.float64()),
            "stack": pa.nulls(seats_total, pa.float64()),
            "source_line": pa.array(lines[seat_hand]),
        }
    )
    placements = pa.table(
        {
            "hand_key": hand_keys.take(pa.array(move_hand)),
            "seat": pa.array(move_seat, pa.int8()),
            "street": pa.array(move_street, pa.int8()),
            "card": pa.array(move_cards, pa.int8()),
            "destination": pa.DictionaryArray.from_arrays(
                pa.array(move_dest, pa.int8()), pa.array(DESTINATIONS)
            ),
            "source_line": pa.array(lines[move_hand]),
        }
    )
    return valid.tolist(), ColumnarHands(
        hands=hands_table, seats=seats_table, placements=placements
    )


def _ids(cards: list[int] | None) -> str:
    return ",".join(map(str, cards)) if cards else ""


def _board_bytes(
    cards: npt.NDArray[np.int64], in_full: npt.NDArray[np.bool_], full: npt.NDArray[np.bool_]
) -> bytes:
    """13 bytes a seat, its board's cards for a full seat, zeros for the rest."""
    data = np.zeros((len(full), 13), dtype=np.uint8)
    data[full] = cards[in_full].reshape(-1, 13)
    return data.tobytes()


def _row_column(
    cards: npt.NDArray[np.int64],
    kind: npt.NDArray[np.int64],
    row: int,
    sizes: npt.NDArray[np.int64],
) -> pa.Array:
    offsets = np.zeros(len(sizes) + 1, dtype=np.int32)
    np.cumsum(sizes, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(cards[kind == row], pa.int8()))


def _storable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _storable_hand(hand: Prepared) -> bool:
    texts = [hand.room, hand.table_id, hand.room_hand_id, hand.raw_text]
    return all(_storable(t) for t in texts + [p.name for p in hand.players])
