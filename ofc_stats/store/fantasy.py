"""What a Fantasyland is worth in a dataset: the Markov-chain estimate on its results."""

from __future__ import annotations

from ofc_stats.engine.fantasy_value import FantasyValues, fantasy_values
from ofc_stats.store.views import OfcData

# One row per scored seat of the ruleset: the Fantasyland it played (0 = a normal
# hand), its points, the Fantasyland the rules deal it next hand, and the seats at its table.
SEATS_SQL = """
SELECT CASE WHEN in_fantasy THEN fantasy_cards ELSE 0 END AS cards,
       net AS points, fantasy_next AS next_cards, seat_count AS seats
FROM seat_results
WHERE status = 'scored' AND scored_with = $ruleset AND fantasy_next IS NOT NULL
  AND (NOT in_fantasy OR fantasy_cards IS NOT NULL)
"""


def dataset_fantasy_values(data: OfcData, ruleset: str) -> FantasyValues | None:
    """The estimate from every scored seat of ``ruleset``; None when the data cannot give one.

    It cannot when the dataset has no Fantasyland hand of the ruleset, or when
    the rules deal a Fantasyland of a card count no stored hand played (the
    chain would have a state with no observed outcome).
    """
    frame = data.df(SEATS_SQL, {"ruleset": ruleset})
    if frame.empty:
        return None
    try:
        return fantasy_values(frame["cards"], frame["points"], frame["next_cards"])
    except ValueError:
        return None
