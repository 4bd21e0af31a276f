"""Recompute: score every stored import batch again into the ``results`` and ``versus`` tables.

Each import batch gets ``results/<batch>.parquet`` and ``versus/<batch>.parquet``,
committed together like an import batch.  The engine version that wrote them
is in the results file's Parquet metadata; import batches never change, so
"not yet scored" is simply "no results file of this engine version";
``force`` redoes them all.  Memory is bounded by the import batch size.
Results are keyed by ``hand_id`` (no ``hand_key`` is read or written).  Worker
threads score batches side by side: each claims the next batch when it is
ready for one and commits what it scored while its previous commit was on
disk in one go.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.engine.rules import Ruleset
from ofc_stats.store.counts import counted
from ofc_stats.store.dataset import Dataset, stale_batches
from ofc_stats.store.rescore import RulesetLookup, Scored, score_tables
from ofc_stats.store.rows import with_hand_keys
from ofc_stats.store.rulesets import DatasetRulesets
from ofc_stats.store.schema import ENGINE_KEY, ENGINE_VERSION
from ofc_stats.store.streets import recorded_bits

# What a rescoring under other rules reads of each hand (the audit's "what if" passes).
RESCORE_HAND_COLUMNS = ["hand_id", "ruleset", "seat_count", "complete"]
# Recompute alone also reads format and raw_text (the largest column): the timeouts a
# hand's text records are parsed once, when it is scored, and stored per seat
# (results.recorded_timeouts); a rescoring copies them (stored_timeouts), as no rule
# changes them.
HAND_COLUMNS = [*RESCORE_HAND_COLUMNS, "format", "raw_text"]
SEAT_COLUMNS = [
    "hand_id",
    "seat",
    "board",
    "board_streets",
    "in_fantasy",
    "fantasy_cards",
    "stack",
]


@dataclass
class RecomputeSummary:
    batches: int = 0  # scored now
    up_to_date: int = 0  # already scored, left alone
    hands: int = 0
    seats: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    timed: str = ""  # what the seconds hold besides the scoring (Spark's start-up)

    def lines(self) -> list[str]:
        text = [
            f"recomputed: {counted(self.hands, 'hand')} in "
            f"{counted(self.batches, 'batch', 'batches')}, "
            f"{counted(self.up_to_date, 'batch', 'batches')} already up to date"
        ]
        if self.seconds >= 2:  # worth a figure; short runs stay exact for tests
            text[0] += f" ({self.hands / self.seconds:,.0f} hands/s{self.timed})"
        for status, count in sorted(self.statuses.items()):
            text.append(f"  {status}: {counted(count, 'seat')}")
        return text


def up_to_date(dataset: Dataset, batch: str) -> bool:
    """Whether the batch's results were written by this engine version."""
    path = dataset.batch_file("results", batch)
    if not path.is_file() or not dataset.batch_file("versus", batch).is_file():
        return False
    try:
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowInvalid):
        return False
    return metadata.get(ENGINE_KEY) == str(ENGINE_VERSION).encode()


def stored_results(dataset: Dataset, batch: str, columns: list[str]) -> pa.Table:
    """One batch's stored ``results`` columns, ``hand_key`` among them if asked.

    Results are stored keyed by ``hand_id``; a reader of one batch's file gets
    ``hand_key`` from that batch's hands, as the ``results`` view does.
    """
    stored = [c for c in columns if c not in ("hand_key", "hand_id")]
    table = pq.read_table(dataset.batch_file("results", batch), columns=["hand_id", *stored])
    if "hand_key" in columns:
        hands = pq.read_table(dataset.batch_file("hands", batch), columns=["hand_id", "hand_key"])
        table = with_hand_keys(table, hands)
    return table.select(columns)


def score_batch_files(
    dataset: Dataset,
    batch: str,
    lookup: RulesetLookup | None = None,
    ruleset: Ruleset | None = None,
    *,
    hand_key: bool = True,
    timeouts: bool = True,
) -> dict[str, pa.Table]:
    """The results and versus tables of one import batch scored again (``ruleset`` overrides).

    With ``hand_key`` they carry it, shaped as the views show them.  The
    recorded timeouts are the stored ones (:func:`stored_timeouts`); a caller
    that reads no timeouts passes ``timeouts=False`` and gets nulls there.
    """
    hands, seats = rescore_inputs(dataset, batch, hand_key=hand_key)
    scored = score_tables(hands, seats, lookup or DatasetRulesets(dataset.root), ruleset=ruleset)
    results = stored_timeouts(dataset, batch, scored.results) if timeouts else scored.results
    return {"results": results, "versus": scored.versus}


