"""What an import counts and which ruleset it applies: SwC capture lines are no hands, and
``import --rules`` reaches the fpdb and SwC readers."""

from __future__ import annotations

import json
from pathlib import Path

from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from tests.handgen import random_records
from tests.swcgen import fpdb_database, raw_json, snapshots

RECORDS = random_records(3, seed=31)


def test_unreadable_capture_lines_are_not_hands(tmp_path: Path) -> None:
    """Two hands and five broken lines: 2 hands seen (and stored), the five lines in the
    quarantine table and named apart, not counted as hands seen."""
    lines = snapshots(RECORDS[0], gi=1, ti=1) + snapshots(RECORDS[1], gi=2, ti=1)
    for at in (1, 4, 7, 10, 13):
        lines.insert(at, "{broken")
    path = tmp_path / "capture.jsonl"
    path.write_text("\n".join(lines) + "\n")
    summary = import_paths([path], tmp_path / "data")
    assert (summary.hands_seen, summary.stored, summary.quarantined) == (2, 2, 0)
    assert summary.lines_quarantined == 5
    assert Dataset(tmp_path / "data").read("quarantine").num_rows == 5
    assert "5 more quarantined that hold no hand (an unreadable capture line" in "\n".join(
        summary.lines()
    )
    assert all(f.accounted == f.hands_seen for f in summary.files)


def test_a_capture_of_broken_lines_only_is_read_again(tmp_path: Path) -> None:
    """No hand, only refused lines: the file stays out of the ledger (a later import reads it)."""
    path = tmp_path / "capture.jsonl"
    path.write_text('{"gameState": 1\n{"gameState": 2\n')
    summary = import_paths([path], tmp_path / "data", format_name="swc")
    assert (summary.hands_seen, summary.lines_quarantined) == (0, 2)
    assert Dataset(tmp_path / "data").read("files").num_rows == 0


def _deuce_to_seven(record_index: int) -> dict[str, object]:
    raw = raw_json(RECORDS[record_index])
    raw["hand_id"] = record_index + 1
    raw["variant"] = {"variant": "ofcp_27", "pineapple": True, "deuce_to_seven": True}
    return raw


def test_fpdb_hands_take_the_rules_given(tmp_path: Path) -> None:
    """fpdb-3 names OFC/P 2-7 but not its rules: refused alone, stored under --rules, and
    --rules sets the ruleset of an ordinary hand too."""
    raws = [_deuce_to_seven(0), _deuce_to_seven(1)]
    plain = raw_json(RECORDS[2])
    plain["hand_id"] = 3
    database = fpdb_database(tmp_path / "f.db3", map(json.dumps, [*raws, plain]))
    alone = import_paths([database], tmp_path / "alone")
    assert (alone.stored, alone.quarantined) == (1, 2)
    ruled = import_paths([database], tmp_path / "ruled", rules="pineapple-progressive")
    assert (ruled.stored, ruled.quarantined) == (3, 0)
    hands = Dataset(tmp_path / "ruled").read("hands")
    assert set(hands["ruleset"].to_pylist()) == {"pineapple-progressive"}
    assert sorted(hands["rules_text"].to_pylist()) == ["ofcp", "ofcp_27", "ofcp_27"]


def test_swc_deuce_to_seven_takes_the_rules_given(tmp_path: Path) -> None:
    """SwC game type 76 (OFC/P 2-7): refused alone, stored under --rules."""
    path = tmp_path / "capture.jsonl"
    path.write_text("\n".join(snapshots(RECORDS[0], gi=1, ti=1, gt=76)) + "\n")
    alone = import_paths([path], tmp_path / "alone")
    assert (alone.stored, alone.quarantined) == (0, 1)
    ruled = import_paths([path], tmp_path / "ruled", rules="pineapple")
    assert (ruled.stored, ruled.quarantined) == (1, 0)
