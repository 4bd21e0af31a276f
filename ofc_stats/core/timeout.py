"""Which stored streets match the timeout auto-placement, in the compiled core.

The fast twin of :mod:`ofc_stats.engine.timeout` (the definition) for the
recompute: ``rust/ofc-core/src/timeout.rs`` compares each street's row
counts with the rule (fill the bottom, then the middle, then the top), card
order aside; ``tests/test_core_timeout.py`` proves it equal to the engine.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.engine.rules import Variant


def timeout_mask(
    streets: npt.ArrayLike, in_fantasy: npt.ArrayLike, variant: Variant
) -> npt.NDArray[np.int16]:
    """Bit s set where street s of a seat matches the auto-placement, order-free.

    ``streets`` is (n, 13): the street of each board card (top 3, middle 5,
    bottom 5), -1 when unknown.  Forced streets, Fantasyland seats and seats
    with an unknown street are never flagged.

    >>> ruled = [[3, 4, 4, 1, 1, 2, 2, 3, 0, 0, 0, 0, 0]]  # dealt by the rule
    >>> timeout_mask(ruled, [False], Variant.PINEAPPLE).tolist()  # street 4 is forced
    [15]
    """
    return _core.timeout_mask(
        np.ascontiguousarray(streets, dtype=np.int8).reshape(-1, 13),
        np.ascontiguousarray(in_fantasy, dtype=bool).reshape(-1),
        placed=[placed for _, placed in variant.streets],
    )
