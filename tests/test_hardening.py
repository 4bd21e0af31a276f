"""Issue 12: nothing a user imports is lost or crashes the run.  One test per defect."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.engine.cards import format_card
from ofc_stats.records import HandRecord
from ofc_stats.safe_text import csv_cell, terminal_safe
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.forget import forget
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from parsers.app_json import AppJsonParser, hand_to_app_object
from parsers.open_format import dumps, hand_to_json
from tests.handgen import random_records
from tests.swcgen import fpdb_database, raw_json, snapshots

DEEP = "[" * 3000 + "]" * 3000


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def app_file(path: Path, objects: list[str], sep: str = "\n\n\n") -> Path:
    path.write_text(sep.join(objects) + sep, encoding="utf-8")
    return path


def app_objects(count: int, seed: int) -> list[dict[str, Any]]:
    return [hand_to_app_object(r) for r in random_records(count, seed)]


def keys(data: Path) -> list[str]:
    return sorted(Dataset(data).read("hands", ["hand_key"])["hand_key"].to_pylist())


# ---- defect 1: one bad hand never aborts the import


def _seat0(obj: dict[str, Any]) -> dict[str, Any]:
    ((_, seats),) = obj["handData"].items()
    return seats[0]  # type: ignore[no-any-return]


APP_BREAKAGES = {
    "orderIndex 1000": (lambda o: _seat0(o).update(orderIndex=1000), "orderIndex 1000 is not 0"),
    "orderIndex as text": (lambda o: _seat0(o).update(orderIndex="1"), "orderIndex '1' is not"),
    "a seat not an object": (lambda o: o["handData"].update({"x": [5, 6]}), "handData has 2"),
    "400 digits": (lambda o: _seat0(o).update(result=10**400), "is out of range"),
    "lone surrogate": (lambda o: _seat0(o).update(playerName="a\ud800"), "lone surrogate"),
    "nested 3000 deep": (lambda o: _seat0(o).update(dead="__DEEP__"), "nested too deep"),
}


@pytest.mark.parametrize("breakage", sorted(APP_BREAKAGES))
def test_one_unstorable_app_hand_is_quarantined_and_the_others_stored(
    tmp_path: Path, breakage: str
) -> None:
    objects = app_objects(3, seed=21)
    change, reason = APP_BREAKAGES[breakage]
    change(objects[1])
    texts = [json.dumps(o, indent=4).replace('"__DEEP__"', DEEP) for o in objects]
    path = app_file(tmp_path / "hands.hh", texts)
    summary = import_paths([path], tmp_path / "data")
    # hands 0 and 2 stored; hand 1 quarantined, named by file and its first line
    assert (summary.stored, summary.quarantined, summary.hands_seen) == (2, 1, 3)
    quarantine = Dataset(tmp_path / "data").read("quarantine").to_pylist()
    assert len(quarantine) == 1 and reason in quarantine[0]["reason"]
    second_line = texts[0].count("\n") + 3 + 1  # object 0, the 3-newline separator, then 1
    assert quarantine[0]["line"] == second_line
    assert f"hands.hh:{second_line}" in summary.messages[0]


def test_open_format_values_that_fit_no_column_are_quarantined_on_both_paths(
    tmp_path: Path,
) -> None:
    records = random_records(4, seed=22)
    lines = [hand_to_json(r) for r in records]
    lines[0]["played_at"] = "2026-13-45T10:00:00"  # DuckDB's CAST once failed the whole chunk
    lines[1]["stakes"] = 10**400  # the fast path read inf, the per-line path crashed
    lines[2]["seats"][0]["streets"] += [{"cards": [], "to": []}] * 200  # street 204: no int8
    used = {p.card for p in records[2].placements}
    spare = format_card(min(set(range(52)) - used))  # a card no seat holds
    lines[2]["seats"][0]["streets"][-1] = {"cards": [spare], "to": ["discard"]}
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    for columnar in (True, False):
        data = tmp_path / f"data-{columnar}"
        summary = import_paths([path], data, columnar=columnar)
        assert (summary.stored, summary.quarantined) == (1, 3)
        assert keys(data) == [records[3].hand_key]
        reasons = sorted(Dataset(data).read("quarantine")["reason"].to_pylist())
        assert "played_at '2026-13-45T10:00:00' is not ISO 8601" in reasons
        assert any(r.startswith("stakes 1000000") and "out of range" in r for r in reasons)
        assert any("street 204 is out of range 0-127" in r for r in reasons)


def fpdb_db(path: Path, raws: list[Any]) -> Path:
    return fpdb_database(path, map(json.dumps, raws), "t-9")


def test_fpdb_fields_of_the_wrong_type_and_awkward_paths(tmp_path: Path) -> None:
    raws = [raw_json(r) for r in random_records(5, seed=23)]
    raws[1]["players"] = "ana"
    raws[2]["variant"] = ["ofcp"]
    raws[3]["result"] = "won"
    folder = tmp_path / "odd #1 ?mode=rw %20"
    folder.mkdir()
    path = fpdb_db(folder / "fpdb?mode=rwc#x.db3", raws)
    summary = import_paths([path], tmp_path / "data")
    assert (summary.stored, summary.quarantined) == (2, 3)
    rows = Dataset(tmp_path / "data").read("quarantine").to_pylist()
    assert [row["line"] for row in rows] == [2, 3, 4]  # the database row ids
    assert [row["reason"] for row in rows] == [
        "players is not a list of objects",
        "variant \"['ofcp']\" is not an object",
        "result 'won' is not an object",
    ]
    archive = tmp_path / "db.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(path, "inside/fpdb.db3")
    zipped = import_paths([archive], tmp_path / "data2")
    assert (zipped.stored, zipped.quarantined) == (2, 3)


def test_damaged_zip_members_are_quarantined_not_raised(tmp_path: Path) -> None:
    good = "".join(dumps(r) + "\n" for r in random_records(3, seed=24)).encode()
    archive = tmp_path / "hands.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.jsonl", good)
        zf.writestr("b.jsonl", good.replace(b'"table":"t24"', b'"table":"other"'))
    data = bytearray(archive.read_bytes())
    data[14] ^= 0xFF  # member a's CRC in its local header ...
    central = data.index(b"PK\x01\x02")
    data[central + 16] ^= 0xFF  # ... and in the central directory
    archive.write_bytes(bytes(data))
    summary = import_paths([archive], tmp_path / "data")
    assert summary.stored == 3  # member b
    assert summary.quarantined == 1 and "Bad CRC-32" in summary.messages[0]
    assert summary.files[0].skipped is not None and "unreadable file" in summary.files[0].skipped


def test_a_zip_cut_short_is_named_damaged_not_an_unknown_format(tmp_path: Path) -> None:
    """A zip's directory is at its end, so a copy cut short cannot be opened: it is skipped
    as a damaged archive (the file named, one line), not as a file of unknown format."""
    good = "".join(dumps(r) + "\n" for r in random_records(3, seed=26)).encode()
    archive = tmp_path / "hands.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.jsonl", good)
    archive.write_bytes(archive.read_bytes()[:60])
    summary = import_paths([archive], tmp_path / "data")
    assert (summary.stored, summary.quarantined) == (0, 0)
    [skipped] = summary.files
    assert skipped.skipped == "damaged zip archive: no directory at its end (cut short?)"
    text = tmp_path / "notes.zip"  # named .zip but not one: read as what it holds
    text.write_bytes(good)
    assert import_paths([text], tmp_path / "data2").stored == 3


# ---- defect 3: files that grow between imports


def test_a_swc_hand_in_progress_is_replaced_when_the_capture_completes(tmp_path: Path) -> None:
    records = random_records(3, seed=25)
    lines = [line for i, r in enumerate(records) for line in snapshots(r, gi=500 + i, ti=9)]
    last = snapshots(records[2], gi=502, ti=9)
    cut = len(lines) - len(last) // 2  # the third hand half captured
    path = tmp_path / "capture.jsonl"
    path.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    first = import_paths([path], data)
    recompute(data)
    assert first.stored == 3
    hands = Dataset(data).read("hands").to_pylist()
    assert [h["complete"] for h in sorted(hands, key=lambda h: h["hand_key"])] == [
        True,
        True,
        False,
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")  # the capture went on
    second = import_paths([path], data)
    recompute(data)
    assert (second.stored, second.duplicates, second.files[0].replaced) == (1, 2, 1)
    assert keys(data) == ["swc:SwC:9:500", "swc:SwC:9:501", "swc:SwC:9:502"]  # no ~suffix
    dataset = Dataset(data)
    assert all(dataset.read("hands")["complete"].to_pylist())
    ids = dict(
        zip(*dataset.read("hands", ["hand_key", "hand_id"]).to_pydict().values(), strict=True)
    )
    results = dataset.read("results", ["hand_id", "status"]).to_pylist()
    third = [r["status"] for r in results if r["hand_id"] == ids["swc:SwC:9:502"]]
    assert third == ["scored"] * len(records[2].seats)  # the incomplete one's rows are gone


def test_a_dealer_chat_line_cut_inside_a_number_waits_for_the_rest(tmp_path: Path) -> None:
    head = (
        "2026-08-14 18:40:00 table=7 Dealer: New game started (2 hands)\n"
        "2026-08-14 18:41:00 table=7 Dealer: Hand #1 finished - kestrel: +8, marlow: -8\n"
    )
    path = tmp_path / "chat.txt"
    path.write_text(head + "2026-08-14 18:42:00 table=7 Dealer: Hand #2 finished - kestrel: +5")
    data = tmp_path / "data"
    first = import_paths([path], data)
    assert (first.stored, first.partial, first.quarantined) == (1, 1, 0)
    assert "left for the next import" in first.lines()[2]
    with path.open("a") as stream:
        stream.write("8, marlow: -58\n")
    second = import_paths([path], data)
    assert (second.stored, second.duplicates) == (1, 1)
    seats = Dataset(data).read("seats", ["hand_key", "player", "reported_points"]).to_pylist()
    hand2 = {s["player"]: s["reported_points"] for s in seats if s["hand_key"].endswith("#2")}
    assert hand2 == {"kestrel": 58.0, "marlow": -58.0}  # not +5


# ---- defect 4: one quarantine row per refused hand


def test_every_refused_hand_has_its_own_quarantine_row(tmp_path: Path) -> None:
    records = random_records(6, seed=26)
    lines = [line for i, r in enumerate(records) for line in snapshots(r, gi=700 + i, ti=3)]
    latin1 = "\n".join(lines).replace('"n": "player', '"n": "pláyer') + "\n"
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(latin1.encode("latin-1"))
    summary = import_paths([path], tmp_path / "data")
    rows = Dataset(tmp_path / "data").read("quarantine").to_pylist()
    # every line is refused on its own (a capture line holds no hand: not counted as one)
    assert summary.lines_quarantined == len(lines) == len(rows)
    assert summary.hands_seen == 0
    assert sorted(row["line"] for row in rows) == list(range(1, len(lines) + 1))
    again = import_paths([path], tmp_path / "data")  # nothing stored: read again, not doubled
    assert again.lines_quarantined == len(lines)
    assert Dataset(tmp_path / "data").read("quarantine").num_rows == len(lines)


def test_app_objects_without_blank_lines_each_get_their_line(tmp_path: Path) -> None:
    objects = app_objects(4, seed=27)
    objects[1]["rules"] = "nonsense"
    objects[3]["rules"] = "nonsense"
    path = app_file(tmp_path / "lines.hh", [json.dumps(o) for o in objects], sep="\n")
    summary = import_paths([path], tmp_path / "data")
    rows = Dataset(tmp_path / "data").read("quarantine").to_pylist()
    assert summary.stored == 2 and [(r["line"], r["room_hand_id"]) for r in rows] == [
        (2, objects[1]["handData"].popitem()[0]),
        (4, objects[3]["handData"].popitem()[0]),
    ]


# ---- defect 5: whole files no longer skipped


@pytest.mark.parametrize(
    "encoding,bom",
    [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-32-le", b"\xff\xfe\x00\x00")],
)
def test_utf16_and_utf32_files_with_a_mark_are_read(
    tmp_path: Path, encoding: str, bom: bytes
) -> None:
    text = "".join(dumps(r) + "\n" for r in random_records(5, seed=28))
    path = tmp_path / "hands.jsonl"
    path.write_bytes(bom + text.replace("player 1", "plâyer 1").encode(encoding))
    summary = import_paths([path], tmp_path / "data")
    assert (summary.files[0].format, summary.stored) == ("open", 5)


def test_a_broken_first_line_or_blank_padding_does_not_hide_the_format(tmp_path: Path) -> None:
    text = "".join(dumps(r) + "\n" for r in random_records(18, seed=29))
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"ofc_form\n' + text, encoding="utf-8")
    padded = tmp_path / "padded.jsonl"
    padded.write_text("\n" * 70_000 + text, encoding="utf-8")
    summary = import_paths([broken], tmp_path / "a")
    assert (summary.stored, summary.quarantined) == (18, 1)
    assert import_paths([padded], tmp_path / "b").stored == 18


# ---- defect 6: smaller losses


def test_a_broken_app_object_does_not_swallow_the_next(tmp_path: Path) -> None:
    first, second = (json.dumps(o, indent=4) for o in app_objects(2, seed=30))
    path = tmp_path / "two.hh"
    path.write_text(first[: len(first) // 2] + "\n" + second + "\n", encoding="utf-8")
    summary = import_paths([path], tmp_path / "data")
    assert (summary.stored, summary.quarantined) == (1, 1)
    assert "truncated JSON" in summary.messages[0] or "bad JSON" in summary.messages[0]


def test_dealer_chat_hand_lines_without_scores_are_quarantined(tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(
        "2026-08-14 18:40:00 table=7 Dealer: New game started (3 hands)\n"
        "2026-08-14 18:41:00 table=7 Dealer: Hand #1 finished\n"
        "2026-08-14 18:42:00 table=7 Dealer: Hand #2 finished - \n"
        "2026-02-30 18:43:00 table=7 Dealer: Hand #3 finished - a: +1, b: -1\n"
        "2026-08-14 18:44:00 table=7 Dealer: Hand #4 finished - a: +2, a: -2\n"
    )
    summary = import_paths([path], tmp_path / "data")
    rows = Dataset(tmp_path / "data").read("quarantine").to_pylist()
    assert summary.stored == 0
    assert [(r["line"], r["reason"]) for r in rows] == [
        (2, "hand result line without scores"),
        (3, "hand result line without scores"),
        (4, "'2026-02-30 18:43:00' is not a date and time"),
        (5, "hand result line with unreadable scores"),  # a player named twice
    ]


# ---- defect 7: untrusted text


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised() -> None:
    assert csv_cell('=HYPERLINK("http://x")') == '\'=HYPERLINK("http://x")'
    assert csv_cell("+cmd|' /C calc'!A0") == "'+cmd|' /C calc'!A0"
    assert csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert csv_cell(" =1+1") == "' =1+1"
    assert csv_cell("\t=1") == "'\t=1"
    assert (csv_cell("-7"), csv_cell("+3.5"), csv_cell("ana"), csv_cell(-7)) == (
        "-7",
        "+3.5",
        "ana",
        -7,
    )
    assert terminal_safe("a\x1b]0;pwned\x07b\x9bc\n") == "a\\x1b]0;pwned\\x07b\\x9bc\\n"


def test_audit_and_report_csv_files_hold_no_formula(tmp_path: Path) -> None:
    records = random_records(30, seed=31)
    evil = [
        replace(r, seats=tuple(replace(s, player=f'=HYPERLINK("x{s.seat}")') for s in r.seats))
        for r in records
    ]
    path = tmp_path / "evil.jsonl"
    path.write_text("".join(dumps(r) + "\n" for r in evil), encoding="utf-8")
    data = tmp_path / "data"
    assert run("import", "--quiet", "--data", str(data), str(path)).exit_code == 0
    audit = tmp_path / "audit.csv"
    result = run("audit", "--data", str(data), "--out", str(audit))
    assert result.exit_code in (0, 1), result.output
    out = tmp_path / "csv"
    report = run("report", "--data", str(data), "--format", "csv", "--out", str(out))
    assert report.exit_code == 0, report.output
    files = [audit, *sorted(out.glob("*.csv"))]
    cells = [c for f in files for row in csv.reader(io.StringIO(f.read_text())) for c in row]
    assert any(c.startswith("'=HYPERLINK") for c in cells)  # the names are there ...
    assert not any(c.startswith("=") for c in cells)  # ... and none runs


def test_escape_sequences_never_reach_the_terminal(tmp_path: Path) -> None:
    name = tmp_path / "evil\x1b]0;pwned\x07.jsonl"
    record = random_records(1, seed=32)[0]
    bad = hand_to_json(record)
    bad["ruleset"] = "\x1b[31mred"
    name.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    result = run("import", "--data", str(tmp_path / "d"), str(name))
    assert result.exit_code == 1  # its one hand is refused (no such ruleset): nothing stored
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b]0;pwned\\x07" in result.output


# ---- defect 8 and 9: fpdb paths (above); memory bounded for one-object-per-line files


class _Counting(io.RawIOBase):
    def __init__(self, data: bytes) -> None:
        self.data, self.read_bytes = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self.data[self.read_bytes : self.read_bytes + len(buffer)]
        buffer[: len(chunk)] = chunk
        self.read_bytes += len(chunk)
        return len(chunk)


def test_app_objects_one_per_line_are_read_one_at_a_time() -> None:
    line = json.dumps(app_objects(1, seed=33)[0]) + "\n"
    data = (line * 3000).encode()  # ~4 MB, no blank line anywhere
    raw = _Counting(data)
    items = AppJsonParser().parse(io.BufferedReader(raw, 8192), "big.hh")  # type: ignore[arg-type]
    first = next(items)
    assert isinstance(first, HandRecord)
    assert raw.read_bytes <= 16384 < len(data)  # the first hand after two buffers, not the file


# ---- defect 10: dataset folders


def test_sql_and_report_read_a_dataset_in_a_folder_named_like_a_glob(tmp_path: Path) -> None:
    data = tmp_path / "x[1]"
    path = tmp_path / "h.jsonl"
    path.write_text("".join(dumps(r) + "\n" for r in random_records(5, seed=34)), "utf-8")
    assert run("import", "--quiet", "--data", str(data), str(path)).exit_code == 0
    result = run("sql", "--data", str(data), "SELECT count(*) AS n FROM hands", "--format", "csv")
    assert result.exit_code == 0 and result.output.split() == ["n", "5"]
    report = run("report", "--data", str(data), "--out", str(tmp_path / "r.html"))
    assert report.exit_code == 0, report.output


def test_bad_dataset_folders_give_a_message_not_a_traceback(tmp_path: Path) -> None:
    hands = tmp_path / "h.jsonl"
    hands.write_text(dumps(random_records(1, seed=35)[0]) + "\n", encoding="utf-8")
    afile = tmp_path / "afile"
    afile.write_text("x")
    empty_meta = tmp_path / "empty"
    empty_meta.mkdir()
    (empty_meta / "dataset.json").write_text("")
    list_meta = tmp_path / "list"
    list_meta.mkdir()
    (list_meta / "dataset.json").write_text("[1]")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    unlockable = tmp_path / "unlockable"
    assert (
        run("import", "--quiet", "--no-recompute", "--data", str(unlockable), str(hands)).exit_code
        == 0
    )
    (unlockable / ".lock").unlink()
    (unlockable / ".lock").mkdir()  # cannot be opened for writing, even by root
    cases = [
        (["import", "--data", str(afile), str(hands)], "is a file, not a dataset folder"),
        (["import", "--data", str(empty_meta), str(hands)], "dataset.json is unreadable"),
        (["sql", "--data", str(list_meta), "SELECT 1"], "dataset.json is not an object"),
        (["import", "--data", str(other), str(hands)], "holds other files and no dataset.json"),
        (["import", "--data", str(unlockable), str(hands)], "cannot lock the dataset"),
    ]
    for args, message in cases:
        result = run(*args)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), args
        assert message in result.output, (args, result.output)
    assert (other / "notes.txt").read_text() == "mine" and not (other / "dataset.json").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_dataset_is_refused_with_a_message(tmp_path: Path) -> None:
    hands = tmp_path / "h.jsonl"
    hands.write_text(dumps(random_records(1, seed=36)[0]) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    import_paths([hands], data)
    for path in [data, *data.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        result = run("import", "--data", str(data), str(hands))
        assert result.exit_code == 1 and "cannot write to the dataset" in result.output
        assert run("sql", "--data", str(data), "SELECT count(*) FROM hands").exit_code == 0
    finally:
        for path in [data, *data.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)


# ---- defect 11: a wrong --format, --force, forget


def _contents(data: Path) -> dict[str, list[dict[str, Any]]]:
    """Every table's rows, minus what differs between two runs (batch ids and clocks)."""
    dataset = Dataset(data)
    out = {}
    for table in ("hands", "seats", "placements", "quarantine", "files", "results", "versus"):
        rows = dataset.read(table).to_pylist()
        for row in rows:
            for column in ("batch", "imported_at", "quarantined_at"):
                row.pop(column, None)
        out[table] = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))
    return out


