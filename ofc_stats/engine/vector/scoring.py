"""Scoring many hands at once with NumPy arrays (one ruleset per batch).

The layout is hands × seats × 13 cards (top 3, middle 5, bottom 5; seats in
order of action, button last).  Hands with fewer seats than the widest one
mark the missing seats in ``seated``.  Every step is an array operation over
all hands; the only Python loops run over rows, seat pairs or card columns,
never over hands.  ``tests/test_batch.py`` proves the result equals
:func:`ofc_stats.engine.scoring.score_hand` hand by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.board import BOARD_SIZE
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.scoring import settlement_order
from ofc_stats.engine.vector.boards import BoardColumns, classify_columns
from ofc_stats.engine.vector.jokers import resolve_jokers
from ofc_stats.engine.vector.rule_arrays import CompiledRules, compile_rules
from ofc_stats.errors import HandError

# A board of 13 distinct real cards, put in place of absent seats so lookups stay valid.
_FILLER = np.arange(BOARD_SIZE, dtype=np.int8)


@dataclass(frozen=True)
class BatchResult:
    """Results for H hands of up to S seats; every array starts with (H, S)."""

    seated: npt.NDArray[np.bool_]
    boards: npt.NDArray[np.int8]  # (H, S, 13), jokers replaced by what they stand for
    top_class: npt.NDArray[np.int16]  # dense strength class, see rank_tables
    middle_class: npt.NDArray[np.int16]
    bottom_class: npt.NDArray[np.int16]
    fouled: npt.NDArray[np.bool_]
    royalty_top: npt.NDArray[np.int16]
    royalty_middle: npt.NDArray[np.int16]
    royalty_bottom: npt.NDArray[np.int16]
    fantasy_qualifies: npt.NDArray[np.bool_]
    fantasy_cards: npt.NDArray[np.int8]  # 0 = no entry
    fantasy_stays: npt.NDArray[np.bool_]
    repeat_cards: npt.NDArray[np.int8]  # 0 = no repeat, or count unknown
    points: npt.NDArray[np.int32]  # (H, S, S): seat i wins from seat j, uncapped
    net: npt.NDArray[np.int32]
    net_capped: npt.NDArray[np.float64]

    @property
    def royalty_total(self) -> npt.NDArray[np.int32]:
        return self.royalty_top.astype(np.int32) + self.royalty_middle + self.royalty_bottom


CHECK_CHUNK = 16_384  # hands: a chunk's masks stay in cache


def _check(boards: npt.NDArray[np.int8], seated: npt.NDArray[np.bool_], deck_size: int) -> None:
    """Raise for a card outside the deck or a card twice in one hand."""
    out_of_deck = boards.view(np.uint8) >= deck_size  # negative ids wrap to 128 and up
    if not seated.all():
        out_of_deck &= seated[:, :, None]
    if out_of_deck.any():
        hand = int(np.argwhere(out_of_deck)[0][0])
        raise HandError(f"hand {hand}: card id outside the {deck_size}-card deck")
    repeated = repeated_cards(boards, None if seated.all() else seated)
    if repeated.any():
        raise HandError(f"hand {int(np.argmax(repeated))}: a card appears twice")


def repeated_cards(
    boards: npt.NDArray[np.int8], seated: npt.NDArray[np.bool_] | None = None
) -> npt.NDArray[np.bool_]:
    """(H,) hands with a card twice, for (H, S, 13) card ids 0..63.

    One 64-bit card mask per hand: OR in each card's bit (one shift per card
    column, in cache-sized chunks) and count the bits; fewer bits than cards
    means a card came twice.  Absent seats shift by 255, which sets no bit.
    """
    hands = boards.shape[0]
    flat = boards.reshape(hands, boards.shape[1] * boards.shape[2])  # -1 fails on 0 hands
    if seated is not None and not seated.all():
        flat = np.where(np.repeat(seated, BOARD_SIZE, axis=1), flat, np.int8(-1))
        expected = seated.sum(axis=1) * BOARD_SIZE
    else:
        expected = np.full(hands, flat.shape[1])
    repeated = np.zeros(hands, dtype=bool)
    one = np.uint64(1)
    for start in range(0, hands, CHECK_CHUNK):
        stop = min(start + CHECK_CHUNK, hands)
        columns = np.ascontiguousarray(flat[start:stop].T).view(np.uint8)
        mask = np.zeros(stop - start, dtype=np.uint64)
        bits = np.empty_like(mask)
        for column in columns:
            np.left_shift(one, column, out=bits, dtype=np.uint64)
            mask |= bits
        repeated[start:stop] = np.bitwise_count(mask) != expected[start:stop]
    return repeated


def score_batch(
    boards: npt.ArrayLike,
    ruleset: Ruleset,
    *,
    seated: npt.ArrayLike | None = None,
    in_fantasy: npt.ArrayLike | None = None,
    fantasy_cards: npt.ArrayLike | None = None,
    stacks: npt.ArrayLike | None = None,
    check: bool = True,
    forced_fouls: npt.ArrayLike | None = None,
) -> BatchResult:
    """Score H hands at once.

    ``boards``: (H, S, 13) card ids.  ``seated``: (H, S) bool, default all.
    ``in_fantasy``: (H, S) bool.  ``fantasy_cards``: (H, S) cards dealt to a
    Fantasyland seat (0 = unknown; only the ultimate mode needs it).
    ``stacks``: (H, S) points on the table, NaN = uncapped.
    ``forced_fouls``: (H, S) foul flags to use instead of the boards' own, for
    "what if the room judged this foul differently" (the audit asks that).
    """
    cards = np.asarray(boards)
    if cards.ndim != 3 or cards.shape[2] != BOARD_SIZE:
        raise HandError(f"boards must have shape (hands, seats, 13), not {cards.shape}")
    hands, seats, _ = cards.shape
    if not 2 <= seats <= ruleset.max_seats:
        raise HandError(f"{seats} seats; ruleset {ruleset.name} seats 2 to {ruleset.max_seats}")
    seat_mask = _mask(seated, (hands, seats), True)
    if cards.dtype != np.int8:
        if check and cards.size and (cards.min() < -1 or cards.max() > 127):
            raise HandError("card ids must be small integers (0..53)")
        cards = cards.astype(np.int8)
    if check:
        _check(cards, seat_mask, ruleset.deck.size)
    fantasy_mask = _mask(in_fantasy, (hands, seats), False)
    rules = compile_rules(ruleset)

    # Seat-major from here on (board n = seat * H + hand): every per-seat
    # column below is contiguous.  One transpose gives the ranker's layout.
    seated_t = np.ascontiguousarray(seat_mask.T)
    all_seated = bool(seated_t.all())
    if not all_seated:
        cards = np.where(seat_mask[:, :, None], cards, _FILLER)
    if ruleset.deck.size > 52:
        flat = np.ascontiguousarray(cards.transpose(1, 0, 2)).reshape(-1, BOARD_SIZE)
        cols = np.ascontiguousarray(resolve_jokers(flat, rules).T, dtype=np.int8)
    else:
        cols = np.ascontiguousarray(cards.transpose(2, 1, 0)).reshape(BOARD_SIZE, -1)
    per_board = classify_columns(cols, rules)
    shape = (seats, hands)
    if forced_fouls is not None:
        forced = np.asarray(forced_fouls, dtype=bool).T.reshape(-1)
        per_board = _forced_fouls(per_board, rules, forced)
    fouled = per_board.fouled.reshape(shape)
    if not all_seated:
        fouled &= seated_t
    top = per_board.top_class.reshape(shape)
    middle = per_board.middle_class.reshape(shape)
    bottom = per_board.bottom_class.reshape(shape)
    fantasy_t = fantasy_mask.T

    live = ~fouled if all_seated else seated_t & ~fouled
    entry = rules.entry_cards[top] * (live & ~fantasy_t)
    stays = live & fantasy_t & _repeat_ok(rules, per_board, shape)
    if rules.repeat_cards:
        repeat = np.where(stays, rules.repeat_cards, 0)
    else:
        played = np.zeros((hands, seats), np.int8) if fantasy_cards is None else fantasy_cards
        repeat = np.where(stays, np.asarray(played).T, 0)

    royalty = per_board.royalty_top.astype(np.int32)
    royalty += per_board.royalty_middle
    royalty += per_board.royalty_bottom
    points, net = _pairwise(
        rules,
        (top, middle, bottom),
        fouled,
        royalty.reshape(shape),
        None if all_seated else seated_t,
    )
    capped = _settle(ruleset, points, net, stacks)
    return BatchResult(
        seated=seat_mask,
        boards=cols.reshape(BOARD_SIZE, seats, hands).transpose(2, 1, 0),
        top_class=top.T,
        middle_class=middle.T,
        bottom_class=bottom.T,
        fouled=fouled.T,
        royalty_top=per_board.royalty_top.reshape(shape).T,
        royalty_middle=per_board.royalty_middle.reshape(shape).T,
        royalty_bottom=per_board.royalty_bottom.reshape(shape).T,
        fantasy_qualifies=(entry > 0).T,
        fantasy_cards=entry.astype(np.int8).T,
        fantasy_stays=stays.T,
        repeat_cards=repeat.astype(np.int8).T,
        points=points.transpose(2, 0, 1),
        net=net.T,
        net_capped=capped.T,
    )


SeatInput = tuple[Sequence[int], bool, int, float | None]  # cards, in Fantasyland, its cards, stack


def score_seat_lists(
    hands: Sequence[Sequence[SeatInput]], ruleset: Ruleset, *, check: bool = False
) -> BatchResult:
    """Score hands given seat by seat (seat counts may differ) through :func:`score_batch`.

    A seat is (13 card ids, in Fantasyland, cards of that Fantasyland or 0,
    stack or None for uncapped), in order of action.
    """
    seats = max(len(hand) for hand in hands)
    count = len(hands)
    boards = np.zeros((count, seats, BOARD_SIZE), dtype=np.int8)
    seated = np.zeros((count, seats), dtype=bool)
    in_fantasy = np.zeros((count, seats), dtype=bool)
    fantasy_cards = np.zeros((count, seats), dtype=np.int8)
    stacks = np.full((count, seats), np.nan)
    for index, hand in enumerate(hands):
        for seat, (cards, fantasy, dealt, stack) in enumerate(hand):
            boards[index, seat] = cards
            seated[index, seat] = True
            in_fantasy[index, seat] = fantasy
            fantasy_cards[index, seat] = dealt
            if stack is not None:
                stacks[index, seat] = stack
    return score_batch(
        boards,
        ruleset,
        seated=seated,
        in_fantasy=in_fantasy,
        fantasy_cards=fantasy_cards,
        stacks=stacks,
        check=check,
    )


def _mask(
    values: npt.ArrayLike | None, shape: tuple[int, int], default: bool
) -> npt.NDArray[np.bool_]:
    if values is None:
        return np.full(shape, default)
    mask = np.asarray(values, dtype=bool)
    if mask.shape != shape:
        raise HandError(f"mask has shape {mask.shape}, boards need {shape}")
    return mask


def _forced_fouls(
    board: BoardColumns, rules: CompiledRules, fouled: npt.NDArray[np.bool_]
) -> BoardColumns:
    """The board results with the given foul flags; royalties paid only to live boards."""
    live = ~fouled
    return BoardColumns(
        top_class=board.top_class,
        middle_class=board.middle_class,
        bottom_class=board.bottom_class,
        fouled=fouled,
        royalty_top=rules.royalty_top[board.top_class] * live,
        royalty_middle=rules.royalty_middle[board.middle_class] * live,
        royalty_bottom=rules.royalty_bottom[board.bottom_class] * live,
    )


def _repeat_ok(
    rules: CompiledRules, board: BoardColumns, shape: tuple[int, int]
) -> npt.NDArray[np.bool_]:
    if not rules.has_repeat:
        return np.zeros(shape, dtype=bool)
    checks = []
    if rules.repeat_top is not None:
        checks.append(rules.repeat_top[board.top_class])
    if rules.repeat_middle is not None:
        checks.append(rules.repeat_middle[board.middle_class])
    if rules.repeat_bottom is not None:
        checks.append(rules.repeat_bottom[board.bottom_class])
    combined = np.logical_and.reduce(checks) if rules.repeat_all else np.logical_or.reduce(checks)
    return np.asarray(combined).reshape(shape)


def _pairwise(
    rules: CompiledRules,
    row_classes: tuple[npt.NDArray[np.int16], ...],
    fouled: npt.NDArray[np.bool_],
    royalty: npt.NDArray[np.int32],
    seated: npt.NDArray[np.bool_] | None,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Seat-major points (S, S, H) and net (S, H) before caps.

    Each pair's row outcome (won/tied/lost per row, and which side fouled) is
    packed into one code that indexes ``rules.pair_rows``.
    """
    seats, hands = fouled.shape
    points = np.zeros((seats, seats, hands), dtype=np.int32)
    net = np.zeros((seats, hands), dtype=np.int32)
    foul_code = fouled.astype(np.int16)
    for i, j in settlement_order(seats):
        code = foul_code[i] * np.int16(54)
        code += foul_code[j] * np.int16(27)
        code += np.int16(13)
        for weight, row in zip((9, 3, 1), row_classes, strict=True):
            diff = row[i] - row[j]
            np.sign(diff, out=diff)
            if weight != 1:
                diff *= np.int16(weight)
            code += diff
        pair = np.take(rules.pair_rows, code)
        pair += royalty[i]
        pair -= royalty[j]  # a fouled board's royalties are already zero
        if seated is not None:
            pair *= seated[i] & seated[j]
        points[i, j] = pair
        np.negative(pair, out=points[j, i])
        net[i] += pair
        net[j] -= pair
    return points, net


