"""The import lane holds a few blocks between read and imported, however slow the importer.

Decoders faster than the importer would, without a bound, pile decoded
blocks up in the queues (on two threads a 1 GB app JSON file peaked at
508 MiB).  Here the importer is slow on purpose and each decode is counted
against the blocks the importer has finished: the difference must stay
within the format's places in flight, and reach it (the places are the bound,
no queue holds the decoders back first).
"""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Generator, Iterator
from dataclasses import replace
from typing import Any

import pytest

from ofc_stats.core.decode import decode
from parsers import core_lane
from parsers.app_json import AppJsonParser, hand_to_app_object
from parsers.base import ColumnarHands, ParseItem
from parsers.open_format import OpenFormatParser, dumps
from tests.handgen import random_records
from tests.test_fast_import import _hands_of


def _app_file(objects: int) -> bytes:
    """``objects`` app JSON objects, one a line: 50 distinct hands, renamed to be distinct."""
    records = random_records(50, seed=11)
    lines = []
    for count in range(objects):
        obj = hand_to_app_object(records[count % len(records)])
        ((_, seats),) = obj["handData"].items()
        lines.append(json.dumps(dict(obj, handData={f"h{count}": seats})) + "\n")
    return "".join(lines).encode("utf-8")


def _open_file(lines: int) -> bytes:
    """``lines`` open-format hands: 50 distinct hands, renamed to be distinct."""
    records = random_records(50, seed=11)
    return "".join(
        dumps(replace(records[count % len(records)], room_hand_id=f"h{count}")) + "\n"
        for count in range(lines)
    ).encode("utf-8")


@pytest.mark.parametrize("format_name", ["app-json", "open"])
def test_decoders_wait_for_the_importer(format_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """200 hands in blocks of about two: about 100 blocks.  The importer sleeps 2 ms a
    block, the decoders could run to the end meanwhile; they may not have decoded more
    than its places in flight beyond the last block the importer finished, and do decode
    that many (a block the importer reads, one a decoder, one decoded waiting: 4 with two
    decoders), so the places, not a queue, bound them."""
    app = format_name == "app-json"
    data = _app_file(200) if app else _open_file(200)
    parser = AppJsonParser() if app else OpenFormatParser()
    monkeypatch.setattr(core_lane, "BLOCK_BYTES", len(data) // 100)
    lock = threading.Lock()
    counts = {"decoded": 0, "walked": 0, "most": 0}
    walk = core_lane._walk

    def counted_decode(*args: Any, **kwargs: Any) -> Any:
        with lock:
            counts["decoded"] += 1
            counts["most"] = max(counts["most"], counts["decoded"] - counts["walked"])
        return decode(*args, **kwargs)

    def slow_walk(*args: Any) -> Iterator[ParseItem]:
        time.sleep(0.002)
        yield from walk(*args)
        with lock:
            counts["walked"] += 1

    monkeypatch.setattr(core_lane, "decode", counted_decode)
    monkeypatch.setattr(core_lane, "_walk", slow_walk)
    items = list(parser.parse_columnar(io.BytesIO(data), "f"))
    assert sum(item.hands.num_rows for item in items if isinstance(item, ColumnarHands)) == 200
    assert counts["walked"] > 50  # many blocks, or the bound says nothing
    decoders, in_flight = core_lane.places(format_name)
    assert in_flight == decoders + 2
    assert in_flight - 1 <= counts["most"] <= in_flight  # reached (but for timing), never passed


def test_an_object_left_open_reads_later_blocks_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block comes to the importer without its bytes unless the definition may read
    them.  Here ``{"note": [`` lines open an object in the app splitter that the next
    one-line hand leaves open (it could be the list's first item) and the one after
    refuses; the core decodes those hands, in blocks that may hold nothing else, and the
    splitter reads them again from the block's bytes.  In blocks of about two hands the
    lane gives what the record path gives: 60 hands, each open line refused with its
    line, offset and reason."""
    lines = _app_file(60).split(b"\n")
    opened = b'{"note": ['
    data = b"\n".join(
        part for at, line in enumerate(lines) for part in ([opened] if at % 7 == 3 else []) + [line]
    )
    monkeypatch.setattr(core_lane, "BLOCK_BYTES", len(data) // 30)
    fast = _hands_of(AppJsonParser().parse_columnar(io.BytesIO(data), "f"))
    assert fast == _hands_of(AppJsonParser().parse(io.BytesIO(data), "f"))
    assert sum(row[0] == "hand" for row in fast) == 60
    assert sum(row[0] == "Quarantined" for row in fast) == data.count(opened) == 9


def test_a_reader_stopped_early_stops_the_decoders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing the reader after its first item returns (the decoding thread waiting for a
    place is let go), and no decoding thread is left behind."""
    data = _app_file(200)
    monkeypatch.setattr(core_lane, "BLOCK_BYTES", len(data) // 100)
    before = {t for t in threading.enumerate() if t.name.startswith("decode f")}
    reader = AppJsonParser().parse_columnar(io.BytesIO(data), "f")
    assert isinstance(reader, Generator)
    next(reader)
    time.sleep(0.05)  # the decoders fill every place and wait
    reader.close()
    left = {t for t in threading.enumerate() if t.name.startswith("decode f")} - before
    assert not left
