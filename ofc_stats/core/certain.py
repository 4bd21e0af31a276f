"""When each fouled board's foul became unavoidable, for many boards at once in the core.

The definition is :func:`ofc_stats.engine.certain.foul_unavoidable_after`, one
board at a time; the core's twin (``rust/ofc-core/src/certain.rs``) answers
for every board on its threads with the GIL released, and
``tests/test_fouls_unavoidable.py`` proves the two equal board by board.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ofc_stats import _core


def foul_unavoidable_after(
    cards: npt.ArrayLike, streets: npt.ArrayLike, discards: npt.ArrayLike
) -> npt.NDArray[np.int16]:
    """The street after which each board's foul was unavoidable with the cards that
    came, -1 where the definition says None (no foul, a street unknown, a discard not
    recorded, not a real deal).

    ``cards`` and ``streets`` are (N, 13), ``discards`` (N, 4): the discard of streets
    1-4, -1 for none or not recorded (a street that placed two cards dealt three, so
    its -1 is a discard not recorded).

    >>> from ofc_stats.engine.cards import parse_cards as p
    >>> board = p("2s 3d 4c  Ah Ad 9c 9s 2d  Kh Jh 8c 6s 5d")
    >>> streets = [0, 0, 4,  0, 0, 1, 2, 3,  0, 1, 2, 3, 4]
    >>> foul_unavoidable_after([board], [streets], [p("7c Tc Qd 3s")]).tolist()
    [2]
    """

    def boards(array: npt.ArrayLike, width: int) -> npt.NDArray[np.int16]:
        return np.ascontiguousarray(array, dtype=np.int16).reshape(-1, width)

    return _core.foul_unavoidable_after(boards(cards, 13), boards(streets, 13), boards(discards, 4))
