"""Rake rules that explain as many winning seats within a cent are told apart by the
seats each gives to the cent: a cent of slack must not let a rounding that is a cent
out on many seats tie with the room's own and win by coming first.

Upoker USD on the real samples: 3% rounded up to 0.01 gives 105 of its 106 winning
seats to the cent, rounded to the nearest 97 (both 105 within a cent); the audit named
the nearest.
"""

from __future__ import annotations

import numpy as np

from ofc_stats.audit.money import Winners, infer_rake

# Five of Upoker's winning seats (gross, money paid), USD.  3% of each, to the cent:
#   0.8  -> 0.024: up 0.03, nearest 0.02; paid 0.77 (kept 0.03)
#   6.4  -> 0.192: up 0.20, nearest 0.19; paid 6.20 (kept 0.20)
#   3.4  -> 0.102: up 0.11, nearest 0.10; paid 3.29 (kept 0.11)
#   10.0 -> 0.300: both 0.30;            paid 9.70
#   9.0  -> 0.270: both 0.27;            paid 8.73
# Rounded up: all five to the cent.  Rounded to the nearest (or down): two to the cent,
# the other three a cent out, inside the audit's cent of slack: five within it as well.
GROSS = np.array([0.8, 6.4, 3.4, 10.0, 9.0])
PAID = np.array([0.77, 6.20, 3.29, 9.70, 8.73])


def test_of_rules_tied_within_a_cent_the_one_exact_on_more_seats_is_inferred() -> None:
    rake = infer_rake("Upoker USD", Winners.pairs(GROSS, PAID, np.ones(5, dtype=np.int64)))
    assert (rake.rate, rake.tick, rake.mode, rake.cap) == (0.03, 0.01, "up", None)
    assert (rake.explained, rake.winners) == (5, 5)
