"""Untrusted text made safe for where it goes: a terminal (and, later, CSV cells)."""

from __future__ import annotations

import re

# C0 and C1 control characters except tab and newline; DEL too.  ESC starts the
# ANSI/OSC sequences that could recolour, retitle or rewrite a terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """``text`` with every control character shown as an escape, never sent raw.

    >>> terminal_safe("bad\\x1b]0;pwned\\x07name")
    'bad\\\\x1b]0;pwned\\\\x07name'
    """
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
