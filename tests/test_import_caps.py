"""Hands past the caps the readers keep: each quarantined with a readable reason, the same by the
core and by the record path, and the file's other hands stored (issue 30, items 10 and 18)."""

from __future__ import annotations

import json
from pathlib import Path

from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from parsers.app_json import hand_to_app_object
from parsers.open_format import hand_to_json
from tests.handgen import random_records
from tests.swcgen import fpdb_database, raw_json
from tests.test_swc_fpdb_columnar import assert_same

DEEP = 2_000  # arrays inside one another: past Python json's recursion limit (about 1,000)


def _with_deep_field(text: str) -> str:
    """A JSON object's text with one more field, nested DEEP arrays deep."""
    return text.rstrip()[:-1] + ', "junk": ' + "[" * DEEP + "]" * DEEP + "}"


def _reasons(data: Path) -> list[str]:
    return sorted(Dataset(data).read("quarantine").column("reason").to_pylist())


def test_an_unknown_field_nested_too_deep_quarantines_that_hand_only(tmp_path: Path) -> None:
    records = random_records(3, seed=40)
    app = [json.dumps(hand_to_app_object(r)) for r in records]
    app[1] = _with_deep_field(app[1])
    (tmp_path / "a.hh").write_text("\n\n\n".join(app) + "\n")
    lines = [json.dumps(hand_to_json(r)) for r in records]
    lines[1] = _with_deep_field(lines[1])
    (tmp_path / "o.jsonl").write_text("\n".join(lines) + "\n")
    raws = [json.dumps(raw_json(r)) for r in records]
    raws[1] = _with_deep_field(raws[1])
    fpdb_database(tmp_path / "f.db3", raws)
    files = [tmp_path / "a.hh", tmp_path / "o.jsonl", tmp_path / "f.db3"]
    # the core read the deep hand (serde skips an unknown field at any depth) where the
    # record path refused it: the two lanes stored different hands
    counts = assert_same([files], tmp_path)
    assert counts["hands"] == 3 * 2 and counts["quarantine"] == 3
    assert set(_reasons(tmp_path / "data-True")) == {"nested too deep to read"}


def test_streets_that_are_no_list_say_so(tmp_path: Path) -> None:
    hand = hand_to_json(random_records(1, seed=41)[0])
    hand["seats"][0]["streets"] = 5
    (tmp_path / "o.jsonl").write_text(json.dumps(hand) + "\n")
    summary = import_paths([tmp_path / "o.jsonl"], tmp_path / "data")
    assert summary.quarantined == 1
    # was "unreadable hand (TypeError: 'int' object is not iterable)"
    assert list(summary.reasons) == ["streets must be a list, not '5'"]


def test_ids_past_the_cap_are_quarantined_by_name(tmp_path: Path) -> None:
    """A 100,000-character id: its hand is refused with a reason (it cost a minute a megabyte)."""
    from tests.swcgen import snapshots

    long_id = "x" * 100_000
    records = random_records(4, seed=42)
    app = [hand_to_app_object(r) for r in records]
    app[1]["roomId"] = long_id
    (tmp_path / "a.hh").write_text("\n\n\n".join(map(json.dumps, app)) + "\n")
    lines = [hand_to_json(r) for r in records]
    lines[1]["hand_id"] = long_id
    (tmp_path / "o.jsonl").write_text("\n".join(map(json.dumps, lines)) + "\n")
    capture = []
    for index, record in enumerate(records):
        capture += snapshots(record, gi=long_id if index == 1 else 100 + index, ti=1)
    (tmp_path / "s.jsonl").write_text("\n".join(capture) + "\n")
    raws = [raw_json(r) for r in records]
    raws[1]["players"][0]["name"] = long_id
    fpdb_database(tmp_path / "f.db3", map(json.dumps, raws))
    files = [tmp_path / name for name in ("a.hh", "o.jsonl", "s.jsonl", "f.db3")]
    counts = assert_same([files], tmp_path)
    assert counts["hands"] == 4 * 3 and counts["quarantine"] == 4
    assert _reasons(tmp_path / "data-True") == [
        "hand id of 100,000 characters is over the 1,000 allowed",
        "hand id of 100,000 characters is over the 1,000 allowed",
        "seat 0 player of 100,000 characters is over the 1,000 allowed",
        "table id of 100,000 characters is over the 1,000 allowed",
    ]
