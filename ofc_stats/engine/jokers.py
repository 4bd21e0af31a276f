"""Reading jokers (RULES.md §1): the whole board at once.

A joker stands for the card that gives the best board: a reading without a
foul if one exists, then the most royalties, then the strongest rows from the
bottom up.  A joker never copies a card already on the board, and two jokers
never stand for the same card.  This is the readable scalar search; the batch
engine enumerates the same readings with arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations, product

from ofc_stats.engine.board import ROWS, Board
from ofc_stats.engine.cards import DECK_SIZE, JOKERS
from ofc_stats.engine.rank import RowRank, rank_row

# Reading value: (not fouled, royalties, bottom key, middle key, top key).
ReadingValue = tuple[bool, int, int, int, int]
RoyaltyFn = Callable[[RowRank, RowRank, RowRank], int]


def _row_options(row: tuple[int, ...], free: list[int]) -> list[tuple[tuple[int, ...], RowRank]]:
    """Every (joker values, rank) for one row; values in the order of its jokers."""
    joker_count = sum(card in JOKERS for card in row)
    fixed = [card for card in row if card not in JOKERS]
    if joker_count == 0:
        return [((), rank_row(row))]
    return [(values, rank_row(fixed + list(values))) for values in combinations(free, joker_count)]


def best_reading(board: Board, royalties: RoyaltyFn) -> tuple[Board, ReadingValue]:
    """The board with each joker replaced by its best value, and that reading's value.

    ``royalties(top, middle, bottom)`` is the ruleset's royalty total for an
    unfouled reading.
    """
    on_board = set(board.cards)
    free = [card for card in range(DECK_SIZE) if card not in on_board]
    options = [_row_options(row, free) for row in board.rows]
    best: tuple[ReadingValue, tuple[tuple[int, ...], ...]] | None = None
    for choice in product(*options):
        values = [value for row_values, _ in choice for value in row_values]
        if len(set(values)) != len(values):
            continue
        top, middle, bottom = (rank for _, rank in choice)
        fouled = top.key > middle.key or middle.key > bottom.key
        points = 0 if fouled else royalties(top, middle, bottom)
        value: ReadingValue = (not fouled, points, bottom.key, middle.key, top.key)
        if best is None or value > best[0]:
            best = (value, tuple(row_values for row_values, _ in choice))
    assert best is not None
    rows = []
    for row, row_values in zip(board.rows, best[1], strict=True):
        fill = iter(row_values)
        rows.append(tuple(next(fill) if card in JOKERS else card for card in row))
    resolved = Board(*rows)
    assert len(rows) == len(ROWS)
    return resolved, best[0]
