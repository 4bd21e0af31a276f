"""Untrusted text made safe for where it goes: a terminal, a page, JSON, or a spreadsheet cell.

Player names, table ids and raw lines come from files anyone can write.  A
terminal obeys escape sequences and a spreadsheet runs formulas, so both get
the text defused, never trusted.  A data format (JSON, CSV) keeps the data as
it is: JSON escapes what a terminal would obey, CSV quotes and neutralises
formulas only.  Lowest layer (stdlib only): the CLI, the reports and the audit
all use it.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

# Every C0 control (tab and newline too: one row stays one line), DEL and
# every C1 control.  ESC starts the ANSI/OSC sequences that could recolour,
# retitle or rewrite a terminal; U+009B is CSI on its own.  Also the invisible
# format characters that reorder or hide text (bidirectional overrides and
# isolates such as U+202E, the Arabic letter mark U+061C, zero-width marks, the
# line separators, the BOM, the Mongolian vowel separator and the interlinear
# annotation marks): a name must read on a terminal as the bytes it is.
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"
)
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
# What JSON may carry raw but a terminal or a JavaScript parser should not see:
# DEL, C1, the line and paragraph separators and lone surrogates.
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff]")
# What a spreadsheet reads as the start of a formula (OWASP "CSV injection"),
# also after leading blanks, which Excel skips.
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def terminal_safe(text: str) -> str:
    """``text`` on one line with every control character shown as an escape, never sent raw.

    >>> terminal_safe("bad\\x1b]0;pwned\\x07name\\n")
    'bad\\\\x1b]0;pwned\\\\x07name\\\\n'
    >>> terminal_safe("Ana\\u202egnp.exe")  # a right-to-left override shown, not obeyed
    'Ana\\\\u202egnp.exe'
    """
    # A lone surrogate (JSON's "\\ud800", an undecodable file name) cannot be
    # written to a terminal at all: shown as its escape too.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(_escape, text)


def terminal_lines(text: str) -> str:
    """Text whose line breaks are ours (a message, a block): each line :func:`terminal_safe`."""
    return "\n".join(terminal_safe(line) for line in text.split("\n"))


def html_text(text: str) -> str:
    """Untrusted text for a page's text (not an attribute a script matches on): escaped, its
    control and invisible format characters shown as escapes, as on a terminal; line
    breaks kept (HTML folds them).

    >>> html_text("<b>Ana</b>\\x1b[31m\\x00")
    '&lt;b&gt;Ana&lt;/b&gt;\\\\x1b[31m\\\\x00'
    """
    return html.escape(terminal_lines(text))


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")


def json_text(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON (UTF-8 kept readable) with nothing a terminal would obey.

    JSON already escapes C0; DEL, C1, U+2028/U+2029 and lone surrogates are
    escaped as ``\\uXXXX`` too, which any JSON reader decodes to the same text.
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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


def csv_field(text: str) -> str:
    """One CSV field, quoted when it holds a comma, a quote or a line break.

    The csv module leaves a lone CR unquoted when rows end in LF, and a
    reader then splits the row there; here any CR or LF is quoted.

    >>> print(csv_field("a,b"), csv_field('6" wide'), csv_field("plain"))
    "a,b" "6"" wide" plain
    """
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_text(header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> str:
    """CSV of a header and rows, LF line ends: each text cell through :func:`csv_cell`
    and every cell quoted as :func:`csv_field` says (a lone CR too); None and NaN are empty.

    >>> csv_text(["name", "points"], [["a\\rb", 1.5], ["c", None]])
    'name,points\\n"a\\rb",1.5\\nc,\\n'
    """
    lines = [",".join(csv_field(str(csv_cell(str(name)))) for name in header)]
    for row in rows:
        lines.append(",".join(csv_field(_csv_value(value)) for value in row))
    return "\n".join(lines) + "\n"


def _csv_value(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return ""
    return str(csv_cell(value))
