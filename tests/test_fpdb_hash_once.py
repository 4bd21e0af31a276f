"""An fpdb database is hashed once an import, and a write while it is read is still seen.

The importer used to hash a path parser's file before and after reading it
(two SHA-256 passes, 2.4 us a hand); now a database the ledger cannot hold is
hashed once on a thread beside the parser, and "unchanged while read" is its
size, times and inode, taken before the hash.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import ofc_stats.store.importer as importer_module
from ofc_stats.store.importer import import_paths
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
    """One SHA-256 pass on the first import (beside the parser), one on the next (to skip)."""
    path, data = _database(tmp_path / "fpdb.db3", 5, seed=1), tmp_path / "data"
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
