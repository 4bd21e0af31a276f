"""The dataset on disk: one folder per table that any engine reads, and migration."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli import main
from ofc_stats.errors import DatasetError
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from ofc_stats.store.schema import SCHEMA_VERSION, TABLES

DATA = Path(__file__).parent / "data"
V2 = DATA / "dataset-v2"  # written by ofc-stats at schema version 2 (12 hands, 1 quarantined)


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


def test_a_version_2_dataset_is_upgraded_on_open_without_losing_a_row(tmp_path: Path) -> None:
    data = tmp_path / "old"
    shutil.copytree(V2, data)
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
    for name, table in before.items():
        assert dataset.read(name).equals(table), name
    for name, table in old_results.items():
        assert dataset.read(name).drop_columns([]).select(table.column_names).equals(table), name
    # the v2 results were this engine's: kept, not redone
    assert recompute(data).up_to_date == 1


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


def test_a_dataset_folder_with_glob_characters_in_its_name(tmp_path: Path) -> None:
    data = tmp_path / "x[1]*?"
    import_paths([DATA / "app-json" / "two_hands.hh"], data)
    with ofc_stats.open(data) as db:
        assert db.sql("SELECT count(*) FROM hands").fetchall() == [(2,)]
