"""When a foul became unavoidable: the street after which no play of the cards that came
could have avoided it.

A board fouls when its top beats its middle or its middle beats its bottom
(``score_board``).  After each street the board is partial, and the cards
the player was dealt on the later streets are known once the hand is over
(each street's placed cards and its discard).  The foul was *unavoidable
after street s* when no way of playing those later cards (which card of
each street to discard, where the rest go) finishes the partial board
unfouled: from then on the foul was sealed, so the decision that lost the
hand was on street ``s`` or before.

Two stricter readings were measured and rejected for the fouls table, on
the 1,058 fouled normal boards of the apps' samples: the street both rows
of the broken pair were complete (the table's old column) put 1,049 at the
last street, as the last street almost always completes one of them; the
street after which no card at all (of those the player had not seen) could
save the board put 1,005 there, as two open places can nearly always be
filled to save it.  With the cards that came, 5 are at the last street, 390
after the fourth, 428 after the third, 149 after the second and 13 after
the first (73 unknown: a discard not recorded).

The search walks back from the last street and stops at the first street
whose later cards could still save the board (a later partial board's plays
are among an earlier one's, so once savable, savable before too).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations, product

from ofc_stats.engine.board import ROW_SIZES, ROW_SLICES
from ofc_stats.engine.cards import DECK_SIZE
from ofc_stats.engine.rank import rank_row


def _keys() -> dict[tuple[int, ...], int]:
    return {}


def _key(row: tuple[int, ...], known: dict[tuple[int, ...], int]) -> int:
    """A row's rank key, each distinct row ranked once per board."""
    found = known.get(row)
    if found is None:
        found = known[row] = rank_row(row).key
    return found


def savable(
    rows: Sequence[tuple[int, ...]],
    streets: Sequence[Sequence[int]],
    discards: Sequence[bool],
    known: dict[tuple[int, ...], int] | None = None,
) -> bool:
    """Whether the later streets' cards can finish the partial ``rows`` (top, middle,
    bottom) unfouled: top key <= middle key <= bottom key.  ``streets`` are the cards
    dealt on each later street; where ``discards`` says so, one of them is discarded.

    >>> from ofc_stats.engine.cards import parse_cards as p
    >>> rows = [p("Qs Qd 5c"), p("Ah Kd 9c"), p("8h 8c 8d")]
    >>> savable(rows, [p("Kc 2h 7d"), p("As 6h 4d")], [True, True])  # K or A pairs the middle
    True
    >>> savable(rows, [p("Jc 2h 7d"), p("Ts 6h 4d")], [True, True])  # no pair for the middle
    False
    """
    known = _keys() if known is None else known
    empty = [size - len(row) for row, size in zip(rows, ROW_SIZES, strict=True)]
    choices = [
        combinations(cards, len(cards) - 1) if discard else [tuple(cards)]
        for cards, discard in zip(streets, discards, strict=True)
    ]
    for kept in product(*choices):
        cards = tuple(card for street in kept for card in street)
        if len(cards) != sum(empty):
            continue  # a street that did not fill the places left
        for top, rest in _split(cards, empty[0]):
            top_key = _key(tuple(sorted(rows[0] + top)), known)
            for middle, bottom in _split(rest, empty[1]):
                middle_key = _key(tuple(sorted(rows[1] + middle)), known)
                if top_key <= middle_key <= _key(tuple(sorted(rows[2] + bottom)), known):
                    return True
    return False


def _split(cards: tuple[int, ...], size: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Each way to take ``size`` of ``cards``, with the rest."""
    for taken in combinations(range(len(cards)), size):
        chosen = set(taken)
        yield (
            tuple(cards[i] for i in taken),
            tuple(card for i, card in enumerate(cards) if i not in chosen),
        )


def foul_unavoidable_after(
    board: Sequence[int], streets: Sequence[int], discards: Mapping[int, int | None]
) -> int | None:
    """The street (numbered as stored: 0 is the first) after which a fouled board's foul
    was unavoidable with the cards that came; None when the board does not foul, a
    street is unknown (negative) or past the 13th, a discard is not known, or a card
    is a joker or twice on the board or among its discards (not a real deal).

    ``board`` is the 13 cards (top 3, middle 5, bottom 5), ``streets`` the street each
    was placed on, ``discards`` each street's discarded card (None: the street had a
    discard that was not recorded; a street not in it discarded nothing).

    The middle is two pair after street 2 (the third street; complete only on the
    fourth) and the bottom K-J-8 with no later K, J or 8, straight or flush for it:
    unavoidable after street 2, though the bottom is complete only on the last street.

    >>> from ofc_stats.engine.cards import parse_cards as p
    >>> board = p("2s 3d 4c  Ah Ad 9c 9s 2d  Kh Jh 8c 6s 5d")
    >>> streets = [0, 0, 4,  0, 0, 1, 2, 3,  0, 1, 2, 3, 4]
    >>> discards = dict(enumerate(p("7c Tc Qd 3s"), start=1))
    >>> foul_unavoidable_after(board, streets, discards)
    2

    After street 1 it could still be saved: keeping 9s and Tc on street 2 and Qd on
    street 3 makes the bottom K-Q-J-T-9, a straight over the middle's aces.  Had the
    Qd been a 7h, nothing could (no later K, J, pair or straight for the bottom) - but
    after street 0 the 9c and 7c of street 1 still could (the bottom 9-9-7-7-K):

    >>> foul_unavoidable_after(board, streets, dict(enumerate(p("7c Tc 7h 3s"), start=1)))
    1

    A board that does not foul, a discard not recorded or a card twice has no such street.

    >>> foul_unavoidable_after(p("2s 3d 4c  Ah Ad 9c 9s 2d  Kh Kd Ks 6s 5d"), [0] * 13, {})
    >>> foul_unavoidable_after(board, streets, {1: None, 2: 1, 3: 2, 4: 3})
    >>> foul_unavoidable_after(board, streets, dict(enumerate(p("7c Tc Qd Kh"), start=1)))
    """
    cards = [int(card) for card in board]
    placed = [int(street) for street in streets]
    if len(cards) != 13 or min(placed) < 0 or max(placed) >= 13:
        return None
    if any(card is None for card in discards.values()):
        return None
    dealt_cards = cards + [int(card) for card in discards.values() if card is not None]
    if min(dealt_cards) < 0 or max(dealt_cards) >= DECK_SIZE:
        return None
    if len(set(dealt_cards)) != len(dealt_cards):
        return None
    known = _keys()
    rows = [tuple(sorted(cards[part])) for part in ROW_SLICES]
    top, middle, bottom = (_key(row, known) for row in rows)
    if top <= middle <= bottom:
        return None
    last = max(placed)
    dealt = [
        [card for card, street in zip(cards, placed, strict=True) if street == at]
        + [card for card in (discards.get(at),) if card is not None]
        for at in range(last + 1)
    ]
    unavoidable = last
    for street in range(last - 1, -1, -1):
        partial = [
            tuple(c for c, s in zip(cards[part], placed[part], strict=True) if s <= street)
            for part in ROW_SLICES
        ]
        later = range(street + 1, last + 1)
        if savable(partial, [dealt[at] for at in later], [at in discards for at in later], known):
            break
        unavoidable = street
    return unavoidable
