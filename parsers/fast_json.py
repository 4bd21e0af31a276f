"""``json.loads`` at orjson's speed, with json's answer wherever the two could differ.

orjson (a well-kept Rust decoder, about 3x the standard library on SwC
snapshot lines) returns the same objects as :func:`json.loads` for every text
it accepts, except: integers outside 64 bits (orjson gives a float; the
shortest is -9223372036854775809, 19 digits, so every run of 19 digits goes
to json) and nesting deep enough for json to raise RecursionError (orjson
allows 1024 levels).  Texts that could hold either, and every text orjson refuses
(NaN, 1e400, lone surrogate escapes, ...), are read by json itself, so the
result, and the error message a quarantine reason quotes, is json's.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

# Every digit becomes "0", everything else a space: a run of 19 zeros may not fit 64 bits.
_DIGIT_RUNS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
_LONG_NUMBER = b"0" * 19
_MAX_BRACKETS = 400  # far below json's recursion limit, so json would not raise on depth


def loads(text: Any) -> Any:
    """``json.loads(text)``, decoded by orjson when that is sure to give the same value."""
    if isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (from an escape in an outer string)
            return json.loads(text)
        if data.count(b"[") + data.count(
            b"{"
        ) < _MAX_BRACKETS and _LONG_NUMBER not in data.translate(_DIGIT_RUNS):
            try:
                return orjson.loads(data)
            except orjson.JSONDecodeError:
                pass
    return json.loads(text)
