"""Card ids and parsing (the id table of ofc_stats.engine.cards)."""

import pytest

from ofc_stats.engine.cards import (
    JOKER_1,
    JOKER_2,
    Rank,
    Suit,
    card_id,
    format_card,
    format_cards,
    parse_card,
    parse_cards,
)
from ofc_stats.errors import CardError


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("2c", 0),
        ("2d", 1),
        ("2h", 2),
        ("2s", 3),
        ("3c", 4),
        ("Td", 8 * 4 + 1),
        ("10d", 8 * 4 + 1),
        ("td", 8 * 4 + 1),
        ("As", 51),
        ("as", 51),
        ("A♠", 51),
        ("K♥", 11 * 4 + 2),
        ("Q♦", 10 * 4 + 1),
        ("J♣", 9 * 4),
        ("X", JOKER_1),
        ("X1", JOKER_1),
        ("X2", JOKER_2),
        ("joker", JOKER_1),
    ],
)
def test_parse_card_ids(token: str, expected: int) -> None:
    assert parse_card(token) == expected


def test_every_card_round_trips_through_its_text() -> None:
    for card in range(54):
        assert parse_card(format_card(card)) == card


def test_ids_follow_rank_times_four_plus_suit() -> None:
    assert card_id(Rank.ACE, Suit.SPADES) == 51
    assert card_id(Rank.TWO, Suit.CLUBS) == 0
    assert card_id(Rank.SEVEN, Suit.HEARTS) == 5 * 4 + 2


@pytest.mark.parametrize("token", ["1s", "Ax", "AAs", "", "s", "11h", "Tz"])
def test_bad_tokens_raise_naming_token_and_source(token: str) -> None:
    with pytest.raises(CardError) as error:
        parse_card(token, "hands.txt:7")
    assert repr(token) in str(error.value)
    assert "hands.txt:7" in str(error.value)


def test_parse_cards_accepts_spaces_and_commas() -> None:
    assert parse_cards("As, Kd 2c") == (51, 45, 0)
    assert format_cards(parse_cards("as kd 2c")) == "As Kd 2c"


def test_format_rejects_ids_out_of_range() -> None:
    with pytest.raises(CardError):
        format_card(54)
