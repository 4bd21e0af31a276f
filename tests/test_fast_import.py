"""The fast (columnar) import paths of app JSON and the open format store what the record path stores.

Every real app sample, every test file in ``tests/data`` of the two formats
and a fuzzed corpus (``tests/fuzz``) are imported twice, once through the
fast readers and once with ``columnar=False`` (the definition), and the
stored ``hands``, ``seats``, ``placements`` and ``quarantine`` tables must be
equal row for row.  Hypothesis adds random hands written in both app
layouts and the open format, with damage the fast path must hand over.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_stats.records import HandRecord
from ofc_stats.store.importer import import_paths
from parsers.app_json import AppJsonParser, dumps_app, hand_to_app_object
from parsers.base import ColumnarHands
from parsers.open_format import OpenFormatParser, dumps, hand_to_json
from tests.builders import assert_stored_alike
from tests.fuzz.corpus import corpus
from tests.handgen import random_records
from tests.shared_samples import APPS

DATA = Path(__file__).parent / "data"


def assert_same_import(paths: list[Path], root: Path, batch_hands: int = 500) -> dict[str, int]:
    """Import ``paths`` both ways into fresh datasets under ``root``; the tables must match."""
    fast = import_paths(paths, root / "fast", batch_hands=batch_hands)
    slow = import_paths(paths, root / "slow", batch_hands=batch_hands, columnar=False)
    assert (fast.stored, fast.duplicates, fast.quarantined) == (
        slow.stored,
        slow.duplicates,
        slow.quarantined,
    )
    return assert_stored_alike(root / "fast", root / "slow")


def chunks_of(parser: AppJsonParser | OpenFormatParser, data: bytes) -> tuple[int, int]:
    """(hands in columnar chunks, items of any other kind) the fast reader yields."""
    fast = other = 0
    for item in parser.parse_columnar(io.BytesIO(data), "x"):
        if isinstance(item, ColumnarHands):
            fast += item.hands.num_rows
        else:
            other += 1
    return fast, other


# ---------------------------------------------------------------- real and test files


def test_every_real_app_sample_is_stored_alike(tmp_path: Path) -> None:
    if not APPS.exists():
        pytest.skip("shared samples not found")
    files = sorted(APPS.rglob("*.hh"))
    assert len(files) > 50
    counts = assert_same_import(files, tmp_path)
    assert counts["hands"] > 1800 and counts["placements"] > 60_000


def test_real_samples_go_the_fast_way() -> None:
    """The apps' own layout is what the fast reader is for: every real hand is a column row."""
    if not APPS.exists():
        pytest.skip("shared samples not found")
    data = b"".join(path.read_bytes() for path in sorted(APPS.rglob("*.hh"))[:20])
    fast, other = chunks_of(AppJsonParser(), data)
    assert fast > 300 and other == 0


@pytest.mark.parametrize("folder", ["app-json", "open"])
def test_every_test_file_is_stored_alike(tmp_path: Path, folder: str) -> None:
    files = sorted((DATA / folder).iterdir())
    assert files
    assert_same_import(files, tmp_path)


def test_both_app_layouts_and_the_open_format(tmp_path: Path) -> None:
    records = random_records(400, seed=13)
    pretty = "".join(dumps_app(r) for r in records[:200])
    lines = "".join(json.dumps(hand_to_app_object(r)) + "\n" for r in records[200:])
    (tmp_path / "pretty.hh").write_text(pretty, encoding="utf-8")
    (tmp_path / "lines.hh").write_text(lines, encoding="utf-8")
    (tmp_path / "hands.jsonl").write_text("".join(dumps(r) + "\n" for r in records), "utf-8")
    counts = assert_same_import(sorted(tmp_path.glob("*.*")), tmp_path / "out")
    assert counts["hands"] == 800  # 400 app hands, 400 open (another format, other keys)
    for parser, text in ((AppJsonParser(), pretty + lines), (OpenFormatParser(), "")):
        if text:
            assert chunks_of(parser, text.encode()) == (400, 0)
    assert chunks_of(OpenFormatParser(), (tmp_path / "hands.jsonl").read_bytes()) == (400, 0)


# ---------------------------------------------------------------- the fuzzed corpus