def test_a_wrong_format_leaves_nothing_behind_that_forget_or_force_cannot_mend(
    tmp_path: Path,
) -> None:
    objects = app_objects(5, seed=37)
    apps = app_file(tmp_path / "apps.hh", [json.dumps(o, indent=4) for o in objects])
    lines = tmp_path / "hands.jsonl"
    lines.write_text("".join(dumps(r) + "\n" for r in random_records(4, seed=38)), "utf-8")
    data, clean = tmp_path / "data", tmp_path / "clean"
    assert import_paths([lines], clean).stored == 4
    recompute(clean)
    assert import_paths([lines], data).stored == 4
    wrong = import_paths([apps], data, format_name="open")
    assert (wrong.stored, wrong.quarantined, wrong.files[0].not_format) == (0, 0, "open")
    assert any("1 file is not open, the --format given" in line for line in wrong.lines())
    ledger = Dataset(data).read("files", ["path"])["path"].to_pylist()
    assert ledger == [str(lines)]  # not that format: not recorded as imported
    recompute(data)
    assert _contents(data) == _contents(clean)  # as if the wrong import never happened
    right = import_paths([apps], data)
    assert right.stored == 5
    forced = import_paths([apps], data, force=True)
    assert (forced.stored, forced.duplicates, forced.files[0].skipped) == (0, 5, None)
    result = run("forget", "--data", str(data), str(apps))
    assert result.exit_code == 0 and "forgot" in result.output and "5 hands" in result.output
    recompute(data)
    assert _contents(data) == _contents(clean)
    missing = run("forget", "--data", str(data), str(tmp_path / "never.hh"))
    assert missing.exit_code == 1 and "no file of that name and no batch" in missing.output
    assert f"`ofc-stats sql --data {data} " in missing.output  # the hint runs as printed


