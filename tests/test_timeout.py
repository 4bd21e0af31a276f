"""Timeout auto-placement detection (RULES.md §2)."""

import pytest

from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.rules import Variant
from ofc_stats.engine.timeout import Street, auto_placement, forced_street, timeout_streets


def street(cards: str, destinations: str) -> Street:
    return Street(parse_cards(cards), tuple(destinations.split()))


def test_auto_placement_fills_bottom_then_middle_then_top() -> None:
    assert auto_placement(Variant.PINEAPPLE, 0, (0, 0, 0), 5) == ["bottom"] * 5
    assert auto_placement(Variant.PINEAPPLE, 1, (0, 0, 5), 3) == ["middle", "middle", "discard"]
    assert auto_placement(Variant.PINEAPPLE, 4, (1, 5, 5), 3) == ["top", "top", "discard"]
    assert auto_placement(Variant.CLASSIC, 0, (0, 0, 3), 5) == ["bottom"] * 2 + ["middle"] * 3
    assert auto_placement(Variant.TURBO, 1, (0, 3, 5), 4) == ["middle", "middle", "top", "top"]


def test_a_whole_timed_out_pineapple_hand_is_flagged_on_every_street_with_a_choice() -> None:
    # The last street finds only the top open (1, 5, 5 filled): forced, no decision, not flagged.
    streets = [
        street("As Kd 7c 2h 9s", "bottom bottom bottom bottom bottom"),
        street("3c 4d 5h", "middle middle discard"),
        street("6c 7d 8h", "middle middle discard"),
        street("9c Td Jh", "middle top discard"),
        street("Qc Kc Ah", "top top discard"),
    ]
    assert timeout_streets(Variant.PINEAPPLE, streets) == [True] * 4 + [False]


def test_real_decisions_are_not_flagged() -> None:
    streets = [
        street("As Kd 7c 2h 9s", "top middle bottom bottom bottom"),
        street("3c 4d 5h", "bottom bottom discard"),  # bottom had room: matches by chance
        street("6c 7d 8h", "discard middle bottom"),  # discarded the first card
    ]
    assert timeout_streets(Variant.PINEAPPLE, streets) == [False, True, False]


def test_order_free_check_for_rooms_without_the_order_received() -> None:
    # the same rows got the same number of cards, in another order
    streets = [
        street("As Kd 7c 2h 9s", "bottom bottom bottom bottom bottom"),
        street("3c 4d 5h", "discard middle middle"),
    ]
    assert timeout_streets(Variant.PINEAPPLE, streets) == [True, False]
    assert timeout_streets(Variant.PINEAPPLE, streets, ordered=False) == [True, True]


def test_bad_streets_are_rejected() -> None:
    with pytest.raises(ValueError, match="destination"):
        street("As", "left")
    with pytest.raises(ValueError, match="destinations"):
        Street(parse_cards("As Kd"), ("top",))


def test_forced_streets_are_no_decision() -> None:
    # (top, middle, bottom) filled before the street; Pineapple places 2 of 3 cards.
    assert forced_street(Variant.PINEAPPLE, 4, (1, 5, 5), 3)  # only the top is open
    assert forced_street(Variant.PINEAPPLE, 4, (2, 4, 5), 3)  # 1 + 1 free = 2 placed
    assert not forced_street(Variant.PINEAPPLE, 3, (1, 4, 5), 3)  # 2 top + 1 middle free
    assert not forced_street(Variant.PINEAPPLE, 0, (0, 0, 0), 5)
    assert forced_street(Variant.CLASSIC, 12, (3, 5, 4), 1)  # one slot left
