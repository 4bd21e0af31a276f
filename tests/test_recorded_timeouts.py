"""Recorded timeouts are read from each hand's text once, when it is scored, and stored per
seat (``results.recorded_timeouts``, bit s: street s); schema 7 adds them to older datasets.

The hand is ``tests.test_report_timeouts``' heads-up hand whose open-format copy records
Alice's fourth street (street 3, counted from 0) as timed out: her bits are 1 << 3 = 8,
Bob's 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import ofc_stats
from ofc_stats.store.migrate import upgrade
from ofc_stats.store.schema import SCHEMA_VERSION, STORED_RESULTS
from ofc_stats.store.streets import recorded_bits
from tests import test_report_timeouts

OPEN_HAND = dict(seats=[dict(streets=[{}, {"timeout": True}]), dict(streets=[{"timeout": True}])])


def _bits(formats: list[str], texts: list[str], hands: list[int], seats: list[int]) -> list[int]:
    bits = recorded_bits(pa.array(formats), pa.array(texts), np.array(hands), np.array(seats))
    return [int(b) for b in bits]


def test_bits_are_the_streets_whose_timeout_is_true() -> None:
    text = json.dumps(OPEN_HAND)  # seat 0: street 1 -> 2; seat 1: street 0 -> 1
    assert _bits(["open"], [text], [0, 0, 0], [0, 1, 2]) == [2, 1, 0]


def test_no_bits_where_the_format_records_none_or_the_text_says_otherwise() -> None:
    text = json.dumps(OPEN_HAND)
    not_true = json.dumps(dict(seats=[dict(streets=[{"timeout": "true"}, {"timeout": 1}])]))
    broken = '{"seats": [{"streets": [{"timeout": true'  # cut off: no JSON
    formats = ["app-json", "open", "open", "open"]
    assert _bits(formats, [text, not_true, broken, "[]"], [0, 1, 2, 3], [0, 0, 0, 0]) == [0] * 4


def test_recompute_stores_the_recorded_streets(tmp_path: Path) -> None:
    data = test_report_timeouts.dataset(tmp_path, ("open", "app-json"))
    with ofc_stats.open(data) as db:
        stored = db.sql(
            "SELECT h.format, r.seat, r.recorded_timeouts FROM results r JOIN hands h "
            "USING (hand_id) ORDER BY 1, 2"
        ).fetchall()
        listed = db.sql("SELECT seat, street FROM recorded_timeouts").fetchall()
        flagged = db.sql("SELECT seat, street FROM streets WHERE timeout").fetchall()
    assert stored == [("app-json", 0, 0), ("app-json", 1, 0), ("open", 0, 8), ("open", 1, 0)]
    assert listed == [(0, 3)] and flagged == [(0, 3)]


def test_a_version_6_dataset_gains_the_column_as_recompute_writes_it(tmp_path: Path) -> None:
    data = test_report_timeouts.dataset(tmp_path, ("open", "app-json"))
    query = "SELECT hand_id, seat, recorded_timeouts FROM results ORDER BY 1, 2"
    with ofc_stats.open(data) as db:
        scored = db.sql(query).fetchall()
    for path in (data / "results").glob("*.parquet"):  # as version 6 wrote them
        table = pq.read_table(path)
        pq.write_table(table.drop_columns(["recorded_timeouts"]), path)
    (data / "dataset.json").write_text(json.dumps({"schema_version": 6}) + "\n")
    assert upgrade(data) == [f"{data}: schema version 6 -> 7", f"{data}: schema version 7 -> 8"]
    assert SCHEMA_VERSION == 8
    with ofc_stats.open(data) as db:
        assert db.sql(query).fetchall() == scored
    for path in (data / "results").glob("*.parquet"):
        assert pq.read_schema(path).names == STORED_RESULTS.names
    assert upgrade(data) == []