def test_forget_a_batch_removes_its_rows_and_lets_its_files_import_again(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(dumps(r) + "\n" for r in random_records(50, seed=39)), "utf-8")
    data = tmp_path / "data"
    import_paths([path], data, batch_hands=20)  # batches of 20, 20, 10 (+ the ledger)
    recompute(data)
    dataset = Dataset(data)
    first = dataset.batches()[0]
    summary = forget(data, first)
    assert (summary.hands, summary.batches) == (20, 1)
    assert len(dataset.read("hands")) == 30 and first not in dataset.batches()
    assert dataset.read("files").num_rows == 0  # its file is no longer "imported"
    again = import_paths([path], data)
    assert (again.stored, again.duplicates) == (20, 30)


def test_forget_lets_a_plain_import_bring_back_the_hands_other_files_shared(
    tmp_path: Path,
) -> None:
    """A hand two files hold is stored under the first; forgetting that file takes it, and
    the files imported since that counted duplicates are read again by a plain import."""
    records = random_records(6, seed=41)

    def lines(name: str, picked: list[int]) -> Path:
        path = tmp_path / name
        path.write_text("".join(dumps(records[i]) + "\n" for i in picked), "utf-8")
        return path

    early, early_copy = lines("early.jsonl", [0]), lines("early-copy.jsonl", [0])
    first, later = lines("first.jsonl", [1, 2, 3]), lines("later.jsonl", [1, 2, 3, 4, 5])
    data = tmp_path / "data"
    for path in (early, early_copy, first, later):  # one import each, in this order
        import_paths([path], data)
    dataset = Dataset(data)
    assert len(dataset.read("hands")) == 6  # later stored 4 and 5 (1-3 were duplicates)
    summary = forget(data, str(first))
    # later counted duplicates after first was imported; early-copy's came before it
    assert (summary.hands, summary.reread) == (3, [str(later)])
    assert "1 file imported since counted duplicates" in " ".join(summary.lines())
    # the file's row of `files` is an import record: "ledger row" read as the money ledger's
    assert summary.lines()[0] == (
        f"forgot {first}: 3 hands, 0 quarantine entries, 1 import record, from 1 batch"
    )
    assert len(dataset.read("hands")) == 3
    again = import_paths([early, early_copy, later], data)
    assert (again.stored, again.duplicates) == (3, 2)  # 1-3 back; 4 and 5 still stored
    assert [f.skipped is not None for f in again.files] == [True, True, False]
    assert len(dataset.read("hands")) == 6


