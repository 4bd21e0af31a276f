"""Recompute on Apache Spark: the same batch engine, run inside ``mapInArrow``.

The unit of work is the import batch, as locally: each Spark task scores
whole batches with :func:`ofc_stats.store.rescore.score_tables` (the local
path's function, not a copy) and commits ``results/<batch>.parquet`` and
``versus/<batch>.parquet`` exactly as the local recompute does: same schema,
same engine stamp, same staging folder and commit marker.  Only a few summary
rows per batch go back to the driver; memory per task is one import batch.

Two plans feed the tasks (``read``):

* ``"workers"`` (the default): a frame of batch numbers split over the tasks,
  and each task reads its batches' ``hands``/``seats`` files itself with
  pyarrow.  The cards never pass through the JVM, so Spark adds only its
  scheduling.
* ``"spark"``: Spark's own Parquet reader scans both tables, tags every row
  with its batch (the file's name) and its place in the file, and one
  shuffle hashed on the batch, sorted on (batch, table, row), brings each
  batch whole and in file order to one task.  Every row crosses the JVM
  three times (scan, shuffle, Arrow), which costs several times the scoring
  (docs/spark.md); it is kept to measure that.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.spark.layout import Layout, open_layout
from ofc_stats.spark.session import collect_summary, run_with_progress
from ofc_stats.store.dataset import stale_batches
from ofc_stats.store.recompute import HAND_COLUMNS, SEAT_COLUMNS, RecomputeSummary, stored_tables
from ofc_stats.store.rescore import score_tables
from ofc_stats.store.schema import HAND_ID, HANDS, SEATS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

BATCH, TABLE, ROW = "_batch", "_table", "_row"  # the columns Spark adds; 0 = hands, 1 = seats
SUMMARY = pa.schema(
    [
        ("batch", pa.string()),
        ("hands", pa.int64()),
        ("seats", pa.int64()),
        ("status", pa.string()),
        ("count", pa.int64()),
    ]
)
SUMMARY_DDL = "batch string, hands bigint, seats bigint, status string, count bigint"
# The stored hands and seats carry hand_id (given at commit, not in the parsers' schema).
# This is recompute: it reads the hands' text too (HAND_COLUMNS), for the timeouts it stores.
HAND_INPUT = pa.schema([HAND_ID if n == "hand_id" else HANDS.field(n) for n in HAND_COLUMNS])
SEAT_INPUT = pa.schema([HAND_ID if n == "hand_id" else SEATS.field(n) for n in SEAT_COLUMNS])


def recompute(
    spark: SparkSession,
    root: str | Path,
    *,
    force: bool = False,
    progress: Callable[[float], None] | None = None,
    partitions: int | None = None,
    read: Literal["workers", "spark"] = "workers",
) -> RecomputeSummary:
    """Score the batches without current results (all with ``force``) on Spark.

    ``root`` is a dataset folder or a URI (``file://``, ``s3://``, ``hdfs://``);
    the caller holds the dataset lock for a local folder (the CLI takes it).
    ``progress`` gets the fraction of Spark tasks done.  ``partitions`` is the
    number of scoring tasks (default: two per core, each scoring its share of
    the batches one after another: a task costs Spark about a tenth of a
    second, a batch of 10,000 hands about as much); ``read`` picks the plan
    (module doc).
    """
    started = time.perf_counter()
    layout = open_layout(root)
    # the first job starts Spark's Python workers: seconds a small dataset's rate shows
    summary = RecomputeSummary(timed=", Spark's start-up included")
    todo, summary.up_to_date = stale_batches(layout.batches(), layout.up_to_date, force)
    if todo:
        count = min(len(todo), partitions or 2 * spark.sparkContext.defaultParallelism)
        plan = batch_frame if read == "workers" else scoring_frame
        frame = plan(spark, layout, todo, count)
        rows = run_with_progress(spark, lambda: collect_summary(spark, frame), progress)
        batches: set[str] = set()
        statuses: Counter[str] = Counter()
        for row in rows:  # one per batch and status: a summary, not the data
            if row["batch"] not in batches:
                batches.add(row["batch"])
                summary.hands += row["hands"]
                summary.seats += row["seats"]
            statuses[row["status"]] += row["count"]
        summary.batches = len(batches)
        summary.statuses.update({k: v for k, v in statuses.items() if v})
    summary.seconds = time.perf_counter() - started
    return summary


def batch_frame(spark: SparkSession, layout: Layout, todo: list[str], count: int) -> DataFrame:
    """The lazy plan of ``read="workers"``: batch numbers in ``count`` tasks, each scoring."""
    numbers = spark.range(0, len(todo), 1, count)
    return numbers.mapInArrow(_BatchScorer(layout, todo), SUMMARY_DDL)


def scoring_frame(spark: SparkSession, layout: Layout, todo: list[str], count: int) -> DataFrame:
    """The lazy plan of ``read="spark"``: read both tables, one shuffle on the batch, score."""
    from pyspark.sql import functions as F

    def tagged(table: str, code: int, columns: list[str]) -> DataFrame:
        paths = [layout.spark_path(table, batch) for batch in todo]
        frame = spark.read.parquet(*paths)
        name = F.regexp_replace(F.col("_metadata.file_name"), r"\.parquet$", "")
        return frame.select(
            name.alias(BATCH),
            F.lit(code).cast("byte").alias(TABLE),
            F.col("_metadata.row_index").alias(ROW),
            *columns,
        )

    both = tagged("hands", 0, HAND_COLUMNS).unionByName(
        tagged("seats", 1, SEAT_COLUMNS), allowMissingColumns=True
    )
    arranged = both.repartition(count, BATCH).sortWithinPartitions(BATCH, TABLE, ROW)
    return arranged.mapInArrow(_RowScorer(layout), SUMMARY_DDL)


class _Scorer:
    """What Spark ships to its Python workers (picklable: the layout is a plain path or URI)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        # the dataset's own TOML rulesets as well as the presets, as the local recompute
        self.rulesets = layout.rulesets()

    def score(self, batch: str, hands: pa.Table, seats: pa.Table) -> pa.RecordBatch:
        """Score one whole import batch and commit its two files; its summary rows."""
        scored = score_tables(hands, seats, self.rulesets)
        self.layout.commit(batch, stored_tables(scored))
        counts = pc.value_counts(scored.results["status"].cast(pa.string())).to_pylist()
        statuses = [(item["values"], item["counts"]) for item in counts] or [("scored", 0)]
        return pa.RecordBatch.from_arrays(
            [
                pa.array([batch] * len(statuses)),
                pa.array([hands.num_rows] * len(statuses), pa.int64()),
                pa.array([seats.num_rows] * len(statuses), pa.int64()),
                pa.array([status for status, _ in statuses]),
                pa.array([n for _, n in statuses], pa.int64()),
            ],
            schema=SUMMARY,
        )


class _BatchScorer(_Scorer):
    """Rows are batch numbers: read each batch's two files here, score, commit."""

    def __init__(self, layout: Layout, todo: list[str]) -> None:
        super().__init__(layout)
        self.todo = todo

    def __call__(self, chunks: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for chunk in chunks:
            for number in chunk.column(0).to_pylist():  # one per batch, never per hand
                batch = self.todo[number]
                hands = self.layout.read("hands", batch, HAND_COLUMNS)
                seats = self.layout.read("seats", batch, SEAT_COLUMNS)
                yield self.score(batch, hands, seats)


class _RowScorer(_Scorer):
    """Rows are the tables' own, sorted on (batch, table, row): cut them back into batches."""

    def __call__(self, chunks: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        current: str | None = None
        parts: list[pa.RecordBatch] = []
        for chunk in chunks:
            for name, part in _runs(chunk):
                if name != current and parts:
                    yield self.whole(str(current), parts)
                    parts = []
                current = name
                parts.append(part)
        if parts:
            yield self.whole(str(current), parts)

    def whole(self, batch: str, parts: list[pa.RecordBatch]) -> pa.RecordBatch:
        rows = pa.Table.from_batches(parts)
        is_seat = pc.equal(rows[TABLE], 1)
        hands = _as_schema(rows.filter(pc.invert(is_seat)), HAND_INPUT)
        seats = _as_schema(rows.filter(is_seat), SEAT_INPUT)
        return self.score(batch, hands, seats)


def _runs(chunk: pa.RecordBatch) -> Iterator[tuple[str, pa.RecordBatch]]:
    """The chunk cut where the batch id changes (rows arrive sorted on it)."""
    if chunk.num_rows == 0:
        return
    names = chunk.column(BATCH)
    if chunk.num_rows > 1:
        changed = pc.not_equal(names.slice(1), names.slice(0, chunk.num_rows - 1))
        cuts = (np.flatnonzero(changed.to_numpy(zero_copy_only=False)) + 1).tolist()
    else:
        cuts = []
    bounds = [0, *cuts, chunk.num_rows]
    for start, end in itertools.pairwise(bounds):
        yield str(names[start].as_py()), chunk.slice(start, end - start)


def _as_schema(rows: pa.Table, schema: pa.Schema) -> pa.Table:
    """Spark's Arrow columns (plain binary, maybe large strings) as the dataset's own types."""
    return pa.Table.from_arrays(
        [rows[field.name].cast(field.type) for field in schema], schema=schema
    )
