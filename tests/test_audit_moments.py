"""The field verdicts' correlations are sums kept share by share, not the shares' columns.

The points and money fields' verdicts kept three (points) and two (money) float columns
of every seat to correlate them at the end: 24 and 16 bytes a seat of the dataset, and
three times that while sorting them.  ``Moments`` keeps the rows and five exact sums;
exact, so the correlation is one number whatever the order and split of the rows (a
float sum's last bits follow the order: the columns were sorted for that).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from ofc_stats.audit.fields import Moments, _MoneyTally, _Tally, exact_sum


def test_exact_sum_is_the_exact_sum_of_the_floats() -> None:
    values = np.array([0.1, 0.2, -0.3, 1e-300, 5e-324, -5e-324, 1e300, -1e300, 3.0])
    total = Fraction(exact_sum(values), 2**1126)
    # the floats' own values summed as fractions (0.1 + 0.2 - 0.3 is not 0 in floats
    # summed in order, nor as the decimals; it is this exact number)
    assert total == sum(Fraction(v) for v in values.tolist())


def test_a_correlation_is_one_number_whatever_the_order_and_the_shares() -> None:
    rng = np.random.default_rng(7)
    x = np.round(rng.normal(size=20_000) * 9)  # points
    y = np.round(x * 0.37 + rng.normal(size=20_000), 2)  # money / stakes
    x[::97] = np.nan  # a seat with no field: left out of both sums
    whole = Moments()
    whole.add(x, y)
    split = Moments()
    order = rng.permutation(len(x))
    for part in np.array_split(order, 7):
        split.add(x[part], y[part])
    both = ~np.isnan(x)
    assert split.corr() == whole.corr()  # bit for bit
    assert whole.corr() == pytest.approx(np.corrcoef(x[both], y[both])[0, 1], abs=1e-12)
    assert whole.rows == int(both.sum())


def test_no_correlation_of_a_constant_or_of_too_few_rows() -> None:
    constant = Moments()
    constant.add(np.full(10, 0.1), np.arange(10.0))
    few = Moments()
    few.add(np.array([1.0, 2.0]), np.array([2.0, 4.0]))
    assert np.isnan(constant.corr()) and np.isnan(few.corr())


def test_the_tallies_keep_sums_not_a_column_a_seat() -> None:
    seats = 5_000
    rows = pd.DataFrame(
        {
            "hand_key": [f"h{i // 2}" for i in range(seats)],
            "field": np.arange(seats, dtype=float) % 7 - 3,
            "net_capped": np.arange(seats, dtype=float) % 7 - 3,
            "net": np.arange(seats, dtype=float) % 7 - 3,
            "field_change": np.nan,
            "field_seats": 2,
            "seat_count": 2,
            "field_sum": 0.0,
            "reported_money": np.arange(seats, dtype=float) % 5 - 2,
            "stakes": 1.0,
            "royalties": 0,
            "hand_royalties": 0,
            "running_total": 0.0,
            "previous_points": np.nan,
            "next_seat_points": 0.0,
            "previous_seat_points": 0.0,
            "pairs_won": 0.0,
        }
    )
    tally = _Tally()
    tally.add(rows)
    money = _MoneyTally()
    money.add(rows.assign(expected_money=rows["reported_money"], owed=rows["net_capped"]), 0.011)
    for kept in (tally, money):
        for item in dataclasses.fields(kept):
            value = getattr(kept, item.name)
            assert not isinstance(value, (list, np.ndarray, pd.Series)), item.name
    assert tally.verdict("R").corr_points == pytest.approx(1.0)
