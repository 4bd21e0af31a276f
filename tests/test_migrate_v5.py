"""Schema 4 -> 5: placements stored keyed by ``hand_id``, ``hand_key`` given back by the view."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ofc_stats
from ofc_stats.store import migrate
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.schema import SCHEMA_VERSION, STORED_PLACEMENTS

# Written at schema version 3: batches of 2, 1 and 3 hands (see test_dataset_layout).
V3 = Path(__file__).parent / "data" / "dataset-v3"


def _version_4(folder: Path) -> Path:
    """The v3 fixture taken to version 4 only (placements still keyed by hand_key)."""
    shutil.copytree(V3, folder)
    migrate._three_to_four(folder)
    (folder / "dataset.json").write_text(json.dumps({"schema_version": 4}) + "\n")
    return folder


def _v4_placements(folder: Path) -> dict[str, pa.Table]:
    files = sorted(
        p for p in (folder / "placements").glob("*.parquet") if p.name != "schema.parquet"
    )
    return {p.stem: pq.read_table(p) for p in files}


def test_v4_placements_are_keyed_by_hand_id_and_the_view_gives_every_row_back(
    tmp_path: Path,
) -> None:
    data = _version_4(tmp_path / "v4")
    before = _v4_placements(data)
    assert [t.num_rows for t in before.values()] and all(
        "hand_key" in t.column_names for t in before.values()
    )
    with Dataset(data).locked():  # taking the lock upgrades
        pass
    with ofc_stats.open(data) as db:
        view = db.arrow("SELECT * FROM placements")
        ids = dict(db.sql("SELECT hand_key, hand_id FROM hands").fetchall())
    assert Dataset(data).schema_version() == SCHEMA_VERSION == 8
    # Batches of 2, 1 and 3 hands took ids 0-1, 2 and 3-5 (v4's count in batch order).
    stored = {stem: pq.read_table(data / "placements" / f"{stem}.parquet") for stem in before}
    assert [sorted(set(t["hand_id"].to_pylist())) for t in stored.values()] == [
        [0, 1],
        [2],
        [3, 4, 5],
    ]
    for stem, table in stored.items():
        assert table.schema.equals(STORED_PLACEMENTS), stem  # no hand_key, never null
        old = before[stem].to_pylist()
        # each row: the old row with hand_key replaced by that hand's id, in the same order
        want = [
            {"hand_id": ids[row["hand_key"]], **{k: v for k, v in row.items() if k != "hand_key"}}
            for row in old
        ]
        assert table.to_pylist() == want, stem
    # The view: the v4 rows again, hand_key first, plus hand_id.
    order = [("hand_key", "ascending"), ("seat", "ascending"), ("street", "ascending")]
    order.append(("card", "ascending"))
    old_rows = pa.concat_tables(before.values()).sort_by(order).to_pylist()
    view = view.select(["hand_key", "seat", "street", "card", "destination"])
    assert view.sort_by(order).to_pylist() == old_rows
    assert pq.read_schema(data / "placements" / "schema.parquet").names == STORED_PLACEMENTS.names


def test_the_v4_upgrade_finishes_after_a_kill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the first batch's placements were rewritten, the next lock finishes the
    other two and leaves what one clean run leaves."""
    clean = _version_4(tmp_path / "clean")
    with Dataset(clean).locked():
        pass
    killed = _version_4(tmp_path / "killed")
    original = migrate.publish
    calls = []

    def dies(*args: object) -> None:
        calls.append(args)
        original(*args)  # type: ignore[arg-type]
        if len(calls) == 1:
            raise KeyboardInterrupt  # as a kill

    monkeypatch.setattr(migrate, "publish", dies)
    with pytest.raises(KeyboardInterrupt), Dataset(killed).locked():
        pass
    monkeypatch.setattr(migrate, "publish", original)
    assert Dataset(killed).schema_version() == 4
    keyed = [p for p in _v4_placements(killed).values() if "hand_key" in p.column_names]
    assert len(keyed) == 2  # one batch done, two left
    with Dataset(killed).locked():
        pass
    assert Dataset(killed).schema_version() == SCHEMA_VERSION  # 5, then 6
    for stem, table in _v4_placements(clean).items():
        assert _v4_placements(killed)[stem].equals(table), stem
