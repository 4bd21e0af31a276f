"""A chunk of fpdb's typed hands (``parsers/fpdb_fast.py``) laid out as the dataset's tables.

The seats' card texts are read in one NumPy pass over one joined text, the
rounds' by ``parsers/fpdb_rounds.py`` from their JSON texts; streets,
Fantasyland, discards and the checks that a hand surely passes validate_hand
(its seat count within its ruleset's, no row over its size, every card in the
deck and held once, streets that fit, storable texts) are array operations
over the chunk's rounds, and the fingerprints are laid out by
``parsers/fingerprints.py`` as the other fast readers' are.  The moves come
out in ``hand_parts``' order: rounds stably by round number, each round's top,
middle and bottom cards, then its discards.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from operator import attrgetter

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ofc_stats.engine.board import DESTINATIONS, DISCARD_CODE, ROW_SIZES
from ofc_stats.records import storable_text
from parsers import fingerprints, fpdb_rounds
from parsers.base import ColumnarHands
from parsers.fpdb_fast import HIDDEN, SPELLED, Prepared
from parsers.hand_columns import limits, street_columns

_TOP, _MIDDLE, _BOTTOM = attrgetter("top"), attrgetter("middle"), attrgetter("bottom")
_PLACED, _DISCARDED = attrgetter("placed"), attrgetter("discarded")
_ROUND, _DEALT, _PLAYER = attrgetter("round"), attrgetter("dealt"), attrgetter("player")
_RANK = np.full(256, -1, dtype=np.int64)  # a card text's first byte -> its rank
_SUIT = np.full(256, -1, dtype=np.int64)  # its last byte -> its suit
for _text, _id in SPELLED.items():
    _RANK[ord(_text[0])], _SUIT[ord(_text[-1])] = _id // 4, _id % 4
assert all(_RANK[ord(t[0])] * 4 + _SUIT[ord(t[-1])] == i for t, i in SPELLED.items())
_COMMA, _SEMICOLON, _DASH = ord(","), ord(";"), ord("-")


def _card_ids(lists: list[list[str]]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every card of the lists (HIDDEN for "--") and the list it is in, read as one text.

    The texts are CardText spellings (no "," or ";", first byte the rank, last
    the suit), so the lists joined by ";" and their cards by "," are cut and
    looked up in NumPy: no hash of a card text, no Python call per card.
    """
    data = np.frombuffer(";".join(map(",".join, lists)).encode("ascii"), np.uint8)
    cut = (data == _COMMA) | (data == _SEMICOLON)
    where = np.flatnonzero(cut)
    starts = np.concatenate(([0], where + 1))
    ends = np.concatenate((where, [len(data)]))
    owner = np.concatenate(([0], np.cumsum(data[where] == _SEMICOLON)))
    card = ends > starts  # an empty list leaves an empty piece, which is no card
    starts, ends, owner = starts[card], ends[card], owner[card]
    first = data[starts]
    ids = np.where(first == _DASH, HIDDEN, _RANK[first] * 4 + _SUIT[data[ends - 1]])
    return ids, owner


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

    # Every card of the chunk by the list it is in, in seven blocks: the seats' tops,
    # middles and bottoms (from their texts), then the rounds' tops, middles, bottoms
    # and discards (from their JSON, read with the dealt lists, which only count).
    players = list(chain.from_iterable(h.players for h in hands))
    seats_total = len(players)
    rounds_of = [h.rounds for h in hands]
    records = list(chain.from_iterable(rounds_of))
    round_counts = np.fromiter(map(len, rounds_of), np.int64, count)
    all_rounds = len(records)
    seat_of = np.fromiter(
        chain.from_iterable(
            map(h.index_of.get, map(_PLAYER, rs), repeat(-1))
            for h, rs in zip(hands, rounds_of, strict=True)
        ),
        np.int64,
        all_rounds,
    )  # -1: a player the hand has not
    placed_rows = list(map(_PLACED, records))
    lists = list(map(_TOP, players))
    lists += map(_MIDDLE, players)
    lists += map(_BOTTOM, players)
    raws = list(map(_TOP, placed_rows))
    raws += map(_MIDDLE, placed_rows)
    raws += map(_BOTTOM, placed_rows)
    raws += map(_DISCARDED, records)
    raws += map(_DEALT, records)
    seat_ids, seat_owner = _card_ids(lists)
    round_ids, round_owner, lists_ok = fpdb_rounds.card_lists(raws)
    dealt_block = round_owner >= 4 * all_rounds
    dealt = np.bincount(round_owner[dealt_block] - 4 * all_rounds, minlength=all_rounds) > 0
    ids = np.concatenate([seat_ids, round_ids[~dealt_block]])
    owner = np.concatenate([seat_owner, round_owner[~dealt_block] + 3 * seats_total])
    round_hand = np.repeat(np.arange(count), round_counts)
    refused = ~lists_ok.reshape(5, -1).all(axis=0)  # a round with a list read otherwise

    # Rounds of a player the hand has not are passed over (hand_parts does so too).
    known = seat_of >= 0
    first_round = 3 * seats_total
    from_rounds = owner >= first_round
    if all_rounds:
        of_known = known[(owner - first_round) % all_rounds]
    else:
        of_known = np.zeros(len(owner), dtype=bool)  # no round: every card is a seat's
    shown = (ids != HIDDEN) & (~from_rounds | of_known)
    ids, owner = ids[shown], owner[shown]
    lengths = np.bincount(owner, minlength=len(lists) + 4 * all_rounds)
    rows = lengths[:first_round].reshape(3, -1).T
    per_round = lengths[first_round:].reshape(4, -1).T[known]
    renumber = np.cumsum(known) - 1
    rounds = int(known.sum())
    seat_start = np.zeros(count, dtype=np.int64)
    np.cumsum(seat_counts[:-1], out=seat_start[1:])
    hand_of_round = np.repeat(np.arange(count), round_counts)[known]
    seat_of_round = seat_start[hand_of_round] + seat_of[known]
    round_number = np.fromiter(map(_ROUND, records), np.int64, all_rounds)[known]
    dealt = dealt[known]

    # Rounds in hand_parts' order (stably by round number within each hand), then the
    # cards each seat had placed after each round, and whether it was in Fantasyland.
    order = np.lexsort((np.arange(rounds), round_number, hand_of_round))
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
    hero[seat_of_round[dealt]] = True
    in_fantasy = np.zeros(seats_total, dtype=bool)
    in_fantasy[seat_of_round[placed_count > 5]] = True

    # The moves: each round's cards in hand_parts' order (rows, then discards).
    from_rounds = owner >= first_round
    move_list = owner[from_rounds] - first_round
    move_kind = move_list // all_rounds if all_rounds else move_list
    move_round = renumber[move_list % max(all_rounds, 1)]
    move_order = np.argsort(rank[move_round] * 4 + move_kind, kind="stable")
    move_round = move_round[move_order]
    move_cards = ids[from_rounds][move_order]
    move_kind = move_kind[move_order]
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

    # What validate_hand surely passes, for the whole chunk at once (a hand that fails
    # any of these goes through the record path, which says why it is refused).
    seat_cards = ids[~from_rounds]  # the tops of every seat, then middles, then bottoms
    seat_owner = owner[~from_rounds] % seats_total
    seat_owner_kind = owner[~from_rounds] // seats_total
    most, deck = np.array([limits(h.ruleset) for h in hands], dtype=np.int64).reshape(-1, 2).T
    valid = (seat_counts >= 2) & (seat_counts <= most)
    valid &= np.bincount(round_hand[refused], minlength=count) == 0
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
    hand_texts = chain.from_iterable(
        (h.room, h.table_id, h.room_hand_id, h.raw_text) for h in hands
    )
    # (isascii is a flag each str keeps: no pass over the characters)
    texts_ok = all(map(str.isascii, names)) and all(map(str.isascii, hand_texts))
    if not texts_ok:
        valid &= np.fromiter((_storable_hand(h) for h in hands), bool, count)
    if not storable_text(source):
        valid[:] = False
    if not valid.all():
        return valid.tolist(), None

    # The fingerprint (records.fingerprint_of) by the shared chunk layout: each seat's
    # rows, then the discards of a seat dealt to, in a slot of their own.
    gone_owner = gone_seat[gone_order][hero_gone]
    slot = np.concatenate([seat_owner * 4 + seat_owner_kind, gone_owner * 4 + 3])
    slot_order = np.argsort(slot, kind="stable")  # within a slot, the cards' own order
    slot_cards = np.concatenate([seat_cards, gone_cards[hero_gone]])[slot_order]
    slot_counts = np.bincount(slot, minlength=4 * seats_total)
    text, text_starts = fingerprints.texts(
        pa.array(names, pa.string()),
        seat_hand,
        slot_cards,
        slot_counts,
        np.ones(seats_total, dtype=bool),
    )
    fingerprint = fingerprints.md5_prefixes(text, text_starts)

    full = (rows == np.asarray(ROW_SIZES)).all(axis=1)
    complete = np.bincount(seat_hand[~full], minlength=count) == 0
    hand_keys = pa.array(
        [f"{fmt}:{h.room}:{h.table_id}:{h.room_hand_id}" for h in hands], pa.string()
    )
    lines = np.fromiter((h.line for h in hands), np.int64, count)
    numbers = {
        "seat": move_seat,
        "street": move_street,
        "card": move_cards,
        "destination": move_dest,
    }
    board_data = np.zeros((seats_total, 13), dtype=np.uint8)
    in_full = full[seat_owner]
    board_data[full] = np.hstack(
        [seat_cards[in_full & (seat_owner_kind == k)].reshape(-1, n)
         for k, n in enumerate(ROW_SIZES)]
    )  # fmt: skip
    stored_gone = (np.where(hero, gone_lengths, 0), gone_cards[hero_gone], ~hero)
    board_streets, discards_in_order = street_columns(
        seat_counts, move_counts, full, board_data[full], stored_gone, numbers
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
            "fingerprint": fingerprint,
            "batch": pa.array([""] * count, pa.string()),
        }
    )
    board_size = rows.sum(axis=1)
    gone_count = np.where(hero, gone_lengths, 0)
    fantasy_cards = pa.array(board_size + gone_count, pa.int8(), mask=~(in_fantasy & hero))
    seat_kind = seat_owner_kind
    board = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(13),
        seats_total,
        [pa.array(full).buffers()[1], pa.py_buffer(board_data.tobytes())],
        null_count=seats_total - int(full.sum()),
    )
    seats_table = pa.table(
        {
            "hand_key": pa.DictionaryArray.from_arrays(pa.array(seat_hand, pa.int32()), hand_keys),
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
            "hand_key": pa.DictionaryArray.from_arrays(pa.array(move_hand, pa.int32()), hand_keys),
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


def _row_column(
    cards: npt.NDArray[np.int64],
    kind: npt.NDArray[np.int64],
    row: int,
    sizes: npt.NDArray[np.int64],
) -> pa.Array:
    offsets = np.zeros(len(sizes) + 1, dtype=np.int32)
    np.cumsum(sizes, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(cards[kind == row], pa.int8()))


def _storable_hand(hand: Prepared) -> bool:
    texts = [hand.room, hand.table_id, hand.room_hand_id, hand.raw_text]
    return all(storable_text(t) for t in texts + [p.name for p in hand.players])
