"""A stream as blocks of whole lines, each line classified by NumPy: what the fast readers scan.

The fast readers walk objects, not bytes: for each line they need its kind
(blank, ``{``, ``}``, one ``{...}`` object, anything else), where it starts
and where its text ends, and for a ``{`` line the next line that starts with
a brace.  One pass of vectorised comparisons over a block gives all of it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

import numpy as np

# What ``str.strip()`` removes that is ASCII: a line of only these is blank to the definition.
_BLANK_BYTES = np.zeros(256, dtype=bool)
_BLANK_BYTES[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True


@contextmanager
def frozen_gc() -> Iterator[None]:
    """No cyclic garbage collection while a chunk is built (its objects hold no cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def source_storable(source: str) -> bool:
    """Whether the file name is valid Unicode (validate_hand refuses every hand otherwise)."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Block:
    """Whole lines of a stream: their kinds, starts and text ends (newline and CR excluded)."""

    def __init__(self, data: bytes, first_number: int, first_offset: int, at_eof: bool) -> None:
        self.data, self.first_number, self.first_offset, self.at_eof = (
            data,
            first_number,
            first_offset,
            at_eof,
        )
        raw = np.frombuffer(data, dtype=np.uint8)
        size = len(raw)
        newlines = np.flatnonzero(raw == 10)
        starts = np.concatenate(([0], newlines + 1))
        ends = np.concatenate((newlines + 1, [size]))
        if starts[-1] == size:
            starts, ends = starts[:-1], ends[:-1]
        count = len(starts)
        self.count = count
        if count == 0:
            self.kinds: list[int] = []
            self.starts: list[int] = []
            self.ends: list[int] = []
            self.content_ends: list[int] = []
            self._next: list[int] = []
            self._blanks: list[int] = [0]
            return
        content = ends - (raw[ends - 1] == 10)
        has_cr = (content > starts) & (raw[np.maximum(content - 1, 0)] == 13)
        content = content - has_cr
        length = content - starts
        first = raw[starts]
        last = raw[np.maximum(content - 1, 0)]
        not_blank = np.concatenate(([0], np.cumsum(~_BLANK_BYTES[raw])))
        blank = (not_blank[ends] - not_blank[starts]) == 0
        brace = (first == ord("{")) | (first == ord("}"))
        kinds = np.full(count, Lines.OTHER, dtype=np.int64)
        kinds[(length >= 2) & (first == ord("{")) & (last == ord("}"))] = Lines.ONE
        kinds[(length == 1) & (first == ord("{"))] = Lines.OPEN
        kinds[(length == 1) & (first == ord("}"))] = Lines.CLOSE
        kinds[blank] = Lines.BLANK
        structural = np.flatnonzero(brace & ~blank)
        following = np.searchsorted(structural, np.arange(count), side="right")
        padded = np.concatenate((structural, [-1]))
        self.kinds = kinds.tolist()
        self.starts = starts.tolist()
        self.ends = ends.tolist()
        self.content_ends = content.tolist()
        self._next = padded[following].tolist()
        self._blanks = np.concatenate(([0], np.cumsum(blank))).tolist()

    def number(self, index: int) -> int:
        """The line number (from 1) of line ``index`` of the block."""
        return self.first_number + index

    def offset(self, index: int) -> int:
        return self.first_offset + self.starts[index]

    def raw(self, index: int) -> bytes:
        """The line's bytes with its newline, as iterating the stream gives it."""
        return self.data[self.starts[index] : self.ends[index]]

    def next_structural(self, index: int) -> int:
        """The next line after ``index`` that starts with ``{`` or ``}`` (-1: none in the block)."""
        return self._next[index]

    def blanks_between(self, first: int, last: int) -> bool:
        return self._blanks[last] - self._blanks[first + 1] > 0

    def size_from(self, index: int) -> int:
        return len(self.data) - self.starts[index]


class Lines:
    """Blocks of whole lines of a stream; the reader may leave a block's tail for the next."""

    BLANK, OPEN, CLOSE, ONE, OTHER = range(5)

    def __init__(self, stream: BinaryIO, block_bytes: int) -> None:
        self.stream = stream
        self.block_bytes = block_bytes
        self._kept: int | None = None

    def keep_from(self, index: int) -> None:
        """Lines from ``index`` on were not read: they start the next block."""
        self._kept = index

    def __iter__(self) -> Iterator[Block]:
        carry = b""
        number, offset = 1, 0
        while True:
            data = self.stream.read(self.block_bytes)
            at_eof = not data
            buffer = carry + data if carry else data
            if at_eof:
                work, carry = buffer, b""
            else:
                cut = buffer.rfind(b"\n") + 1
                if cut == 0:
                    carry = buffer
                    continue
                work, carry = buffer[:cut], buffer[cut:]
            if not work:
                return
            self._kept = None
            block = Block(work, number, offset, at_eof)
            yield block
            used = len(work) if self._kept is None else block.starts[self._kept]
            number += work.count(b"\n", 0, used)
            offset += used
            if used < len(work):
                carry = work[used:] + carry
            if at_eof:
                return
