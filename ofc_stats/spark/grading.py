"""Grading on Apache Spark: each task grades whole import batches with the local grader.

Grading is CPU-bound (rollouts), so the batches go to Spark tasks as in the
default recompute plan: a frame of batch numbers, each task reading its
batches' files, grading them with the functions ``ofc-stats grade`` runs
(:mod:`ofc_stats.grade.run`, every decision seeded on its own, so the grades
do not depend on which task ran them) and committing ``grades`` and
``grade_candidates`` with the same stamp and ``step="grades"``.  A dataset
folder only (every node sees it at the same path): the grader reads its
tables through :class:`~ofc_stats.store.dataset.Dataset`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from ofc_stats.errors import DatasetError
from ofc_stats.grade.run import (
    GradeOptions,
    GradeSummary,
    ensure_tables,
    grade_batch,
    up_to_date,
)
from ofc_stats.spark.session import collect_summary, run_with_progress
from ofc_stats.store.dataset import Dataset, stale_batches

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

GRADED = pa.schema(
    [
        ("batch", pa.string()),
        ("hands", pa.int64()),
        ("decisions", pa.int64()),
        ("fantasy_sets", pa.int64()),
        ("seats", pa.int64()),
        ("loss", pa.float64()),
        ("sets", pa.int64()),
        ("sets_loss", pa.float64()),
        ("skipped", pa.string()),  # JSON: reason -> count
    ]
)
GRADED_DDL = (
    "batch string, hands bigint, decisions bigint, fantasy_sets bigint, seats bigint, "
    "loss double, sets bigint, sets_loss double, skipped string"
)


def grade(
    spark: SparkSession,
    root: str | Path,
    options: GradeOptions,
    *,
    force: bool = False,
    progress: Callable[[float], None] | None = None,
    partitions: int | None = None,
) -> GradeSummary:
    """Grade the batches without current grades (all with ``force``) on Spark.

    The caller holds the dataset lock; ``progress`` gets the fraction of
    Spark tasks done; ``partitions`` defaults to one task per batch (grading a
    batch takes far longer than Spark's tenth of a second per task).
    """
    started = time.perf_counter()
    dataset = Dataset(Path(root).resolve())
    if not dataset.exists():
        raise DatasetError(f"{root}: no ofc-stats dataset here")
    dataset.check_version()
    ensure_tables(dataset)
    options = options.for_dataset(dataset.root)
    summary = GradeSummary()
    todo, summary.up_to_date = stale_batches(
        dataset.batches(), lambda b: up_to_date(dataset, b, options), force
    )
    if todo:
        count = min(len(todo), partitions or len(todo))
        numbers = spark.range(0, len(todo), 1, count)
        frame = numbers.mapInArrow(_BatchGrader(str(dataset.root), todo, options), GRADED_DDL)
        for row in run_with_progress(spark, lambda: collect_summary(spark, frame), progress):
            summary.batches += 1
            summary.hands += row["hands"]
            summary.decisions += row["decisions"]
            summary.fantasy_sets += row["fantasy_sets"]
            summary.seats += row["seats"]
            summary.loss += row["loss"]
            summary.sets += row["sets"]
            summary.sets_loss += row["sets_loss"]
            summary.skipped.update(json.loads(row["skipped"]))
    summary.seconds = time.perf_counter() - started
    return summary


class _BatchGrader:
    """Rows are batch numbers: grade each batch here, as ``grade_dataset`` does, and commit."""

    def __init__(self, root: str, todo: list[str], options: GradeOptions) -> None:
        self.root, self.todo, self.options = root, todo, options

    def __call__(self, chunks: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        dataset = Dataset(self.root)
        for chunk in chunks:
            for number in chunk.column(0).to_pylist():  # one per batch
                yield self.grade(dataset, self.todo[number])

    def grade(self, dataset: Dataset, batch: str) -> pa.RecordBatch:
        graded = grade_batch(dataset, batch, self.options)
        positions = graded.positions
        counted = GradeSummary()
        counted.count(graded.grades)
        values = [
            batch,
            positions.hands,
            len(positions.decisions),
            len(positions.fantasies),
            counted.seats,
            counted.loss,
            counted.sets,
            counted.sets_loss,
            json.dumps(dict(positions.skipped)),
        ]
        return pa.RecordBatch.from_arrays(
            [pa.array([v], f.type) for v, f in zip(values, GRADED, strict=True)], schema=GRADED
        )


__all__ = ["grade"]
