"""A dataset at a URI commits through the dataset's one commit path (issue 31, item 4).

No Spark needed: :class:`ofc_stats.spark.layout.UriLayout` writes a batch's
results through :func:`ofc_stats.store.files.commit` on a pyarrow filesystem,
so a writer killed between its ``COMMIT`` marker and its renames leaves what a
local writer leaves: readers on either side hide the batch, and the next local
lock holder publishes it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ofc_stats.spark.layout import UriLayout, open_layout
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.files import ArrowStorage
from tests.builders import sim_records, write_dataset


def _scored(tmp_path: Path) -> tuple[Path, str, dict[str, object]]:
    """A scored dataset, its first batch, and that batch's results and versus as stored."""
    data = write_dataset(tmp_path, sim_records(6, seed=3))
    batch = Dataset(data).batches()[0]
    tables = {t: pq.read_table(data / t / f"{batch}.parquet") for t in ("results", "versus")}
    return data, batch, tables


def test_a_uri_commit_writes_the_files_a_local_commit_writes(tmp_path: Path) -> None:
    data, batch, tables = _scored(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    for table in tables:
        (copy / table / f"{batch}.parquet").unlink()
    layout = open_layout(copy.as_uri())
    assert isinstance(layout, UriLayout) and not layout.up_to_date(batch)
    layout.commit(batch, tables)  # type: ignore[arg-type]
    for table, stored in tables.items():
        assert pq.read_table(copy / table / f"{batch}.parquet").equals(stored), table
    assert layout.up_to_date(batch) and not any((copy / ".tmp").iterdir())


def test_a_uri_commit_killed_after_its_marker_is_finished_by_the_next_local_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, batch, tables = _scored(tmp_path)
    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    for table in tables:
        (copy / table / f"{batch}.parquet").unlink()
    moved: list[str] = []
    real_move = ArrowStorage.move

    def dies_after_one(self: ArrowStorage, source: str, target: str) -> None:
        if moved:
            raise SystemExit("killed")  # the worker dies between its two renames
        moved.append(target)
        real_move(self, source, target)

    monkeypatch.setattr(ArrowStorage, "move", dies_after_one)
    layout = open_layout(copy.as_uri())
    with pytest.raises(SystemExit):
        layout.commit(batch, tables)  # type: ignore[arg-type]
    monkeypatch.undo()
    assert len(moved) == 1  # results renamed, versus still staged with the marker
    # Both readers hide the half-published batch: its hands with it.
    assert batch not in layout.batches() and batch not in Dataset(copy).batches()
    with Dataset(copy).locked():  # the next local lock holder rolls the commit forward
        pass
    for table, stored in tables.items():
        assert pq.read_table(copy / table / f"{batch}.parquet").equals(stored), table
    assert batch in layout.batches() and layout.up_to_date(batch)