def rescore_inputs(
    dataset: Dataset, batch: str, *, hand_key: bool = True, extra: tuple[str, ...] = ()
) -> tuple[pa.Table, pa.Table]:
    """One batch's hands (:data:`RESCORE_HAND_COLUMNS` and ``extra``) and seats, to score
    again: no hand text is read."""
    names = [*RESCORE_HAND_COLUMNS, *extra]
    hands = read_columns(dataset.batch_file("hands", batch), names, ["ruleset"])
    columns = ["hand_key", *SEAT_COLUMNS] if hand_key else SEAT_COLUMNS
    return hands, read_columns(dataset.batch_file("seats", batch), columns)


def stored_timeouts(dataset: Dataset, batch: str, results: pa.Table) -> pa.Table:
    """``results`` (one batch's, rescored) with the ``recorded_timeouts`` its stored results
    hold, matched by (hand_id, seat): the timeouts a text records do not depend on the rules.

    A batch whose results this engine version did not write has its texts parsed
    instead, as recompute would.
    """
    index = results.schema.get_field_index("recorded_timeouts")
    ids = results["hand_id"].to_numpy().astype(np.int64)
    seats = results["seat"].to_numpy().astype(np.int64)
    if up_to_date(dataset, batch):
        columns = ["hand_id", "seat", "recorded_timeouts"]
        stored = read_columns(dataset.batch_file("results", batch), columns)
        known = stored["hand_id"].to_numpy().astype(np.int64)
        known_seats = stored["seat"].to_numpy().astype(np.int64)
        bits = pc.fill_null(stored["recorded_timeouts"], 0).to_numpy()
        if not (np.array_equal(known, ids) and np.array_equal(known_seats, seats)):
            bits = _matched(known * 256 + known_seats, bits, ids * 256 + seats)
    else:
        hands = read_columns(dataset.batch_file("hands", batch), ["hand_id", "format", "raw_text"])
        order = pc.index_in(results["hand_id"], value_set=hands["hand_id"].combine_chunks())
        bits = recorded_bits(
            hands["format"], hands["raw_text"], pc.fill_null(order, -1).to_numpy(), seats
        )
    column = pa.array(np.asarray(bits, np.int16), pa.int16())
    return results.set_column(index, "recorded_timeouts", column)


def _matched(
    keys: npt.NDArray[np.int64], values: npt.NDArray[Any], wanted: npt.NDArray[np.int64]
) -> npt.NDArray[np.int16]:
    """``values`` looked up by ``keys`` at each of ``wanted`` (0 where absent)."""
    out = np.zeros(len(wanted), np.int16)
    if not len(keys):
        return out
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    hit = keys[at] == wanted
    out[hit] = values[at[hit]]
    return out


def read_columns(path: Path, columns: list[str], dictionary: list[str] | None = None) -> pa.Table:
    """Some columns of one Parquet file, read directly (no dataset discovery per call)."""
    return pq.ParquetFile(path, read_dictionary=dictionary).read(columns=columns)


def recompute(
    root: str | Path,
    *,
    force: bool = False,
    lookup: RulesetLookup | None = None,
    progress: Callable[[int], None] | None = None,
    workers: int | None = None,
) -> RecomputeSummary:
    """Score the import batches that have no current results (all with ``force``).

    The caller holds the dataset lock (``import`` does; the CLI takes it).
    ``progress`` is called with the hands of each finished batch, on the
    calling thread.  Batches are independent, so ``workers`` threads
    (default: one per core, at most 4, never more than there are batches)
    score them side by side, each taking the next unclaimed batch when it is
    ready for one: the core scores with the GIL released, and Arrow reads
    and writes Parquet without it.
    """
    started = time.perf_counter()
    dataset = Dataset(root)
    dataset.create()
    summary = RecomputeSummary()
    todo, summary.up_to_date = stale_batches(
        dataset.batches(), lambda b: up_to_date(dataset, b), force
    )
    count = min(workers or min(os.cpu_count() or 1, 4), max(len(todo), 1))
    if lookup is None:  # presets, then the rulesets the dataset keeps (store.rulesets)
        lookup = DatasetRulesets(dataset.root)

    def report(done: Done) -> None:
        _count(summary, *done, progress)

    claims = _Claims(len(todo))
    if count > 1:
        finished: queue.Queue[Done] = queue.Queue()
        with ThreadPoolExecutor(count, thread_name_prefix="recompute") as pool:
            jobs = [
                pool.submit(_score_and_publish, dataset, todo, lookup, claims.next, finished.put)
                for _ in range(count)
            ]
            _collect(jobs, finished, claims, report)
    else:
        _score_and_publish(dataset, todo, lookup, claims.next, report)
    summary.seconds = time.perf_counter() - started
    return summary


