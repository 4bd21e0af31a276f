"""When a foul became unavoidable (``ofc_stats.engine.certain``, the fouls table's column).

The search (discard choices, then splits of the kept cards over the open
places, stopping at the first unfouled board) is checked against plain brute
force over every order of the kept cards, on random pineapple deals; the
core's twin (``ofc_stats.core.certain``, which the report calls) against the
engine board by board, and on the real samples against the column it
replaced, which put almost every foul at the last street.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import permutations, product
from pathlib import Path

import numpy as np
import pytest

from ofc_stats.core.certain import foul_unavoidable_after as core_unavoidable
from ofc_stats.engine.board import ROW_SLICES
from ofc_stats.engine.certain import foul_unavoidable_after, savable
from ofc_stats.engine.rank import rank_row

APPS = Path("/work/shared/samples/apps")


def _brute(rows: list[tuple[int, ...]], streets: list[list[int]]) -> bool:
    """Every discard choice, every order of the kept cards over the open places."""
    empty = [3 - len(rows[0]), 5 - len(rows[1]), 5 - len(rows[2])]
    for kept in product(*[[tuple(c for c in s if c != d) for d in s] for s in streets]):
        cards = [c for street in kept for c in street]
        for order in permutations(cards):
            top = rows[0] + order[: empty[0]]
            middle = rows[1] + order[empty[0] : empty[0] + empty[1]]
            bottom = rows[2] + order[empty[0] + empty[1] :]
            keys = [rank_row(row).key for row in (top, middle, bottom)]
            if keys[0] <= keys[1] <= keys[2]:
                return True
    return False


def _deal(rng: random.Random) -> tuple[list[int], list[int], dict[int, int]]:
    """A random pineapple board (13 cards, the street of each) and its 4 discards."""
    deck = rng.sample(range(52), 17)
    places = list(range(13))
    rng.shuffle(places)
    board, streets = [0] * 13, [0] * 13
    order = [0] * 5 + [1, 1, 2, 2, 3, 3, 4, 4]
    for card, place, street in zip(deck, places, order, strict=False):
        board[place], streets[place] = card, street
    return board, streets, dict(enumerate(deck[13:], start=1))


def test_the_search_agrees_with_brute_force_on_random_deals() -> None:
    rng = random.Random(7)
    checked = {True: 0, False: 0}
    while min(checked.values()) < 60:
        board, streets, discards = _deal(rng)
        for street in (2, 3):  # two or four places open: brute force stays small
            rows = [
                tuple(c for c, s in zip(board[p], streets[p], strict=True) if s <= street)
                for p in ROW_SLICES
            ]
            later = [
                [c for c, s in zip(board, streets, strict=True) if s == at] + [discards[at]]
                for at in range(street + 1, 5)
            ]
            found = savable(rows, later, [True] * len(later))
            assert found == _brute(rows, later), (board, streets, discards, street)
            checked[found] += 1


def test_unavoidable_is_no_later_than_both_rows_complete_and_never_before_it_was() -> None:
    rng = random.Random(8)
    fouled = 0
    while fouled < 150:
        board, streets, discards = _deal(rng)
        street = foul_unavoidable_after(board, streets, discards)
        if street is None:
            continue
        fouled += 1
        if street > 0:  # the street before could still be saved
            rows = [
                tuple(c for c, s in zip(board[p], streets[p], strict=True) if s <= street - 1)
                for p in ROW_SLICES
            ]
            later = [
                [c for c, s in zip(board, streets, strict=True) if s == at] + [discards[at]]
                for at in range(street, 5)
            ]
            assert savable(rows, later, [True] * len(later))


def _classic(rng: random.Random) -> tuple[list[int], list[int], dict[int, int]]:
    """A random classic board: five cards, then one a street for eight streets, no discard."""
    deck = rng.sample(range(52), 13)
    places = list(range(13))
    rng.shuffle(places)
    board, streets = [0] * 13, [0] * 13
    for card, place, street in zip(deck, places, [0] * 5 + list(range(1, 9)), strict=True):
        board[place], streets[place] = card, street
    return board, streets, {}


def test_the_core_is_the_engines_definition() -> None:
    """The core's twin (every board at once) against the engine's definition board by
    board: pineapple and classic deals, fouled or not, with a discard not recorded, a
    card twice (on the board, or discarded too), a joker on the board or discarded, an
    unknown street and a street past the 13th."""
    rng = random.Random(9)
    boards, placed, thrown, expected = [], [], [], []
    for n in range(2500):
        board, streets, discards = (_classic if n % 5 == 0 else _deal)(rng)
        dropped = [discards.get(at, -1) for at in range(1, 5)]
        if n % 7 == 1 and discards:
            dropped[n % 4] = -1  # a discard not recorded
        if n % 11 == 2 and discards:
            dropped[0] = board[4]  # a card twice: discarded and on the board
        if n % 17 == 4:
            board[7] = board[2]  # a card twice on the board
        if n % 13 == 3:
            board[12] = 52  # a joker
        if n % 19 == 5 and discards:
            dropped[1] = 53  # a joker discarded
        if n % 23 == 6:
            streets[0] = -1  # a street not known
        if n % 29 == 7:
            streets[12] = 13  # more streets than cards
        known = {
            at: (card if card >= 0 else None)
            for at, card in enumerate(dropped, start=1)
            if streets.count(at) == 2 or card >= 0
        }
        found = foul_unavoidable_after(board, streets, known)
        boards.append(board)
        placed.append(streets)
        thrown.append(dropped)
        expected.append(-1 if found is None else found)
    column = core_unavoidable(np.array(boards), np.array(placed), np.array(thrown))
    assert column.tolist() == expected
    counts = Counter(expected)
    assert counts[-1] < 2000 and all(counts[street] > 10 for street in range(5))  # a fair mix
    # classic boards' later streets; never the 8th (index 8): its one card has one place
    assert all(counts[street] for street in range(5, 8)) and not counts[8]


@pytest.mark.skipif(not APPS.is_dir(), reason="shared/samples/apps is not here")
def test_on_the_real_samples_the_column_tells_the_streets_apart(tmp_path: Path) -> None:
    from ofc_stats.store.importer import import_paths
    from ofc_stats.store.recompute import recompute
    from reports.streetwise import fouled_boards

    data = tmp_path / "data"
    import_paths([APPS], data)
    recompute(data)
    cards = fouled_boards(data)
    street = core_unavoidable(cards.cards, cards.streets, cards.discards)
    counts = {int(s): int(n) for s, n in zip(*np.unique(street, return_counts=True), strict=True)}
    # 1,058 fouls: the old column (both rows complete) put 1,049 at the last street
    assert counts == {-1: 73, 0: 13, 1: 149, 2: 428, 3: 390, 4: 5}
