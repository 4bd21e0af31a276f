"""How the store's summaries count: '1 batch', '2 batches', '1,409 hands'.

The store sits below ``ofc_stats.wording`` (its ``plural`` also writes fractions), so its
own summaries (recompute, forget) count whole things here, the one copy they share.

>>> counted(1, "batch", "batches"), counted(1409, "hand"), counted(0, "ledger row")
('1 batch', '1,409 hands', '0 ledger rows')
"""

from __future__ import annotations


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun, singular for one: never '1 batches'."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"