def test_fuzzed_files_are_stored_alike(tmp_path: Path) -> None:
    """All broken files of a format in one import: duplicates across files must agree too."""
    cases = [c for c in corpus(seed=3, rounds=1) if c.format in ("app-json", "open")]
    assert len(cases) > 60
    for fmt in ("app-json", "open"):
        folder = tmp_path / fmt
        folder.mkdir()
        paths = []
        for case in cases:
            if case.format == fmt:
                paths.append(folder / case.name)
                paths[-1].write_bytes(case.data)
        counts = assert_same_import(paths, tmp_path / f"{fmt}-data", batch_hands=50)
        print(fmt, counts)
        assert counts["hands"] > 20 and counts["quarantine"] > 30


# ---------------------------------------------------------------- random hands


def _damage(data: dict[str, Any], how: int, app: bool) -> None:
    """One of the ways a writer gets a hand wrong (or merely odd): the fast path must agree."""
    seats = next(iter(data["handData"].values())) if app else data["seats"]
    seat = seats[0]
    if how == 1:
        seats.append(dict(seats[-1]))  # a seat twice: the same cards twice
    elif how == 2:
        seat["orderIndex" if app else "hero"] = "1"
    elif how == 3:
        if app:
            seat["rows"] = seat["rows"].replace(" ", "  ", 1)  # two spaces: still readable
        elif seat.get("streets"):
            seat["streets"][0]["cards"][0] = seat["streets"][0]["cards"][0].lower()
    elif how == 4:
        data["rules" if app else "ruleset"] = "no such rules"
    elif how == 5:
        data["endDateTime" if app else "played_at"] = "2026-02-30 10:00:00"
    elif how == 6:
        seat["result" if app else "stack"] = 10**400 if app else 1e300 * 10
    elif how == 7:
        seats[:] = seats[:1]  # one seat
    elif how == 8:
        if app:
            seat["dead"] = seat["rows"].split("/")[0]  # discards that are on the board too
        else:
            data["hand_id"] = 77
    elif how == 9:
        if app:
            seat["orderIndex"] = -1
        elif seat.get("streets"):
            seat["streets"][0]["to"].pop()  # cards and destinations do not pair up
    elif how == 10:
        if app:
            seat.pop("orderIndex")
        elif seat.get("streets"):
            seat["streets"][-1]["cards"][-1] = None  # a hidden card: fine only if discarded


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    damages=st.lists(st.integers(0, 10), min_size=6, max_size=6),
    pretty=st.booleans(),
)
def test_random_hands_decode_alike(seed: int, damages: list[int], pretty: bool) -> None:
    """Random records written out (some damaged): the fast reader's hands equal the record path's."""
    records = random_records(6, seed=seed)
    app_texts, open_texts = [], []
    for record, how in zip(records, damages, strict=True):
        app, line = hand_to_app_object(record), hand_to_json(record)
        _damage(app, how, True)
        _damage(line, how, False)
        app_texts.append(
            json.dumps(app, indent=4 if pretty else None) + ("\n\n" if pretty else "\n")
        )
        open_texts.append(json.dumps(line) + "\n")
    for parser, text in (
        (AppJsonParser(), "".join(app_texts)),
        (OpenFormatParser(), "".join(open_texts)),
    ):
        data = text.encode("utf-8")
        assert _hands_of(parser.parse_columnar(io.BytesIO(data), "f")) == _hands_of(
            parser.parse(io.BytesIO(data), "f")
        )


def _hands_of(items: Any) -> list[tuple[Any, ...]]:
    """Each item as comparable rows: a record's columns, a chunk's rows, a refusal's reason."""
    from ofc_stats.store.rows import hands_table

    out: list[tuple[Any, ...]] = []
    for item in items:
        if isinstance(item, HandRecord):
            try:
                tables = hands_table([item], "")
            except UnicodeEncodeError:  # a lone surrogate: validate_hand refuses it
                out.append(("unstorable", item.source_line, item.source_offset, item.raw_text))
                continue
            out += _table_rows(tables["hands"], tables["seats"], tables["placements"])
        elif isinstance(item, ColumnarHands):
            out += _table_rows(
                item.hands,
                item.seats.drop_columns(["source_line"]),
                item.placements.drop_columns(["source_line"]),
            )
        else:
            out.append((type(item).__name__, item.line, item.offset, item.reason))
    return sorted(out, key=repr)


def _table_rows(hands: pa.Table, seats: pa.Table, placed: pa.Table) -> list[tuple[Any, ...]]:
    rows = [("hand", tuple(sorted(r.items()))) for r in hands.drop_columns(["batch"]).to_pylist()]
    rows += [("seat", tuple(sorted(r.items()))) for r in seats.to_pylist()]
    rows += [("placed", tuple(sorted(r.items()))) for r in placed.to_pylist()]
    return [(kind, repr(values)) for kind, values in rows]


