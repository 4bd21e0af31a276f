"""A table file is written whole or not at all (``store.files.write_parquet``).

`kill -9` during an import once cut a table's schema file at 4 bytes: written in place, the
file existed, so every later open trusted it and the dataset needed `check --repair`.  Here
the write is cut short the same way (the writer dies after a few bytes): the file the path
names is still the one written before, and a new dataset still opens after a cut write.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ofc_stats.store import files
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.files import write_parquet


class Killed(Exception):
    """The writer's death, as far as this process can see it."""


def _cut(table: pa.Table, where: Any, **options: Any) -> None:
    Path(where).write_bytes(b"PAR1")  # 4 bytes, as the killed import left them
    raise Killed


def test_a_cut_write_leaves_the_file_that_was_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "hands.parquet"
    before = pa.table({"hand_id": [1, 2, 3]})
    write_parquet(before, path)
    monkeypatch.setattr(files.pq, "write_table", _cut)
    with pytest.raises(Killed):
        write_parquet(pa.table({"hand_id": [4]}), path)
    assert pq.read_table(path).equals(before)


def test_a_dataset_whose_schema_write_was_cut_opens_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patched:
        patched.setattr(files.pq, "write_table", _cut)
        with pytest.raises(Killed):
            Dataset(tmp_path / "data").create()
    Dataset(tmp_path / "data").create()  # the next import: every schema file written whole
    schemas = list((tmp_path / "data").glob("*/schema.parquet"))
    assert len(schemas) > 5
    for schema in schemas:
        pq.read_schema(schema)  # a cut one raises: "smaller than the minimum file footer"
