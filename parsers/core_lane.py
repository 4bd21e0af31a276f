"""The one import lane of app JSON and the open format: the core decodes, the reader reads the rest.

The core (:mod:`ofc_stats.core.decode`) decodes a block of whole lines straight into the
stored columns and gives back, in file order, the lines it leaves to the format's readable
reader (the definition): anything it cannot decode or judge exactly as the definition would.
Those are read here by the definition, so every hand is stored or quarantined as the record
path would, in the same order.  App JSON's splitter carries state from line to line: a decoded
hand met while it has an object open is read again by the splitter from the hand's own lines.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import BinaryIO, Generic, Protocol, TypeVar

import numpy as np

from ofc_stats.core.decode import (
    HANDS,
    LINES,
    Decoded,
    Decoder,
    Resolver,
    count_lines,
    decode,
    decode_swc,
    decoder,
    swc_decoder,
)
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import storable_text
from parsers.base import ColumnarHands, ParseItem

# where the core stopped: (line, byte of its block, closed (table, hand id), open hands' lines)
Stop = tuple[int, int, list[tuple[str, str]], list[tuple[int, bytes]]]
Resume = Callable[[Stop, bytes, BinaryIO, str], Iterator[ParseItem]]

BLOCK_BYTES = 4 << 20
AHEAD = 2  # items ahead() queues for a caller with no bound of its own (SwC)
SWC_READS = 4  # an SwC block's reads (a quarter of the importer's steps), all queued ahead
# Blocks decoded at once (each cut where no hand is open), a format's at most: one a
# core the process may run on (on one core a second decoder only holds a block more).
DECODERS = {"open": 2, "app-json": 2}
# The places of blocks between read and imported beyond the decoders': one decoded block
# waiting, one the importer reads.  The places are the one bound (ahead's queue adds none): a
# block takes one before it is read and gives it back once its hands are imported, so the
# decoders wait for the importer and memory holds this many blocks, whatever the file's size.
WAITING = 2
T = TypeVar("T")
Line = tuple[int, int, bytes]  # (line number, byte offset, raw bytes with the newline)
Part = tuple[bytes, bytes, int, bool]  # an SwC read, head + data[:end]: (head, data, end, last)


class Definition(Protocol):
    """A format's readable reader, fed whole lines in file order."""

    @property
    def idle(self) -> bool:
        """Whether no hand is open: the next line may start one."""

    def feed(self, lines: Iterable[Line]) -> Iterator[ParseItem]:
        """The items of these lines."""

    def end(self) -> Iterator[ParseItem]:
        """The items still open at the end of the file."""


def numbered(stream: BinaryIO) -> Iterator[Line]:
    """Every line of ``stream`` with its number and byte offset."""
    offset = 0
    for number, raw in enumerate(stream, start=1):
        yield number, offset, raw
        offset += len(raw)


def resolving(name_of: Callable[[str], str]) -> Resolver:
    """The core's resolver from a definition's ``text -> preset name`` (OfcError: refused)."""

    def resolve(text: str) -> tuple[str, int, int] | None:
        try:
            preset = get_ruleset(name_of(text))
        except OfcError:
            return None
        return preset.name, preset.max_seats, preset.deck.size

    return resolve


class _End:
    """The producer's last item: nothing more comes."""


class _Handoff(Generic[T]):
    """A queue of up to ``places`` items from a thread to its reader (0: unbounded) that the
    reader can stop: :meth:`put` then gives up, so the thread never waits on a reader gone."""

    def __init__(self, places: int) -> None:
        self.items: queue.Queue[T] = queue.Queue(places)
        self.stopped = threading.Event()

    def put(self, item: T) -> bool:
        """Queue ``item``; False if the reader stopped first."""
        while not self.stopped.is_set():
            try:
                self.items.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False


