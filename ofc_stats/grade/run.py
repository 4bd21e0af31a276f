"""`ofc-stats grade`: grade every import batch into the ``grades`` and ``grade_candidates`` tables.

Like recompute, one file per import batch and table, committed together
(:meth:`Dataset.commit` with ``step="grades"``), so a batch's grades appear
whole or not at all.  The grades file's Parquet metadata holds the grader
version and the options (rollouts, player, seed); a batch whose stamp matches
is left alone, ``force`` redoes it.  Work is split into chunks of hands that
``workers`` processes grade side by side; every decision has its own seed
(:func:`~ofc_stats.grade.race.decision_seed`), so the grades do not depend on
the chunking or the number of workers.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.engine.board import DESTINATIONS, ROWS
from ofc_stats.engine.cards import format_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import UnplayablePosition
from ofc_stats.grade.fantasy import grade_set, solver
from ofc_stats.grade.position import (
    HAND_COLUMNS,
    PLACEMENT_COLUMNS,
    SEAT_COLUMNS,
    Decision,
    FantasyDeal,
    Positions,
    read_positions,
)
from ofc_stats.grade.race import Graded, decision_seed, grade
from ofc_stats.grade.rollout import PARTS, setup
from ofc_stats.store.dataset import EMPTY, Dataset
from ofc_stats.store.files import write_parquet
from ofc_stats.store.schema import GRADE_CANDIDATES, GRADE_TABLES, GRADES

GRADER_VERSION = 1  # bump when the policy or the values change: stored grades are redone
GRADER_KEY = b"ofc_stats.grader"
CHUNK_HANDS = 16  # hands per task given to a worker
FANTASY_CHUNK = 32  # Fantasyland sets per task


@dataclass(frozen=True)
class GradeOptions:
    rollouts: int = 32  # at most this many rollouts per candidate
    player: str | None = None
    seed: int = 0

    def grader(self) -> dict[str, object]:
        """What makes two runs' grades comparable: the grader and its options."""
        return {"version": GRADER_VERSION, "rollouts": self.rollouts, "seed": self.seed}

    def stamp(self, players: list[str] | None) -> bytes:
        """The grades file's metadata; ``players`` None means every seat is graded."""
        return json.dumps({**self.grader(), "players": players}, sort_keys=True).encode()


@dataclass
class GradeSummary:
    batches: int = 0
    up_to_date: int = 0
    hands: int = 0
    decisions: int = 0
    fantasy_sets: int = 0
    seats: int = 0  # seats with something graded
    loss: float = 0.0
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        text = [
            f"graded: {self.decisions} street decisions and {self.fantasy_sets} Fantasyland "
            f"sets in {self.hands} hands, {self.batches} batch(es); "
            f"{self.up_to_date} batch(es) already up to date"
        ]
        if self.decisions and self.seconds >= 2:
            text[0] += f" ({self.decisions / self.seconds:,.0f} decisions/s)"
        if self.seats:
            text.append(f"  expected points lost: {self.loss / self.seats:.2f} per seat and hand")
        for reason, count in sorted(self.skipped.items()):
            text.append(f"  not graded ({reason}): {count}")
        return text


def ensure_tables(dataset: Dataset) -> None:
    """The grade folders with their empty schema files (older datasets lack them)."""
    for name, schema in GRADE_TABLES.items():
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


def play_text(dealt: tuple[int, ...], dest: tuple[int, ...] | list[int]) -> str:
    """``top Qs | bottom 7h 7d | discard 2c``: where each dealt card went."""
    parts = []
    for code, name in enumerate(DESTINATIONS):
        cards = [c for c, d in zip(dealt, dest, strict=True) if d == code]
        if cards:
            parts.append(f"{name} {format_cards(cards)}")
    return " | ".join(parts)


def _main_part(parts: dict[str, float], loss: float) -> str:
    if loss <= 0:
        return "none"
    return max(PARTS, key=lambda name: parts[name])


