"""Issue 30, items 1-4: the ledger and the quarantine lose no refused hand.

* a file is known by its resolved path and the hash of the bytes parsed;
* every refused record keeps its own quarantine row until the hand it
  refused is stored (an export rewritten in place refuses other hands at
  the same line and offset);
* a record cut at the end of a file that stops growing is quarantined on
  the next import that finds the file unchanged.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from ofc_stats.store import importer as importer_module
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.forget import forget
from ofc_stats.store.importer import import_paths
from ofc_stats.store.ledger import CUT_FINAL
from parsers.app_json import dumps_app
from tests.handgen import random_records


def _hand(seed: int, bad: bool = False) -> str:
    """One app-json hand; ``bad``: its first row's first card is 'Zz' (refused)."""
    record = random_records(1, seed=seed)[0]
    text = dumps_app(replace(record, format="app-json", ruleset="pineapple-progressive"))
    if bad:
        at = text.index('"rows": "') + len('"rows": "')
        text = text[:at] + "Zz" + text[at + 2 :]
    return text


def _quarantine(data: Path) -> list[dict[str, object]]:
    return Dataset(data).read("quarantine", ["source_file", "offset", "raw_text"]).to_pylist()


def _ledger(data: Path) -> list[dict[str, object]]:
    columns = ["path", "hands_seen", "stored", "duplicates", "quarantined"]
    return Dataset(data).read("files", columns).to_pylist()


def test_an_export_rewritten_in_place_keeps_each_refused_hand(tmp_path: Path) -> None:
    """Day 1 refuses A at offset 0, day 2's rewrite holds good hand C there, day 3's refuses B
    there: A and B keep a row each (neither was ever stored), none is "superseded"."""
    path, data = tmp_path / "export.hh", tmp_path / "data"
    good = _hand(5)
    path.write_text(_hand(1, bad=True) + good)
    assert import_paths([path], data).quarantined == 1
    path.write_text(_hand(2) + good)  # C at A's offset: C is not A
    day2 = import_paths([path], data)
    assert (day2.stored, day2.superseded) == (1, 0)
    assert len(_quarantine(data)) == 1
    path.write_text(_hand(3, bad=True) + good)
    assert import_paths([path], data).quarantined == 1
    rows = _quarantine(data)
    assert len(rows) == 2  # A's and B's, both at offset 0
    assert {r["offset"] for r in rows} == {0}
    assert sum(int(r["quarantined"]) for r in _ledger(data)) == 2  # type: ignore[call-overload]


def test_two_files_of_one_name_in_two_folders_are_two_files(tmp_path: Path) -> None:
    """Imported by the same relative name from two folders: each refused hand has its row,
    and forget by a relative name removes one file's hands only."""
    data = tmp_path / "data"
    for folder, seed in (("day1", 10), ("day2", 20)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "raw.hh").write_text(_hand(seed) + _hand(seed + 1, bad=True))
    cwd = os.getcwd()
    try:
        for folder in ("day1", "day2"):
            os.chdir(tmp_path / folder)
            summary = import_paths(["raw.hh"], data)
            assert (summary.stored, summary.quarantined) == (1, 1)
        assert len(_quarantine(data)) == 2
        assert len({r["path"] for r in _ledger(data)}) == 2
        os.chdir(tmp_path / "day1")
        gone = forget(data, "raw.hh")
    finally:
        os.chdir(cwd)
    assert (gone.hands, gone.quarantined, gone.ledger) == (1, 1, 1)
    assert Dataset(data).read("hands", ["source_file"])["source_file"].to_pylist() == [
        str(tmp_path / "day2" / "raw.hh")
    ]


def test_a_file_rewritten_between_hashing_and_parsing_is_recorded_as_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ledger holds the hash of what was parsed (B), so content A imports when it comes.

    Only a path the ledger holds is hashed before it is parsed (a new one is
    hashed once, as it is read), so the path is imported once first (C).
    """
    path, data = tmp_path / "race.hh", tmp_path / "data"
    content_a, content_b = _hand(30), _hand(31)
    path.write_text(_hand(29))
    assert import_paths([path], data).stored == 1  # C's hand: the ledger holds the path
    path.write_text(content_a)
    hashed = importer_module.sha256_of

    def rewrite_after_hashing(source: object) -> str:
        digest = hashed(source)  # type: ignore[arg-type]
        path.write_text(content_b)
        return digest

    monkeypatch.setattr(importer_module, "sha256_of", rewrite_after_hashing)
    assert import_paths([path], data).stored == 1  # B's hand
    monkeypatch.undo()
    path.write_text(content_a)
    again = import_paths([path], data)
    assert (again.stored, again.files[0].skipped) == (1, None)  # A's hand, not "already"
    assert Dataset(data).read("hands").num_rows == 3


@pytest.mark.parametrize("force", [False, True], ids=["again", "force"])
def test_a_cut_record_in_a_file_that_stopped_growing_is_quarantined(
    tmp_path: Path, force: bool
) -> None:
    """20 hands and a cut 21st: left for later once, quarantined when the file is unchanged
    on the next import; every hand seen is then stored, a duplicate or quarantined."""
    path, data = tmp_path / "stopped.hh", tmp_path / "data"
    whole = "".join(_hand(100 + i) for i in range(20))
    last = _hand(200)
    path.write_text(whole + last[: len(last) // 2])  # no final newline: looks still written
    first = import_paths([path], data)
    assert (first.hands_seen, first.stored, first.partial, first.quarantined) == (21, 20, 1, 0)
    second = import_paths([path], data, force=force)
    assert (second.partial, second.quarantined, second.duplicates) == (0, 1, 20)
    rows = Dataset(data).read("quarantine", ["reason", "raw_text"]).to_pylist()
    assert len(rows) == 1 and str(rows[0]["reason"]).startswith(CUT_FINAL)
    assert last[: len(last) // 2] == rows[0]["raw_text"]
    [ledger] = _ledger(data)  # one row for the file: 21 seen, 20 stored, 1 quarantined
    assert (ledger["hands_seen"], ledger["stored"], ledger["quarantined"]) == (21, 20, 1)
    third = import_paths([path], data)
    assert third.files[0].skipped == "already imported (same content)"
    path.write_text(whole + last)  # it grew after all: the hand replaces its refusal
    fourth = import_paths([path], data)
    assert (fourth.stored, fourth.superseded) == (1, 1)
    assert _quarantine(data) == []


def test_a_new_file_is_hashed_once_as_it_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path the ledger does not hold is not read a first time for its hash (it cannot be
    'already imported'); a second import, of a path now held, hashes first and skips it."""
    path, data = tmp_path / "new.hh", tmp_path / "data"
    path.write_text(_hand(40))
    hashed = importer_module.sha256_of
    calls: list[object] = []

    def counting(source: object) -> str:
        calls.append(source)
        return hashed(source)  # type: ignore[arg-type]

    monkeypatch.setattr(importer_module, "sha256_of", counting)
    assert import_paths([path], data).stored == 1
    assert calls == []
    again = import_paths([path], data)
    assert (again.stored, len(calls)) == (0, 1)
    assert again.files[0].skipped is not None and again.files[0].skipped.startswith("already")