def ahead(items: Iterator[T], name: str, places: int = AHEAD) -> Generator[T]:
    """``items``, made by a thread up to ``places`` ahead of the caller (0: as many as
    ``items`` makes; a caller whose items are bounded otherwise).

    The core releases the GIL while it decodes, so decoding runs on one core while the caller
    checks, dedupes and writes (Parquet writes release it too) on the other.  An error of the
    thread is raised here, in its place."""
    handoff: _Handoff[T | BaseException | _End] = _Handoff(places)
    made, stop, put = handoff.items, handoff.stopped, handoff.put

    def produce() -> None:
        try:
            for item in items:
                if not put(item):
                    return
                del item  # not held while the next is made
            put(_End())
        except BaseException as error:  # raised again by the reader, in its place
            put(error)
        finally:  # a generator's own threads (a block reader) stop now, not at its GC
            getattr(items, "close", lambda: None)()

    worker = threading.Thread(target=produce, name=name, daemon=True)
    worker.start()
    try:
        while not isinstance(item := made.get(), _End):
            if isinstance(item, BaseException):
                raise item
            yield item
            del item  # not held while the next is awaited
    finally:
        stop.set()
        worker.join()


def read(
    stream: BinaryIO, source: str, format_name: str, definition: Definition, resolve: Resolver
) -> Iterator[ParseItem]:
    """Every item the definition yields for ``stream``, most hands as ColumnarHands (blocks
    decoded :func:`ahead`; :func:`places` says how many at once and how many in flight)."""
    if not storable_text(source):  # every hand of it is refused: the definition says why
        yield from definition.feed(numbered(stream))
        yield from definition.end()
        return
    decoders, in_flight = places(format_name)
    room = _Room(in_flight)
    decoded = _decoded(stream, source, format_name, resolve, room, decoders)
    blocks = ahead(decoded, f"decode {source}", places=0)  # the room bounds them
    try:
        for item in blocks:
            yield from _walk(*item, definition)
            del item  # imported: the next block may be read
            room.give()
    finally:
        room.close()
        blocks.close()
    yield from definition.end()


def places(format_name: str) -> tuple[int, int]:
    """(decoders, blocks in flight) of a format on the cores this process may use."""
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    decoders = max(1, min(DECODERS[format_name], cores))
    return decoders, decoders + WAITING


class _Room:
    """Places for the blocks between read and imported."""

    def __init__(self, places: int) -> None:
        self._places = threading.Semaphore(places)
        self._closed = threading.Event()

    def take(self) -> bool:
        """Wait for a place; False once the importer has stopped reading."""
        while not self._places.acquire(timeout=0.05):
            if self._closed.is_set():
                return False
        return True

    def give(self) -> None:
        self._places.release()

    def close(self) -> None:
        self._closed.set()


