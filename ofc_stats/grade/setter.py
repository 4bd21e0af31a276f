"""How the grader's rollouts set a Fantasyland opponent's hand: fast and greedy.

A Fantasyland opponent's board is hidden, so each rollout deals it cards and
sets them; the exact solver costs milliseconds a deal, too much for every
rollout.  The setter (the simulator's before it used the solver) takes the
strongest five-card bottom, the strongest middle among the rest, then the
strongest top that does not foul; the rest are discarded.  Each step ranks
every combination with the engine's tables in one call.  Greedy sets score
a few royalty points below the exact ones: opponents in Fantasyland are
played a little weaker than they are.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.vector.rank_tables import classify_five, classify_rows, tables


@lru_cache(maxsize=32)
def _combos(n: int, k: int) -> npt.NDArray[np.int64]:
    return np.array(list(combinations(range(n), k)), dtype=np.int64)


def _best(
    cards: npt.NDArray[np.int8], k: int, limit: npt.NDArray[np.int16] | None
) -> npt.NDArray[np.int64]:
    """Index into _combos(n, k) of each row's strongest k cards (at most ``limit`` for tops)."""
    combos = _combos(cards.shape[1], k)
    chosen = cards[:, combos]  # (n, M, k)
    classes = classify_rows(chosen.reshape(-1, k)).reshape(len(cards), -1).astype(np.int32)
    if limit is not None:
        classes = np.where(classes <= limit[:, None], classes, -1 - classes)
    best: npt.NDArray[np.int64] = classes.argmax(axis=1)
    return best


def _take(cards: npt.NDArray[np.int8], combo: npt.NDArray[np.int64], k: int):  # type: ignore[no-untyped-def]
    """The chosen cards and the remaining cards of each row."""
    n, width = cards.shape
    picked = _combos(width, k)[combo]  # (n, k)
    mask = np.ones((n, width), dtype=bool)
    mask[np.arange(n)[:, None], picked] = False
    chosen = np.take_along_axis(cards, picked, axis=1)
    rest = cards[mask].reshape(n, width - k)
    return chosen, rest


def _stand_ins(cards: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """Each joker replaced by a real card it could be: the hand's most frequent rank
    (the highest on ties) in a suit the hand does not hold.

    The engine reads a joker at least as well as any one card it could stand
    for, so a board that does not foul with the stand-ins does not foul with
    the jokers back.
    """
    out = cards.copy()
    for row in range(len(cards)):
        for index in np.flatnonzero(out[row] >= 52):
            real = out[row][out[row] < 52]
            counts = np.bincount(real >> 2, minlength=13) * 16 + np.arange(13)
            for rank in np.argsort(-counts):
                free = [rank * 4 + suit for suit in range(4) if rank * 4 + suit not in real]
                if free:
                    out[row, index] = free[0]
                    break
    return out


def set_fantasy(cards: npt.NDArray[np.int8]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """Boards (n, 13: top, middle, bottom) and discards (n, N - 13) for (n, N) dealt cards."""
    jokers = cards >= 52
    if jokers.any():
        stand_in = _stand_ins(cards)
        boards, thrown = set_fantasy(stand_in)
        return _jokers_back(boards, cards, stand_in), _jokers_back(thrown, cards, stand_in)
    bottom, rest = _take(cards, _best(cards, 5, None), 5)
    middle, rest = _take(rest, _best(rest, 5, None), 5)
    middle_class = classify_five(middle)
    limit = tables().top_limit[middle_class]
    top, discards = _take(rest, _best(rest, 3, limit), 3)
    return np.concatenate([top, middle, bottom], axis=1), discards


def _jokers_back(
    placed: npt.NDArray[np.int8], cards: npt.NDArray[np.int8], stand_in: npt.NDArray[np.int8]
) -> npt.NDArray[np.int8]:
    """Put each joker back where its stand-in went."""
    out = placed.copy()
    rows, columns = np.nonzero(cards >= 52)
    for row, column in zip(rows.tolist(), columns.tolist(), strict=True):
        out[row][out[row] == stand_in[row, column]] = cards[row, column]
    return out
