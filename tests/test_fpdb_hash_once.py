"""An fpdb database is hashed once an import, and a write while it is read is still seen.

The importer used to hash a path parser's file before and after reading it
(two SHA-256 passes, 2.4 us a hand); now a database the ledger cannot hold is
hashed once on a thread beside the parser, and "unchanged while read" is its
size, times and inode (and its write-ahead log's), taken before the hash, unless
it was written within RACY_NS of them.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import ofc_stats.store.importer as importer_module
from ofc_stats.store.importer import import_paths
from ofc_stats.store.sources import Source, expand
from ofc_stats.store.sources import sha256_of as hashed
from tests.handgen import random_records
from tests.swcgen import fpdb_database, raw_json


def _database(path: Path, hands: int, seed: int) -> Path:
    raws = [raw_json(record) for record in random_records(hands, seed=seed)]
    for number, raw in enumerate(raws, start=seed * 100):
        raw["hand_id"] = number  # hand ids of their own: no duplicates across seeds
    return fpdb_database(path, (json.dumps(raw) for raw in raws))


def _add_hand(path: Path, seed: int) -> None:
    """One more row, as fpdb-3 would insert it while the import reads the file."""
    [raw] = [raw_json(record) for record in random_records(1, seed=seed)]
    raw["hand_id"] = seed * 100
    connection = sqlite3.connect(path)
    connection.execute(
        "INSERT INTO HttpOFCHands (site, siteHandNo, tableName, rawJson) VALUES (?, ?, ?, ?)",
        ("SealsWithClubs", str(seed * 100), "t", json.dumps(raw)),
    )
    connection.commit()
    connection.close()


def test_a_new_database_is_hashed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One SHA-256 pass on the first import (beside the parser), one on the next (to skip),
    for a database last written long enough ago (RACY_NS 0 here: the file was just made;
    one written within RACY_NS is hashed again, see below)."""
    path, data = _database(tmp_path / "fpdb.db3", 5, seed=1), tmp_path / "data"
    monkeypatch.setattr(importer_module, "RACY_NS", 0)
    calls: list[object] = []

    def counting(source: object) -> str:
        calls.append(source)
        return hashed(source)  # type: ignore[arg-type]

    monkeypatch.setattr(importer_module, "sha256_of", counting)
    assert (import_paths([path], data).stored, len(calls)) == (5, 1)
    again = import_paths([path], data)
    assert (again.stored, len(calls)) == (0, 2)
    assert again.files[0].skipped is not None and again.files[0].skipped.startswith("already")


@pytest.mark.parametrize("held", [False, True], ids=["new path", "path held"])
def test_a_database_written_while_read_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: bool
) -> None:
    """A row inserted once the file is hashed (beside the parser for a new path, before it
    for a path the ledger holds) leaves no ledger row: the next import reads the file
    again and stores that row's hand, whichever content the hash saw."""
    path, data = _database(tmp_path / "fpdb.db3", 3, seed=2), tmp_path / "data"
    if held:
        assert import_paths([path], data).stored == 3
        _add_hand(path, seed=3)  # a changed file: read, not skipped

    def write_after_hashing(source: object) -> str:
        digest = hashed(source)  # type: ignore[arg-type]
        _add_hand(path, seed=4)
        return digest

    monkeypatch.setattr(importer_module, "sha256_of", write_after_hashing)
    first = import_paths([path], data)
    monkeypatch.undo()
    again = import_paths([path], data)
    assert again.files[0].skipped is None  # not "already imported"
    assert first.stored + again.stored == (2 if held else 4)  # each new hand stored once
    assert again.duplicates == first.stored + 3 * held


def _source(path: Path) -> Source:
    [source] = list(expand([path]))
    assert isinstance(source, Source)
    return source


def test_a_file_written_in_its_stamps_tick_is_hashed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a coarse clock (FAT: 2 s) a second write of the same size can keep the times the
    stamp saw.  A stamp taken within RACY_NS of the last write is "racily clean", as git
    calls it: its file is hashed again, so the changed content is seen; an old stamp is
    trusted, so that same coarse-clock write would go unseen (what the rule is for)."""
    path = _database(tmp_path / "fpdb.db3", 2, seed=5)
    source = _source(path)
    stamp = importer_module._stamp(source)
    assert stamp is not None and stamp.racy  # written just now
    digest = hashed(source)
    _add_hand(path, seed=6)
    monkeypatch.setattr(importer_module, "_stamp", lambda _source: stamp)  # times kept
    importer = importer_module.Importer.__new__(importer_module.Importer)
    assert not importer._unchanged(source, stamp, digest)  # racy: the hash sees the write
    trusted = importer_module.Stamp(stamp.file, stamp.wal, racy=False)
    assert importer._unchanged(source, trusted, digest)  # an old stamp is believed


def test_a_stamp_is_racy_only_near_the_last_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _database(tmp_path / "fpdb.db3", 1, seed=7)
    monkeypatch.setattr(importer_module, "RACY_NS", 0)  # every write is long past
    stamp = importer_module._stamp(_source(path))
    assert stamp is not None and not stamp.racy


def test_a_commit_in_the_write_ahead_log_changes_the_stamp(tmp_path: Path) -> None:
    """In WAL mode a commit goes to ``<db>-wal`` and leaves the database file (its size,
    times and hash) as it was; the stamp holds the log's too, so the commit is seen."""
    path = _database(tmp_path / "fpdb.db3", 2, seed=8)
    reader = sqlite3.connect(path)  # an open connection keeps the log from checkpointing
    reader.execute("PRAGMA journal_mode=WAL")
    reader.execute("SELECT count(*) FROM HttpOFCHands").fetchall()
    before = importer_module._stamp(_source(path))
    _add_hand(path, seed=9)
    after = importer_module._stamp(_source(path))
    reader.close()
    assert before is not None and after is not None
    assert after.wal is not None and before != after


def test_an_error_in_the_parser_does_not_wait_for_the_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hash beside the parser runs on a daemon thread: a parser that fails ends the
    file at once (one line, the file unreadable) instead of hanging until a big database
    is hashed to its end."""
    import threading
    import time

    from parsers.fpdb import FpdbParser

    path, data = _database(tmp_path / "fpdb.db3", 2, seed=10), tmp_path / "data"
    never = threading.Event()

    def stuck(source: object) -> str:
        never.wait(60)
        return "0" * 64

    def broken(self: object, path: str, source: str) -> object:
        raise OSError("disk gone")

    monkeypatch.setattr(importer_module, "sha256_of", stuck)
    monkeypatch.setattr(FpdbParser, "parse_path_columnar", broken)
    monkeypatch.setattr(FpdbParser, "parse_path", broken)
    start = time.monotonic()
    summary = import_paths([path], data)
    never.set()
    assert time.monotonic() - start < 30  # the hash would hold it for 60 s
    skipped = summary.files[0].skipped
    assert summary.stored == 0 and skipped is not None and "disk gone" in skipped
