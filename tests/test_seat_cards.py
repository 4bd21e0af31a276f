"""seat_cards: the slot-ordered slices equal each seat's cards picked out one by one."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import seat_cards

# A seat's placements: (destination, street, card), in placement order.
placement = st.tuples(st.integers(0, 3), st.integers(0, 9), st.integers(0, 53))
# A complete seat: 3, 5 and 5 row cards and some discards, in any placement order.
complete_seat = st.integers(0, 4).flatmap(
    lambda discards: st.permutations([0] * 3 + [1] * 5 + [2] * 5 + [3] * discards).flatmap(
        lambda order: st.tuples(
            *(st.tuples(st.just(d), st.integers(0, 9), st.integers(0, 53)) for d in order)
        ).map(list)
    )
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.lists(placement, max_size=20), complete_seat), min_size=1, max_size=6))
def test_rows_boards_and_discards_are_each_seats_own(
    seats: list[list[tuple[int, int, int]]],
) -> None:
    seat = np.array([s for s, cards in enumerate(seats) for _ in cards], dtype=np.int64)
    flat = [p for cards in seats for p in cards]
    destination, street, card = (np.array([p[i] for p in flat], dtype=np.int64) for i in range(3))
    counts, ordered, streets = seat_cards.by_slot(seat, destination, card, street, len(seats))
    lists = seat_cards.row_lists(counts, ordered)
    complete = np.array(
        [
            [d for d, _, _ in cards].count(0) == 3
            and [d for d, _, _ in cards].count(1) == 5
            and [d for d, _, _ in cards].count(2) == 5
            for cards in seats
        ]
    )
    board, board_streets = seat_cards.boards(complete, counts, ordered, streets)
    discards = seat_cards.discards(counts, ordered, streets, lists[3]).to_pylist()
    for index, cards in enumerate(seats):
        for where in range(4):
            assert lists[where][index].as_py() == [c for d, _, c in cards if d == where]
        by_street = sorted([(t, n) for n, (d, t, _) in enumerate(cards) if d == 3])
        assert discards[index] == [cards[n][2] for _, n in by_street]  # stable by street
        if complete[index]:
            rows = [(c, t) for where in range(3) for d, t, c in cards if d == where]
            assert list(board[index].as_py()) == [c for c, _ in rows]
            assert list(board_streets[index].as_py()) == [t for _, t in rows]
        else:
            assert board[index].as_py() is None and board_streets[index].as_py() is None
