"""Untrusted text made safe for where it goes: a terminal, or a spreadsheet cell.

Player names, table ids and raw lines come from files anyone can write.  A
terminal obeys escape sequences and a spreadsheet runs formulas, so both get
the text defused, never trusted.  Lowest layer (stdlib only): the CLI, the
reports and the audit all use it.
"""

from __future__ import annotations

import re
from typing import Any

# C0 and C1 control characters except tab and newline; DEL too.  ESC starts the
# ANSI/OSC sequences that could recolour, retitle or rewrite a terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What a spreadsheet reads as the start of a formula (OWASP "CSV injection"),
# also after leading blanks, which Excel skips.
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def terminal_safe(text: str) -> str:
    """``text`` with every control character shown as an escape, never sent raw.

    >>> terminal_safe("bad\\x1b]0;pwned\\x07name")
    'bad\\\\x1b]0;pwned\\\\x07name'
    """
    # A lone surrogate (JSON's "\\ud800", an undecodable file name) cannot be
    # written to a terminal at all: shown as its escape too.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def csv_cell(value: Any) -> Any:
    """A cell a spreadsheet shows as text, never evaluates; numbers stay as they are.

    A plain signed number (``-7``, ``+3.5``) is a value, not a formula, so it
    is left readable as a number.

    >>> csv_cell("=HYPERLINK(\\"http://x\\")"), csv_cell("-7"), csv_cell("@SUM(A1)"), csv_cell(3)
    ('\\'=HYPERLINK("http://x")', '-7', "'@SUM(A1)", 3)
    """
    if (
        isinstance(value, str)
        and value.lstrip(" ").startswith(_FORMULA)
        and not _NUMBER.fullmatch(value.strip())
    ):
        return "'" + value
    return value


def csv_frame(frame: Any) -> Any:
    """A copy of a pandas DataFrame whose text cells are :func:`csv_cell` (numbers stay numbers)."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or str(out[column].dtype) in ("string", "str"):
            out[column] = out[column].map(csv_cell)
    safe_names = [csv_cell(str(c)) if isinstance(c, str) else c for c in out.columns]
    out.columns = safe_names
    return out