def _decoded(
    stream: BinaryIO,
    source: str,
    format_name: str,
    resolve: Resolver,
    room: _Room,
    decoders: int,
) -> Iterator[tuple[Decoded, bytes, int]]:
    """Each block of whole lines decoded by the core, in order, ``decoders`` at once:
    (decoded, block, its byte offset).  A block is read once ``room`` has a place for it
    (the importer gives it back when it has read a block), so memory holds a few blocks
    however far the decoders could run ahead.  The block's bytes come along only where
    the definition may read them: lines the core left, or (app JSON) an object its
    splitter may hold open from lines before; else ``b""`` (4 MB less a block in flight).

    A block is cut where no hand is open across the cut (:func:`_cut`), so it decodes on its
    own: its first line number is counted, not taken from the block before, and each decoder
    (one a thread) reads any block; the core releases the GIL, so the blocks decode on two
    cores.  A block the core did not read to its end (a hand open at its end waits for the
    rest) is read again with what follows, as are the blocks after it.
    """
    idle: queue.SimpleQueue[Decoder] = queue.SimpleQueue()
    for _ in range(decoders):
        idle.put(decoder(format_name, resolve))

    def work(block: bytes, line: int, offset: int, last: bool) -> Decoded:
        core = idle.get()
        try:
            return decode(
                core, block, line, offset, last=last, format_name=format_name, source=source
            )
        finally:
            idle.put(core)

    with ThreadPoolExecutor(decoders, thread_name_prefix=f"decode {source}") as pool:
        waiting: deque[tuple[Future[Decoded], bytes, int, int]] = deque()
        carry, line, offset, read_all = b"", 1, 0, False
        fed = False  # the definition has been given lines: its state may need the bytes
        while True:
            if not room.take():
                return
            if not read_all:
                chunk = stream.read(BLOCK_BYTES)
                read_all = not chunk
                block, carry = _cut(carry, chunk, format_name)
                del chunk  # the block is a copy: not held while the next waits for a place
            else:  # what a block left open, read again to the end
                block, carry = carry, b""
            if block:
                last = read_all and not carry
                future = pool.submit(work, block, line, offset, last)
                waiting.append((future, block, line, offset))
                line += count_lines(block)
                offset += len(block)
            else:
                room.give()
            while waiting and (read_all or len(waiting) > decoders):
                future, done, first, at = waiting.popleft()
                decoded = future.result()
                del future  # it holds the decoded block too
                left = bool(np.any(decoded.units[:, 0] == LINES))
                fed = left or (fed and format_name == "app-json")  # its splitter has a state
                yield decoded, done if fed else b"", at
                used, lines = decoded.consumed, decoded.consumed_lines
                del decoded  # not held while the next block waits for a place
                if used < len(done):  # a hand open at its end: the rest waits for what follows
                    rest = [done[used:], *(block for _, block, *_ in waiting), carry]
                    for future, *_ in waiting:
                        future.cancel()  # read again from the carry (a running one is ignored)
                        future.add_done_callback(lambda _: room.give())  # once it holds none
                    waiting.clear()
                    carry, line, offset = b"".join(rest), first + lines, at + used
                    del rest
                del done
            if read_all and not waiting and not carry:
                return


def _cut(carry: bytes, chunk: bytes, format_name: str) -> tuple[bytes, bytes]:
    """``carry + chunk`` cut where the core leaves no hand open: (the block, the rest).

    An open-format line stands alone, so after the last newline; an app JSON object of many
    lines ends with a line ``}``, so after the last such line (a ``{`` line before it is read
    to it or refused before it), else after the last newline (the core carries an open object
    over).  All of it when ``chunk`` is empty (the end of the file).
    """
    if format_name == "app-json" and chunk:
        end = len(chunk)
        while (at := chunk.rfind(b"\n}", 0, end)) >= 0:  # from the end: found in a kB
            for newline in (b"\n", b"\r\n"):
                if chunk.startswith(newline, at + 2):
                    cut = at + 2 + len(newline)
                    with memoryview(chunk) as view:
                        return b"".join((carry, view[:cut])), chunk[cut:]
            end = at
    return _whole_lines(carry, chunk)


def _whole_lines(carry: bytes, chunk: bytes) -> tuple[bytes, bytes]:
    """``carry + chunk`` cut after its last newline: (the whole lines, the rest); all of it
    when ``chunk`` is empty (the end of the file).  One copy of the block, not two."""
    if not chunk:
        return carry, b""
    cut = chunk.rfind(b"\n") + 1
    if cut == 0:  # the last newline, if any, is in the carry
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        return data[:cut], data[cut:]
    if not carry:
        return chunk[:cut], chunk[cut:]
    with memoryview(chunk) as view:
        return b"".join((carry, view[:cut])), chunk[cut:]


def _walk(decoded: Decoded, block: bytes, base: int, definition: Definition) -> Iterator[ParseItem]:
    for kind, start, stop, first in decoded.units.tolist():
        if kind != HANDS:
            yield from definition.feed(_lines(block, start, stop, first, base))
            continue
        hand = start
        while hand < stop and not definition.idle:  # the splitter reads it as part of its object
            span = int(decoded.span_start[hand]), int(decoded.span_stop[hand])
            yield from definition.feed(_lines(block, *span, int(decoded.span_line[hand]), base))
            hand += 1
        if hand < stop:
            yield ColumnarHands(*decoded.slice(hand, stop))


