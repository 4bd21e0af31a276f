"""The import lane holds a few blocks between read and imported, however slow the importer.

Decoders faster than the importer would, without a bound, pile decoded
blocks up in the queues (on two threads a 1 GB app JSON file peaked at
508 MiB).  Here the importer is slow on purpose and each decode is counted
against the blocks the importer has finished: the difference must stay
within the format's ``IN_FLIGHT``.
"""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Generator, Iterator
from typing import Any

import pytest

from ofc_stats.core.decode import decode
from parsers import core_lane
from parsers.app_json import AppJsonParser, hand_to_app_object
from parsers.base import ColumnarHands, ParseItem
from tests.handgen import random_records


def _app_file(objects: int) -> bytes:
    """``objects`` app JSON objects, one a line: 50 distinct hands, renamed to be distinct."""
    records = random_records(50, seed=11)
    lines = []
    for count in range(objects):
        obj = hand_to_app_object(records[count % len(records)])
        ((_, seats),) = obj["handData"].items()
        lines.append(json.dumps(dict(obj, handData={f"h{count}": seats})) + "\n")
    return "".join(lines).encode("utf-8")


def test_decoders_wait_for_the_importer(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 objects in blocks of about two objects: about 100 blocks.  The importer sleeps
    2 ms a block, the decoders could run to the end meanwhile; they may not have
    decoded more than its IN_FLIGHT blocks beyond the last one the importer finished."""
    data = _app_file(200)
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
    items = list(AppJsonParser().parse_columnar(io.BytesIO(data), "f"))
    assert sum(item.hands.num_rows for item in items if isinstance(item, ColumnarHands)) == 200
    assert counts["walked"] > 50  # many blocks, or the bound says nothing
    assert counts["most"] <= core_lane.IN_FLIGHT["app-json"]


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