_TIMES = st.one_of(
    st.none(),
    st.just(""),
    st.integers(0, 3),
    st.datetimes().map(lambda t: t.replace(microsecond=0).isoformat()),
    st.datetimes().map(lambda t: t.isoformat(sep=" ")),
    st.datetimes().map(lambda t: t.isoformat(timespec="milliseconds")),
    st.tuples(st.integers(1, 9999), st.integers(0, 13), st.integers(0, 32), st.integers(0, 61)).map(
        lambda t: f"{t[0]:04d}-{t[1]:02d}-{t[2]:02d}T23:{t[3]:02d}:{t[3]:02d}"
    ),
    st.sampled_from(
        [
            "2026-01-01T10:00:00Z",
            "2026-01-01 10:00",
            "2026-01-01T10:00:00.5",
            "2026-01-01",
            "2026-01-01T10:00:00+02:00",
            "20260101",
            "2024-02-29 23:59:59",
            "2023-02-29 10:00:00",
            "2026-01-01 10:00:60",
            "2026-1-5 3:04:05",
        ]
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_TIMES, min_size=1, max_size=6), st.integers(0, 10_000))
def test_times_read_as_the_definition_reads_them(texts: list[Any], seed: int) -> None:
    """Each hand's time (open: played_at, app: endDateTime) as the core reads it, or the
    definition's reading where the core leaves it (a zone, a fraction, February 30)."""
    records = random_records(len(texts), seed=seed)
    app_texts, open_texts = [], []
    for record, text in zip(records, texts, strict=True):
        app, line = hand_to_app_object(record), hand_to_json(record)
        app["endDateTime"] = text
        line["played_at"] = text
        app_texts.append(json.dumps(app) + "\n")
        open_texts.append(json.dumps(line) + "\n")
    for parser, lines in ((AppJsonParser(), app_texts), (OpenFormatParser(), open_texts)):
        data = "".join(lines).encode("utf-8")
        assert _hands_of(parser.parse_columnar(io.BytesIO(data), "f")) == _hands_of(
            parser.parse(io.BytesIO(data), "f")
        )


_CARD_PIECES = ["Ah1", "td0", "2S9", "Kc", "1h2", "Ahx", "Ah12", "é", " ", "  ", "/", "|", "#", "x"]
_TOKENS = ["Ah1", "td0", "2S9", "Qh4", "9c3", "10d2", "X15", "Q♠3"]
_ROW_TEXT = st.lists(
    st.one_of(st.sampled_from(_TOKENS), st.sampled_from(_CARD_PIECES)), max_size=4
).map(" ".join)
_CLEAN_ROW = st.lists(st.sampled_from(_TOKENS), max_size=5).map(" ".join)
_ROWS = st.one_of(
    st.tuples(_CLEAN_ROW, _CLEAN_ROW, _CLEAN_ROW).map("/".join),
    st.tuples(_ROW_TEXT, _CLEAN_ROW, _ROW_TEXT).map("/".join),
    st.lists(st.sampled_from([*_CARD_PIECES, "/"]), max_size=8).map("".join),
)
_DEAD = st.one_of(st.none(), st.just(0), st.just(""), _CLEAN_ROW, _ROW_TEXT)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_ROWS, _DEAD), min_size=1, max_size=5), st.integers(0, 10_000))
def test_card_texts_read_as_the_definition_reads_them(
    seats: list[tuple[str, Any]], seed: int
) -> None:
    """App seats' rows and dead cards, written every way: the core reads the apps' own
    spelling and leaves every other to the definition, which stores or refuses it."""
    record = random_records(1, seed=seed)[0]
    app = hand_to_app_object(record)
    players = next(iter(app["handData"].values()))
    for seat, (rows, dead) in zip(players, seats, strict=False):
        seat["rows"], seat["dead"] = rows, dead
    data = (json.dumps(app, indent=4, ensure_ascii=False) + "\n\n").encode("utf-8")
    parser = AppJsonParser()
    assert _hands_of(parser.parse_columnar(io.BytesIO(data), "f")) == _hands_of(
        parser.parse(io.BytesIO(data), "f")
    )


