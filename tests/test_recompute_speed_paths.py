"""The fast paths recompute takes are the slow paths' answers, and commits stay whole.

* several batches committed at once are all published or none, also when
  the publishing process dies half way;
* two worker threads claiming batches write exactly what one writes, and a
  worker's failure stops the run with its error instead of hanging it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute, score_batch_files
from ofc_stats.store.views import open_dataset
from parsers.open_format import dumps
from tests.handgen import random_records


def _tables(rows: int) -> dict[str, pa.Table]:
    return {"results": pa.table({"hand_id": pa.array(range(rows), pa.int64())})}


def test_batches_committed_together_are_published_together(tmp_path: Path) -> None:
    dataset = Dataset(tmp_path / "data")
    dataset.create()
    dataset.commit_batches({f"b{i}": _tables(i + 1) for i in range(3)}, step="results")
    assert [
        pq.read_metadata(dataset.batch_file("results", f"b{i}")).num_rows for i in range(3)
    ] == [
        1,
        2,
        3,
    ]
    assert not any((tmp_path / "data" / ".tmp").iterdir())


def test_a_commit_of_several_batches_killed_while_publishing_rolls_forward_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = Dataset(tmp_path / "data")
    dataset.create()
    renamed: list[str] = []
    real_replace = __import__("os").replace

    def dies_after_one(source: object, target: object) -> None:
        if str(source).endswith(".parquet.new"):  # a table file moved in whole as written
            real_replace(source, target)
            return
        if renamed:
            raise SystemExit("killed")  # the process dies between two renames
        renamed.append(str(target))
        real_replace(source, target)

    monkeypatch.setattr("ofc_stats.store.dataset.os.replace", dies_after_one)
    with pytest.raises(SystemExit):
        dataset.commit_batches({f"b{i}": _tables(2) for i in range(3)}, step="results")
    monkeypatch.undo()
    assert len(renamed) == 1
    # Readers hide every batch of the interrupted commit, the one already renamed too.
    assert dataset.files("results") == []
    with dataset.locked():  # the next lock holder finishes the commit
        pass
    assert len(dataset.files("results")) == 3


def _dataset(tmp_path: Path, name: str) -> Path:
    source = tmp_path / f"{name}.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in random_records(600, 21)), "utf-8")
    data = tmp_path / name
    import_paths([source], data, batch_hands=50)  # a dozen batches
    return data


def test_two_workers_write_what_one_process_writes(tmp_path: Path) -> None:
    one, two = _dataset(tmp_path, "one"), _dataset(tmp_path, "two")
    first = recompute(one, force=True, workers=1)
    second = recompute(two, force=True, workers=2)
    assert first.batches == second.batches == len(Dataset(one).batches()) > 10
    assert (first.hands, first.statuses) == (second.hands, second.statuses)
    for table in ("results", "versus"):
        mine = Dataset(one).read(table).sort_by([("hand_id", "ascending"), ("seat", "ascending")])
        theirs = Dataset(two).read(table)
        theirs = theirs.sort_by([("hand_id", "ascending"), ("seat", "ascending")])
        assert mine.num_rows > 0 and mine.equals(theirs)


def test_a_worker_failure_stops_the_run_with_its_error(tmp_path: Path) -> None:
    data = _dataset(tmp_path, "data")
    dataset = Dataset(data)
    broken = dataset.batch_file("seats", dataset.batches()[5])
    broken.write_bytes(b"not parquet")
    with pytest.raises(pa.ArrowInvalid):
        recompute(data, force=True, workers=2)


def test_columns_without_nulls_are_stored_required_and_read_back_alike(tmp_path: Path) -> None:
    """A batch with an incomplete board keeps its nullable result columns; a full one not.

    Hand 60 (not in the first batch) loses seat 0's last bottom card, so
    the hand is "incomplete" and its seats' scores are null: Parquet must store
    those columns as optional there, as required (definition level 0) in the
    first batch, and every reader sees the scorer's values, nulls included.
    """
    records = random_records(100, 8)
    broken = records[60]
    seat = broken.seats[0]
    lost = seat.bottom[-1]
    records[60] = replace(
        broken,
        seats=(replace(seat, bottom=seat.bottom[:-1]), *broken.seats[1:]),
        placements=tuple(p for p in broken.placements if (p.seat, p.card) != (0, lost)),
    )
    source = tmp_path / "hands.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in records), "utf-8")
    data = tmp_path / "data"
    import_paths([source], data, batch_hands=50)
    recompute(data, force=True, workers=1)
    dataset = Dataset(data)
    batches = dataset.batches()
    holed = [
        b for b in batches if pq.read_table(dataset.batch_file("results", b))["fouled"].null_count
    ]
    full = batches[0]
    assert len(batches) > 1 and holed and holed != [full]

    def definition_level(batch: str, column: str) -> int:
        schema = pq.ParquetFile(dataset.batch_file("results", batch)).schema
        return int(schema.column(schema.names.index(column)).max_definition_level)

    assert definition_level(full, "fouled") == 0 and definition_level(holed[0], "fouled") == 1
    assert definition_level(full, "hand_id") == definition_level(holed[0], "hand_id") == 0
    expected = []
    for batch in batches:
        stored = pq.read_table(dataset.batch_file("results", batch))
        scored = score_batch_files(dataset, batch, hand_key=False)["results"]
        assert stored.to_pylist() == scored.to_pylist()
        expected += scored.to_pylist()
    whole = dataset.read("results")  # Arrow over the folder: the table's own nullability
    assert whole.to_pylist() == expected and whole.schema.field("fouled").nullable
    with open_dataset(data) as db:  # DuckDB over the folder of both kinds of file
        nulls = db.sql("SELECT count(*) FROM results WHERE fouled IS NULL").fetchall()
        status = db.sql("SELECT status FROM results WHERE fouled IS NULL").fetchall()
    seats = len(broken.seats)  # a hand with an incomplete board is scored for no seat
    assert nulls == [(seats,)] and status == [("incomplete",)] * seats
