"""Recompute: score every stored import batch again into the ``results`` and ``versus`` tables.

Each import batch gets ``results/<batch>.parquet`` and ``versus/<batch>.parquet``,
committed together like an import batch.  The engine version that wrote them
is in the results file's Parquet metadata; import batches never change, so
"not yet scored" is simply "no results file of this engine version";
``force`` redoes them all.  Memory is bounded by the import batch size.
Results are keyed by ``hand_id`` (no ``hand_key`` is read or written), and
forked workers neither hold the dataset lock nor outlive their parent.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.vector.rank_tables import tables
from ofc_stats.store.dataset import Dataset, stale_batches
from ofc_stats.store.rescore import RulesetLookup, score_tables
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


# Encoding, not compression, is most of the write: dictionaries only where the values
# already are (zstd packs the small integers well without), statistics only on the keys.
WRITE_OPTIONS: dict[str, object] = {
    "use_dictionary": ["ruleset", "status"],
    "write_statistics": ["hand_id", "seat"],
}


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
        position = pc.index_in(table["hand_id"], value_set=hands["hand_id"].combine_chunks())
        table = table.append_column("hand_key", pc.take(hands["hand_key"], position))
    return table.select(columns)


def score_batch_files(
    dataset: Dataset,
    batch: str,
    lookup: RulesetLookup = get_ruleset,
    ruleset: Ruleset | None = None,
    *,
    hand_key: bool = True,
) -> dict[str, pa.Table]:
    """The results and versus tables of one import batch (``ruleset`` overrides).

    With ``hand_key`` they carry it, shaped as the views show them; recompute
    stores them without (``hand_id`` is the key, and the string costs time).
    """
    hands = pq.read_table(
        dataset.batch_file("hands", batch), columns=HAND_COLUMNS, read_dictionary=["ruleset"]
    )
    columns = ["hand_key", *SEAT_COLUMNS] if hand_key else SEAT_COLUMNS
    seats = pq.read_table(dataset.batch_file("seats", batch), columns=columns)
    scored = score_tables(hands, seats, lookup, ruleset=ruleset)
    return {"results": scored.results, "versus": scored.versus}


def recompute(
    root: str | Path,
    *,
    force: bool = False,
    lookup: RulesetLookup = get_ruleset,
    progress: Callable[[int], None] | None = None,
    workers: int | None = None,
) -> RecomputeSummary:
    """Score the import batches that have no current results (all with ``force``).

    The caller holds the dataset lock (``import`` does; the CLI takes it).
    ``progress`` is called with the hands of each finished batch.  Batches are
    independent, so ``workers`` processes (default: one per core, at most 4,
    never more than there are batches) score them side by side.
    """
    started = time.perf_counter()
    dataset = Dataset(root)
    dataset.create()
    summary = RecomputeSummary()
    todo, summary.up_to_date = stale_batches(
        dataset.batches(), lambda b: up_to_date(dataset, b), force
    )
    count = workers or min(os.cpu_count() or 1, 4)
    if lookup is not get_ruleset:  # a custom lookup may not survive pickling
        count = 1
    if count > 1 and len(todo) > 1:
        tables()  # the rank tables once here, inherited by every worker, not built in each
        context = multiprocessing.get_context("fork")
        start = (str(dataset.root / ".lock"), os.getpid())
        with ProcessPoolExecutor(
            min(count, len(todo)), mp_context=context, initializer=_worker_start, initargs=start
        ) as pool:
            size = max(1, min(RUN, len(todo) // (2 * count)))  # few batches: spread them
            runs = [todo[i : i + size] for i in range(0, len(todo), size)]
            jobs = [pool.submit(_score_and_publish_run, dataset, run, lookup) for run in runs]
            for job in as_completed(jobs):
                for done in job.result():
                    _count(summary, *done, progress)
    else:
        for batch in todo:
            _count(summary, *_publish(dataset, batch, _score(dataset, batch, lookup)), progress)
    summary.seconds = time.perf_counter() - started
    return summary


def _worker_start(lock: str, parent: int) -> None:
    """A forked worker lets go of the dataset lock and dies with its parent.

    Forked, it holds a copy of the parent's locked descriptor: were the parent
    killed, the worker would keep the dataset locked, and with nothing left to
    feed it, wait forever.  So it closes that descriptor (the parent's lock
    stays: flock belongs to the open file, which the parent still has) and
    asks the kernel for SIGKILL when the parent goes (Linux; a watching
    thread elsewhere).
    """
    _close_inherited(Path(lock))
    if not _kill_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent went before we asked
        os._exit(1)


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
RUN = 4  # batches a worker takes at once: it writes one while it scores the next


def _score_and_publish_run(
    dataset: Dataset, batches: list[str], lookup: RulesetLookup
) -> list[Done]:
    """Score a run of batches, each one's files written while the next is scored.

    Writing waits on the disk (fsync) and scoring on the CPU: a thread for the
    writes keeps the worker's core busy meanwhile (both release the GIL).
    """
    done: list[Done] = []
    with ThreadPoolExecutor(1) as writer:
        pending: Future[Done] | None = None
        for batch in batches:
            tables = _score(dataset, batch, lookup)
            if pending is not None:
                done.append(pending.result())
            pending = writer.submit(_publish, dataset, batch, tables)
        if pending is not None:
            done.append(pending.result())
    return done


def _score(dataset: Dataset, batch: str, lookup: RulesetLookup) -> dict[str, pa.Table]:
    tables = score_batch_files(dataset, batch, lookup, hand_key=False)
    stamp = {ENGINE_KEY: str(ENGINE_VERSION).encode()}
    tables["results"] = tables["results"].replace_schema_metadata(stamp)
    return tables


def _publish(dataset: Dataset, batch: str, tables: dict[str, pa.Table]) -> Done:
    """Commit one batch's results and versus; (hands, seats, seats by status)."""
    dataset.commit(batch, tables, step="results", **WRITE_OPTIONS)
    results = tables["results"]
    statuses = pc.value_counts(results["status"].cast(pa.string())).to_pylist()
    hands = pq.read_metadata(dataset.batch_file("hands", batch)).num_rows
    return hands, results.num_rows, {item["values"]: item["counts"] for item in statuses}


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
