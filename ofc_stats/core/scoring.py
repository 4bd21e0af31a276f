"""Scoring many hands at once in the compiled core (one ruleset per batch).

The layout is hands × seats × 13 cards (top 3, middle 5, bottom 5; seats in
order of action, button last).  Hands with fewer seats than the widest one
mark the missing seats in ``seated``.  The core scores each hand as
:func:`ofc_stats.engine.scoring.score_hand` does, on its threads with the GIL
released; ``tests/test_core_scoring.py`` proves the two equal hand by hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.board import BOARD_SIZE
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import HandError


@dataclass(frozen=True)
class BatchResult:
    """Results for H hands of up to S seats; every array starts with (H, S).

    An absent seat scores nothing (points, net, fouls and Fantasyland are zero);
    its classes, royalties and board are those of a filler board.
    """

    seated: npt.NDArray[np.bool_]
    boards: npt.NDArray[np.int8]  # (H, S, 13), jokers replaced by what they stand for
    top_class: npt.NDArray[np.int16]  # dense strength class, see core.tables
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
    # Cards the next hand deals (engine FantasyOutcome.next_cards): the repeat's when the
    # seat stays, else the entry's; 0 = a normal hand, or a repeat whose count is unknown.
    next_cards: npt.NDArray[np.int8]
    points: npt.NDArray[np.int32]  # (H, S, S): seat i wins from seat j, uncapped
    net: npt.NDArray[np.int32]
    net_capped: npt.NDArray[np.float64]
    # Rows a seat wins from each other seat (H, S, S) and ties with it: a live
    # board wins all three from a fouled one, two fouled boards compare none.
    pair_won: npt.NDArray[np.int8]
    pair_tied: npt.NDArray[np.int8]
    # (H, S) sums over the opponents; a scoop is all three rows from one opponent.
    rows_won: npt.NDArray[np.int8]
    rows_lost: npt.NDArray[np.int8]
    rows_tied: npt.NDArray[np.int8]
    scoops: npt.NDArray[np.int8]
    scooped: npt.NDArray[np.int8]

    @property
    def royalty_total(self) -> npt.NDArray[np.int32]:
        return self.royalty_top.astype(np.int32) + self.royalty_middle + self.royalty_bottom


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
    The core always checks the cards (a card outside the deck or twice in a
    hand raises :class:`HandError`); ``check=False`` only skips the range
    check of ids given in a wider integer type.

    >>> from ofc_stats.engine.cards import parse_cards
    >>> from ofc_stats.engine.presets import get_ruleset
    >>> alice = parse_cards("Qs Qd 2c 5h 6d 7c 8s 9h 2h 7h Th Jh Ah")
    >>> bob = parse_cards("Ac Kd 3s 4c 4d 4h Js Ks 5c 5d 6c 8d 9c")  # fouls
    >>> result = score_batch([[alice, bob]], get_ruleset("pineapple-progressive"),
    ...                      stacks=[[50, 10]])
    >>> result.net.tolist(), result.net_capped.tolist()  # 6 rows + 15 royalties; Bob has 10
    ([[21, -21]], [[10.0, -10.0]])
    """
    cards = np.asarray(boards)
    if cards.ndim != 3 or cards.shape[2] != BOARD_SIZE:
        raise HandError(f"boards must have shape (hands, seats, 13), not {cards.shape}")
    hands, seats, _ = cards.shape
    if not 2 <= seats <= ruleset.max_seats:
        raise HandError(f"{seats} seats; ruleset {ruleset.name} seats 2 to {ruleset.max_seats}")
    shape = (hands, seats)
    seat_mask = _mask(seated, shape, True)
    if cards.dtype != np.int8:
        if check and cards.size and (cards.min() < -1 or cards.max() > 127):
            raise HandError("card ids must be small integers (0..53)")
        cards = cards.astype(np.int8)
    capped = stacks is not None and ruleset.stack_cap
    chips = None
    if capped:
        chips = np.asarray(stacks, dtype=np.float64)
        if chips.shape != shape:
            raise HandError(f"stacks have shape {chips.shape}, boards need {shape}")
    arrays = _core.score_batch(
        core_rules(ruleset),
        cards,
        seated=None if seated is None else seat_mask,
        in_fantasy=_mask(in_fantasy, shape, False) if in_fantasy is not None else None,
        fantasy_cards=None if fantasy_cards is None else np.asarray(fantasy_cards, np.int8),
        stacks=chips,
        forced_fouls=None if forced_fouls is None else np.asarray(forced_fouls, np.bool_),
    )
    return BatchResult(seated=seat_mask, **arrays)


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
