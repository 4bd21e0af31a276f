"""The dataset on disk: one folder per table that any engine reads, and migration."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from ofc_stats.errors import DatasetError
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from ofc_stats.store.schema import SCHEMA_VERSION, TABLES

DATA = Path(__file__).parent / "data"
V2 = DATA / "dataset-v2"  # written by ofc-stats at schema version 2 (12 hands, 1 quarantined)
# Written by ofc-stats at schema version 3 from app-json/two_hands.hh + bad.hh (batches of
# 2 hands: 2 and 1 stored, 6 quarantined) and open/three_hands.jsonl (3), then recomputed.
V3 = DATA / "dataset-v3"


def test_every_table_is_a_folder_any_engine_reads_even_when_empty(tmp_path: Path) -> None:
    data = tmp_path / "data"
    import_paths([DATA / "app-json" / "two_hands.hh"], data)  # nothing quarantined
    recompute(data)
    for name, schema in TABLES.items():
        folder = data / name
        frame = pd.read_parquet(folder)
        assert list(frame.columns) == schema.names, name
        table = ds.dataset(folder, format="parquet").to_table()
        assert table.num_rows == len(frame)
        glob = str(folder / "*.parquet")
        count = duckdb.sql("SELECT count(*) FROM read_parquet($g)", params={"g": glob}).fetchall()[
            0
        ]
        assert count is not None and count[0] == len(frame)
    assert len(pd.read_parquet(data / "hands")) == 2
    assert len(pd.read_parquet(data / "seats")) == len(pd.read_parquet(data / "results")) > 0
    assert len(pd.read_parquet(data / "quarantine")) == 0


def test_opening_an_old_dataset_writes_nothing_and_names_the_upgrade(tmp_path: Path) -> None:
    """Reading never writes: a version 2 dataset is refused by ``ofc_stats.open`` (and the
    reading commands) with the command that upgrades it, and left byte for byte as it was."""
    data = tmp_path / "old"
    shutil.copytree(V2, data)
    before = {p: p.read_bytes() for p in sorted(data.rglob("*")) if p.is_file()}
    with pytest.raises(DatasetError, match="schema version 2; run `ofc-stats migrate --data"):
        ofc_stats.open(data)
    result = CliRunner().invoke(main, ["players", "--data", str(data)])
    assert result.exit_code == 1 and "ofc-stats migrate" in result.output
    after = {p: p.read_bytes() for p in sorted(data.rglob("*")) if p.is_file()}
    assert after == before  # no lock file, no upgrade, no recovery


def test_a_version_2_dataset_is_upgraded_without_losing_a_row(tmp_path: Path) -> None:
    data = tmp_path / "old"
    shutil.copytree(V2, data)
    with Dataset(data).locked():  # taking the lock upgrades (`ofc-stats migrate`, an import)
        pass
    before = {}
    for batch in (V2 / "batches").iterdir():
        for path in batch.glob("*.parquet"):
            before[path.stem] = pq.read_table(path)
    old_results = {
        p.stem: pq.read_table(p) for p in next((V2 / "results").iterdir()).glob("*.parquet")
    }
    with ofc_stats.open(data) as db:
        assert db.sql("SELECT count(*) FROM hands").fetchall() == [(12,)]
        assert db.sql("SELECT count(*) FROM quarantine").fetchall() == [(1,)]
        assert db.sql("SELECT count(*) FROM results").fetchall() == [(36,)]
    dataset = Dataset(data)
    assert dataset.schema_version() == SCHEMA_VERSION
    assert not (data / "batches").exists()
    for name, table in before.items():  # every old column as it was; v4 adds hand_id
        if name == "quarantine":  # v6 names the room's text id room_hand_id
            table = table.rename_columns(
                ["room_hand_id" if n == "hand_id" else n for n in table.column_names]
            )
        assert dataset.read(name).select(table.column_names).equals(table), name
    with ofc_stats.open(data) as db:  # stored by hand_id now; the views give hand_key back
        for name, table in old_results.items():
            order = "hand_key, seat" + (", opponent" if name == "versus" else "")
            view = db.arrow(f"SELECT * FROM {name} ORDER BY {order}")
            want = table.sort_by(order_of(order)).to_pylist()
            assert view.select(table.column_names).to_pylist() == want, name
    # the v2 results were this engine's: kept, not redone
    assert recompute(data).up_to_date == 1


def order_of(columns: str) -> list[tuple[str, str]]:
    return [(name.strip(), "ascending") for name in columns.split(",")]


def _tables(root: Path) -> dict[str, pa.Table]:
    """Every stored table of a dataset, rows in hand_key order (batch order aside)."""
    dataset = Dataset(root)
    out = {}
    for name in TABLES:
        table = dataset.read(name)
        if "hand_key" in table.column_names:
            keys = [
                ("hand_key", "ascending"),
                *(("seat", "ascending"),) * ("seat" in table.column_names),
            ]
            table = table.sort_by(keys)
        out[name] = table
    return out


def test_a_version_3_dataset_gets_hand_ids_and_keeps_its_results(tmp_path: Path) -> None:
    """v3 -> v4: hands and seats gain hand_id (0..5 in batch order: batches of 2, 1 and 3
    hands), results and versus are keyed by it, and through the views every row is as it
    was; the engine stamp survives, so nothing is scored again."""
    data = tmp_path / "old"
    shutil.copytree(V3, data)
    old = Dataset(data)
    before = {name: old.read(name) for name in TABLES}
    with old.locked():  # taking the lock upgrades
        pass
    with ofc_stats.open(data) as db:
        hands = db.arrow("SELECT hand_key, hand_id, batch FROM hands ORDER BY hand_id")
        seats = db.arrow(
            "SELECT s.hand_key, s.hand_id AS id, h.hand_id FROM seats s "
            "JOIN hands h USING (hand_key)"
        )
        views = {
            name: db.arrow(
                f"SELECT * FROM {name} ORDER BY hand_key, seat"
                + (", opponent" if name == "versus" else "")
            )
            for name in ("results", "versus")
        }
    assert Dataset(data).schema_version() == SCHEMA_VERSION == 8  # 8: the ledger per batch
    assert hands["hand_id"].to_pylist() == [0, 1, 2, 3, 4, 5]
    batches = hands["batch"].to_pylist()
    assert [batches.count(b) for b in dict.fromkeys(batches)] == [2, 1, 3]
    assert seats["id"].equals(seats["hand_id"]) and seats.num_rows == before["seats"].num_rows
    for name in ("results", "versus"):
        order = "hand_key, seat" + (", opponent" if name == "versus" else "")
        want = before[name].sort_by(order_of(order)).to_pylist()
        assert views[name].select(before[name].column_names).to_pylist() == want, name
        assert "hand_key" not in pq.read_schema(next(iter(Dataset(data).files(name)))).names
    for name in ("hands", "seats", "placements", "files"):
        assert Dataset(data).read(name).select(before[name].column_names).equals(before[name])
    old = before["quarantine"]  # v6 names the room's text id room_hand_id
    renamed = old.rename_columns(
        ["room_hand_id" if n == "hand_id" else n for n in old.column_names]
    )
    assert Dataset(data).read("quarantine").select(renamed.column_names).equals(renamed)
    assert recompute(data).up_to_date == 3


@pytest.mark.parametrize(
    ("where", "call"),
    [("write_parquet", 12), ("publish", 2)],  # staging batch 2 (no marker); marker written
)
def test_the_version_3_upgrade_finishes_after_a_kill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, call: int
) -> None:
    """Killed inside the upgrade (before a batch's commit marker, or after it and before
    its files are renamed into place), the upgrade run again gives what one clean run gives.
    The 12th write is the second batch's first: 7 empty tables' schemas, then batch 1's
    hands, seats, results and versus."""
    from ofc_stats.store import migrate

    clean = tmp_path / "clean"
    shutil.copytree(V3, clean)
    with Dataset(clean).locked():
        pass
    killed = tmp_path / "killed"
    shutil.copytree(V3, killed)
    original = getattr(migrate, where)
    calls = []

    def dies(*args: object, **kw: object) -> None:
        calls.append(args)
        if len(calls) == call:
            raise KeyboardInterrupt  # as a kill
        original(*args, **kw)

    monkeypatch.setattr(migrate, where, dies)
    with pytest.raises(KeyboardInterrupt), Dataset(killed).locked():
        pass
    monkeypatch.setattr(migrate, where, original)
    assert Dataset(killed).schema_version() == 3
    assert any((killed / ".tmp").iterdir())  # the kill left a batch half done
    with Dataset(killed).locked():
        pass
    assert Dataset(killed).schema_version() == SCHEMA_VERSION
    want, got = _tables(clean), _tables(killed)
    for name in TABLES:
        assert got[name].equals(want[name]), name


def test_new_hands_take_ids_after_the_largest_stored(tmp_path: Path) -> None:
    data = tmp_path / "old"
    shutil.copytree(V3, data)
    summary = import_paths([DATA / "swc"], data)
    assert summary.stored > 0
    with ofc_stats.open(data) as db:
        ids = db.arrow("SELECT hand_id, batch FROM hands ORDER BY hand_id")
        joined = db.sql(
            "SELECT count(*), count(*) FILTER (s.hand_key = h.hand_key) FROM seats s "
            "JOIN hands h USING (hand_id)"
        ).fetchall()
        seats = db.sql("SELECT count(*) FROM seats").fetchall()[0][0]
    assert ids["hand_id"].to_pylist() == list(range(6 + summary.stored))
    assert joined == [(seats, seats)]  # each seat joins its own hand, and only it


def test_migrate_command(tmp_path: Path) -> None:
    data = tmp_path / "old"
    shutil.copytree(V2, data)
    runner = CliRunner()
    first = runner.invoke(main, ["migrate", "--data", str(data)])
    assert first.exit_code == 0, first.output
    assert first.output == f"{data}: upgraded to schema version {SCHEMA_VERSION}\n"
    again = runner.invoke(main, ["migrate", "--data", str(data)])
    assert again.output == f"{data}: schema version {SCHEMA_VERSION}, nothing to do\n"


def test_a_folder_that_is_not_a_dataset_is_never_taken_over(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "holiday.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(DatasetError, match="holds other files"):
        import_paths([DATA / "app-json" / "two_hands.hh"], folder)
    assert sorted(p.name for p in folder.iterdir()) == ["holiday.jpg"]
    a_file = tmp_path / "data.txt"
    a_file.write_text("x")
    with pytest.raises(DatasetError, match="is a file"):
        import_paths([DATA / "app-json" / "two_hands.hh"], a_file)


def test_a_create_killed_before_its_rename_leaves_a_folder_that_opens(tmp_path: Path) -> None:
    """create() stages dataset.json.new, then renames it; a kill between the two left a
    folder every later import refused as "holds other files" (tests/fuzz/test_kill.py
    hit it once in four kills)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "dataset.json.new").write_text('{"schema_ver')  # cut mid-write by the kill
    assert import_paths([DATA / "app-json" / "two_hands.hh"], data).stored == 2
    assert not (data / "dataset.json.new").exists()