def _settle(
    ruleset: Ruleset,
    points: npt.NDArray[np.int32],
    uncapped: npt.NDArray[np.int32],
    stacks: npt.ArrayLike | None,
) -> npt.NDArray[np.float64]:
    """Pair-by-pair settlement with stack caps and max loss, as scoring.settle.

    Seat-major: ``points`` is (S, S, H), ``uncapped`` and the result (S, H).
    """
    shape = uncapped.shape
    use_stacks = stacks is not None and ruleset.stack_cap
    if not use_stacks and ruleset.max_loss is None:
        return uncapped.astype(np.float64)
    net = np.zeros(shape, dtype=np.float64)
    if use_stacks:
        chips = np.asarray(stacks, dtype=np.float64).T.copy()
        if chips.shape != shape:
            raise HandError(f"stacks have shape {chips.T.shape}, boards need {shape[::-1]}")
    else:
        chips = np.zeros(shape)
    for i, j in settlement_order(shape[0]):
        owed = points[i, j].astype(np.float64)
        j_pays = owed > 0
        amount = np.abs(owed)
        if use_stacks:
            payer_chips = np.where(j_pays, chips[j], chips[i])
            capped = np.minimum(amount, np.maximum(payer_chips, 0.0))
            amount = np.where(np.isnan(payer_chips), amount, capped)
        if ruleset.max_loss is not None:
            payer_net = np.where(j_pays, net[j], net[i])
            amount = np.minimum(amount, np.maximum(ruleset.max_loss + payer_net, 0.0))
        transfer = np.where(j_pays, amount, -amount)  # from j to i
        net[i] += transfer
        net[j] -= transfer
        chips[i] += transfer
        chips[j] -= transfer
    return net