class _Rows:
    """Column lists of the two tables, filled decision by decision."""

    def __init__(self) -> None:
        self.grades: dict[str, list[object]] = {name: [] for name in GRADES.names}
        self.candidates: dict[str, list[object]] = {name: [] for name in GRADE_CANDIDATES.names}

    def grade_row(self, **values: object) -> None:
        for name in GRADES.names:
            self.grades[name].append(values.get(name))

    def street(self, decision: Decision, graded: Graded, candidate_dest: np.ndarray) -> None:
        dealt = decision.dealt
        chosen, best = graded.chosen, graded.best
        self.grade_row(
            hand_key=decision.hand_key,
            seat=decision.seat,
            player=decision.player,
            street=decision.street,
            kind="street",
            decision=_main_part(graded.parts, graded.loss),
            status="forced" if graded.forced else "graded",
            candidates=len(graded.candidates),
            rollouts=int(graded.rollouts[chosen]),
            dealt=list(dealt),
            chosen_play=play_text(dealt, decision.chosen),
            best_play=play_text(dealt, candidate_dest[graded.candidates[best]].tolist()),
            ev_chosen=float(graded.ev[chosen]),
            se_chosen=float(graded.se[chosen]),
            ev_best=float(graded.ev[best]),
            se_best=float(graded.se[best]),
            loss=graded.loss,
            loss_se=graded.loss_se,
            loss_se_independent=graded.loss_se_independent,
            **{f"loss_{name}": graded.parts[name] for name in PARTS},
        )
        c = self.candidates
        for i, index in enumerate(graded.candidates.tolist()):
            dest = candidate_dest[index].tolist()
            c["hand_key"].append(decision.hand_key)
            c["seat"].append(decision.seat)
            c["street"].append(decision.street)
            c["candidate"].append(index)
            c["play"].append(play_text(dealt, dest))
            c["destinations"].append(dest)
            rolled = bool(graded.rollouts[i])  # screened-out candidates have no value
            c["ev"].append(float(graded.ev[i]) if rolled else None)
            c["se"].append(float(graded.se[i]) if rolled and graded.rollouts[i] > 1 else None)
            c["rollouts"].append(int(graded.rollouts[i]))
            c["chosen"].append(i == chosen)
            c["best"].append(i == best)

    def unplayable(self, decision: Decision, why: str) -> None:
        self.grade_row(
            hand_key=decision.hand_key,
            seat=decision.seat,
            player=decision.player,
            street=decision.street,
            kind="street",
            decision="none",
            status=f"unplayable: {why}",
            dealt=list(decision.dealt),
            chosen_play=play_text(decision.dealt, decision.chosen),
        )

    def tables(self) -> dict[str, pa.Table]:
        return {
            "grades": pa.table(self.grades, schema=GRADES),
            "grade_candidates": pa.table(self.candidates, schema=GRADE_CANDIDATES),
        }


def grade_chunk(decisions: list[Decision], options: GradeOptions) -> dict[str, pa.Table]:
    """Grade some street decisions (a worker's task)."""
    rows = _Rows()
    for decision in decisions:
        try:
            plan = setup(decision)
        except UnplayablePosition as error:
            rows.unplayable(decision, str(error))
            continue
        seed = decision_seed(options.seed, decision.hand_key, decision.seat, decision.street)
        graded = grade(plan, options.rollouts, np.random.default_rng(seed))
        rows.street(decision, graded, plan.cands.dest)
    return rows.tables()


Real = dict[tuple[str, int], tuple[int | None, bool | None]]


def _real_sets(results: pa.Table) -> Real:
    """(hand_key, seat) -> the stored royalties and repeat of each board."""
    columns = [results[name].to_pylist() for name in ("hand_key", "seat", "royalties")]
    stays = results["fantasy_stays"].to_pylist()
    return {(k, s): (r, st) for k, s, r, st in zip(*columns, stays, strict=True)}


def _keys(deals: list[FantasyDeal]) -> list[tuple[str, int]]:
    return [(deal.hand_key, deal.seat) for deal in deals]


def fantasy_chunk(deals: list[FantasyDeal], real: Real) -> dict[str, pa.Table]:
    """Grade some Fantasyland sets against the solver's (a worker's task)."""
    rows = _Rows()
    solve = solver()
    for deal in deals:
        royalties, stays = real.get((deal.hand_key, deal.seat), (None, None))
        base: dict[str, object] = dict(
            hand_key=deal.hand_key,
            seat=deal.seat,
            player=deal.player,
            street=0,
            kind="fantasy",
            dealt=list(deal.cards),
            chosen_play=_board_text(deal.board),
            fantasy_cards=len(deal.cards),
        )
        if solve is None or royalties is None:
            rows.grade_row(
                **base, status="no solver" if solve is None else "no results", decision="none"
            )
            continue
        graded = grade_set(deal, int(royalties), bool(stays), solve)
        rows.grade_row(
            **base,
            status="graded",
            decision="fantasy" if graded.loss > 0 else "none",
            best_play=_board_text(graded.best_board),
            ev_chosen=graded.real_value,
            se_chosen=0.0,
            ev_best=graded.best_value,
            se_best=0.0,
            loss=graded.loss,
            loss_se=0.0,
            loss_se_independent=0.0,
            loss_rows=0.0,
            loss_fouls=0.0,
            loss_royalties=graded.loss if not graded.missed_repeat else 0.0,
            loss_fantasy=graded.loss if graded.missed_repeat else 0.0,
            missed_repeat=graded.missed_repeat,
        )
    return rows.tables()


