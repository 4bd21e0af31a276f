"""Recompute: score every stored import batch again into the ``results`` and ``versus`` tables.

Each import batch gets ``results/<batch>.parquet`` and ``versus/<batch>.parquet``,
committed together like an import batch.  The engine version that wrote them
is in the results file's Parquet metadata; import batches never change, so
"not yet scored" is simply "no results file of this engine version";
``force`` redoes them all.  Memory is bounded by the import batch size.
Results are keyed by ``hand_id`` (no ``hand_key`` is read or written), and
forked workers neither hold the dataset lock nor outlive their parent.  Each
worker claims the next batch when it is ready for one and commits what it
scored while its previous commit was on disk in one go; the engine's tables
come from the disk cache (:mod:`ofc_stats.store.engine_cache`) before forking.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.vector.timeout import mask_table
from ofc_stats.errors import OfcError
from ofc_stats.store.dataset import Dataset, stale_batches
from ofc_stats.store.engine_cache import warm
from ofc_stats.store.rescore import RulesetLookup, Scored, score_tables
from ofc_stats.store.rows import with_hand_keys
from ofc_stats.store.rulesets import DatasetRulesets
from ofc_stats.store.schema import ENGINE_KEY, ENGINE_VERSION

HAND_COLUMNS = ["hand_id", "ruleset", "seat_count", "complete"]
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

    def lines(self) -> list[str]:
        text = [
            f"recomputed: {self.hands} hands in {self.batches} batch(es), "
            f"{self.up_to_date} batch(es) already up to date"
        ]
        if self.seconds >= 2:  # worth a figure; short runs stay exact for tests
            text[0] += f" ({self.hands / self.seconds:,.0f} hands/s)"
        for status, count in sorted(self.statuses.items()):
            text.append(f"  {status}: {count} seats")
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
) -> dict[str, pa.Table]:
    """The results and versus tables of one import batch (``ruleset`` overrides).

    With ``hand_key`` they carry it, shaped as the views show them; recompute
    stores them without (``hand_id`` is the key, and the string costs time).
    """
    hands = read_columns(dataset.batch_file("hands", batch), HAND_COLUMNS, ["ruleset"])
    columns = ["hand_key", *SEAT_COLUMNS] if hand_key else SEAT_COLUMNS
    seats = read_columns(dataset.batch_file("seats", batch), columns)
    scored = score_tables(hands, seats, lookup or DatasetRulesets(dataset.root), ruleset=ruleset)
    return {"results": scored.results, "versus": scored.versus}


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
    ``progress`` is called with the hands of each finished batch.  Batches are
    independent, so ``workers`` processes (default: one per core, at most 4,
    never more than there are batches) score them side by side, each taking
    the next unclaimed batch when it is ready for one.
    """
    started = time.perf_counter()
    dataset = Dataset(root)
    dataset.create()
    summary = RecomputeSummary()
    todo, summary.up_to_date = stale_batches(
        dataset.batches(), lambda b: up_to_date(dataset, b), force
    )
    count = workers or min(os.cpu_count() or 1, 4)
    if lookup is None:  # presets, then the rulesets the dataset keeps (store.rulesets)
        lookup = DatasetRulesets(dataset.root)
    elif lookup is not get_ruleset:  # a custom lookup may not survive pickling
        count = 1

    def report(done: Done) -> None:
        _count(summary, *done, progress)

    if todo:
        _prepare(dataset, todo[0], lookup)  # once here: forked workers inherit them
    if count > 1 and len(todo) > 1:
        context = multiprocessing.get_context("fork")
        claims = context.Value("q", 0)
        finished: multiprocessing.Queue[Done] = context.Queue()
        start = (str(dataset.root / ".lock"), os.getpid(), claims, finished)
        size = min(count, len(todo))
        with ProcessPoolExecutor(
            size, mp_context=context, initializer=_worker_start, initargs=start
        ) as pool:
            jobs = [pool.submit(_worker, dataset, todo, lookup) for _ in range(size)]
            _collect(jobs, finished, claims, len(todo), report)
    else:
        claimed = iter(range(len(todo)))
        _score_and_publish(dataset, todo, lookup, lambda: next(claimed, len(todo)), report)
    summary.seconds = time.perf_counter() - started
    return summary


