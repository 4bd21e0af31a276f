"""The row classes, as the core ranks rows: dense strength indices, keys and the top's limit.

A row's *class* is its strength's index among every distinct strength: 0..7461
for 5-card rows and 0..454 for 3-card rows, ascending.  The dataset stores
classes; :func:`tables` gives what each class means (its
:class:`~ofc_stats.engine.rank.RowRank`, its key on the shared scale) and,
for each middle class, the strongest top class that does not foul under it.
The core builds the tables from its own twin of ``rank_row``;
``tests/test_core_tables.py`` proves them equal to the Python definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.engine.rank import Category, RowRank


@dataclass(frozen=True)
class ClassTables:
    key5: npt.NDArray[np.int32]  # class -> RowRank.key, ascending
    key3: npt.NDArray[np.int32]
    top_limit: npt.NDArray[np.int16]  # 5-card class -> highest top class not above it
    rank5: tuple[RowRank, ...]  # class -> category and deciding ranks
    rank3: tuple[RowRank, ...]


def _ranks(rows: npt.NDArray[np.int8]) -> tuple[RowRank, ...]:
    categories = list(Category)
    return tuple(
        RowRank(categories[row[0]], tuple(r for r in row[1:] if r >= 0)) for row in rows.tolist()
    )


@lru_cache(maxsize=1)
def tables() -> ClassTables:
    """The core's class tables (built once per process, in milliseconds).

    >>> from ofc_stats.engine.cards import parse_cards
    >>> t = tables()
    >>> len(t.key5), len(t.key3)
    (7462, 455)
    >>> t.rank5[-1].describe(), t.rank3[-1].describe()
    ('royal flush', 'three As')
    """
    raw = _core.rank_tables()
    return ClassTables(
        key5=raw["key5"],
        key3=raw["key3"],
        top_limit=raw["top_limit"],
        rank5=_ranks(raw["rank5"]),
        rank3=_ranks(raw["rank3"]),
    )


def classify_five(cards: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """Class (0..7461) of each row of an (N, 5) array of distinct real card ids.

    >>> from ofc_stats.engine.cards import parse_cards
    >>> classify_five([parse_cards("Ah Kh Qh Jh Th"), parse_cards("2c 3d 4h 5s 7c")]).tolist()
    [7461, 0]
    """
    return _core.classify_five(np.ascontiguousarray(cards, dtype=np.int8).reshape(-1, 5))


def classify_three(cards: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """Class (0..454) of each row of an (N, 3) array of distinct real card ids."""
    return _core.classify_three(np.ascontiguousarray(cards, dtype=np.int8).reshape(-1, 3))
