"""`ofc-stats grade`: grade every import batch into the ``grades`` and ``grade_candidates`` tables.

Like recompute, one file per import batch and table, committed together
(:meth:`Dataset.commit` with ``step="grades"``), so a batch's grades appear
whole or not at all.  The grades file's Parquet metadata holds the grader
version and the options (rollouts, seed, the players graded); a batch whose
stamp covers the request is left alone, ``force`` redoes it.  Street
decisions go to the core in chunks of hands, which it grades on ``workers``
threads (the tasks are :mod:`ofc_stats.grade.tasks`); every decision has its
own seed, so the grades do not depend on the chunking or the number of threads.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.grade.position import (
    HAND_COLUMNS,
    PLACEMENT_COLUMNS,
    SEAT_COLUMNS,
    Decision,
    Positions,
    read_positions,
)
from ofc_stats.grade.tasks import (
    GradeOptions,
    GradeRows,
    fantasy_chunk,
    grade_chunk,
    real_sets,
)
from ofc_stats.store.dataset import EMPTY, Dataset, stale_batches
from ofc_stats.store.files import write_parquet
from ofc_stats.store.recompute import stored_results
from ofc_stats.store.rulesets import DatasetRulesets
from ofc_stats.store.schema import GRADE_TABLES, GRADER_TABLES
from ofc_stats.wording import plural

GRADER_KEY = b"ofc_stats.grader"
CHUNK_HANDS = 64  # hands per call to the core: enough decisions to keep every thread busy
FANTASY_CHUNK = 32  # Fantasyland sets per task


@dataclass
class GradeSummary:
    batches: int = 0
    up_to_date: int = 0
    hands: int = 0
    decisions: int = 0
    fantasy_sets: int = 0
    # The report's regret section measures street decisions per graded hand and
    # Fantasyland sets per set; these are the same two measures, so the figures agree.
    seats: int = 0  # graded hands: seats with a graded street decision
    loss: float = 0.0  # the street decisions' expected points lost
    sets: int = 0  # Fantasyland sets graded
    sets_loss: float = 0.0
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def count(self, grades: pa.Table) -> None:
        """Add one batch's losses: street decisions by seat, Fantasyland sets by set."""
        scored = grades.filter(pc.is_valid(grades["loss"]))
        streets = scored.filter(pc.equal(scored["kind"], "street"))
        sets = scored.filter(pc.equal(scored["kind"], "fantasy"))
        self.loss += float(pc.sum(streets["loss"]).as_py() or 0.0)
        keys, seats = streets["hand_key"].to_pylist(), streets["seat"].to_pylist()
        self.seats += len(set(zip(keys, seats, strict=True)))
        self.sets += sets.num_rows
        self.sets_loss += float(pc.sum(sets["loss"]).as_py() or 0.0)

    def lines(self) -> list[str]:
        text = [
            f"graded: {plural(self.decisions, 'street decision')} and "
            f"{plural(self.fantasy_sets, 'Fantasyland set')} in {plural(self.hands, 'hand')}, "
            f"{plural(self.batches, 'batch', 'batches')}; "
            f"{plural(self.up_to_date, 'batch', 'batches')} already up to date"
        ]
        if self.decisions and self.seconds >= 2:
            text[0] += f" ({self.decisions / self.seconds:,.0f} decisions/s)"
        if self.seats or self.sets:
            text.append("  expected points lost: " + "; ".join(self.rates()))
        for reason, count in sorted(self.skipped.items()):
            text.append(f"  not graded ({reason}): {count:,}")
        return text

    def rates(self) -> list[str]:
        """Each rate with what it is over, in the regret report's units."""
        out = []
        if self.seats:
            per_100 = 100 * self.loss / self.seats
            hands = plural(self.seats, "graded seat-hand")
            out.append(f"{per_100:,.0f} per 100 hands on the street decisions, over {hands}")
        if self.sets:
            sets = plural(self.sets, "set")
            out.append(f"{self.sets_loss / self.sets:.2f} per Fantasyland set, over {sets}")
        return out


def ensure_tables(dataset: Dataset) -> None:
    """The grade folders with their empty schema files (older datasets lack them)."""
    for name, schema in GRADER_TABLES.items():
        folder = dataset.table_dir(name)
        folder.mkdir(exist_ok=True)
        if not (folder / EMPTY).exists():
            write_parquet(schema.empty_table(), folder / EMPTY)


def stored_stamp(dataset: Dataset, batch: str, options: GradeOptions) -> dict[str, Any] | None:
    """The stamp of the batch's grades when they came from this grader and these options."""
    path = dataset.batch_file("grades", batch)
    if not path.is_file() or not dataset.batch_file("grade_candidates", batch).is_file():
        return None
    try:
        metadata = pq.read_schema(path).metadata or {}
        stamp = json.loads(metadata.get(GRADER_KEY, b"{}"))
    except (OSError, ValueError, pa.ArrowInvalid):
        return None
    if not isinstance(stamp, dict) or "players" not in stamp:
        return None
    if any(stamp.get(k) != v for k, v in options.grader().items()):
        return None
    return stamp


def up_to_date(dataset: Dataset, batch: str, options: GradeOptions) -> bool:
    """Whether the batch holds grades of this grader for the seats asked for."""
    stamp = stored_stamp(dataset, batch, options)
    if stamp is None:
        return False
    players = stamp.get("players")
    return players is None or (options.player is not None and options.player in players)


