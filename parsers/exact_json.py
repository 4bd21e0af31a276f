"""``fast_json.loads`` with one more kind of text left to json: a 19-digit integer.

fast_json gives a text to orjson unless it holds a run of 20 digits, but
orjson turns an integer below -2**63 (19 digits, ``-9223372036854775809``)
into a float where json keeps the integer, so a hand id or a points value
could differ between the record path and the columnar readers.  The SwC and
fpdb readers decode through this until fast_json's own guard covers it.
"""

from __future__ import annotations

import json
from typing import Any

from parsers import fast_json

_DIGIT_RUNS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
_NINETEEN_DIGITS = b"0" * 19


def loads(text: Any) -> Any:
    """``json.loads(text)``: by fast_json, or by json itself for a 19-digit run."""
    if isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: fast_json would give it to json too
            return json.loads(text)
        if _NINETEEN_DIGITS in data.translate(_DIGIT_RUNS):
            return json.loads(text)
    return fast_json.loads(text)
