"""How counts read in every text ofc-stats writes: one home for the plural.

>>> plural(1, "hand"), plural(1409, "hand"), plural(0.5, "point"), plural(2, "match", "matches")
('1 hand', '1,409 hands', '0.5 points', '2 matches')
"""

from __future__ import annotations


def plural(count: float, noun: str, nouns: str | None = None) -> str:
    """'1 point', '2 points', '1,409 hands', '0.5 points': never '1 points'."""
    text = f"{int(count):,}" if float(count).is_integer() else f"{count:g}"
    return f"{text} {noun if count == 1 else nouns or noun + 's'}"
