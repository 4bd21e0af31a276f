"""A stream as blocks of whole lines, each line classified by NumPy: what the fast readers scan.

The fast readers walk objects, not bytes: for each line they need its kind
(blank, ``{``, ``}``, one ``{...}`` object, anything else), where it starts
and where its text ends, and for a ``{`` line the next line that starts with
a brace.  One pass of vectorised comparisons over a block gives all of it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import BinaryIO, TypeVar

import numpy as np
import pyarrow as pa

T = TypeVar("T")
# What ``str.strip()`` removes that is ASCII: a line of only these is blank to the definition.
_BLANK_BYTES = np.zeros(256, dtype=bool)
_BLANK_BYTES[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True


@contextmanager
def frozen_gc() -> Iterator[None]:
    """No cyclic garbage collection while a chunk is built (its objects hold no cycles).

    Disabling alone only defers the work: the first allocation after
    ``gc.enable()`` would scan everything made meanwhile.  ``gc.freeze()``
    resets that count and ``gc.unfreeze()`` hands the objects to the oldest
    generation, which is what a collection would have done with them.  A
    process that froze objects itself keeps them frozen (plain disable then).
    """
    enabled = gc.isenabled()
    ours = gc.get_freeze_count() == 0
    gc.disable()
    try:
        yield
    finally:
        if ours:
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


def decoded_prefix(
    decode: Callable[[memoryview], T],
    errors: tuple[type[Exception], ...],
    view: memoryview,
    starts: list[int],
    ends: list[int],
) -> list[T]:
    """The decoded texts ``view[start:end]``, up to the first that does not decode.

    One comprehension in the usual case; a failure costs one more pass over
    the texts before it (never one per text).
    """
    try:
        return [decode(view[a:b]) for a, b in zip(starts, ends, strict=True)]
    except errors:
        pass
    out = []
    for a, b in zip(starts, ends, strict=True):
        try:
            out.append(decode(view[a:b]))
        except errors:
            break
    return out


def _utf8(data: bytes | memoryview) -> bool:
    """Whether ``data`` is UTF-8, checked by Arrow without making a str."""
    offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int64).tobytes())
    try:
        pa.LargeStringArray.from_buffers(1, offsets, pa.py_buffer(data)).validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _blank(
    raw: np.ndarray, starts: np.ndarray, ends: np.ndarray, first: np.ndarray, last: np.ndarray
) -> np.ndarray:
    """Per line: no byte above space in it (newline included).

    A line whose first or last text byte is above space is not blank, which
    settles nearly every line from what the caller has gathered; only the
    rest have their bytes looked at, by one ``maximum.reduceat``.
    """
    blank = (first <= 32) & (last <= 32)
    look = np.flatnonzero(blank & (ends - starts > 1))
    if len(look):
        padded = np.append(raw, np.uint8(0))  # the last line's end may be the data's end
        bounds = np.empty(2 * len(look), dtype=np.int64)
        bounds[0::2], bounds[1::2] = starts[look], ends[look]
        blank[look] = np.maximum.reduceat(padded, bounds)[0::2] <= 32
    return blank


class Block:
    """Whole lines of a stream, reduced to what a reader walks: objects and other lines.

    ``first``/``last`` are the lines of each candidate object (a ``{...}``
    line, or a line that is exactly ``{`` up to the next line starting with
    a brace when that one is exactly ``}``, with no blank line between and
    at most ``max_object`` bytes); ``start``/``end`` its bytes (text end:
    newline and CR excluded).  ``others`` are the non-blank lines outside
    every candidate, and ``open_tail`` a ``{`` line with no brace line after
    it in the block (its object may end in the next one), or -1.  Not
    ``pretty`` (JSON Lines): only one-line objects are candidates and every
    other line, blank or not, is in ``others``.
    """

    def __init__(
        self,
        data: bytes | bytearray,
        first_number: int,
        first_offset: int,
        at_eof: bool,
        max_object: int,
        pretty: bool = True,
        size: int | None = None,
    ) -> None:
        self.data, self.first_number, self.first_offset = data, first_number, first_offset
        self.at_eof = at_eof
        self.size = size = len(data) if size is None else size  # the block: data[:size]
        raw = np.frombuffer(data, dtype=np.uint8, count=size)
        newlines = np.flatnonzero(raw == 10)
        tail = size > 0 and (len(newlines) == 0 or int(newlines[-1]) != size - 1)
        self.count = count = len(newlines) + tail
        starts = np.zeros(count, dtype=np.int64)
        starts[1:] = newlines[: count - 1] + 1
        content = np.append(newlines, size) if tail else newlines  # the text's end
        ends = content + 1
        if tail:
            ends[-1] = size
        self.line_starts, self.line_ends = starts, ends
        if count == 0:
            self.first = self.last = self.start = self.end = self.line_end = self.others = []
            self.first_array = self.start_array = np.zeros(0, dtype=np.int64)
            self.open_tail = -1
            self.broken: set[int] = set()
            return
        if data.find(b"\r", 0, size) >= 0:  # a CR before the newline is not the line's text
            content = content - ((content > starts) & (raw[np.maximum(content - 1, 0)] == 13))
        length = content - starts
        first, last = raw[starts], raw[np.maximum(content - 1, 0)]
        # Blank: only bytes str.strip() removes.  Most lines have a byte above space.
        blank = _blank(raw, starts, ends, first, last)
        for line in np.flatnonzero(blank & (ends - starts > 1)).tolist():
            blank[line] = bool(_BLANK_BYTES[raw[starts[line] : ends[line]]].all())
        brace = ((first == ord("{")) | (first == ord("}"))) & ~blank
        one_byte = length == 1
        opening = one_byte & (first == ord("{")) & pretty
        closing = one_byte & (first == ord("}"))
        one = (first == ord("{")) & (last == ord("}")) & (length >= 2)
        structural = np.flatnonzero(brace)
        opens = np.flatnonzero(opening)
        after = np.searchsorted(structural, opens, side="right")
        has_next = after < len(structural)
        partner = np.where(has_next, structural[np.minimum(after, len(structural) - 1)], -1)
        safe_partner = np.maximum(partner, 0)
        paired = has_next & closing[safe_partner]
        blank_lines = np.flatnonzero(blank)
        between = np.searchsorted(blank_lines, safe_partner) - np.searchsorted(
            blank_lines, opens + 1
        )
        paired &= between <= 0  # no blank line inside the object
        paired &= content[safe_partner] - starts[opens] <= max_object
        tails = opens[~has_next]
        self.open_tail = int(tails[0]) if len(tails) and not at_eof else -1
        firsts = np.concatenate((opens[paired], np.flatnonzero(one)))
        lasts = np.concatenate((partner[paired], np.flatnonzero(one)))
        order = np.argsort(firsts, kind="stable")
        firsts, lasts = firsts[order], lasts[order]
        # Candidates do not overlap: a line is inside one where more have begun than ended.
        covered = np.zeros(count + 1, dtype=np.int32)
        covered[firsts] += 1
        covered[lasts + 1] -= 1
        inside = np.cumsum(covered[:-1], dtype=np.int32) > 0
        others = ~inside & ~blank if pretty else ~inside
        if self.open_tail >= 0:
            others[self.open_tail :] = False
        self.first_array, self.start_array = firsts, starts[firsts]
        self.first, self.last = firsts.tolist(), lasts.tolist()
        self.start, self.end = self.start_array.tolist(), content[lasts].tolist()
        self.line_end = ends[lasts].tolist()  # with the newline
        self.others = np.flatnonzero(others).tolist()
        # msgspec skips unknown keys unread, so it does not see bad UTF-8 in them.
        self.broken = set() if _utf8(memoryview(data)[:size]) else self._broken()

    def _broken(self) -> set[int]:
        """The candidates that are not UTF-8 (only asked when the block is not)."""
        out = set()
        for index, (start, end) in enumerate(zip(self.start, self.end, strict=True)):
            try:
                self.data[start:end].decode("utf-8")
            except UnicodeDecodeError:
                out.add(index)
        return out

    def newlines_before(self, offset: int) -> int:
        """How many newlines the block has before byte ``offset`` (a line start or its end)."""
        lines = int(np.searchsorted(self.line_starts, offset))  # lines starting before it
        if lines and lines == self.count and self.data[self.size - 1] != 10:
            return lines - 1  # the last line has no newline
        return lines

    def number(self, index: int) -> int:
        """The line number (from 1) of line ``index`` of the block."""
        return self.first_number + index

    def offset(self, index: int) -> int:
        return self.first_offset + int(self.line_starts[index])

    def raw(self, index: int) -> bytes:
        """The line's bytes with its newline, as iterating the stream gives it."""
        return bytes(self.data[int(self.line_starts[index]) : int(self.line_ends[index])])


class Lines:
    """Blocks of whole lines of a stream; the reader may leave a block's tail for the next."""

    def __init__(
        self, stream: BinaryIO, block_bytes: int, max_object: int, pretty: bool = True
    ) -> None:
        self.pretty = pretty
        self.stream = stream
        self.block_bytes = block_bytes
        self.max_object = max_object
        self._kept: int | None = None

    def keep_from(self, index: int) -> None:
        """Lines from ``index`` on were not read: they start the next block."""
        self._kept = index

    def _read(self, carry: bytes) -> tuple[bytes | bytearray, int]:
        """``carry`` and the stream's next bytes in one buffer, and how much of it is filled.

        ``readinto`` puts the bytes after the carry without the copy that
        ``carry + read()`` makes; a fresh buffer each time, as a block's hands
        point into it until the reader is done with them.
        """
        readinto = getattr(self.stream, "readinto", None)
        if readinto is None:
            data = self.stream.read(self.block_bytes)
            joined = carry + data if carry else data
            return joined, len(joined)
        buffer = bytearray(len(carry) + self.block_bytes)
        buffer[: len(carry)] = carry
        got = readinto(memoryview(buffer)[len(carry) :])
        return buffer, len(carry) + (got or 0)

    def __iter__(self) -> Iterator[Block]:
        carry = b""
        number, offset = 1, 0
        while True:
            buffer, filled = self._read(carry)
            at_eof = filled == len(carry)
            if at_eof:
                size = filled
            else:
                size = buffer.rfind(b"\n", 0, filled) + 1
                if size == 0:
                    carry = bytes(buffer[:filled])
                    continue
            if size == 0:
                return
            self._kept = None
            block = Block(buffer, number, offset, at_eof, self.max_object, self.pretty, size)
            yield block
            used = size if self._kept is None else int(block.line_starts[self._kept])
            number += block.newlines_before(used)
            offset += used
            carry = bytes(buffer[used:filled])  # a line not read, and the part after the cut
            if at_eof:
                return