def test_a_dataset_folder_with_glob_characters_in_its_name(tmp_path: Path) -> None:
    data = tmp_path / "x[1]*?"
    import_paths([DATA / "app-json" / "two_hands.hh"], data)
    with ofc_stats.open(data) as db:
        assert db.sql("SELECT count(*) FROM hands").fetchall() == [(2,)]


def test_each_table_is_written_with_its_own_parquet_layout(tmp_path: Path) -> None:
    """Import and recompute write every table by its ``STORED_OPTIONS`` entry, not a default.

    The entries are a speed choice (store/files.py says why each); what can
    silently break is a writer that stops naming the table and falls back to
    zstd with a dictionary on every column.  So this reads the column
    chunks' encodings and codecs back from the files the import wrote.
    """
    data = tmp_path / "data"
    import_paths([DATA / "app-json" / "two_hands.hh"], data)
    recompute(data)

    def chunk(table: str, column: str) -> tuple[str, set[str]]:
        (path,) = [p for p in (data / table).glob("*.parquet") if p.name != "schema.parquet"]
        meta = pq.ParquetFile(path).metadata.row_group(0)
        (found,) = [
            meta.column(i)
            for i in range(meta.num_columns)
            if meta.column(i).path_in_schema == column
        ]
        return found.compression, set(found.encodings)

    # Unique per hand: no dictionary; ascending ids and offsets: delta-coded.
    assert chunk("hands", "raw_text") == ("ZSTD", {"PLAIN", "RLE"})
    assert "DELTA_BINARY_PACKED" in chunk("hands", "source_offset")[1]
    assert "RLE_DICTIONARY" in chunk("hands", "room")[1]  # one room a batch
    assert "RLE_DICTIONARY" in chunk("seats", "top.list.element")[1]  # 52 card values
    assert "RLE_DICTIONARY" not in chunk("seats", "board")[1]
    assert chunk("placements", "hand_id")[0] == "LZ4"
    assert chunk("results", "fouled")[0] == "UNCOMPRESSED"
    assert "DELTA_BINARY_PACKED" in chunk("versus", "hand_id")[1]
