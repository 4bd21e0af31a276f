"""How counts and figures read in every text ofc-stats writes (one home for each): the
plural, and numbers as the report page's script writes them, so a line printed by a
command, drawn by the page or built in Python reads the same.

>>> plural(1, "hand"), plural(1409, "hand"), plural(0.5, "point"), plural(2, "match", "matches")
('1 hand', '1,409 hands', '0.5 points', '2 matches')
>>> signed(-0.13, 0), signed(17.2, 0), signed(-4.381, 2), signed(1234.5, 2)
('0', '+17', '-4.38', '+1,234.50')
>>> per_100_text(1.5 + 2.0, 1.5**2 + 2.0**2, 2), per_100_text(0.03, 0.0009, 1)
('175.0 ± 25.0', '3.0 (no SE from one hand)')
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np


def plural(count: float, noun: str, nouns: str | None = None) -> str:
    """'1 point', '2 points', '1,409 hands', '0.5 points': never '1 points'."""
    text = f"{int(count):,}" if float(count).is_integer() else f"{count:g}"
    return f"{text} {noun if count == 1 else nouns or noun + 's'}"


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals and thousands separators, as the page's script
    writes it (``Intl.NumberFormat("en")``: the shortest decimal that reads back as the
    number, ``repr``'s, rounded half away from zero: 1.005 is 1.01)."""
    quantum = Decimal(1).scaleb(-digits)
    return f"{Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP):,}"


def plus(text: str, value: object) -> str:
    """A number's text with a + when it is above zero and shows a digit other than 0
    (``+1.19``; ``0.00``, never ``-0.00`` or ``+0.00``: as the page's script's ``plusNum``).

    >>> plus("1.19", 1.19), plus("-0.00", -0.001), plus("–", None)
    ('+1.19', '0.00', '–')
    """
    if not any(c in "123456789" for c in text):
        return text.replace("-", "", 1) if text.startswith("-") else text
    return "+" + text if isinstance(value, int | float | np.number) and value > 0 else text


def signed(value: float, digits: int) -> str:
    """Points with their sign, as the summary writes them: ``+1.19``, ``-0.30``, ``0.00``."""
    return plus(fixed(value, digits), value)


def per_100_text(total: float, squares: float, hands: int) -> str:
    """``2.9 ± 0.8`` expected points per 100 hands from the per-hand losses' sum and sum of
    squares (an SE needs two hands: ``3.0 (no SE from one hand)``)."""
    mean = total / hands
    if hands < 2:
        return f"{fixed(100 * mean, 1)} (no SE from one hand)"
    sd = math.sqrt(max(0.0, (squares - hands * mean * mean) / (hands - 1)))
    return f"{fixed(100 * mean, 1)} ± {fixed(100 * sd / math.sqrt(hands), 1)}"
