"""Random finished hands for property tests and benchmarks.

Half the boards are dealt at random (mostly fouled); the other half are set
the way a player would, grouping each board's pairs and trips and putting the
strongest groups at the bottom, so that live boards, royalties, Fantasyland
entries and repeats all occur often.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ofc_stats.rules import Ruleset


def _arrange(cards: npt.NDArray[np.int8], rng: np.random.Generator) -> npt.NDArray[np.int8]:
    """Order each (N, 13) board: biggest rank groups to the bottom, leftovers on top.

    A third of the boards chase Fantasyland: a pair (or trips) of queens or
    better goes to the top first.
    """
    ranks = cards.astype(np.int32) >> 2
    counts = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)
    jitter = rng.random(ranks.shape)
    chase = (rng.random((len(cards), 1)) < 0.35) & (counts >= 2) & (ranks >= 10)
    first = np.where(chase, 0, 1)
    order = np.lexsort((jitter, ranks, counts, first), axis=1)  # top first, weakest first
    # 3 on top, the next 5 in the middle, the strongest 5 at the bottom
    return np.take_along_axis(cards, order, axis=1)


def random_hands(
    ruleset: Ruleset, hands: int, seed: int, *, min_seats: int = 2
) -> dict[str, npt.NDArray]:  # type: ignore[type-arg]
    """Boards (H, S, 13), seated, in_fantasy, fantasy_cards and stacks (a hand's are all NaN
    or none)."""
    rng = np.random.default_rng(seed)
    seats = ruleset.max_seats
    deck = ruleset.deck.size
    deals = np.argsort(rng.random((hands, deck)), axis=1)[:, : seats * 13].astype(np.int8)
    boards = deals.reshape(hands, seats, 13).copy()
    arranged = rng.random((hands, seats)) < 0.5
    flat = boards.reshape(-1, 13)
    flat[arranged.reshape(-1)] = _arrange(flat[arranged.reshape(-1)], rng)
    seat_counts = rng.integers(min_seats, seats + 1, size=hands)
    seated = np.arange(seats)[None, :] < seat_counts[:, None]
    in_fantasy = (rng.random((hands, seats)) < 0.3) & seated
    fantasy_cards = np.where(in_fantasy, rng.integers(13, 18, (hands, seats)), 0).astype(np.int8)
    stacks = rng.integers(0, 60, (hands, seats)).astype(np.float64)
    stacks[rng.random(hands) < 0.5] = np.nan
    return {
        "boards": boards,
        "seated": seated,
        "in_fantasy": in_fantasy,
        "fantasy_cards": fantasy_cards,
        "stacks": stacks,
    }
