"""Schema 6: quarantine's text id of the room's hand is ``room_hand_id`` (as in ``hands``);
``hand_id`` is the dataset's integer key everywhere else.  A version-5 dataset upgrades
in place, its quarantined rows keeping their ids."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

import ofc_stats
from ofc_stats.store.importer import import_paths
from ofc_stats.store.migrate import upgrade


def _version_5(tmp_path: Path) -> Path:
    """A dataset with one quarantined open-format hand (a card twice), then set back to
    schema 5: its quarantine files name the room's id ``hand_id``."""
    bad = {
        "ofc_format": 1, "room": "R", "table": "T", "hand_id": "H-7", "ruleset": "pineapple",
        "seats": [{"player": "A", "rows": {"top": ["As", "As", "2c"]}}],
    }  # fmt: skip
    source = tmp_path / "bad.jsonl"
    source.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    import_paths([source], data)
    for path in (data / "quarantine").glob("*.parquet"):
        table = pq.read_table(path)
        names = ["hand_id" if n == "room_hand_id" else n for n in table.column_names]
        pq.write_table(table.rename_columns(names), path)
    (data / "dataset.json").write_text(json.dumps({"schema_version": 5}) + "\n")
    return data


def test_a_version_5_quarantine_is_renamed_in_place(tmp_path: Path) -> None:
    data = _version_5(tmp_path)
    assert upgrade(data) == [f"{data}: schema version {v} -> {v + 1}" for v in (5, 6, 7)]
    with ofc_stats.open(data) as db:
        rows = db.sql("SELECT room_hand_id FROM quarantine").fetchall()
        names = db.sql("SELECT * FROM quarantine LIMIT 0").columns
    assert rows == [("H-7",)] and "hand_id" not in names
    assert upgrade(data) == []  # done: nothing left to rename
