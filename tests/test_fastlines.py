"""fastlines: the cheap per-line tests agree with the plain ones they replace."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.fastlines import Block, Lines

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


class _ReadOnly:
    """A stream with only ``read`` (no ``readinto``), giving at most ``most`` bytes a call."""

    def __init__(self, data: bytes, most: int) -> None:
        self.stream, self.most = io.BytesIO(data), most

    def read(self, size: int) -> bytes:
        return self.stream.read(min(size, self.most))


class _ShortReads(_ReadOnly):
    def readinto(self, buffer: memoryview) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.sampled_from([*PIECES, b"{\n}\n", b"\n\n\n"]), max_size=80),
    block=st.integers(1, 40),
    most=st.integers(1, 50),
)
def test_every_kind_of_stream_gives_the_same_lines(
    parts: list[bytes], block: int, most: int
) -> None:
    """readinto, read only, short reads: each line once, whole, with its number and offset."""
    data = b"".join(parts)
    lines = [line + b"\n" for line in data.split(b"\n")]
    lines[-1] = lines[-1][:-1]  # after the last newline: a line only if not empty
    lines = lines if lines[-1] else lines[:-1]
    want = [(n + 1, sum(map(len, lines[:n])), line) for n, line in enumerate(lines)]
    for stream in (io.BytesIO(data), _ReadOnly(data, most), _ShortReads(data, most)):
        got = []
        for found in Lines(stream, block, 1 << 20):  # type: ignore[arg-type]
            got += [(found.number(i), found.offset(i), found.raw(i)) for i in range(found.count)]
        assert got == want, stream