# ---- the lock: a holder that is gone


def test_a_lock_held_by_the_children_of_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    data = tmp_path / "data"
    hands = tmp_path / "h.jsonl"
    hands.write_text(dumps(random_records(1, seed=40)[0]) + "\n", encoding="utf-8")
    import_paths([hands], data)
    code = (
        "import os, sys, time\n"
        "from ofc_stats.store.dataset import Dataset\n"
        f"with Dataset({str(data)!r}).locked():\n"
        "    if os.fork() == 0:\n"  # an orphan that inherits the locked file
        "        os.close(1); time.sleep(60); os._exit(0)\n"
        "    print('locked', flush=True); os._exit(0)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None and parent.stdout.readline().strip() == "locked"
    parent.wait()  # the parent is gone; its child sleeps on, holding the lock
    holders = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _holds(p, data / ".lock")]
    try:
        assert holders  # the orphan still holds the old lock file
        started = time.monotonic()
        summary = import_paths([hands], data, wait_seconds=0, force=True)
        assert summary.duplicates == 1 and time.monotonic() - started < 10
        assert "pid" in (data / ".lock").read_text() or (data / ".lock").read_text() == ""
    finally:
        for holder in holders:
            os.kill(int(holder.name), 9)


def _holds(process: Path, lock: Path) -> bool:
    try:
        return any(os.readlink(fd) == str(lock) for fd in (process / "fd").iterdir())
    except OSError:
        return False


