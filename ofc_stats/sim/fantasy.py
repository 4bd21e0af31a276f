"""Setting Fantasyland hands for many seats at once.

A Fantasyland player sees 13-17 cards and sets 13.  The setter takes the
strongest five-card bottom among all the cards, the strongest middle among
the rest, then the strongest top that does not foul; the rest are discarded.
Each step ranks every combination with the engine's tables in one call.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ofc_stats.rank_tables import classify_five_columns, classify_three_columns, tables


@lru_cache(maxsize=32)
def _combos(n: int, k: int) -> npt.NDArray[np.int64]:
    return np.array(list(combinations(range(n), k)), dtype=np.int64)


def _best(
    cards: npt.NDArray[np.int8], k: int, limit: npt.NDArray[np.int16] | None
) -> npt.NDArray[np.int64]:
    """Index into _combos(n, k) of each row's strongest k cards (at most ``limit`` for tops)."""
    combos = _combos(cards.shape[1], k)
    chosen = cards[:, combos]  # (n, M, k)
    cols = np.ascontiguousarray(chosen.reshape(-1, k).T)
    classify = classify_three_columns if k == 3 else classify_five_columns
    classes = classify(cols).reshape(len(cards), -1).astype(np.int32)
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


def set_fantasy(cards: npt.NDArray[np.int8]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """Boards (n, 13: top, middle, bottom) and discards (n, N - 13) for (n, N) dealt cards.

    Joker-free cards only; the simulator sets joker Fantasylands by reading the
    joker as its best card first.
    """
    bottom, rest = _take(cards, _best(cards, 5, None), 5)
    middle, rest = _take(rest, _best(rest, 5, None), 5)
    middle_class = classify_five_columns(np.ascontiguousarray(middle.T))
    limit = tables().top_limit[middle_class]
    top, discards = _take(rest, _best(rest, 3, limit), 3)
    return np.concatenate([top, middle, bottom], axis=1), discards