def _merge(
    dataset: Dataset, batch: str, options: GradeOptions, tables: dict[str, pa.Table]
) -> tuple[dict[str, pa.Table], list[str] | None]:
    """One player's new grades with the batch's other stored grades of the same grader.

    Grading a second player keeps the first one's grades; the stamp lists both.
    """
    if options.player is None:
        return tables, None
    stamp = stored_stamp(dataset, batch, options)
    if stamp is None:
        return tables, [options.player]
    players = stamp.get("players")
    new_seats = set(
        zip(
            tables["grades"]["hand_key"].to_pylist(),
            tables["grades"]["seat"].to_pylist(),
            strict=True,
        )
    )
    merged = {}
    for name, table in tables.items():
        old = pq.read_table(dataset.batch_file(name, batch)).replace_schema_metadata(None)
        keep = [
            (key, seat) not in new_seats
            for key, seat in zip(old["hand_key"].to_pylist(), old["seat"].to_pylist(), strict=True)
        ]
        merged[name] = pa.concat_tables([old.filter(pa.array(keep, pa.bool_())), table])
    listed = None if players is None else sorted({*players, options.player})
    return merged, listed


def _chunks(decisions: list[Decision]) -> Iterator[tuple[list[Decision], int]]:
    """Decisions in chunks of whole hands, with the hands in each."""
    chunk: list[Decision] = []
    keys: set[str] = set()
    for decision in decisions:
        if decision.hand_key not in keys and len(keys) == CHUNK_HANDS:
            yield chunk, len(keys)
            chunk, keys = [], set()
        chunk.append(decision)
        keys.add(decision.hand_key)
    if chunk:
        yield chunk, len(keys)


def grade_dataset(
    root: str | Path,
    options: GradeOptions,
    *,
    force: bool = False,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    planned: Callable[[int], None] | None = None,
) -> GradeSummary:
    """Grade the import batches without current grades (all with ``force``).

    The caller holds the dataset lock.  ``workers`` threads grade (None: every
    core).  ``planned`` is told how many hands will be graded, ``progress`` the
    hands of each finished chunk.
    """
    started = time.perf_counter()
    dataset = Dataset(root)
    ensure_tables(dataset)
    options = options.for_dataset(root)
    summary = GradeSummary()
    todo, summary.up_to_date = stale_batches(
        dataset.batches(), lambda b: up_to_date(dataset, b, options), force
    )
    if planned is not None:
        planned(sum(pq.read_metadata(dataset.batch_file("hands", b)).num_rows for b in todo))
    for batch in todo:  # one batch in memory at a time
        graded = grade_batch(dataset, batch, options, workers, progress)
        summary.count(graded.grades)
        if progress is not None:
            progress(graded.stored - graded.counted)  # hands with nothing to grade
        summary.batches += 1
        summary.hands += graded.positions.hands
        summary.decisions += len(graded.positions.decisions)
        summary.fantasy_sets += len(graded.positions.fantasies)
        summary.skipped.update(graded.positions.skipped)
    summary.seconds = time.perf_counter() - started
    return summary


@dataclass
class BatchGrades:
    """What grading one import batch did: its new grades and the positions behind them."""

    grades: pa.Table  # this run's grade rows (before merging with other players' grades)
    positions: Positions
    stored: int  # hands in the batch
    counted: int  # hands that had something to grade


def grade_batch(
    dataset: Dataset,
    batch: str,
    options: GradeOptions,
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> BatchGrades:
    """Grade one import batch and commit its grades (merged with other players', stamped).

    The one per-batch step both ``grade_dataset`` and the Spark runner take;
    the caller holds the dataset lock.
    """
    options = options.for_dataset(dataset.root)
    positions, results, stored = _positions(dataset, batch, options)
    tables, counted = _grade_batch(positions, results, options, threads, progress)
    grades = tables["grades"]
    tables, players = _merge(dataset, batch, options, tables)
    stamp = {GRADER_KEY: options.stamp(players)}
    tables["grades"] = tables["grades"].replace_schema_metadata(stamp)
    dataset.commit(batch, tables, step="grades")
    return BatchGrades(grades, positions, stored, counted)


def _positions(
    dataset: Dataset, batch: str, options: GradeOptions
) -> tuple[Positions, pa.Table, int]:
    hands = pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS)
    seats = pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS)
    placements = pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS)
    results_path = dataset.batch_file("results", batch)
    results = (
        stored_results(dataset, batch, ["hand_key", "seat", "royalties", "fantasy_stays"])
        if results_path.is_file()
        else pa.table({"hand_key": [], "seat": [], "royalties": [], "fantasy_stays": []})
    )
    positions = read_positions(
        hands, seats, placements, DatasetRulesets(dataset.root), options.player
    )
    return positions, results, hands.num_rows


def _grade_batch(
    positions: Positions,
    results: pa.Table,
    options: GradeOptions,
    threads: int | None,
    progress: Callable[[int], None] | None,
) -> tuple[dict[str, pa.Table], int]:
    real = real_sets(results)
    sets = positions.fantasies
    fantasy_tasks = [sets[i : i + FANTASY_CHUNK] for i in range(0, len(sets), FANTASY_CHUNK)]
    chunks = list(_chunks(positions.decisions))
    parts = [fantasy_chunk(task, real) for task in fantasy_tasks]
    outputs = []
    for chunk, hands in chunks:
        outputs.append(grade_chunk(chunk, options, threads))
        if progress is not None:
            progress(hands)
    parts += outputs
    empty = GradeRows().tables()
    tables = {
        name: pa.concat_tables([empty[name], *(p[name] for p in parts)]) for name in GRADE_TABLES
    }
    return tables, sum(hands for _, hands in chunks)


__all__ = [
    "BatchGrades",
    "GradeOptions",
    "GradeSummary",
    "grade_batch",
    "grade_chunk",
    "grade_dataset",
    "up_to_date",
]
