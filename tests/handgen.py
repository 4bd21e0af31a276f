"""Random finished hands for property tests and benchmarks.

Half the boards are dealt at random (mostly fouled); the other half are set
the way a player would, grouping each board's pairs and trips and putting the
strongest groups at the bottom, so that live boards, royalties, Fantasyland
entries and repeats all occur often.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.rules import Ruleset


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
    fantasy_cards = np.where(in_fantasy, rng.integers(13, 19, (hands, seats)), 0).astype(np.int8)
    stacks = rng.integers(0, 60, (hands, seats)).astype(np.float64)
    stacks[rng.random(hands) < 0.5] = np.nan
    return {
        "boards": boards,
        "seated": seated,
        "in_fantasy": in_fantasy,
        "fantasy_cards": fantasy_cards,
        "stacks": stacks,
    }


def random_records(count: int, seed: int, ruleset_name: str = "pineapple") -> list:  # type: ignore[type-arg]
    """Open-format-ready HandRecords with Pineapple streets and discards."""
    from datetime import datetime, timedelta

    from ofc_stats.records import HandRecord, Placement, SeatRecord

    rng = np.random.default_rng(seed)
    out = []
    for index in range(count):
        seats_n = int(rng.integers(2, 4))
        deck = rng.permutation(52).tolist()
        seats, placements = [], []
        for seat in range(seats_n):
            cards = deck[seat * 17 : seat * 17 + 17]
            board, discards = cards[:13], cards[13:]
            rows = {"top": board[:3], "middle": board[3:8], "bottom": board[8:]}
            order = [(c, r) for r, cs in rows.items() for c in cs]
            rng.shuffle(order)
            street_cards = [order[:5]] + [order[5 + 2 * k : 7 + 2 * k] for k in range(4)]
            rows = {r: [c for c, row in order if row == r] for r in rows}  # in placement order
            for street, placed in enumerate(street_cards):
                for card, row in placed:
                    placements.append(Placement(seat, street, int(card), row))
                if street:
                    placements.append(Placement(seat, street, int(discards[street - 1]), "discard"))
            seats.append(
                SeatRecord(
                    seat=seat,
                    player=f"player {rng.integers(0, 9)} <{seat}>",
                    top=tuple(int(c) for c in rows["top"]),
                    middle=tuple(int(c) for c in rows["middle"]),
                    bottom=tuple(int(c) for c in rows["bottom"]),
                    discards=tuple(int(c) for c in discards),
                    hero=seat == 0,
                    reported_points=float(rng.integers(-20, 20)),
                    stack=float(rng.integers(50, 200)) if rng.random() < 0.5 else None,
                )
            )
        out.append(
            HandRecord(
                format="open",
                room="sim",
                table_id=f"t{seed}",
                room_hand_id=str(index),
                ruleset=ruleset_name,
                seats=tuple(seats),
                placements=tuple(placements),
                played_at=datetime(2026, 1, 1) + timedelta(minutes=index),
                stakes=0.5,
                currency="EUR",
            )
        )
    return out
