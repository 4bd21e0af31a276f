"""fpdb databases that stop being readable part-way: that database stops, with its reason, and
the rest of the run is stored (issue 30, item 8)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import ofc_stats
from ofc_stats.store.importer import import_paths
from parsers import fpdb
from parsers.app_json import dumps_app
from tests.handgen import random_records
from tests.swcgen import fpdb_database, raw_json


def _texts(count: int, seed: int) -> list[str]:
    return [json.dumps(raw_json(record)) for record in random_records(count, seed=seed)]


def _app_file(folder: Path) -> Path:
    path = folder / "good.hh"
    path.write_text("".join(dumps_app(r) for r in random_records(3, seed=5)))
    return path


def test_damage_past_the_first_fetch_stops_that_database_only(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    _app_file(folder)
    texts = _texts(12, seed=1) * 250  # 3,000 rows, 1.5 fetches past the first
    texts = [t.replace('"hand_id": ', f'"hand_id": 1{i:04d}', 1) for i, t in enumerate(texts)]
    database = fpdb_database(folder / "hands.db3", texts)
    data = bytearray(database.read_bytes())
    tail = len(data) * 9 // 10  # the last tenth of the pages: rows past the first 2,000
    data[tail:] = b"\xa5" * (len(data) - tail)
    database.write_bytes(bytes(data))
    summary = import_paths([folder], tmp_path / "data")  # raised DatabaseError before
    by_name = {Path(f.path).name: f for f in summary.files}
    assert by_name["good.hh"].stored == 3
    assert by_name["hands.db3"].stored >= fpdb.FETCH_ROWS
    assert any(reason.startswith("the database is damaged after row") for reason in summary.reasons)


def test_a_view_that_repeats_rows_stops_at_the_first_repeat(tmp_path: Path) -> None:
    database = fpdb_database(tmp_path / "v.db3", _texts(4, seed=2))
    with sqlite3.connect(database) as connection:
        connection.executescript(
            "ALTER TABLE HttpOFCHands RENAME TO real;"
            "CREATE VIEW HttpOFCHands AS SELECT * FROM real UNION ALL SELECT * FROM real;"
        )
    summary = import_paths([database], tmp_path / "data")
    # ids 1, 1, ...: the first row is read, the second copy stops the database
    assert summary.stored == 1 and summary.duplicates == 0
    assert any("comes twice" in reason for reason in summary.reasons)


def test_a_view_that_never_ends_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fpdb, "READ_SECONDS", 1)
    database = tmp_path / "endless.db3"
    with sqlite3.connect(database) as connection:
        connection.executescript(
            "CREATE TABLE t (x); CREATE VIEW HttpOFCHands AS WITH RECURSIVE n(i) AS "
            "(SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS id, i AS siteHandNo, "
            "'t' AS tableName, '{}' AS rawJson FROM n;"
        )
    summary = import_paths([database], tmp_path / "data")  # hung before
    assert summary.stored == 0
    assert any("took over 1 s" in reason for reason in summary.reasons)


def test_an_oversize_rawjson_is_quarantined_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fpdb, "MAX_RAW", 10_000)
    database = fpdb_database(tmp_path / "z.db3", _texts(2, seed=3))
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE HttpOFCHands SET rawJson = zeroblob(50000) WHERE id = 1")
    summary = import_paths([database], tmp_path / "data")
    assert summary.stored == 1 and summary.quarantined == 1
    assert any("50,000 characters is over the 10,000" in r for r in summary.reasons)


def test_a_locked_database_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fpdb, "LOCK_SECONDS", 0.05)
    database = fpdb_database(tmp_path / "l.db3", _texts(2, seed=4))
    writer = sqlite3.connect(database, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        summary = import_paths([database], tmp_path / "data")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert summary.stored == 0
    assert any("locked by another program" in reason for reason in summary.reasons)
    assert summary.files[0].refused  # read again by the next import
    # a database that cannot be read holds no hand: its row is kept, no hand is counted
    assert (summary.hands_seen, summary.quarantined, summary.lines_quarantined) == (0, 0, 1)


def test_a_database_that_cannot_be_opened_counts_no_hand(tmp_path: Path) -> None:
    database = tmp_path / "bad.db3"
    database.write_bytes(b"SQLite format 3\x00" + b"\xa5" * 4000)  # the magic, then junk
    summary = import_paths([database], tmp_path / "data")
    assert (summary.hands_seen, summary.quarantined, summary.lines_quarantined) == (0, 0, 1)
    assert summary.files[0].refused and summary.reasons
    assert "1 more quarantined that hold no hand" in "\n".join(summary.lines())


def test_a_round_whose_placed_cards_are_no_object_is_refused_by_name(tmp_path: Path) -> None:
    """Fuzz seeds 24 and 43: a round's ``placed`` of "x" or 2.5 was quarantined as
    "unreadable hand (AttributeError: 'str' object has no attribute 'get')", a Python
    error for a reason.  Now that hand is refused naming the field (on the core lane too:
    the core leaves the row to the definition), and the hand beside it is stored."""
    texts = _texts(2, seed=4)
    damaged = json.loads(texts[0])
    damaged["rounds"][0]["placed"] = "x"
    database = fpdb_database(tmp_path / "p.db3", [json.dumps(damaged), texts[1]])
    summary = import_paths([database], tmp_path / "data")
    assert summary.stored == 1
    assert list(summary.reasons) == ["placed 'x' is not an object"]


def test_a_schema_whose_damage_is_not_utf8_is_refused_and_the_run_goes_on(tmp_path: Path) -> None:
    """A byte flipped to 0xfe inside the schema's text (a fuzz seed's fpdb file): SQLite's
    "malformed schema" message quotes the damaged name, which Python cannot decode, so
    sqlite3 raises UnicodeDecodeError, not sqlite3.Error.  The import stopped there with
    "Error: UnicodeDecodeError"; now that database is refused as damaged and the other
    file's 3 hands are stored."""
    folder = tmp_path / "in"
    folder.mkdir()
    _app_file(folder)
    database = fpdb_database(folder / "hands.db3", _texts(3, seed=1))
    data = bytearray(database.read_bytes())
    at = data.index(b"CREATE TABLE")
    data[at + 2] = 0xFE  # "CR\xfeATE": a schema SQLite reads as malformed
    database.write_bytes(bytes(data))
    summary = import_paths([folder], tmp_path / "data")
    by_name = {Path(f.path).name: f for f in summary.files}
    assert by_name["good.hh"].stored == 3
    assert dict(summary.reasons) == {"no fpdb-3 OFC tables": 1}
    with ofc_stats.open(tmp_path / "data") as data:
        [(reason,)] = data.sql("SELECT reason FROM quarantine").fetchall()
    assert reason.endswith("the database is damaged (SQLite's message about it is not UTF-8)")
