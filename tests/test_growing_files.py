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
            # quarantined as truncated, and replaced once stored (the test below).
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


def test_a_cut_right_after_a_line_break_is_refused_then_replaced_by_the_hand(
    tmp_path: Path,
) -> None:
    """The one cut a file cannot tell from a finished one: the export ends with a line break
    inside its last object.  That object is quarantined as truncated; once the file has
    grown, its import stores the hand and removes the stale quarantine row in the same
    commit, so the dataset never holds a hand and a refusal of it."""
    text = _app_text(3)
    cut = text.rindex('"hero": ') + text[text.rindex('"hero": ') :].index("\n") + 1
    path = tmp_path / "growing.hh"
    path.write_text(text[:cut])
    data = tmp_path / "data"
    first = import_paths([path], data)
    assert (first.stored, first.partial, first.quarantined) == (2, 0, 1)
    rows = Dataset(data).read("quarantine", ["source_file", "offset", "reason"]).to_pylist()
    assert [r["reason"].split(":")[0] for r in rows] == ["truncated JSON"]
    path.write_text(text)
    second = import_paths([path], data)
    assert (second.stored, second.duplicates, second.quarantined) == (1, 2, 0)
    assert second.superseded == 1
    assert "  1 quarantine row(s) of an earlier import removed" in "\n".join(second.lines())
    assert Dataset(data).read("quarantine").num_rows == 0
    stored = Dataset(data).read("hands", ["source_offset"])["source_offset"].to_pylist()
    assert rows[0]["offset"] in stored  # the refused object is the hand now stored


def test_a_file_read_again_unchanged_keeps_its_refusals(tmp_path: Path) -> None:
    """--force on the same cut file: the object is still truncated, its row stays (once)."""
    text = _app_text(2)
    cut = text.rindex('"hero": ') + text[text.rindex('"hero": ') :].index("\n") + 1
    path = tmp_path / "cut.hh"
    path.write_text(text[:cut])
    import_paths([path], tmp_path / "data")
    again = import_paths([path], tmp_path / "data", force=True)
    assert again.superseded == 0
    assert Dataset(tmp_path / "data").read("quarantine").num_rows == 1
