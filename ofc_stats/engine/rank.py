"""Row strength: the readable scalar definition.

Every row, 3 or 5 cards, gets a :class:`RowRank` (category plus the ranks that
decide it, most significant first) and an integer :attr:`RowRank.key` on one
scale for both row sizes, so the foul check compares top with middle directly
(RULES.md §3).  A 3-card row's missing kickers count as *lower than a deuce*:
top ``QQ4`` against middle ``QQ432`` gives ``key(top) < key(middle)``, and a
foul is only ``key(top) > key(middle)``, so "all of the top row's cards tie"
is never a foul, exactly as the rules say.

This module is the definition; the compiled core ranks rows with its own twin
(``rust/ofc-core/src/eval.rs``, :func:`ofc_stats.core.tables.tables`), and
``tests/test_core_tables.py`` proves the two equal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from ofc_stats.engine.cards import RANK_CHARS, format_cards, is_joker
from ofc_stats.errors import BoardError

KEY_BASE = 14
CATEGORY_WEIGHT = KEY_BASE**5
ACE = 12
FIVE = 3


class Category(IntEnum):
    """Poker categories; the top row only makes HIGH_CARD, PAIR, THREE_OF_A_KIND."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, order=True)
class RowRank:
    """A row's category and deciding ranks (0 = deuce), most significant first."""

    category: Category
    ranks: tuple[int, ...]

    @property
    def key(self) -> int:
        """One integer on a scale shared by 3- and 5-card rows; bigger is stronger."""
        key = int(self.category) * CATEGORY_WEIGHT
        for position, rank in enumerate(self.ranks):
            key += (rank + 1) * KEY_BASE ** (4 - position)
        return key

    @property
    def is_royal(self) -> bool:
        return self.category == Category.STRAIGHT_FLUSH and self.ranks[0] == ACE

    @property
    def top_pattern(self) -> str:
        """``"QQ"`` for a pair of queens, ``"777"`` for trips, ``""`` otherwise."""
        if self.category == Category.PAIR:
            return RANK_CHARS[self.ranks[0]] * 2
        if self.category == Category.THREE_OF_A_KIND:
            return RANK_CHARS[self.ranks[0]] * 3
        return ""

    def describe(self) -> str:
        """A short name for people: ``pair of Qs``, ``flush A-high``.

        >>> from ofc_stats.engine.cards import parse_cards
        >>> rank_row(parse_cards("Qs Qd 5c")).describe()
        'pair of Qs'
        >>> rank_row(parse_cards("Ah Kh Qh Jh Th")).describe()
        'royal flush'
        """
        chars = [RANK_CHARS[r] for r in self.ranks]
        if self.is_royal:
            return "royal flush"
        first = chars[0]
        second = chars[1] if len(chars) > 1 else ""
        names = {
            Category.HIGH_CARD: "{first}-high",
            Category.PAIR: "pair of {first}s",
            Category.TWO_PAIR: "two pair {first}s and {second}s",
            Category.THREE_OF_A_KIND: "three {first}s",
            Category.STRAIGHT: "straight {first}-high",
            Category.FLUSH: "flush {first}-high",
            Category.FULL_HOUSE: "full house {first}s over {second}s",
            Category.FOUR_OF_A_KIND: "four {first}s",
            Category.STRAIGHT_FLUSH: "straight flush {first}-high",
        }
        return names[self.category].format(first=first, second=second)


def _straight_high(distinct_desc: Sequence[int]) -> int | None:
    """The high rank of a 5-rank straight, or None; the wheel A-2-3-4-5 is 5-high."""
    if len(distinct_desc) != 5:
        return None
    if distinct_desc[0] - distinct_desc[4] == 4:
        return distinct_desc[0]
    if list(distinct_desc) == [ACE, FIVE, 2, 1, 0]:
        return FIVE
    return None


def rank_row(cards: Sequence[int]) -> RowRank:
    """Rank a 3-card (top) or 5-card (middle/bottom) row without jokers.

    Three- and five-card rows share one scale, so the foul rule compares keys:
    a top of QQ5 beats a middle of QQ432 (the 5 outkicks the 4), which fouls.

    >>> from ofc_stats.engine.cards import parse_cards
    >>> rank_row(parse_cards("Qs Qd 5c"))
    RowRank(category=<Category.PAIR: 1>, ranks=(10, 3))
    >>> rank_row(parse_cards("As 2d 3c 4h 5s")).describe()  # the wheel is 5-high
    'straight 5-high'
    >>> top, middle = rank_row(parse_cards("Qs Qd 5c")), rank_row(parse_cards("Qh Qc 4d 3s 2s"))
    >>> top.key > middle.key
    True
    """
    if len(cards) not in (3, 5):
        raise BoardError(f"a row has 3 or 5 cards, not {len(cards)}: {list(cards)}")
    if any(is_joker(card) for card in cards):
        raise BoardError(f"resolve jokers before ranking: {format_cards(cards)}")
    if len(set(cards)) != len(cards):
        raise BoardError(f"duplicate card in row {format_cards(cards)}")
    counts = Counter(card >> 2 for card in cards)
    # Ranks grouped by multiplicity, then by rank: the deciding order in poker.
    grouped = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    ordered = tuple(rank for rank, _ in grouped)
    shape = tuple(count for _, count in grouped)
    if len(cards) == 3:
        category = {
            (3,): Category.THREE_OF_A_KIND,
            (2, 1): Category.PAIR,
            (1, 1, 1): Category.HIGH_CARD,
        }[shape]
        return RowRank(category, ordered)
    flush = len({card & 3 for card in cards}) == 1
    straight_high = _straight_high(ordered)
    if straight_high is not None:
        category = Category.STRAIGHT_FLUSH if flush else Category.STRAIGHT
        return RowRank(category, (straight_high,))
    if flush:
        return RowRank(Category.FLUSH, ordered)
    category = {
        (4, 1): Category.FOUR_OF_A_KIND,
        (3, 2): Category.FULL_HOUSE,
        (3, 1, 1): Category.THREE_OF_A_KIND,
        (2, 2, 1): Category.TWO_PAIR,
        (2, 1, 1, 1): Category.PAIR,
        (1, 1, 1, 1, 1): Category.HIGH_CARD,
    }[shape]
    return RowRank(category, ordered)
