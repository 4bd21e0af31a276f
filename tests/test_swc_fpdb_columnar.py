"""SwC and fpdb read in columns store exactly what their record paths store.

Every file is imported twice, once with ``columnar=False`` (the record path,
the definition) and once through the parsers' columnar readers, and the
hands, seats, placements and quarantine tables are compared row for row:
the shared SwC samples, the golden files, generated captures and databases,
files imported over earlier ones (reused ids, hands completed later) and
every SwC and fpdb file of the fuzz corpus.
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ofc_stats.store.importer import import_paths
from parsers.base import ColumnarHands
from parsers.fpdb import FpdbParser
from parsers.swc import SwcParser
from tests.builders import assert_stored_alike
from tests.fuzz.corpus import corpus
from tests.handgen import random_records
from tests.shared_samples import SWC
from tests.swcgen import fpdb_database, raw_json, snapshots

DATA = Path(__file__).parent / "data"


def assert_same(runs: list[list[Path]], folder: Path) -> dict[str, int]:
    """Import each run of files both ways (in order, into one dataset each) and compare."""
    figures = []
    for columnar in (False, True):
        data = folder / f"data-{columnar}"
        summaries = [import_paths(files, data, columnar=columnar) for files in runs]
        figures.append([(s.stored, s.duplicates, s.quarantined) for s in summaries])
    assert figures[0] == figures[1]
    return assert_stored_alike(folder / "data-True", folder / "data-False")


def capture(records: list[Any], tables: int = 1) -> str:
    """Captures of generated hands, ``tables`` tables interleaved line by line."""
    streams = [
        snapshots(record, gi=100 + index, ti=index % tables + 1)
        for index, record in enumerate(records)
    ]
    lines = []
    for start in range(0, len(streams), tables):
        group = streams[start : start + tables]
        for row in range(max(len(s) for s in group)):
            lines += [s[row] for s in group if row < len(s)]
    return "\n".join(lines) + "\n"


def database(path: Path, raws: list[dict[str, Any]], table: str = "t") -> Path:
    return fpdb_database(path, map(json.dumps, raws), table)


@pytest.mark.parametrize("name", sorted(p.name for p in SWC.iterdir() if p.suffix != ".md"))
def test_shared_swc_samples(name: str, tmp_path: Path) -> None:
    counts = assert_same([[SWC / name]], tmp_path)
    assert counts["hands"] >= (1 if name.startswith("http_") else 0)


def test_golden_files(tmp_path: Path) -> None:
    sql = (DATA / "fpdb" / "hands.sql").read_text()
    fpdb = tmp_path / "golden.db3"
    connection = sqlite3.connect(fpdb)
    connection.executescript(sql)
    connection.close()
    counts = assert_same([[DATA / "swc" / "two_hands.jsonl", fpdb]], tmp_path)
    assert counts["hands"] == 3


def test_generated_captures_and_databases(tmp_path: Path) -> None:
    records = random_records(60, seed=13)
    swc = tmp_path / "capture.jsonl"
    swc.write_text(capture(records, tables=3))
    raws = [raw_json(r) for r in records]
    raws[5].pop("table_id")  # the table name comes from the row: the record path's
    settled = raws[6]["result"]["points_settled"]
    settled[next(iter(settled))] = "lots"  # quarantined, with the record path's reason
    raws[7]["variant"]["variant"] = "ofcp_27"
    fpdb = database(tmp_path / "fpdb.db3", raws)
    counts = assert_same([[swc, fpdb]], tmp_path)
    assert counts["hands"] == 60 + 58 and counts["quarantine"] == 2


def test_hands_imported_over_earlier_ones(tmp_path: Path) -> None:
    """A capture cut short, then whole (replaced); the same ids with other cards (suffixed)."""
    records = random_records(12, seed=5)
    whole = capture(records).splitlines(keepends=True)
    first = tmp_path / "first.jsonl"
    first.write_text("".join(whole[: len(whole) // 2]))
    second = tmp_path / "second.jsonl"
    second.write_text("".join(whole))
    others = random_records(12, seed=6)
    reused = tmp_path / "reused.jsonl"
    reused.write_text(capture(others))
    raws = [raw_json(r) for r in records]
    db_one = database(tmp_path / "one.db3", raws)
    db_two = database(tmp_path / "two.db3", [raw_json(r) | {"hand_id": 1} for r in others[:3]])
    counts = assert_same([[first], [second], [reused], [db_one], [db_two]], tmp_path)
    assert counts["hands"] > 24


def test_fuzz_corpus(tmp_path: Path) -> None:
    cases = [c for c in corpus(seed=0, rounds=1) if c.format in ("swc", "fpdb")]
    assert len(cases) > 40
    for case in cases:
        folder = tmp_path / case.name
        folder.mkdir()
        path = folder / f"case.{case.format}"
        path.write_bytes(case.data)
        assert_same([[path]], folder)


def test_ordinary_hands_take_the_columnar_path(tmp_path: Path) -> None:
    records = random_records(40, seed=21)
    stream = io.BytesIO(capture(records, tables=2).encode())
    items = list(SwcParser().parse_columnar(stream, "x"))
    assert sum(i.hands.num_rows for i in items if isinstance(i, ColumnarHands)) == 40
    fpdb = database(tmp_path / "f.db3", [raw_json(r) for r in records])
    items = list(FpdbParser().parse_path_columnar(str(fpdb), "f"))
    assert sum(i.hands.num_rows for i in items if isinstance(i, ColumnarHands)) == 40


def test_integers_past_64_bits_read_alike(tmp_path: Path) -> None:
    """A hand id and points below -2**63 (past the core's integers) store as json reads."""
    records = random_records(3, seed=8)
    raws = [raw_json(r) for r in records]
    raws[0]["hand_id"] = -9223372036854775809
    settled = raws[1]["result"]["points_settled"]
    settled[next(iter(settled))] = -9223372036854775809
    fpdb = database(tmp_path / "big.db3", raws)
    lines = capture(records).replace('"gi": 100,', '"gi": -9223372036854775809,')
    swc = tmp_path / "big.jsonl"
    swc.write_text(lines)
    counts = assert_same([[swc, fpdb]], tmp_path)
    assert counts["hands"] == 6
