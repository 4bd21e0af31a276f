"""A graded decision named by what it did: "QQ+ placed in the middle instead of the top".

The name is what a coach would say of the play made against the best play:
the dealt cards the two put in different places, the most telling of them
(a pair or trips dealt together first, then the highest card), where the
play made put them and where the best play would have.  Grades with the same
name form one leak, so the report can give a leak's cost with its SE and
check it against the replay.
"""

from __future__ import annotations

from collections.abc import Sequence

from ofc_stats.engine.board import DESTINATIONS, DISCARD_CODE
from ofc_stats.engine.cards import RANK_CHARS, is_joker

QUEEN = RANK_CHARS.index("Q")


def _rank(card: int) -> int:
    """0 (deuce) .. 12 (ace); a joker ranks above the aces."""
    return 13 if is_joker(card) else card // 4


def _what(ranks: list[int]) -> str:
    """The cards moved, as a class: a pair or trips by strength, a single card by rank."""
    high = max(ranks)
    if len(ranks) >= 2:
        kind = "trips" if len(ranks) >= 3 else "a pair"
        return f"{kind} {'QQ+' if high >= QUEEN else 'below QQ'}"
    if high == 13:
        return "a joker"
    names = {12: "an ace", 11: "a king", 10: "a queen"}
    if high in names:
        return names[high]
    return "a jack or ten" if high >= RANK_CHARS.index("T") else "a 9 or lower"


def _where(code: int) -> str:
    return "discarded" if code == DISCARD_CODE else f"placed in the {DESTINATIONS[code]}"


def mistake_name(dealt: Sequence[int], chosen: Sequence[int], best: Sequence[int]) -> str | None:
    """The name of the play made against the best play; None when they are the same.

    >>> from ofc_stats.engine.cards import parse_cards
    >>> mistake_name(parse_cards("Qs Qd 7c 4h 2s"), (1, 1, 2, 2, 0), (0, 0, 2, 2, 1))
    'a pair QQ+ placed in the middle instead of the top'
    >>> mistake_name(parse_cards("Ah 9c 3d"), (3, 2, 1), (2, 3, 1))
    'an ace discarded instead of placed in the bottom'

    Two cards of one class that trade places are named as that choice (the 7h kept in the
    middle and the 2d thrown, or the other way round, are both "a 9 or lower placed in
    the middle instead of discarded"):

    >>> mistake_name(parse_cards("5h 7h 2d"), (1, 1, 3), (1, 3, 1))
    'which 9 or lower goes in the middle and which is discarded'
    """
    moved = [i for i, (a, b) in enumerate(zip(chosen, best, strict=True)) if a != b]
    if not moved:
        return None
    swap = _swap(dealt, chosen, best, moved)
    if swap is not None:
        return swap
    groups: dict[int, list[int]] = {}
    for i in moved:
        groups.setdefault(_rank(dealt[i]), []).append(i)
    # The most telling change: the biggest group of one rank, then the highest rank.
    rank, cards = max(groups.items(), key=lambda item: (len(item[1]), item[0]))
    first = cards[0]
    what = _what([rank] * len(cards))
    made, better = chosen[first], best[first]
    instead = _where(better)
    if made != DISCARD_CODE and better != DISCARD_CODE:
        instead = f"the {DESTINATIONS[better]}"
    return f"{what} {_where(made)} instead of {instead}"


def _goes(code: int) -> str:
    return "is discarded" if code == DISCARD_CODE else f"goes in the {DESTINATIONS[code]}"


def _swap(
    dealt: Sequence[int], chosen: Sequence[int], best: Sequence[int], moved: list[int]
) -> str | None:
    """Two single cards of one class (by :func:`_what`) that trade places, named as the
    choice between them; None for any other change."""
    if len(moved) != 2:
        return None
    a, b = sorted(moved, key=lambda i: -_rank(dealt[i]))
    if _rank(dealt[a]) == _rank(dealt[b]) or (chosen[a], chosen[b]) != (best[b], best[a]):
        return None
    what = _what([_rank(dealt[a])])
    if what != _what([_rank(dealt[b])]):
        return None
    noun = what.removeprefix("an ").removeprefix("a ")
    return f"which {noun} {_goes(chosen[a])} and which {_goes(chosen[b])}"
