"""Decode speed of the fast readers against a plain msgspec decode of the same file.

    .venv/bin/python bench/decode.py [--hands 50000] [--repeats 5]

For app JSON (the apps' pretty layout, and one object per line) and the open
format, the same generated hands are written once; then, in one run and
alternating so drift hits both alike, the file is read by

* the floor: split into objects and ``msgspec.json.decode`` each one into
  Python objects (no checks, no columns): the least any JSON reader pays;
* the fast reader: ``parse_columnar`` to the end, i.e. validated hands laid
  out as the dataset's Arrow tables (what the importer receives).

It prints the medians (hands/s of this process's CPU time, so other
processes on the shared cores count less), the ratio floor/fast (the goal is
at most 2) and the load average.  The importer's own work (dedupe, Parquet writes)
is not in these figures: ``bench/import.py`` measures the whole import.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ofc_stats.records import HandRecord  # noqa: E402
from parsers.app_json import AppJsonParser, dumps_app, hand_to_app_object  # noqa: E402
from parsers.base import ColumnarHands  # noqa: E402
from parsers.open_format import OpenFormatParser, dumps  # noqa: E402
from tests.handgen import random_records  # noqa: E402


def _records(hands: int) -> Iterator[HandRecord]:
    for start in range(0, hands, 10_000):
        for record in random_records(min(10_000, hands - start), seed=2026 + start):
            yield replace(record, room_hand_id=str(start + int(record.room_hand_id)))


def write_files(folder: Path, hands: int) -> dict[str, Path]:
    paths = {
        "app-json pretty": folder / "pretty.hh",
        "app-json lines": folder / "lines.hh",
        "open": folder / "hands.jsonl",
    }
    with (
        paths["app-json pretty"].open("w", encoding="utf-8") as pretty,
        paths["app-json lines"].open("w", encoding="utf-8") as lines,
        paths["open"].open("w", encoding="utf-8") as open_file,
    ):
        for record in _records(hands):
            pretty.write(dumps_app(record))
            lines.write(json.dumps(hand_to_app_object(record), ensure_ascii=False) + "\n")
            open_file.write(dumps(record) + "\n")
    return paths


def floor(data: bytes, pretty: bool) -> int:
    """Split into objects and decode each with msgspec: hands seen."""
    decode = msgspec.json.decode
    parts = data.split(b"\n\n\n") if pretty else data.split(b"\n")
    count = 0
    for part in parts:
        if part.strip():
            decode(part)
            count += 1
    return count


def fast(data: bytes, parser: AppJsonParser | OpenFormatParser) -> int:
    """Read with the parser's columnar reader: hands laid out as columns."""
    count = 0
    for item in parser.parse_columnar(io.BytesIO(data), "bench"):
        if isinstance(item, ColumnarHands):
            count += item.hands.num_rows
        elif isinstance(item, HandRecord):
            count += 1
    return count


def timed(work: Callable[[], int]) -> tuple[float, int]:
    """CPU seconds of this process (other processes' load on the 2 shared cores left out)."""
    start = time.process_time()
    count = work()
    return time.process_time() - start, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(Path(folder), args.hands)
        print(f"{args.hands} hands; load average {os.getloadavg()[0]:.2f} at start")
        print(f"{'file':<18}{'floor hands/s':>15}{'fast hands/s':>15}{'ratio':>8}")
        for name, path in paths.items():
            data = path.read_bytes()
            reader = OpenFormatParser() if name == "open" else AppJsonParser()
            pretty = name == "app-json pretty"
            floors, fasts = [], []
            for _ in range(args.repeats):
                seconds, count = timed(lambda: floor(data, pretty))  # noqa: B023
                floors.append(count / seconds)
                seconds, count = timed(lambda: fast(data, reader))  # noqa: B023
                assert count == args.hands, (name, count)
                fasts.append(count / seconds)
            low, high = statistics.median(floors), statistics.median(fasts)
            print(f"{name:<18}{low:>15,.0f}{high:>15,.0f}{low / high:>8.2f}")
        print(f"load average {os.getloadavg()[0]:.2f} at the end; ratio = floor / fast, goal <= 2")


if __name__ == "__main__":
    main()
