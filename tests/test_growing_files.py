"""A file still being written: whatever byte the writer stopped at, no hand is refused.

An app keeps appending to its export while a player imports it.  The last
object of such a file is cut somewhere and the file does not end with a
newline: that object is :class:`Partial` (left for the next import), never
quarantined, on the record path and on the fast reader alike; once the rest
arrives every hand is stored and the dataset holds no quarantine row.
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from ofc_stats.records import HandRecord, Partial, Quarantined
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from parsers.app_json import AppJsonParser, dumps_app
from parsers.base import ColumnarHands, ParseItem
from tests.handgen import random_records


def _app_text(count: int) -> str:
    records = random_records(count, seed=41)
    return "".join(
        dumps_app(replace(r, format="app-json", ruleset="pineapple-progressive")) for r in records
    )


def _hands(items: list[ParseItem]) -> int:
    return sum(
        item.hands.num_rows if isinstance(item, ColumnarHands) else 1
        for item in items
        if isinstance(item, HandRecord | ColumnarHands)
    )


# A name as json.dumps writes it by default: escapes, a surrogate pair, a backslash, a quote.
ESCAPED_NAME = '"playerName": "p\\u00e9\\ud83d\\ude00\\\\x\\"y'


@pytest.mark.parametrize("escaped", [False, True], ids=["plain", "escaped"])
@pytest.mark.parametrize("columnar", [False, True], ids=["record", "fast"])
def test_a_cut_at_any_byte_leaves_the_last_hand_for_later_and_refuses_none(
    columnar: bool, escaped: bool
) -> None:
    text = _app_text(2)
    if escaped:  # in the second object, where a cut leaves it open
        second = text.index("\n{") + 1
        text = text[:second] + text[second:].replace('"playerName": "', ESCAPED_NAME, 1)
    starts = [0, text.index("\n{") + 1]  # each object's opening brace, at a line's start
    ends = [i + 2 for i in range(len(text)) if text.startswith("\n}", i)]  # after the "}"
    parser = AppJsonParser()
    read = parser.parse_columnar if columnar else parser.parse
    for cut in range(1, len(text.rstrip())):
        if text[cut - 1] == "\n":
            # A file that ends with its newline looks finished: an object open there is
            # quarantined as truncated (README "Files that grow": a known limit).
            continue
        data = text[:cut].encode()
        items = list(read(io.BytesIO(data), "growing.hh"))
        refused = [i.reason for i in items if isinstance(i, Quarantined)]
        assert refused == [], (cut, repr(text[max(cut - 20, 0) : cut]), refused)
        whole = sum(end <= cut for end in ends)
        begun = sum(start < cut for start in starts)
        assert _hands(items) == whole, cut
        assert sum(isinstance(i, Partial) for i in items) == begun - whole, cut


def test_a_file_cut_inside_a_string_imports_whole_once_it_is_written(tmp_path: Path) -> None:
    """The trial's case: the export stops inside a row's card string ("rows": "Qh)."""
    text = _app_text(3)
    cut = text.rindex('"rows": "') + len('"rows": "Q')
    path = tmp_path / "growing.hh"
    path.write_text(text[:cut])
    data = tmp_path / "data"
    first = import_paths([path], data)
    assert (first.stored, first.partial, first.quarantined) == (2, 1, 0)
    path.write_text(text)
    second = import_paths([path], data)
    assert (second.stored, second.duplicates, second.quarantined) == (1, 2, 0)
    assert Dataset(data).read("quarantine").num_rows == 0
