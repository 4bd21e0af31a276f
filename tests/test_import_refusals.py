"""A file whose every record was refused, imported again: its new outcome replaces the old.

A file whose every record is refused is not recorded as imported, so a
later import reads it again.  That import's quarantine rows for the file
replace the earlier ones in the same commit: a right format leaves no junk
row, the same refusals stay once each.  A wrong ``--format`` no longer
refuses a file record by record (the file is skipped as not that format,
``tests/test_import_wrong_format.py``); the rows it left in datasets
imported before are replaced the same way.  And a file cut short says what
happens to its last hand, never pointing at rows that do not exist.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import Importer, import_paths
from parsers.app_json import dumps_app, hand_to_app_object
from parsers.open_format import dumps, hand_to_json
from tests.handgen import random_records


def _app_file(path: Path, count: int, seed: int) -> Path:
    objects = [json.dumps(hand_to_app_object(r), indent=4) for r in random_records(count, seed)]
    path.write_text("\n\n\n".join(objects) + "\n\n\n", encoding="utf-8")
    return path


def _quarantine(data: Path) -> list[dict[str, Any]]:
    rows = Dataset(data).read("quarantine", ["source_file", "line", "reason"]).to_pylist()
    return sorted(rows, key=lambda r: (r["source_file"], r["line"], r["reason"]))


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def _refusing_record_by_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """The import as it was before a wrong --format was told apart: every record refused."""
    monkeypatch.setattr(Importer, "_not_this_format", lambda *_: False)


def test_a_right_format_replaces_the_refusals_of_a_wrong_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    apps = _app_file(tmp_path / "apps.hh", 5, seed=71)
    data = tmp_path / "data"
    _refusing_record_by_record(monkeypatch)  # the junk rows of a dataset imported before
    wrong = import_paths([apps], data, format_name="open")
    assert wrong.stored == 0 and wrong.files[0].refused
    junk = _quarantine(data)
    assert len(junk) == wrong.quarantined + wrong.lines_quarantined > 0
    again = import_paths([apps], data, format_name="open")  # the same refusals: once each
    assert _quarantine(data) == junk
    monkeypatch.undo()
    skipped = import_paths([apps], data, format_name="open")  # now: not open, skipped
    assert skipped.files[0].not_format == "open" and skipped.replaced_refusals == 0
    assert _quarantine(data) == junk  # an existing dataset stays as it was
    right = import_paths([apps], data)
    assert (right.stored, right.quarantined) == (5, 0)
    assert _quarantine(data) == []  # was: every junk row kept beside the 5 hands
    assert again.replaced_refusals == right.replaced_refusals == len(junk)
    assert f"  {len(junk)} quarantine row(s) of an earlier import replaced" in right.lines()[2]
    assert import_paths([apps], data).files[0].skipped  # now recorded as imported


def test_the_cli_case_a_wrong_format_then_auto_leaves_no_quarantine_row(tmp_path: Path) -> None:
    apps = _app_file(tmp_path / "apps.hh", 3, seed=72)
    data = str(tmp_path / "data")
    wrong = run("import", "--data", data, "--format", "open", "--no-recompute", str(apps))
    assert wrong.exit_code == 1
    assert not Path(data).exists()  # nothing stored, nothing refused: no dataset made
    right = run("import", "--data", data, "--no-recompute", str(apps))
    assert right.exit_code == 0, right.output
    count = run("sql", "--data", data, "select count(*) as n from quarantine")
    assert count.output.split() == ["n", "0"]
    assert "1 file is not open, the --format given" in wrong.output
    assert "drop --format" in wrong.output


def test_only_the_refused_files_rows_go_and_a_grown_files_stale_row_too(tmp_path: Path) -> None:
    """Three files' rows in one earlier batch: a file with one bad hand (imported, so its
    row is kept), a file whose every hand was refused (read again fixed: its row goes) and
    a grown file whose truncated last object is now stored (its row goes): both removals
    rewrite the same quarantine file, in one commit."""
    records = random_records(6, seed=73)
    bad = hand_to_json(records[0])
    bad["seats"][0]["streets"][0]["cards"][0] = "Zz"  # a bad card: refused
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(json.dumps(bad) + "\n" + dumps(records[1]) + "\n", encoding="utf-8")
    refused = tmp_path / "refused.jsonl"
    refused.write_text(json.dumps({**bad, "hand_id": "r1"}) + "\n", encoding="utf-8")
    text = "".join(
        dumps_app(replace(r, format="app-json", ruleset="pineapple-progressive"))
        for r in records[2:5]
    )
    cut = text.rindex('"hero": ') + text[text.rindex('"hero": ') :].index("\n") + 1
    grown = tmp_path / "grown.hh"
    grown.write_text(text[:cut], encoding="utf-8")
    data = tmp_path / "data"
    first = import_paths([mixed, refused, grown], data)
    assert (first.stored, first.quarantined) == (3, 3)
    assert [f.refused for f in first.files] == [False, True, False]
    assert len(Dataset(data).files("quarantine")) == 1  # all three rows in one batch
    refused.write_text(dumps(replace(records[5], room_hand_id="r1")) + "\n", encoding="utf-8")
    grown.write_text(text, encoding="utf-8")
    second = import_paths([mixed, refused, grown], data)
    assert [r["source_file"] for r in _quarantine(data)] == [str(mixed)]
    assert (second.stored, second.replaced_refusals, second.superseded) == (2, 1, 1)


def test_a_file_refused_again_in_a_run_of_many_keeps_one_row_per_refusal(tmp_path: Path) -> None:
    bad = hand_to_json(random_records(1, seed=74)[0])
    bad["seats"][0]["streets"][0]["cards"][0] = "Zz"
    lines = [json.dumps({**bad, "hand_id": f"b{n}"}) for n in range(3)]
    refused = tmp_path / "refused.jsonl"
    refused.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    for _ in range(3):  # small batches: the file's rows and the removal in one commit
        summary = import_paths([refused], data, batch_hands=2)
        assert summary.quarantined == 3
        assert len(_quarantine(data)) == 3


def test_a_file_that_is_only_a_cut_hand_says_so_and_is_pending(tmp_path: Path) -> None:
    text = "".join(
        dumps_app(replace(r, format="app-json", ruleset="pineapple-progressive"))
        for r in random_records(2, seed=75)
    )
    cut = tmp_path / "t.hh"
    cut.write_text(text[:300], encoding="utf-8")
    data = str(tmp_path / "data")
    first = run("import", "--data", data, "--no-recompute", str(cut))
    assert first.exit_code == 0, first.output  # nothing stored, but the hand is pending
    assert f"the last hand of {cut} is cut short: left for the next import" in first.output
    assert f"`ofc-stats import --final --data {data} {cut}` quarantines it now" in first.output
    assert "quarantine table" not in first.output and "refused" not in first.output
    final = run("import", "--data", data, "--final", "--no-recompute", str(cut))
    assert final.exit_code == 1  # nothing stored and nothing pending now
    assert "cut off at the end of a file that stopped growing" in final.output
    assert "wrong --format" not in final.output  # the file is recorded: no format to blame
    assert len(_quarantine(Path(data))) == 1


def test_final_quarantines_a_cut_last_hand_in_one_import(tmp_path: Path) -> None:
    text = "".join(
        dumps_app(replace(r, format="app-json", ruleset="pineapple-progressive"))
        for r in random_records(3, seed=76)
    )
    path = tmp_path / "cut.hh"
    path.write_text(text[: text.rindex('"rows": "') + len('"rows": "Q')], encoding="utf-8")
    data = tmp_path / "data"
    summary = import_paths([path], data, final=True)
    assert (summary.stored, summary.partial, summary.quarantined) == (2, 0, 1)
    reasons = [r["reason"] for r in _quarantine(data)]
    assert len(reasons) == 1 and reasons[0].startswith("cut off at the end of a file")
    assert import_paths([path], data, final=True).files[0].skipped  # recorded: done
    path.write_text(text, encoding="utf-8")  # it grew after all: the hand replaces the row
    grown = import_paths([path], data)
    assert (grown.stored, grown.superseded) == (1, 1)
    assert _quarantine(data) == []
    assert run("import", "--final", "--watch", str(path)).exit_code == 2


def test_final_on_a_file_that_is_only_a_cut_hand_settles_it(tmp_path: Path) -> None:
    """--final is the user's word that the file will not grow: the cut hand is quarantined
    and the file recorded, so a plain import later does not leave it for later again."""
    text = dumps_app(
        replace(random_records(1, seed=77)[0], format="app-json", ruleset="pineapple-progressive")
    )
    cut = tmp_path / "t.hh"
    cut.write_text(text[:300], encoding="utf-8")
    data = tmp_path / "data"
    final = import_paths([cut], data, final=True)
    assert (final.quarantined, final.partial, final.files[0].refused) == (1, 0, False)
    again = import_paths([cut], data)
    assert again.files[0].skipped  # recorded: not read again, its row kept once
    assert len(_quarantine(data)) == 1
