"""Importing: golden parses, every quarantine reason, idempotency, atomic batches."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.engine.cards import parse_cards
from ofc_stats.errors import DatasetLocked
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from parsers.app_json import AppJsonParser
from parsers.open_format import OpenFormatParser, dumps
from tests.handgen import random_records
from tests.readers import records_from
from tests.shared_samples import APPS

DATA = Path(__file__).parent / "data"
SHARED_APPS = APPS


def test_app_json_golden() -> None:
    first, second = records_from(AppJsonParser, DATA / "app-json" / "two_hands.hh")
    assert first.hand_key == "app-json:Upoker:6852666:h-1"
    assert first.ruleset == "pineapple-ultimate" and first.rules_text == "progressive17_nojokers"
    assert first.stakes == 0.2 and first.currency == "AUD"
    assert str(first.played_at) == "2020-05-27 21:04:17"
    assert (first.source_line, first.source_offset) == (1, 0)
    bo, ana = first.seats  # seats in order of action: orderIndex 0 first
    assert (bo.seat, bo.player, bo.hero, bo.discards) == (0, "<b>bo</b>", False, None)
    assert ana.top == parse_cards("As Jd Jh") and ana.bottom == parse_cards("6c 9d 9s 6s 9c")
    assert ana.discards == parse_cards("5c 2d 7s Kh")
    assert (ana.reported_points, ana.reported_money) == (-7.0, -1.4)
    streets = sorted(
        p.street for p in first.placements if p.seat == 1 and p.destination != "discard"
    )
    assert streets == [0] * 5 + [1] * 2 + [2] * 2 + [3] * 2 + [4] * 2
    assert second.room == "Ppp"  # no appName: Pokerrrr 2
    assert second.ruleset == "pineapple-progressive-16"
    assert second.seats[1].in_fantasy and second.seats[1].fantasy_cards == 15
    assert second.seats[1].reported_points is None
    assert second.source_line == 37


def test_every_bad_hand_is_quarantined_with_its_reason(tmp_path: Path) -> None:
    summary = import_paths(
        [DATA / "app-json" / "bad.hh", DATA / "app-json" / "latin1.hh"], tmp_path
    )
    assert summary.stored == 1
    reasons = sorted(Dataset(tmp_path).read("quarantine").column("reason").to_pylist())
    assert len(reasons) == 7
    expected = [
        "truncated JSON",
        "1 seat; pineapple-ultimate seats 2 to 3",
        "bad card 'Zz': expected rank and suit",
        "card As appears twice",
        "seat 1: top row has 4 cards: player 'ana'",
        "unknown rule string 'crazy_pineapple_9000'",
        "wrong encoding: line",
    ]
    # The last object of bad.hh stops inside its first seat, and the file ends
    # with a newline: the writer finished, so the object is broken, not partial.
    assert summary.partial == 0
    for fragment in expected:
        assert any(fragment in reason for reason in reasons), fragment
    messages = "\n".join(summary.messages)
    assert "bad.hh:1 " not in messages and "bad.hh:1:" not in messages  # the good hand
    assert f"{DATA / 'app-json' / 'bad.hh'}:" in messages  # file and line named


@pytest.mark.skipif(not SHARED_APPS.is_dir(), reason="../shared is not present")
def test_every_real_app_hand_imports(tmp_path: Path) -> None:
    summary = import_paths([SHARED_APPS], tmp_path)
    assert summary.stored == 1910 and summary.quarantined == 0
    assert sum(f.reused_ids for f in summary.files) == 1
    dataset = Dataset(tmp_path)
    hands = dataset.read("hands").to_pandas()
    assert (~hands.complete).sum() == 3
    assert hands.room.value_counts().to_dict() == {"Ppp": 1517, "Spartan": 244, "Upoker": 149}
    seats = dataset.read("seats").to_pandas()
    fantasy = seats[seats.in_fantasy & seats.discards.notna()]
    assert set(fantasy.fantasy_cards) <= {14, 15, 16}


def test_reimport_changes_nothing_and_grown_files_add_only_new_hands(tmp_path: Path) -> None:
    source = tmp_path / "hands.jsonl"
    records = random_records(30, seed=4)
    source.write_text("".join(dumps(r) + "\n" for r in records[:20]), encoding="utf-8")
    data = tmp_path / "data"
    assert import_paths([source], data).stored == 20
    before = Dataset(data).read("hands").sort_by("hand_key")
    again = import_paths([source], data)
    assert again.stored == 0 and again.files[0].skipped == "already imported (same content)"
    assert Dataset(data).read("hands").sort_by("hand_key").equals(before)
    with source.open("a", encoding="utf-8") as stream:
        stream.write("".join(dumps(r) + "\n" for r in records[20:]))
    grown = import_paths([source], data)
    assert (grown.stored, grown.duplicates) == (10, 20)
    copy = tmp_path / "copy.jsonl"
    copy.write_text(source.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    twice = import_paths([copy], data)
    assert (twice.stored, twice.duplicates) == (0, 30)
    assert len(Dataset(data).read("hands")) == 30


def test_open_format_round_trip_through_parquet(tmp_path: Path) -> None:
    records = random_records(200, seed=9)
    source = tmp_path / "hands.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in records), encoding="utf-8")
    parsed = records_from(OpenFormatParser, source)
    for original, back in zip(records, parsed, strict=True):
        assert back.seats == original.seats
        assert back.placements == original.placements
        assert back.hand_key == original.hand_key and back.played_at == original.played_at
    import_paths([source], tmp_path / "data")
    dataset = Dataset(tmp_path / "data")
    seats = dataset.read("seats").to_pylist()
    by_key = {(s["hand_key"], s["seat"]): s for s in seats}
    for record in records:
        for seat in record.seats:
            row = by_key[(record.hand_key, seat.seat)]
            assert tuple(row["top"]) == seat.top and tuple(row["discards"]) == seat.discards
            assert row["board"] == bytes(seat.top + seat.middle + seat.bottom)
            assert row["player"] == seat.player and row["stack"] == seat.stack
    placements = dataset.read("placements")
    assert len(placements) == sum(len(r.placements) for r in records)


def test_open_format_bad_lines(tmp_path: Path) -> None:
    good = json.loads(dumps(random_records(1, seed=1)[0]))
    lines = [json.dumps(good)]
    broken = dict(good, hand_id="b1")
    broken["seats"] = [dict(good["seats"][0], streets=[{"cards": ["As"], "to": ["sideways"]}])]
    lines.append(json.dumps(broken))
    lines.append(json.dumps(dict(good, ofc_format=2, hand_id="b2")))
    lines.append(json.dumps(dict(good, ruleset="nope", hand_id="b3")))
    lines.append(json.dumps(good)[:40])  # truncated, then a newline: the writer gave up
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = import_paths([path], tmp_path / "data")
    assert (summary.stored, summary.quarantined) == (1, 4)
    messages = summary.messages
    assert any(":2 (hand b1): seat 0 street 0: bad destination 'sideways'" in m for m in messages)
    assert any(":3 (hand b2): not an open-format hand" in m for m in messages)
    assert any(":4 (hand b3): unknown ruleset 'nope'" in m for m in messages)
    assert any(":5: truncated JSON" in m for m in messages)


def test_zip_archives_and_bomb_limits(tmp_path: Path) -> None:
    archive = tmp_path / "hands.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(DATA / "app-json" / "two_hands.hh", "a/two_hands.hh")
        zf.writestr("bomb.jsonl", "\n" * (8 << 20))  # 8 MiB of newlines: ratio > 200:1
    summary = import_paths([archive], tmp_path / "data")
    assert summary.stored == 2
    skipped = {f.path: f.skipped for f in summary.files if f.skipped}
    assert any("zip bomb" in reason for reason in skipped.values())
    assert f"{archive}!a/two_hands.hh" in {f.path for f in summary.files}


def test_unknown_files_are_reported_with_the_known_formats(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n", encoding="utf-8")
    summary = import_paths([path], tmp_path / "data")
    assert "unknown format; known formats: app-json" in summary.files[0].skipped  # type: ignore[operator]


def test_a_second_import_refuses_while_the_first_holds_the_lock(tmp_path: Path) -> None:
    dataset = Dataset(tmp_path)
    with dataset.locked(), pytest.raises(DatasetLocked, match="is in use by pid"):
        import_paths([DATA / "app-json" / "two_hands.hh"], tmp_path)
    assert import_paths([DATA / "app-json" / "two_hands.hh"], tmp_path).stored == 2


def test_a_waiting_import_says_it_waited_and_asks_for_a_longer_wait(tmp_path: Path) -> None:
    dataset = Dataset(tmp_path)
    with dataset.locked(), pytest.raises(DatasetLocked) as refused:
        import_paths([DATA / "app-json" / "two_hands.hh"], tmp_path, wait_seconds=0.2)
    assert "is in use by pid" in str(refused.value) and "after 0.2 s" in str(refused.value)
    assert str(refused.value).endswith("pass a longer --wait SECONDS")


def test_an_import_killed_midway_leaves_whole_batches(tmp_path: Path) -> None:
    records = random_records(4_000, seed=11)
    source = tmp_path / "big.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in records), encoding="utf-8")
    data = tmp_path / "data"
    code = (
        "import sys; from ofc_stats.store.importer import import_paths; "
        f"import_paths([{str(source)!r}], {str(data)!r}, batch_hands=200)"
    )
    process = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if len(Dataset(data).batches()) >= 3:
            break
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    dataset = Dataset(data)
    visible = len(dataset.read("hands"))
    assert visible % 200 == 0  # only whole batches are visible, even mid-commit
    # What the next import does first: a batch killed after its commit point (its files
    # written and fsynced while the next batch decoded) is rolled forward, one before it
    # dropped; whole batches still.
    with dataset.locked():
        pass
    stored = len(dataset.read("hands"))
    assert 0 < stored < len(records) and stored >= visible  # killed part-way
    assert stored % 200 == 0
    seats = dataset.read("seats")
    assert set(seats.column("hand_key").to_pylist()) == set(
        dataset.read("hands").column("hand_key").to_pylist()
    )
    resumed = import_paths([source], data)
    assert resumed.stored == len(records) - stored and resumed.duplicates == stored
    assert len(Dataset(data).read("hands")) == len(records)
    assert not any((data / ".tmp").iterdir())


def test_rules_override(tmp_path: Path) -> None:
    summary = import_paths([DATA / "app-json" / "two_hands.hh"], tmp_path, rules="pineapple")
    assert summary.stored == 2
    assert set(Dataset(tmp_path).read("hands").column("ruleset").to_pylist()) == {"pineapple"}


def test_a_reused_hand_id_with_other_cards_is_kept(tmp_path: Path) -> None:
    first = random_records(2, seed=5)
    clash = replace(first[1], room_hand_id=first[0].room_hand_id)
    path = tmp_path / "clash.jsonl"
    path.write_text(dumps(first[0]) + "\n" + dumps(clash) + "\n", encoding="utf-8")
    summary = import_paths([path], tmp_path / "data")
    assert summary.stored == 2 and summary.files[0].reused_ids == 1
    keys = sorted(Dataset(tmp_path / "data").read("hands").column("hand_key").to_pylist())
    assert keys[0] == first[0].hand_key and keys[1].startswith(first[0].hand_key + "~")


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), count=st.integers(1, 40), columnar=st.booleans())
def test_reimporting_any_file_changes_nothing(seed: int, count: int, columnar: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        source = root / "hands.jsonl"
        source.write_text("".join(dumps(r) + "\n" for r in random_records(count, seed)), "utf-8")
        first = import_paths([source], root / "data", columnar=columnar)
        tables = {name: Dataset(root / "data").read(name) for name in ("hands", "seats")}
        (root / "copy.jsonl").write_bytes(source.read_bytes() + b"\n")  # new file, same hands
        second = import_paths([source, root / "copy.jsonl"], root / "data", columnar=columnar)
        assert first.stored == count
        assert second.stored == 0 and second.duplicates == count
        for name, table in tables.items():
            assert Dataset(root / "data").read(name).equals(table)


def test_an_empty_file_is_skipped_as_empty_not_as_an_unknown_format(tmp_path: Path) -> None:
    """An export the app has created but not yet written: nothing to lose, nothing to guess."""
    path = tmp_path / "new.hh"
    path.write_bytes(b"")
    summary = import_paths([path], tmp_path / "data")
    assert [f.skipped for f in summary.files] == ["empty file"]
    assert summary.hands_seen == 0
