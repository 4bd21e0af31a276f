"""Issue 30, item 5: a v4 dataset upgraded after a killed commit publishes that commit as the
dataset does (rewrites of other batches land in their table, removals are made)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.store.dataset import Dataset
from ofc_stats.store.files import COMMIT, write_parquet
from ofc_stats.store.schema import SCHEMA_VERSION
from tests.test_migrate_v5 import _version_4


def test_a_killed_v4_commit_is_published_through_the_dataset_commit_path(
    tmp_path: Path,
) -> None:
    """The kill left a committed forget: batch X's first hand dropped (``hands@X`` etc.),
    batch Y removed whole.  Before, the migration made ``hands@X/`` folders, kept the hand in
    X and left Y in place: a hand stored twice once the forgotten file was imported again."""
    data = _version_4(tmp_path / "v4")
    x, y = sorted(p.stem for p in (data / "hands").glob("0*.parquet"))[-2:]
    hands_x = pq.read_table(data / "hands" / f"{x}.parquet")
    gone = hands_x["hand_key"][0].as_py()
    staging = data / ".tmp" / "09999999999999999999-1"
    staging.mkdir(parents=True)
    for table in ("hands", "seats", "placements"):
        rows = pq.read_table(data / table / f"{x}.parquet")
        kept = rows.filter(pc.not_equal(rows["hand_key"], gone))
        write_parquet(kept, staging / f"{table}@{x}.parquet", table)
    remove = [f"{table}/{y}.parquet" for table in ("hands", "seats", "placements")]
    marker = {"tables": [], "batches": [staging.name, x], "remove": remove}
    (staging / COMMIT).write_text(json.dumps(marker) + "\n")
    before = pq.read_table(data / "hands" / f"{y}.parquet").num_rows

    with Dataset(data).locked():  # upgrades 4 -> 5
        pass
    assert Dataset(data).schema_version() == SCHEMA_VERSION  # upgraded to the current version
    assert not [p.name for p in data.iterdir() if "@" in p.name]  # no stray hands@X/
    keys = Dataset(data).read("hands", ["hand_key"])["hand_key"].to_pylist()
    assert gone not in keys
    assert len(keys) == 6 - 1 - before  # the v3 fixture holds 6 hands
    assert not (data / "hands" / f"{y}.parquet").exists()
    placements = Dataset(data).read("placements", ["hand_key"])["hand_key"].to_pylist()
    assert set(placements) == set(keys)
    assert not (data / ".tmp").exists() or not any((data / ".tmp").iterdir())