def _board_text(board: tuple[int, ...]) -> str:
    rows = (board[0:3], board[3:8], board[8:13])
    return " | ".join(
        f"{name} {format_cards(cards)}" for name, cards in zip(ROWS, rows, strict=True)
    )


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

    The caller holds the dataset lock.  ``planned`` is told how many hands
    will be graded, ``progress`` the hands of each finished chunk.
    """
    started = time.perf_counter()
    dataset = Dataset(root)
    ensure_tables(dataset)
    summary = GradeSummary()
    todo = []
    for batch in dataset.batches():
        if not force and up_to_date(dataset, batch, options):
            summary.up_to_date += 1
        else:
            todo.append(batch)
    if planned is not None:
        planned(sum(pq.read_metadata(dataset.batch_file("hands", b)).num_rows for b in todo))
    count = max(1, workers or min(os.cpu_count() or 1, 4))
    pool = None
    if count > 1:
        pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"))
    try:
        for batch in todo:  # one batch in memory at a time
            positions, results, stored = _positions(dataset, batch, options)
            tables, counted = _grade_batch(positions, results, options, pool, progress)
            loss = tables["grades"]["loss"].to_numpy(zero_copy_only=False)
            summary.loss += float(np.nansum(loss.astype(np.float64)))
            tables, players = _merge(dataset, batch, options, tables)
            stamp = {GRADER_KEY: options.stamp(players)}
            tables["grades"] = tables["grades"].replace_schema_metadata(stamp)
            dataset.commit(batch, tables, step="grades")
            if progress is not None:
                progress(stored - counted)  # hands with nothing to grade
            summary.batches += 1
            summary.hands += positions.hands
            summary.decisions += len(positions.decisions)
            summary.fantasy_sets += len(positions.fantasies)
            graded = {(d.hand_key, d.seat) for d in positions.decisions}
            summary.seats += len(graded | set(_keys(positions.fantasies)))
            summary.skipped.update(positions.skipped)
    finally:
        if pool is not None:
            pool.shutdown()
    summary.seconds = time.perf_counter() - started
    return summary


def _positions(
    dataset: Dataset, batch: str, options: GradeOptions
) -> tuple[Positions, pa.Table, int]:
    hands = pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS)
    seats = pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS)
    placements = pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS)
    results_path = dataset.batch_file("results", batch)
    results = (
        pq.read_table(results_path, columns=["hand_key", "seat", "royalties", "fantasy_stays"])
        if results_path.is_file()
        else pa.table({"hand_key": [], "seat": [], "royalties": [], "fantasy_stays": []})
    )
    positions = read_positions(hands, seats, placements, get_ruleset, options.player)
    return positions, results, hands.num_rows


def _grade_batch(
    positions: Positions,
    results: pa.Table,
    options: GradeOptions,
    pool: ProcessPoolExecutor | None,
    progress: Callable[[int], None] | None,
) -> tuple[dict[str, pa.Table], int]:
    real = _real_sets(results)
    sets = positions.fantasies
    fantasy_tasks = [sets[i : i + FANTASY_CHUNK] for i in range(0, len(sets), FANTASY_CHUNK)]
    chunks = list(_chunks(positions.decisions))
    if pool is None:
        parts = [fantasy_chunk(task, real) for task in fantasy_tasks]
        outputs = []
        for chunk, hands in chunks:
            outputs.append(grade_chunk(chunk, options))
            if progress is not None:
                progress(hands)
    else:
        fantasy_jobs = [
            pool.submit(fantasy_chunk, task, {key: real[key] for key in _keys(task) if key in real})
            for task in fantasy_tasks
        ]
        jobs = [pool.submit(grade_chunk, chunk, options) for chunk, _ in chunks]
        outputs = []
        for job, (_, hands) in zip(jobs, chunks, strict=True):
            outputs.append(job.result())
            if progress is not None:
                progress(hands)
        parts = [job.result() for job in fantasy_jobs]
    parts += outputs
    empty = _Rows().tables()
    tables = {
        name: pa.concat_tables([empty[name], *(p[name] for p in parts)]) for name in GRADE_TABLES
    }
    return tables, sum(hands for _, hands in chunks)
