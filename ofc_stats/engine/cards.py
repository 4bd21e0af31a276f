"""Cards as small integers.

A card id is ``rank * 4 + suit`` with ranks ``2..A`` as ``0..12`` and suits in
the order clubs, diamonds, hearts, spades.  The two jokers of a ``joker54``
deck are 52 and 53.  This is the only card representation past the parsers;
strings appear again only in output for people.

=====  ====  ====  ====  ====
rank   c     d     h     s
=====  ====  ====  ====  ====
2      0     1     2     3
3      4     5     6     7
...    ...   ...   ...   ...
K      44    45    46    47
A      48    49    50    51
=====  ====  ====  ====  ====

Jokers: ``X1`` = 52, ``X2`` = 53 (parsed from ``X``, ``Jk``, ``JOKER``, ``🃏``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum

from ofc_stats.errors import CardError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
JOKER_1 = 52
JOKER_2 = 53
JOKERS = (JOKER_1, JOKER_2)
DECK_SIZE = 52


class Rank(IntEnum):
    """Card ranks, deuce lowest.  The value is the rank part of a card id."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def char(self) -> str:
        return RANK_CHARS[self]


class Suit(IntEnum):
    """Suits; all equal in OFC, the order only fixes card ids."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def char(self) -> str:
        return SUIT_CHARS[self]


_SUIT_ALIASES = {
    "c": 0,
    "d": 1,
    "h": 2,
    "s": 3,
    "♣": 0,
    "♦": 1,
    "♥": 2,
    "♠": 3,
    "♧": 0,
    "♢": 1,
    "♡": 2,
    "♤": 3,
}
_JOKER_TOKENS = {"x", "jk", "joker", "🃏", "xx", "*"}


def card_id(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (0 = deuce) and ``suit`` (0 = clubs).

    >>> card_id(12, 3)  # the ace of spades: 12 * 4 + 3
    51
    """
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise CardError(f"no card with rank {rank} and suit {suit}")
    return rank * 4 + suit


def rank_of(card: int) -> int:
    """The rank (0 = deuce .. 12 = ace) of a non-joker card id.

    >>> rank_of(parse_card("Qh"))
    10
    """
    return card >> 2


def is_joker(card: int) -> bool:
    return card >= DECK_SIZE


def parse_card(token: str, where: str = "") -> int:
    """Parse ``As``, ``td``, ``10d``, ``Q♠`` or a joker token into a card id.

    ``where`` names the source (``file:line``) for the error message.

    >>> parse_card("As"), parse_card("10d"), parse_card("Q♠"), parse_card("X1")
    (51, 33, 43, 52)
    >>> parse_card("Zz", "hands.jsonl:3")
    Traceback (most recent call last):
    ...
    ofc_stats.errors.CardError: hands.jsonl:3: bad card 'Zz': expected rank and suit like 'As'
    """
    card = _SPELLINGS.get(token)
    if card is not None:
        return card
    return _parse_card(token, where)


def _parse_card(token: str, where: str) -> int:
    text = token.strip()
    low = text.lower()
    origin = f"{where}: " if where else ""  # as Board.check_shape names the place
    if low in _JOKER_TOKENS or low in ("x1", "jk1", "joker1"):
        return JOKER_1
    if low in ("x2", "jk2", "joker2"):
        return JOKER_2
    if len(text) < 2:
        raise CardError(f"{origin}bad card {token!r}: expected rank and suit like 'As'")
    rank_text, suit_text = text[:-1], text[-1]
    if rank_text == "10":
        rank_text = "T"
    rank = RANK_CHARS.find(rank_text.upper()) if len(rank_text) == 1 else -1
    suit = _SUIT_ALIASES.get(suit_text.lower(), -1)
    if rank < 0 or suit < 0:
        raise CardError(f"{origin}bad card {token!r}: expected rank and suit like 'As'")
    return rank * 4 + suit


# Every common spelling, so parsing a card is one dict lookup on the hot path.
_SPELLINGS: dict[str, int] = {}
for _card in range(DECK_SIZE):
    for _rank in {RANK_CHARS[_card >> 2], RANK_CHARS[_card >> 2].lower()}:
        for _suit in {SUIT_CHARS[_card & 3], SUIT_CHARS[_card & 3].upper()}:
            _SPELLINGS[_rank + _suit] = _card
            if _rank in "Tt":
                _SPELLINGS["10" + _suit] = _card


def parse_cards(text: str | Iterable[str], where: str = "") -> tuple[int, ...]:
    """Parse space- or comma-separated cards (or an iterable of tokens).

    >>> parse_cards("2c, 2d As")
    (0, 1, 51)
    """
    if isinstance(text, str):
        tokens: Iterable[str] = text.replace(",", " ").split()
    else:
        tokens = text
    return tuple(parse_card(token, where) for token in tokens)


def format_card(card: int) -> str:
    """``As`` for 51; ``X1``/``X2`` for the jokers.

    >>> format_card(51), format_card(0), format_card(53)
    ('As', '2c', 'X2')
    """
    if card == JOKER_1:
        return "X1"
    if card == JOKER_2:
        return "X2"
    if not 0 <= card < DECK_SIZE:
        raise CardError(f"card id {card} is out of range 0..53")
    return RANK_CHARS[card >> 2] + SUIT_CHARS[card & 3]


def format_cards(cards: Sequence[int]) -> str:
    """Cards as text for people, space-separated.

    >>> format_cards(parse_cards("qs QD 5c"))
    'Qs Qd 5c'
    """
    return " ".join(format_card(card) for card in cards)
