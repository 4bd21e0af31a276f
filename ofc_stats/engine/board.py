"""A finished board (top 3, middle 5, bottom 5) and its validation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ofc_stats.engine.cards import JOKERS, format_cards, parse_cards
from ofc_stats.engine.rules import Deck
from ofc_stats.errors import BoardError, HandError

ROWS = ("top", "middle", "bottom")
ROW_SIZES = (3, 5, 5)
BOARD_SIZE = 13
# Positions of each row in the flat 13-card layout used by the batch engine.
ROW_SLICES = (slice(0, 3), slice(3, 8), slice(8, 13))
DISCARD = "discard"
# Where a dealt card can go; a card's destination code is its index here
# (0 top, 1 middle, 2 bottom, 3 discard) in every table and array.
DESTINATIONS = (*ROWS, DISCARD)
DISCARD_CODE = DESTINATIONS.index(DISCARD)


def outside_deck(bad: Sequence[int], deck: Deck) -> str:
    """Why cards are not in ``deck``: a joker (``X1``, ``X2``; written ``Xx`` too) in a deck
    without jokers is named as one, any other id as the number it is.

    >>> outside_deck([52], Deck.STANDARD52)
    'joker X1 in the standard52 deck, which has no jokers (jokers need the joker54 deck)'
    >>> outside_deck([-1, 60], Deck.STANDARD52)
    'card ids [-1, 60] are not in the standard52 deck'
    """
    jokers = [card for card in bad if card in JOKERS]
    others = [card for card in bad if card not in JOKERS]
    said = []
    if jokers:
        name = "jokers" if len(jokers) > 1 else "joker"
        said.append(
            f"{name} {format_cards(jokers)} in the {deck} deck, which has no jokers "
            "(jokers need the joker54 deck)"
        )
    if others:
        said.append(f"card ids {others} are not in the {deck} deck")
    return "; ".join(said)


@dataclass(frozen=True)
class Board:
    """One player's 13 placed cards as card ids."""

    top: tuple[int, ...]
    middle: tuple[int, ...]
    bottom: tuple[int, ...]

    @classmethod
    def parse(cls, top: str, middle: str, bottom: str, where: str = "") -> Board:
        """Parse three rows of card text; sizes and duplicates are checked."""
        board = cls(
            parse_cards(top, where),
            parse_cards(middle, where),
            parse_cards(bottom, where),
        )
        board.check_shape(where)
        return board

    @classmethod
    def from_flat(cls, cards: Sequence[int]) -> Board:
        """The board from the flat 13-card layout (top, middle, bottom)."""
        flat = tuple(int(card) for card in cards)
        return cls(flat[0:3], flat[3:8], flat[8:13])

    @property
    def cards(self) -> tuple[int, ...]:
        return self.top + self.middle + self.bottom

    @property
    def rows(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        return (self.top, self.middle, self.bottom)

    @property
    def jokers(self) -> int:
        return sum(card in JOKERS for card in self.cards)

    def check_shape(self, where: str = "") -> None:
        origin = f"{where}: " if where else ""
        for name, row, size in zip(ROWS, self.rows, ROW_SIZES, strict=True):
            if len(row) != size:
                raise BoardError(f"{origin}{name} row has {len(row)} cards, needs {size}")
        cards = self.cards
        if len(set(cards)) != len(cards):
            dupes = sorted({c for c in cards if cards.count(c) > 1})
            raise BoardError(f"{origin}duplicate card {format_cards(dupes)} on one board")

    def check_deck(self, deck: Deck, where: str = "") -> None:
        origin = f"{where}: " if where else ""
        limit = deck.size
        bad = [card for card in self.cards if not 0 <= card < limit]
        if bad:
            raise BoardError(origin + outside_deck(bad, deck))

    def __str__(self) -> str:
        return " / ".join(format_cards(row) for row in self.rows)


def check_hand(boards: Sequence[Board], deck: Deck, max_seats: int, where: str = "") -> None:
    """A hand is 2..max_seats valid boards with no card on two boards."""
    origin = f"{where}: " if where else ""
    if not 2 <= len(boards) <= max_seats:
        raise HandError(f"{origin}{len(boards)} seats; this ruleset seats 2 to {max_seats}")
    seen: dict[int, int] = {}
    for seat, board in enumerate(boards):
        board.check_shape(where)
        board.check_deck(deck, where)
        for card in board.cards:
            if card in seen:
                raise HandError(
                    f"{origin}card {format_cards([card])} is on seat {seen[card]} and seat {seat}"
                )
            seen[card] = seat