def _lines(block: bytes, start: int, stop: int, number: int, base: int) -> Iterator[Line]:
    """The lines of ``block[start:stop]`` numbered from ``number``, offsets from ``base``."""
    at = start
    while at < stop:
        newline = block.find(b"\n", at, stop)
        end = stop if newline < 0 else newline + 1
        yield number, base + at, block[at:end]
        number += 1
        at = end


def read_swc(
    stream: BinaryIO, source: str, resolve: Resolver, resume: Resume
) -> Iterator[ParseItem]:
    """SwC captures folded by the core, a block at a time (decoded :func:`ahead`); where the
    core stops, ``resume`` (the definition) reads on, given the stop, the bytes from its line
    to the end of what was read and the stream (:class:`_Reader` has stopped reading it)."""
    for decoded, stop, tail in ahead(_swc_blocks(stream, source, resolve), f"decode {source}"):
        if decoded.hands.num_rows:
            yield ColumnarHands(decoded.hands, decoded.seats, decoded.placements)
        if stop is not None:
            yield from resume(stop, tail, stream, source)
            return


def _swc_blocks(
    stream: BinaryIO, source: str, resolve: Resolver
) -> Iterator[tuple[Decoded, Stop | None, bytes]]:
    """Each block decoded: (decoded, where the core stopped, the bytes it left unread)."""
    core, blocks, line = swc_decoder(resolve), _Reader(stream), 1
    try:
        for head, read, end, last in (parts := blocks.parts()):
            reads, error = [read], None  # then, for each further read, its head and itself
            while not last and len(reads) < 2 * SWC_READS - 1 and error is None:
                try:  # (a head: the last read's tail, then reads without a newline if any)
                    tail, (more, read, end, last) = len(read) - end, next(parts)
                    reads += [more[tail:], read]
                except Exception as failed:  # a read error: the reads before it decoded first
                    error = failed
            decoded, stop = decode_swc(core, (head, reads, end), line, last=last, source=source)
            if stop is not None and error is None:  # (after a read error: no reading on)
                block = b"".join([head, *reads[:-1], reads[-1][:end]])
                yield decoded, stop, block[stop[1] :] + blocks.rest()
                return
            yield decoded, None, b""
            if error is not None:
                raise error
            line += decoded.consumed_lines
    finally:
        blocks.close()


class _Reader:
    """The whole-line blocks of a stream as :data:`Part` (the core reads the parts: no copy
    joins them), read and hashed on two cores by a thread up to a block's reads ahead of the
    decoder (2 kept it waiting a tenth of its time); :meth:`rest`: the bytes not handed over."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream, self._left = stream, [b""]
        self._handoff: _Handoff[Part | BaseException] = _Handoff(SWC_READS)
        self._thread = threading.Thread(target=self._read, name="read swc", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        carry, last = b"", False
        try:
            while not last and not self._handoff.stopped.is_set():
                chunk = self._stream.read(BLOCK_BYTES)
                last, end = not chunk, chunk.rfind(b"\n") + 1  # end 0: the line goes on
                handed = (end or last) and self._handoff.put((carry, chunk, end, last))
                carry = chunk[end:] if handed else carry + chunk
        except BaseException as error:  # raised again by the decoder, in its place
            self._handoff.put(error)
        finally:
            self._left = [carry]

    def parts(self) -> Iterator[Part]:
        while isinstance(item := self._handoff.items.get(), tuple):
            yield item
            if item[3]:
                return
        raise item

    def rest(self) -> bytes:
        """What was read and not handed over, in order (a read error is raised)."""
        self.close()
        left: list[bytes] = []
        while not self._handoff.items.empty():
            item = self._handoff.items.get()
            if isinstance(item, BaseException):
                raise item
            left.append(item[0] + item[1][: item[2]])
        return b"".join(left + self._left)

    def close(self) -> None:
        self._handoff.stopped.set()
        self._thread.join()