def _prepare(dataset: Dataset, batch: str, lookup: RulesetLookup) -> None:
    """The rank tables and the first batch's rulesets, compiled (or loaded) before forking."""
    names = read_columns(dataset.batch_file("hands", batch), ["ruleset"], ["ruleset"])
    rulesets = []
    for chunk in names["ruleset"].chunks:
        for name in chunk.dictionary.to_pylist():
            try:
                rulesets.append(lookup(name))
            except OfcError:
                continue
    warm(rulesets)
    for rules in rulesets:
        mask_table(rules.variant)
    pa.array(np.zeros(1))  # Arrow imports pandas on its first array from NumPy: here, once


def _collect(
    jobs: list[Future[int]],
    finished: multiprocessing.Queue[Done],
    claims: Synchronized[int],
    total: int,
    report: Callable[[Done], None],
) -> None:
    """Report each batch the workers publish; the first failure stops them and is raised.

    A worker's reports travel on their own queue, so they may arrive after its
    job is done: the loop ends when every job is done and all the batches
    they say they published have been reported.
    """
    received = 0
    while received < total:
        try:
            done = finished.get(timeout=0.05)
        except queue.Empty:
            failed = next((job for job in jobs if job.done() and job.exception()), None)
            if failed is not None:
                with claims.get_lock():
                    claims.value = total  # the other workers claim nothing more
                failed.result()
            if all(job.done() for job in jobs) and received >= sum(j.result() for j in jobs):
                break
            continue
        received += 1
        report(done)
    for job in jobs:
        job.result()


_CLAIMS: Synchronized[int] | None = None  # the next batch to claim, shared by the workers
_FINISHED: multiprocessing.Queue[Done] | None = None  # what each worker has published


def _worker_start(
    lock: str,
    parent: int,
    claims: Synchronized[int] | None = None,
    finished: multiprocessing.Queue[Done] | None = None,
) -> None:
    """A forked worker lets go of the dataset lock and dies with its parent.

    Forked, it holds a copy of the parent's locked descriptor: were the parent
    killed, the worker would keep the dataset locked, and with nothing left to
    feed it, wait forever.  So it closes that descriptor (the parent's lock
    stays: flock belongs to the open file, which the parent still has) and
    asks the kernel for SIGKILL when the parent goes (Linux; a watching
    thread elsewhere).
    """
    global _CLAIMS, _FINISHED
    _CLAIMS, _FINISHED = claims, finished
    _keep_freed_memory()
    _close_inherited(Path(lock))
    if not _kill_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent went before we asked
        os._exit(1)


def _keep_freed_memory() -> None:
    """Let a worker's malloc reuse freed memory instead of handing it back to the kernel.

    Every batch allocates the same arrays again; glibc returns large blocks to
    the kernel and then faults fresh zeroed pages in for the next batch (about
    2,800 page faults and 5 ms of a 40 ms batch here).  Keeping them (mmap and
    trim thresholds raised) costs no more memory than one batch already peaks
    at.  A worker exits when the run ends, so nothing outlives it; elsewhere
    than glibc there is no ``mallopt`` and nothing changes.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_MMAP_THRESHOLD, 64 << 20)
    mallopt(M_TRIM_THRESHOLD, 256 << 20)


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def _close_inherited(path: Path) -> None:
    try:
        wanted = os.stat(path)
    except OSError:
        return
    folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    for name in os.listdir(folder):
        fd = int(name)
        try:
            found = os.fstat(fd)
        except OSError:
            continue
        if fd > 2 and (found.st_dev, found.st_ino) == (wanted.st_dev, wanted.st_ino):
            os.close(fd)


def _kill_with_parent() -> bool:
    """prctl(PR_SET_PDEATHSIG, SIGKILL); False where there is no prctl."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return False
    return int(prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


PR_SET_PDEATHSIG = 1


Done = tuple[int, int, dict[str, int]]  # hands, seats, seats by status
QUEUED = 8  # scored batches a worker holds while its writer is busy: memory stays bounded


def _worker(dataset: Dataset, todo: list[str], lookup: RulesetLookup) -> int:
    """A worker's whole share: claim batches until none is left; how many it published."""
    assert _CLAIMS is not None and _FINISHED is not None
    claims, finished = _CLAIMS, _FINISHED

    def claim() -> int:
        with claims.get_lock():
            index = int(claims.value)
            claims.value = index + 1
        return index

    return _score_and_publish(dataset, todo, lookup, claim, finished.put)


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
