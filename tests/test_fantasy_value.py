"""Stay values: the published figures and the Markov-chain estimate from results."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ofc_stats.engine.fantasy_value import documented_stay_value, fantasy_values, published_value
from ofc_stats.engine.presets import get_ruleset


def test_documented_figures_follow_the_repeat_count() -> None:
    assert documented_stay_value(get_ruleset("pineapple-progressive"), 17) == 10.23  # repeats: 14
    assert documented_stay_value(get_ruleset("pineapple-ultimate"), 15) == 12.4  # repeats: 15
    assert documented_stay_value(get_ruleset("pineapple-ultimate"), 16) == 12.4  # floor: 15
    assert documented_stay_value(get_ruleset("joker-pineapple"), 17) == 29.5  # repeats: 14
    assert documented_stay_value(get_ruleset("classic"), 13) == 0.0  # no repeat
    assert "nearest smaller" in published_value(16)[1]


def test_the_chain_on_a_hand_computed_sample() -> None:
    # Normal hands: 4, each -2 points, one of them enters a 14-card Fantasyland:
    # P(normal -> 14) = 1/4.  Fantasyland hands: 10 and 14 points (mean 12), one
    # repeats: P(14 -> 14) = 1/2.  Mean points per hand g: the chain spends 2/3
    # of hands normal and 1/3 in Fantasyland, g = 2/3 * -2 + 1/3 * 12 = 8/3.
    # h(14) = 12 - g + 1/2 h(14), so h(14) = 2 * (12 - 8/3) = 56/3.
    data = pd.DataFrame(
        {
            "cards": [0, 0, 0, 0, 14, 14],
            "points": [-2, -2, -2, -2, 10, 14],
            "next_cards": [0, 0, 0, 14, 14, 0],
        }
    )
    found = fantasy_values(data["cards"], data["points"], data["next_cards"])
    assert found.value[14] == pytest.approx(56 / 3)
    assert found.per_hand == pytest.approx(8 / 3)
    assert (found.hands, found.stay_rate) == ({14: 2}, {14: 0.5})
    assert found.stay_value(get_ruleset("pineapple-progressive"), 15) == pytest.approx(56 / 3)


def test_the_chain_needs_both_kinds_of_hand() -> None:
    with pytest.raises(ValueError, match="needs normal hands"):
        fantasy_values(np.array([14, 14]), np.array([3.0, 5.0]), np.array([0, 0]))


def test_the_chain_takes_a_fixed_value_for_a_thin_count() -> None:
    # Normal hands: 4 at -2 points, one enters 14 cards and one 15: P(0 -> 14) =
    # P(0 -> 15) = 1/4.  14-card hands: 10 and 14 points (r = 12), one moves to 15:
    # P(14 -> 15) = 1/2.  15 cards is fixed at 30 (its one row, 500 points, is not read).
    # Row normal: g = -2 + 30/4 + h14/4 = 5.5 + h14/4.  Row 14: h14 + g = 12 + 30/2 = 27.
    # So 1.25 h14 = 21.5: h14 = 17.2, g = 9.8.
    found = fantasy_values(
        np.array([0, 0, 0, 0, 14, 14, 15]),
        np.array([-2.0, -2.0, -2.0, -2.0, 10.0, 14.0, 500.0]),
        np.array([0, 0, 14, 15, 0, 15, 0]),
        fixed={15: 30.0},
    )
    assert found.value == {14: pytest.approx(17.2)}
    assert found.per_hand == pytest.approx(9.8)
    assert found.hands == {14: 2}
    # Every count fixed: the normal hands alone, g = -2 + (30 + 20) / 4 = 10.5.
    alone = fantasy_values(
        np.array([0, 0, 0, 0]),
        np.array([-2.0] * 4),
        np.array([0, 0, 14, 15]),
        fixed={14: 20.0, 15: 30.0},
    )
    assert alone.value == {}
    assert alone.per_hand == pytest.approx(10.5)
