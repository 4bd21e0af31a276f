"""Scoring many hands at once with NumPy arrays (one ruleset per batch).

The layout is hands × seats × 13 cards (top 3, middle 5, bottom 5; seats in
order of action, button last).  Hands with fewer seats than the widest one
mark the missing seats in ``seated``.  Every step is an array operation over
all hands; the only Python loops run over rows, seat pairs or card columns,
never over hands.  ``tests/test_batch.py`` proves the result equals
:func:`ofc_stats.scoring.score_hand` hand by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats.board import BOARD_SIZE
from ofc_stats.board_eval import BoardColumns, classify_boards
from ofc_stats.compiled import CompiledRules, compile_rules
from ofc_stats.errors import HandError
from ofc_stats.joker_batch import resolve_jokers
from ofc_stats.rank_tables import tables
from ofc_stats.rules import Ruleset
from ofc_stats.scoring import settlement_order

# A board of 13 distinct real cards, put in place of absent seats so lookups stay valid.
_FILLER = np.arange(BOARD_SIZE, dtype=np.int32)


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
        return (
            self.royalty_top.astype(np.int32)
            + self.royalty_middle
            + self.royalty_bottom
        )


def _check(
    boards: npt.NDArray[np.int32], seated: npt.NDArray[np.bool_], deck_size: int
) -> None:
    """Raise for a card outside the deck or a card twice in one hand."""
    hands, seats, _ = boards.shape
    out_of_deck = ((boards < 0) | (boards >= deck_size)) & seated[:, :, None]
    if out_of_deck.any():
        hand = int(np.argwhere(out_of_deck)[0][0])
        raise HandError(f"hand {hand}: card id outside the {deck_size}-card deck")
    # Absent seats get distinct ids above the deck so they never look duplicated.
    sentinel = 100 + np.arange(seats * BOARD_SIZE, dtype=np.int32).reshape(
        seats, BOARD_SIZE
    )
    cards = np.where(seated[:, :, None], boards, sentinel[None]).reshape(hands, -1)
    cards.sort(axis=1)
    repeated = (cards[:, 1:] == cards[:, :-1]).any(axis=1)
    if repeated.any():
        raise HandError(f"hand {int(np.argmax(repeated))}: a card appears twice")


def score_batch(
    boards: npt.ArrayLike,
    ruleset: Ruleset,
    *,
    seated: npt.ArrayLike | None = None,
    in_fantasy: npt.ArrayLike | None = None,
    fantasy_cards: npt.ArrayLike | None = None,
    stacks: npt.ArrayLike | None = None,
    check: bool = True,
) -> BatchResult:
    """Score H hands at once.

    ``boards``: (H, S, 13) card ids.  ``seated``: (H, S) bool, default all.
    ``in_fantasy``: (H, S) bool.  ``fantasy_cards``: (H, S) cards dealt to a
    Fantasyland seat (0 = unknown; only the ultimate mode needs it).
    ``stacks``: (H, S) points on the table, NaN = uncapped.
    """
    cards = np.asarray(boards, dtype=np.int32)
    if cards.ndim != 3 or cards.shape[2] != BOARD_SIZE:
        raise HandError(f"boards must have shape (hands, seats, 13), not {cards.shape}")
    hands, seats, _ = cards.shape
    if not 2 <= seats <= ruleset.max_seats:
        raise HandError(
            f"{seats} seats; ruleset {ruleset.name} seats 2 to {ruleset.max_seats}"
        )
    seat_mask = _mask(seated, (hands, seats), True)
    if check:
        _check(cards, seat_mask, ruleset.deck.size)
    fantasy_mask = _mask(in_fantasy, (hands, seats), False)
    rules = compile_rules(ruleset)

    flat = np.where(seat_mask[:, :, None], cards, _FILLER).reshape(-1, BOARD_SIZE)
    if ruleset.deck.size > 52:
        flat = resolve_jokers(flat, rules)
    per_board = classify_boards(flat, rules)
    shape = (hands, seats)
    fouled = per_board.fouled.reshape(shape) & seat_mask
    top = per_board.top_class.reshape(shape)

    live = seat_mask & ~fouled
    entry = rules.entry_cards[top] * (live & ~fantasy_mask)
    stays = live & fantasy_mask & _repeat_ok(rules, per_board, shape)
    if rules.repeat_cards:
        repeat = np.where(stays, rules.repeat_cards, 0)
    else:
        played = (
            np.zeros(shape, np.int8)
            if fantasy_cards is None
            else np.asarray(fantasy_cards)
        )
        repeat = np.where(stays, played, 0)

    royalty = (
        per_board.royalty_top.astype(np.int32)
        + per_board.royalty_middle
        + per_board.royalty_bottom
    ).reshape(shape)
    keys = tables()
    row_keys = (
        keys.key3[top],
        keys.key5[per_board.middle_class.reshape(shape)],
        keys.key5[per_board.bottom_class.reshape(shape)],
    )
    points = _pairwise(rules, row_keys, fouled, royalty, seat_mask)
    net = points.sum(axis=2, dtype=np.int32)
    capped = _settle(ruleset, points, stacks, shape)
    return BatchResult(
        seated=seat_mask,
        boards=flat.reshape(hands, seats, BOARD_SIZE).astype(np.int8),
        top_class=top,
        middle_class=per_board.middle_class.reshape(shape),
        bottom_class=per_board.bottom_class.reshape(shape),
        fouled=fouled,
        royalty_top=per_board.royalty_top.reshape(shape),
        royalty_middle=per_board.royalty_middle.reshape(shape),
        royalty_bottom=per_board.royalty_bottom.reshape(shape),
        fantasy_qualifies=entry > 0,
        fantasy_cards=entry.astype(np.int8),
        fantasy_stays=stays,
        repeat_cards=repeat.astype(np.int8),
        points=points,
        net=net,
        net_capped=capped,
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
    combined = (
        np.logical_and.reduce(checks)
        if rules.repeat_all
        else np.logical_or.reduce(checks)
    )
    return np.asarray(combined).reshape(shape)


def _pairwise(
    rules: CompiledRules,
    row_keys: tuple[npt.NDArray[np.int32], ...],
    fouled: npt.NDArray[np.bool_],
    royalty: npt.NDArray[np.int32],
    seated: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int32]:
    hands, seats = fouled.shape
    points = np.zeros((hands, seats, seats), dtype=np.int32)
    for i, j in settlement_order(seats):
        won = np.zeros(hands, dtype=np.int32)
        lost = np.zeros(hands, dtype=np.int32)
        for key in row_keys:
            won += key[:, i] > key[:, j]
            lost += key[:, i] < key[:, j]
        rows = rules.live_rows[won * 4 + lost].astype(np.int32)
        fi, fj = fouled[:, i], fouled[:, j]
        rows = np.where(
            fi & ~fj, -rules.foul_win, np.where(fj & ~fi, rules.foul_win, rows)
        )
        pair = (rows + royalty[:, i] - royalty[:, j]) * (
            ~(fi & fj) & seated[:, i] & seated[:, j]
        )
        points[:, i, j] = pair
        points[:, j, i] = -pair
    return points


def _settle(
    ruleset: Ruleset,
    points: npt.NDArray[np.int32],
    stacks: npt.ArrayLike | None,
    shape: tuple[int, int],
) -> npt.NDArray[np.float64]:
    """Pair-by-pair settlement with stack caps and max loss, as scoring.settle."""
    net = np.zeros(shape, dtype=np.float64)
    use_stacks = stacks is not None and ruleset.stack_cap
    if not use_stacks and ruleset.max_loss is None:
        return points.sum(axis=2).astype(np.float64)
    chips = (
        np.asarray(stacks, dtype=np.float64).copy() if use_stacks else np.zeros(shape)
    )
    if chips.shape != shape:
        raise HandError(f"stacks have shape {chips.shape}, boards need {shape}")
    for i, j in settlement_order(shape[1]):
        owed = points[:, i, j].astype(np.float64)
        j_pays = owed > 0
        amount = np.abs(owed)
        if use_stacks:
            payer_chips = np.where(j_pays, chips[:, j], chips[:, i])
            capped = np.minimum(amount, np.maximum(payer_chips, 0.0))
            amount = np.where(np.isnan(payer_chips), amount, capped)
        if ruleset.max_loss is not None:
            payer_net = np.where(j_pays, net[:, j], net[:, i])
            amount = np.minimum(amount, np.maximum(ruleset.max_loss + payer_net, 0.0))
        transfer = np.where(j_pays, amount, -amount)  # from j to i
        net[:, i] += transfer
        net[:, j] -= transfer
        chips[:, i] += transfer
        chips[:, j] -= transfer
    return net
