"""fastlines: the cheap per-line tests agree with the plain ones they replace."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.fastlines import Block

PIECES = [b"\n", b" ", b"\t", b"\r", b"\x1f", b"x", b"{", b"}", b"\xc3\xa9", b"  x  "]


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(PIECES), max_size=60))
def test_blank_lines_and_line_numbers_are_the_plain_answers(parts: list[bytes]) -> None:
    from parsers.fastlines import _blank

    data = b"".join(parts)
    block = Block(data, 1, 0, at_eof=True, max_object=1 << 20)
    if not block.count:
        return
    raw = np.frombuffer(data, dtype=np.uint8)
    starts, ends = block.line_starts, block.line_ends
    content = ends - (raw[ends - 1] == 10)
    content = content - ((content > starts) & (raw[np.maximum(content - 1, 0)] == 13))
    first, last = raw[starts], raw[np.maximum(content - 1, 0)]
    plain = ~np.logical_or.reduceat(raw > 32, starts)  # no byte above space in the line
    assert _blank(raw, starts, ends, first, last).tolist() == plain.tolist()
    for offset in [*starts.tolist(), len(data)]:
        assert block.newlines_before(offset) == data.count(b"\n", 0, offset)