def test_a_file_name_that_is_not_utf8_and_a_surrogate_hand_id_are_stored_safely(
    tmp_path: Path,
) -> None:
    record = random_records(2, seed=41)
    bad = hand_to_json(record[1])
    bad["hand_id"] = "h\ud800"  # refused, and its quarantine row must still be writable
    name = os.fsdecode(b"caf\xe9.jsonl")  # Latin-1 bytes in a Linux file name
    path = tmp_path / name
    path.write_text(dumps(record[0]) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    summary = import_paths([path], tmp_path / "data")
    assert (summary.stored, summary.quarantined) == (1, 1)
    row = Dataset(tmp_path / "data").read("quarantine").to_pylist()[0]
    assert row["room_hand_id"] == "h\\ud800" and row["source_file"].endswith("caf\\xe9.jsonl")
    result = run("import", "--data", str(tmp_path / "d2"), str(path))
    assert result.exit_code == 0 and "caf\\xe9.jsonl" in result.output


def test_forget_the_batch_a_file_is_recorded_under_takes_back_that_import(
    tmp_path: Path,
) -> None:
    """An analyst's find: a file of exactly three batches of hands gets its ledger row in a
    fourth, empty batch; `forget` of that batch (the one `files.batch` names) forgot
    0 hands and the ledger row, and the next import stored none of them (all duplicates).
    Now it takes back that import: its 60 hands in the batches after the file's previous
    ledger row (an earlier import of a smaller copy keeps its 10)."""
    path = tmp_path / "hands.jsonl"
    records = random_records(70, seed=43)
    path.write_text("".join(dumps(r) + "\n" for r in records[:10]), "utf-8")
    data = tmp_path / "data"
    import_paths([path], data, batch_hands=20)  # 10 hands and the row: one batch
    path.write_text("".join(dumps(r) + "\n" for r in records[10:]), "utf-8")  # a new file
    import_paths([path], data, batch_hands=20)  # 20, 20, 20, then the row alone
    dataset = Dataset(data)
    rows = dataset.read("files", ["batch"])["batch"].to_pylist()
    assert len(rows) == 2 and len(dataset.batches()) == 5
    summary = forget(data, max(rows))
    assert (summary.hands, summary.ledger, summary.batches) == (60, 1, 4)
    assert len(dataset.read("hands")) == 10
    again = import_paths([path], data, batch_hands=20)
    assert (again.stored, again.duplicates) == (60, 0)
