"""The SwC lane's reading thread: whole-line blocks in order, nothing lost where the core
stops, and a read error raised in its place.

``core_lane._Reader`` reads a capture ahead of the core's decoder; where the core stops,
the definition reads on from the bytes the reader already took (``rest``) and then the
stream, so those bytes must be exactly the ones not handed over yet.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from parsers import core_lane
from tests.readers import FailingAfter

DATA = b"".join(b'{"line": %d, "pad": "%s"}\n' % (i, b"x" * (i % 7)) for i in range(200))


def whole_lines(reader: core_lane._Reader) -> Iterator[tuple[bytes, bool]]:
    """The reader's parts as the blocks of whole lines they stand for: (block, last)."""
    yield from ((head + data[:end], last) for head, data, end, last in reader.parts())


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core_lane, "BLOCK_BYTES", 100)  # lines cut across many reads


def test_blocks_are_whole_lines_and_the_whole_stream() -> None:
    reader = core_lane._Reader(io.BytesIO(DATA + b'{"cut'))
    blocks = list(whole_lines(reader))
    reader.close()
    assert all(block.endswith(b"\n") for block, _ in blocks[:-1])
    assert [last for _, last in blocks] == [False] * (len(blocks) - 1) + [True]
    assert b"".join(block for block, _ in blocks) == DATA + b'{"cut'


@pytest.mark.parametrize("taken", [0, 1, 5])
def test_the_rest_is_every_byte_not_handed_over(taken: int) -> None:
    """After ``taken`` blocks, the rest then the stream give back the file, in order."""
    stream = io.BytesIO(DATA)
    reader = core_lane._Reader(stream)
    blocks = whole_lines(reader)
    head = b"".join(next(blocks)[0] for _ in range(taken))
    rest = reader.rest()
    assert head + rest + stream.read() == DATA


def test_a_read_error_comes_out_after_the_blocks_before_it() -> None:
    reader = core_lane._Reader(io.BufferedReader(FailingAfter(DATA, 1000), 64))
    seen = b""
    with pytest.raises(OSError, match="read error"):
        for block, _ in whole_lines(reader):
            seen += block
    reader.close()
    assert DATA.startswith(seen) and len(seen) > 800  # the whole lines before the error


def test_a_closed_lane_closes_what_it_read_from_at_once() -> None:
    """``ahead`` closes its items when it stops, so a block reader's thread (in the items'
    ``finally``) stops with the lane, not whenever the garbage collector reaches a cycle
    holding it (with this cycle and the collector off: never)."""
    import gc
    import threading

    closed = threading.Event()

    def blocks() -> Iterator[int]:
        try:
            yield from range(100)
        finally:
            closed.set()

    items = blocks()
    cycle: list[object] = [items]
    cycle.append(cycle)  # only a collection would free the items
    enabled = gc.isenabled()
    gc.disable()
    try:
        lane = core_lane.ahead(items, "test")
        del items, cycle
        assert next(lane) == 0
        lane.close()
        assert closed.is_set()
    finally:
        if enabled:
            gc.enable()
