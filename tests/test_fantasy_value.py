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
