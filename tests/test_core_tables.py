"""The core's row classes equal the Python definition (:func:`ofc_stats.engine.rank.rank_row`).

The dataset stores classes, so every one must mean what the definition says:
the core's keys are the definition's distinct keys in order, each class's
category and ranks are the definition's, and any row the core classifies
gets the class of its definition key.  (The core's own ``cargo test`` also
walks all 2,598,960 five-card rows against its naive twin.)
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.core.tables import classify_five, classify_three, tables
from ofc_stats.engine.rank import rank_row


def _definition_keys(size: int) -> dict[int, object]:
    """Every distinct key of a ``size``-card row, ranked by the definition on real cards."""
    found = {}
    for ranks in combinations_with_replacement(range(13), size):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        suits: dict[int, int] = {}
        plain = []
        for r in ranks:  # distinct suits per rank, and never all one suit
            suits[r] = suits.get(r, 0) + 1
            plain.append(r * 4 + suits[r] - 1)
        if len(set(ranks)) == len(ranks):
            plain[-1] += 1
            if size == 5:
                flush = rank_row([r * 4 for r in ranks])
                found[flush.key] = flush
        rank = rank_row(plain)
        found[rank.key] = rank
    return found


def test_the_classes_are_the_definitions_distinct_strengths_in_order() -> None:
    t = tables()
    for size, keys, ranks in ((5, t.key5, t.rank5), (3, t.key3, t.rank3)):
        found = _definition_keys(size)
        assert keys.tolist() == sorted(found)
        assert list(ranks) == [found[k] for k in sorted(found)]


def test_the_top_limit_is_the_strongest_top_not_above_each_middle() -> None:
    t = tables()
    expected = np.searchsorted(t.key3, t.key5, side="right") - 1
    assert t.top_limit.tolist() == expected.tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.permutations(range(52)).map(lambda p: p[:5]), min_size=1, max_size=20))
def test_any_five_card_row_gets_the_class_of_its_definition_key(rows: list[list[int]]) -> None:
    classes = classify_five(np.array(rows))
    assert [int(tables().key5[c]) for c in classes] == [rank_row(r).key for r in rows]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.permutations(range(52)).map(lambda p: p[:3]), min_size=1, max_size=20))
def test_any_three_card_row_gets_the_class_of_its_definition_key(rows: list[list[int]]) -> None:
    classes = classify_three(np.array(rows))
    assert [int(tables().key3[c]) for c in classes] == [rank_row(r).key for r in rows]


def test_a_row_that_is_not_distinct_real_cards_is_an_error_not_a_crash() -> None:
    import pytest

    from ofc_stats.errors import HandError

    with pytest.raises(HandError, match="distinct real cards"):
        classify_five(np.array([[0, 0, 1, 2, 3]]))
    with pytest.raises(HandError, match="distinct real cards"):
        classify_three(np.array([[52, 1, 2]]))
