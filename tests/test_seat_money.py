"""A seat's key (hand id × 256 + seat) is encoded once and decoded once
(``audit.money_seats``): the points check keeps each priced seat as its key, and
the ledger looks seats up by those keys as they are, never encoding the hand ids and
seats the check decoded from them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ofc_stats.audit.money_seats import SEAT_KEY, SeatMoney, key_seats, seat_keys
from ofc_stats.audit.points import _MoneySeen


def _seen() -> pd.DataFrame:
    seen = _MoneySeen()
    seen.add(
        pd.DataFrame(
            {
                "hand_id": [7, 7, 3],
                "seat": [1, 0, 0],
                "room": ["R"] * 3,
                "hand_key": ["k7", "k7", "k3"],
                "reported_money": [1.0, -1.0, 2.0],
                "expected_money": [0.97, -1.0, 1.94],
                "owed": [1.0, -1.0, 2.0],
            }
        )
    )
    return seen.expected()


def test_the_ledger_takes_the_audits_seat_keys_as_they_are() -> None:
    expected = _seen()
    # 3 × 256 + 0 = 768, 7 × 256 + 0 = 1792, 7 × 256 + 1 = 1793, in key order
    assert expected.index.tolist() == [768, 1792, 1793]
    assert expected[["hand_id", "seat"]].to_numpy().tolist() == [[3, 0], [7, 0], [7, 1]]
    money = SeatMoney.of(expected)
    assert np.shares_memory(money.keys, expected.index.to_numpy())  # not encoded again
    looked_up = money.at(np.array([7, 3, 7, 9]), np.array([1, 0, 0, 0]))
    assert looked_up[:3].tolist() == [0.97, 1.94, -1.0]
    assert np.isnan(looked_up[3])  # a seat not priced


def test_a_frame_of_hand_ids_and_seats_is_keyed_by_the_same_encoding() -> None:
    """The ledger's batch pricing hands over plain (hand_id, seat, expected_money) rows,
    out of order and a seat twice: keyed as the audit keys them, the first row kept."""
    plain = pd.DataFrame(
        {"hand_id": [7, 3, 7, 7], "seat": [1, 0, 0, 1], "expected_money": [0.97, 1.94, -1, 5.0]}
    )
    money = SeatMoney.of(plain)
    assert money.keys.tolist() == SeatMoney.of(_seen()).keys.tolist() == [768, 1792, 1793]
    assert money.values.tolist() == [1.94, -1.0, 0.97]


def test_a_key_decodes_to_its_hand_id_and_seat() -> None:
    ids, seats = np.array([0, 5, 2**40]), np.array([255, 0, 9])
    keys = seat_keys(ids, seats)
    assert keys.tolist() == [255, 5 * SEAT_KEY, 2**40 * SEAT_KEY + 9]
    back = key_seats(keys)
    assert back[0].tolist() == ids.tolist() and back[1].tolist() == seats.tolist()