def _byte_damage(data: bytes, how: int, at: int) -> bytes:
    """Damage to a whole file's bytes: cut, BOM, escapes, wrong types, stray bytes, CRLF."""
    at = at % max(len(data), 1)
    if how == 0:
        return data[:at]  # cut anywhere: a hand left open at the end
    if how == 1:
        return b"\xef\xbb\xbf" + data
    if how == 2:  # a name spelled with escapes, one of them a lone surrogate
        return data.replace(b"player", b"pl\\u00e9yer", 2).replace(b"er 1", b"er\\ud800 1", 1)
    if how == 3:  # numbers as strings, strings as numbers, objects as arrays
        return data.replace(b": 1", b': "1"', 1).replace(b'"room"', b'"room": 5, "x"', 1)
    if how == 4:
        return data[:at] + b"\xff\xfe" + data[at:]
    if how == 5:
        return data.replace(b"\n", b"\r\n")
    if how == 6:
        return data[:at] + b"\n\n{\n" + data[at:]
    if how == 7:
        return data.replace(b"{", b"[", 1)
    if how == 8:
        return data[:at] + b"\n" + data[at:]  # a line broken in two
    return data


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    how=st.lists(st.integers(0, 9), min_size=1, max_size=3),
    at=st.integers(0, 1 << 20),
    layout=st.sampled_from(["pretty", "lines", "open"]),
    block=st.sampled_from([64, 333, 4096, 1 << 20]),
)
def test_damaged_files_read_alike_in_any_block_size(
    seed: int, how: list[int], at: int, layout: str, block: int
) -> None:
    """Whole files damaged byte-wise, read in blocks of any size: the core lane yields
    what the record path yields (hands, refusals with their line, offset and reason, Partial)."""
    from parsers import core_lane

    records = random_records(5, seed=seed)
    if layout == "open":
        parser: AppJsonParser | OpenFormatParser = OpenFormatParser()
        text = "".join(dumps(r) + "\n" for r in records)
    else:
        parser = AppJsonParser()
        indent = 4 if layout == "pretty" else None
        end = "\n\n\n" if layout == "pretty" else "\n"
        text = "".join(json.dumps(hand_to_app_object(r), indent=indent) + end for r in records)
    data = text.encode("utf-8")
    for kind in how:
        data = _byte_damage(data, kind, at)
    saved = core_lane.BLOCK_BYTES
    core_lane.BLOCK_BYTES = block
    try:
        fast = _hands_of(parser.parse_columnar(io.BytesIO(data), "f"))
    finally:
        core_lane.BLOCK_BYTES = saved
    assert fast == _hands_of(parser.parse(io.BytesIO(data), "f"))


def test_the_runs_ruleset_holds_in_the_decoding_thread() -> None:
    """The core resolves rule texts in the lane's thread: the parser's ``played_under`` holds there.

    Three hands name rules no preset has: under the override all three are decoded
    and carry its name; without it the definition refuses each (three quarantine rows).
    """
    lines = []
    for record in random_records(3, seed=1):
        line = hand_to_json(record)
        line["ruleset"] = "no such rules"
        lines.append(json.dumps(line) + "\n")
    data = "".join(lines).encode()
    parser = OpenFormatParser(played_under="pineapple-progressive")
    items = list(parser.parse_columnar(io.BytesIO(data), "x"))
    assert [i.hands["ruleset"].to_pylist() for i in items if isinstance(i, ColumnarHands)] == [
        ["pineapple-progressive"] * 3
    ]
    items = list(OpenFormatParser().parse_columnar(io.BytesIO(data), "x"))
    assert [type(i).__name__ for i in items] == ["Quarantined"] * 3


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("block", [100, 700, 3000])
def test_app_blocks_cut_after_a_closing_line_read_alike(
    newline: str, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """App JSON is cut into blocks after a ``}`` line (so two decode at once); a block with
    no such line leaves its last object open and is read again with what follows.

    Pretty objects of about 1.2 kB: 100-byte blocks hold no ``}`` line (every block is
    read again), 3,000-byte blocks hold one or two.  Either way, and with CRLF lines, the
    core lane gives what the record path gives, and 3,000-byte blocks end on a ``}`` line.
    """
    from parsers import core_lane

    records = random_records(6, seed=27)
    text = "".join(json.dumps(hand_to_app_object(r), indent=4) + "\n\n" for r in records)
    data = text.replace("\n", newline).encode("utf-8")
    cut = core_lane._cut(b"", data[:block], "app-json")[0]
    assert cut.endswith(b"\n}" + newline.encode()) == (block == 3000)
    monkeypatch.setattr(core_lane, "BLOCK_BYTES", block)
    fast = _hands_of(AppJsonParser().parse_columnar(io.BytesIO(data), "f"))
    slow = _hands_of(AppJsonParser().parse(io.BytesIO(data), "f"))
    assert fast == slow
    assert sum(row[0] == "hand" for row in fast) == 6
