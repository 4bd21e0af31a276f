"""A forced ``--format`` that does not fit, and SQLite files that hold no OFC hands.

A file that is not the format it is read as holds no hand of it: it is
skipped (as ``auto`` skips a file of no known format), not refused record by
record.  The user reads a few lines (how many files, an example of each kind
with its reason, the way out), the import exits 1 when nothing was stored,
no dataset is left behind that did not exist, and an existing dataset stays
as it was.  A file that *looks* like the format keeps its refusals, each
with file, line and reason.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from parsers.app_json import hand_to_app_object
from parsers.open_format import dumps
from tests.handgen import random_records


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def _apps(folder: Path, files: int, seed: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        records = random_records(3, seed=seed + n)
        objects = [json.dumps(hand_to_app_object(r), indent=4) for r in records]
        (folder / f"{n}.hh").write_text("\n\n".join(objects) + "\n\n", encoding="utf-8")
    (folder / "README.md").write_text("# my hands\n\nfrom the app\n", encoding="utf-8")
    return folder


def _open_file(path: Path, count: int, seed: int) -> Path:
    path.write_text("".join(dumps(r) + "\n" for r in random_records(count, seed)), "utf-8")
    return path


def _tree(data: Path) -> dict[str, bytes]:
    return {str(p.relative_to(data)): p.read_bytes() for p in data.rglob("*") if p.is_file()}


def test_a_wrong_format_says_so_in_a_few_lines_and_leaves_no_dataset(tmp_path: Path) -> None:
    apps = _apps(tmp_path / "apps", 12, seed=80)
    for wrong in ("swc", "fpdb", "open", "swc-chat"):
        data = tmp_path / f"data-{wrong}"
        result = run("import", "--data", str(data), "--format", wrong, str(apps))
        assert result.exit_code == 1, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        lines = result.output.splitlines()
        assert len(lines) <= 8, result.output  # was ~20 refusals, a line per file, and more
        text = result.output
        assert f"13 files are not {wrong}, the --format given" in text
        assert "12 look like app-json, 1 like no known format" in text
        assert text.count("e.g. ") == 2 and "0.hh" in text and "README.md" in text
        assert f"Error: nothing stored: no file given is {wrong} (--format {wrong})" in text
        assert "drop --format" in text
        assert not data.exists()  # nothing stored or refused: no dataset made
    # before: `--format swc` quarantined every line as an unreadable capture line (a dataset
    # holding only those rows was kept), `--format fpdb` one "no fpdb-3 OFC tables" a file
    right = run("import", "--data", str(tmp_path / "data"), "--no-recompute", str(apps))
    assert right.exit_code == 0 and "hands: 36 seen, 36 stored" in right.output


def test_an_existing_dataset_stays_as_it_was(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert import_paths([_open_file(tmp_path / "h.jsonl", 4, seed=81)], data).stored == 4
    before = _tree(data)
    apps = _apps(tmp_path / "apps", 2, seed=82)
    result = run("import", "--data", str(data), "--format", "swc", "--no-recompute", str(apps))
    assert result.exit_code == 1 and "3 files are not swc" in result.output
    after = _tree(data)
    after.pop(".lock", None), before.pop(".lock", None)
    assert after == before


def test_files_of_the_format_are_read_beside_files_that_are_not(tmp_path: Path) -> None:
    apps = _apps(tmp_path / "apps", 2, seed=83)
    lines = _open_file(tmp_path / "apps" / "more.jsonl", 5, seed=84)
    data = tmp_path / "data"
    summary = import_paths([apps], data, format_name="open")
    by_name = {Path(f.path).name: f for f in summary.files}
    assert (summary.stored, summary.quarantined, summary.hands_seen) == (5, 0, 5)
    assert by_name["0.hh"].not_format == "open" and by_name["0.hh"].looks_like == "app-json"
    assert by_name["README.md"].looks_like is None
    assert Dataset(data).read("files", ["path"])["path"].to_pylist() == [str(lines)]
    assert Dataset(data).read("quarantine").num_rows == 0
    assert import_paths([apps], data).stored == 6  # the app files were never recorded


def test_a_wrong_format_that_reads_nothing_does_not_record_the_file(tmp_path: Path) -> None:
    """`--format swc` on an open-format file read no line as a capture and refused none:
    the file was recorded as imported with 0 hands, and auto skipped it from then on."""
    lines = _open_file(tmp_path / "h.jsonl", 3, seed=85)
    data = tmp_path / "data"
    summary = import_paths([lines], data, format_name="swc")
    assert summary.files[0].not_format == "swc" and summary.files[0].looks_like == "open"
    assert import_paths([lines], data).stored == 3


def test_a_file_that_looks_like_the_format_keeps_its_refusals(tmp_path: Path) -> None:
    record = json.loads(dumps(random_records(1, seed=86)[0]))
    record["seats"][0]["streets"][0]["cards"][0] = "Zz"
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    summary = import_paths([path], data, format_name="open")
    assert (summary.quarantined, summary.files[0].not_format) == (1, None)
    row = Dataset(data).read("quarantine", ["source_file", "line", "reason"]).to_pylist()
    assert row == [{"source_file": str(path), "line": 1, "reason": row[0]["reason"]}]
    assert "bad card 'Zz'" in row[0]["reason"]


def _sqlite(path: Path, script: str) -> Path:
    with sqlite3.connect(path) as connection:
        connection.executescript(script)
    connection.close()
    return path


def test_an_sqlite_file_without_ofc_tables_is_no_hand_seen(tmp_path: Path) -> None:
    empty = _sqlite(tmp_path / "empty.db", "PRAGMA user_version = 1;")
    other = _sqlite(
        tmp_path / "notes.sqlite", "CREATE TABLE notes (text); INSERT INTO notes VALUES ('x');"
    )
    for path in (empty, other):
        data = tmp_path / f"data-{path.stem}"
        result = run("import", "--data", str(data), "--no-recompute", str(path))
        assert result.exit_code == 1, result.output
        # was "hands: 1 seen, 0 stored, 0 duplicates, 1 quarantined" (no fpdb-3 OFC tables)
        assert "hands: 0 seen, 0 stored, 0 duplicates, 0 quarantined" in result.output
        said = [line for line in result.output.splitlines() if "fpdb-3" in line]
        assert said[0] == (
            f"  skipped {path}: not an fpdb-3 database with OFC hands "
            "(it has no HttpOFCHands table): no hand seen"
        )
        assert "Error: nothing to import: no fpdb-3 OFC hands in the paths given" in result.output
        assert not data.exists()
    # beside a file of hands: that file is stored, the database named as skipped
    lines = _open_file(tmp_path / "h.jsonl", 2, seed=87)
    mixed = run("import", "--data", str(tmp_path / "d"), "--no-recompute", str(lines), str(other))
    assert mixed.exit_code == 0 and "hands: 2 seen, 2 stored" in mixed.output
    assert "not an fpdb-3 database with OFC hands" in mixed.output