class _Claims:
    """The next batch to score, shared by the workers; :meth:`stop` hands out no more."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._next = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            index = self._next
            self._next = min(index + 1, self.total)
            return index

    def stop(self) -> None:
        with self._lock:
            self._next = self.total


def _collect(
    jobs: list[Future[int]],
    finished: queue.Queue[Done],
    claims: _Claims,
    report: Callable[[Done], None],
) -> None:
    """Report each batch the workers publish; the first failure stops them and is raised.

    A worker puts what it published on the queue before its job is done, so
    once every job is done the queue holds all that is left to report.
    """
    try:
        while True:
            try:
                done = finished.get(timeout=0.05)
            except queue.Empty:
                failed = next((job for job in jobs if job.done() and job.exception()), None)
                if failed is not None:
                    failed.result()
                if all(job.done() for job in jobs) and finished.empty():
                    break
                continue
            report(done)
    except BaseException:  # a worker's error, or an interrupt: the others claim no more
        claims.stop()
        wait(jobs)
        raise


Done = tuple[int, int, dict[str, int]]  # hands, seats, seats by status
QUEUED = 8  # scored batches a worker holds while its writer is busy: memory stays bounded


def _score_and_publish(
    dataset: Dataset,
    todo: list[str],
    lookup: RulesetLookup,
    claim: Callable[[], int],
    report: Callable[[Done], None],
) -> int:
    """Score claimed batches while a writer thread publishes the ones already scored.

    Scoring is CPU and publishing mostly the disk (fsync), and both release
    the GIL, so the two overlap.  Whatever was scored while the writer was
    busy goes out as one commit: several batches then share one marker and
    one fsync per table folder, and the last commit holds at most what the
    final write overlapped.
    """
    published = 0
    scored: dict[str, tuple[dict[str, pa.Table], int]] = {}
    with ThreadPoolExecutor(1) as writer:
        pending: Future[list[Done]] | None = None

        def collect() -> None:
            nonlocal pending, published
            if pending is not None:
                for done in pending.result():
                    published += 1
                    report(done)
                pending = None

        while (index := claim()) < len(todo):
            scored[todo[index]] = _score(dataset, todo[index], lookup)
            if pending is not None and (pending.done() or len(scored) >= QUEUED):
                collect()
            if pending is None:
                pending, scored = writer.submit(_publish, dataset, scored), {}
        collect()
        if scored:
            pending = writer.submit(_publish, dataset, scored)
            collect()
    return published


def _score(dataset: Dataset, batch: str, lookup: RulesetLookup) -> tuple[dict[str, pa.Table], int]:
    """One batch's results and versus (stamped with the engine version), and its hands."""
    hands = read_columns(dataset.batch_file("hands", batch), HAND_COLUMNS, ["ruleset"])
    seats = read_columns(dataset.batch_file("seats", batch), SEAT_COLUMNS)
    return stored_tables(score_tables(hands, seats, lookup)), hands.num_rows


def stored_tables(scored: Scored) -> dict[str, pa.Table]:
    """A batch's results and versus as they are stored (here and by Spark's workers).

    Written with ``files.options_for`` of each; ``results`` carries the engine version
    that :func:`up_to_date` reads back.
    """
    tables = {"results": scored.results, "versus": scored.versus}
    tables = {name: required_where_full(table) for name, table in tables.items()}
    stamp = {ENGINE_KEY: str(ENGINE_VERSION).encode()}
    tables["results"] = tables["results"].replace_schema_metadata(stamp)
    return tables


def required_where_full(table: pa.Table) -> pa.Table:
    """``table`` with every column that holds no null declared non-nullable (no copy).

    Parquet then stores those columns as *required*: no definition levels to
    encode (a batch's results: 14.0 -> 11.1 ms to write; versus 3.9 -> 3.1).
    Readers see the same values and types; DuckDB, Arrow datasets and Spark
    read a folder whose files differ only in this.
    """
    fields = [
        field.with_nullable(column.null_count > 0)
        for field, column in zip(table.schema, table.columns, strict=True)
    ]
    return pa.Table.from_arrays(table.columns, schema=pa.schema(fields, table.schema.metadata))


def _publish(dataset: Dataset, scored: dict[str, tuple[dict[str, pa.Table], int]]) -> list[Done]:
    """Commit several batches' results and versus at once; (hands, seats, by status) each."""
    dataset.commit_batches({batch: tables for batch, (tables, _) in scored.items()}, step="results")
    return [
        (hands, tables["results"].num_rows, _statuses(tables["results"]))
        for tables, hands in scored.values()
    ]


def _statuses(results: pa.Table) -> dict[str, int]:
    """Seats by status, counted on the dictionary's codes."""
    out: Counter[str] = Counter()
    for chunk in results["status"].chunks:
        counts = np.bincount(chunk.indices.to_numpy(zero_copy_only=False).astype(np.int64))
        for name, seats in zip(chunk.dictionary.to_pylist(), counts.tolist(), strict=False):
            if seats:
                out[name] += seats
    return dict(out)


def _count(
    summary: RecomputeSummary,
    hands: int,
    seats: int,
    statuses: dict[str, int],
    progress: Callable[[int], None] | None,
) -> None:
    summary.batches += 1
    summary.hands += hands
    summary.seats += seats
    summary.statuses.update(statuses)
    if progress is not None:
        progress(hands)
