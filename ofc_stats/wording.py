"""How counts and signed figures read in every text ofc-stats writes (one home for each).

>>> plural(1, "hand"), plural(1409, "hand"), plural(0.5, "point"), plural(2, "match", "matches")
('1 hand', '1,409 hands', '0.5 points', '2 matches')
>>> signed(-0.13), signed(17.2), signed(-4.381, 2), signed(1234.5, 2)
('0', '+17', '-4.38', '+1,234.50')
"""

from __future__ import annotations


def plural(count: float, noun: str, nouns: str | None = None) -> str:
    """'1 point', '2 points', '1,409 hands', '0.5 points': never '1 points'."""
    text = f"{int(count):,}" if float(count).is_integer() else f"{count:g}"
    return f"{text} {noun if count == 1 else nouns or noun + 's'}"


def signed(value: float, digits: int = 0) -> str:
    """A gain or a loss with its sign and thousands separated, rounded to ``digits``; a
    figure that rounds to zero has no sign (never "-0" or "+0.00")."""
    text = f"{value:+,.{digits}f}"
    return text[1:] if float(text.replace(",", "")) == 0 else text
