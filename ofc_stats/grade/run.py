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
    players_seats,
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
from ofc_stats.wording import per_100_text, plural

GRADER_KEY = b"ofc_stats.grader"
REPLAY_KEY = b"ofc_stats.replay"
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
    squares: float = 0.0  # the sum over graded hands of (the hand's loss) squared, for the SE
    sets: int = 0  # Fantasyland sets graded
    sets_loss: float = 0.0
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    # With --player: the settings and the player's stored grades in every batch, fresh or
    # up to date (:meth:`mine`), so a re-run says what is stored rather than "0 graded".
    player: str | None = None
    settings: str = ""
    stored: GradeSummary | None = None

    def count(self, grades: pa.Table) -> None:
        """Add one batch's losses: street decisions by seat, Fantasyland sets by set."""
        scored = grades.filter(pc.is_valid(grades["loss"]))
        streets = scored.filter(pc.equal(scored["kind"], "street"))
        sets = scored.filter(pc.equal(scored["kind"], "fantasy"))
        self.loss += float(pc.sum(streets["loss"]).as_py() or 0.0)
        # a seat's hand lies in one batch, so its loss sums within the batch
        by_seat = streets.group_by(["hand_key", "seat"]).aggregate([("loss", "sum")])
        self.seats += by_seat.num_rows
        self.squares += float(
            pc.sum(pc.multiply(by_seat["loss_sum"], by_seat["loss_sum"])).as_py() or 0.0
        )
        self.sets += sets.num_rows
        self.sets_loss += float(pc.sum(sets["loss"]).as_py() or 0.0)

    def mine(self, root: str | Path, player: str, options: GradeOptions) -> None:
        """Take ``player``'s stored grades in every batch as the rates to print."""
        self.player = player
        self.settings = f"{plural(options.rollouts, 'rollout')}, seed {options.seed}"
        self.stored = player_grades(Dataset(root), player)

    def lines(self) -> list[str]:
        stored = self.stored
        if stored is not None and self.player is not None and not self.batches:
            return [
                f"{self.player}'s grades are current: "
                f"{plural(stored.decisions, 'street decision')} and "
                f"{plural(stored.fantasy_sets, 'Fantasyland set')} in "
                f"{plural(stored.hands, 'hand')} ({self.settings}); "
                f"`ofc-stats report --player {self.player}` shows them",
                *stored.rate_lines(),
            ]
        text = [
            f"graded: {plural(self.decisions, 'street decision')} and "
            f"{plural(self.fantasy_sets, 'Fantasyland set')} in {plural(self.hands, 'hand')}, "
            f"{plural(self.batches, 'batch', 'batches')}; "
            f"{plural(self.up_to_date, 'batch', 'batches')} already up to date"
        ]
        if self.decisions and self.seconds >= 2:
            text[0] += f" ({self.decisions / self.seconds:,.0f} decisions/s)"
        if self.player is not None:
            text[0] += f" ({self.settings})"
        text += (stored or self).rate_lines()
        for reason, count in sorted(self.skipped.items()):
            text.append(f"  not graded ({reason}): {count:,}")
        return text

    def rate_lines(self) -> list[str]:
        if self.seats or self.sets:
            return ["  expected points lost: " + "; ".join(self.rates())]
        return []

    def per_100(self) -> str:
        """The street decisions' loss per 100 graded hands with its SE over the hands, as
        the regret report writes it ("26.4 ± 3.2"; no SE from one hand)."""
        return per_100_text(self.loss, self.squares, self.seats)

    def rates(self) -> list[str]:
        """Each rate with what it is over, in the regret report's units."""
        out = []
        if self.seats:
            hands = plural(self.seats, "graded seat-hand")
            out.append(f"{self.per_100()} per 100 hands on the street decisions, over {hands}")
        if self.sets:
            sets = plural(self.sets, "set")
            out.append(f"{self.sets_loss / self.sets:.2f} per Fantasyland set, over {sets}")
        return out


def players_rows(
    dataset: Dataset, batch: str, table: str, columns: list[str], player: str
) -> pa.Table:
    """The rows of the batch's ``table`` file that are ``player``'s seats
    (:func:`players_seats`): ``columns`` with hand_key and seat."""
    seats = pq.read_table(
        dataset.batch_file("seats", batch), columns=["hand_key", "seat", "player", "player_id"]
    )
    seats = seats.filter(players_seats(seats, player))
    keyed = ["hand_key", "seat", *(c for c in columns if c not in ("hand_key", "seat"))]
    rows = pq.read_table(dataset.batch_file(table, batch), columns=keyed)
    return rows.filter(pc.is_in(seat_key(rows), value_set=seat_key(seats)))


def player_grades(dataset: Dataset, player: str) -> GradeSummary:
    """``player``'s stored grades over every batch, counted as a grade run counts."""
    out = GradeSummary()
    for batch in dataset.batches():
        if stored_stamp(dataset, batch) is None:
            continue
        grades = players_rows(
            dataset, batch, "grades", ["hand_key", "seat", "kind", "loss"], player
        )
        out.count(grades)
        out.decisions += pc.sum(pc.equal(grades["kind"], "street")).as_py() or 0
        out.fantasy_sets += pc.sum(pc.equal(grades["kind"], "fantasy")).as_py() or 0
        out.hands += len(set(grades["hand_key"].to_pylist()))
    return out


def ensure_tables(dataset: Dataset) -> None:
    """The grade folders with their empty schema files (older datasets lack them)."""
    for name, schema in GRADER_TABLES.items():
        folder = dataset.table_dir(name)
        folder.mkdir(exist_ok=True)
        if not (folder / EMPTY).exists():
            write_parquet(schema.empty_table(), folder / EMPTY)


SETTINGS_KEY = "player_settings"


def read_stamp(path: Path, key: bytes) -> dict[str, Any] | None:
    """A batch file's stamp (None: no file, or no readable stamp listing its players)."""
    if not path.is_file():
        return None
    try:
        stamp = json.loads((pq.read_schema(path).metadata or {}).get(key, b"{}"))
    except (OSError, ValueError, pa.ArrowInvalid):
        return None
    return stamp if isinstance(stamp, dict) and "players" in stamp else None


def settings_of(stamp: dict[str, Any] | None, player: str | None) -> dict[str, Any] | None:
    """What ``player``'s stored rows were made with (None: the file does not hold them).

    A stamp is the settings of most rows at its top level, ``players`` the
    players it holds (None: every seat), and under ``player_settings`` what
    differs for a player graded otherwise (``grade --player X --rollouts 256``
    keeps the others' rows as they were).  ``player`` None asks for every seat:
    the file holds them all with one set of settings, or None.
    """
    if stamp is None:
        return None
    own, main, players = stamp.get(SETTINGS_KEY) or {}, _main(stamp), stamp.get("players")
    if player is None:
        return main if players is None and not own else None
    if player in own:
        return {**main, **own[player]}
    return main if players is None or player in players else None


def _main(stamp: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in stamp.items() if k not in ("players", SETTINGS_KEY)}


def same_settings(found: dict[str, Any] | None, wanted: dict[str, Any]) -> bool:
    return found is not None and all(found.get(k) == v for k, v in wanted.items())


def with_player(
    stamp: dict[str, Any] | None, settings: dict[str, Any], player: str | None
) -> dict[str, Any]:
    """The stamp once ``player``'s rows (every seat's, if None) are made with ``settings``."""
    if player is None or stamp is None:
        return {**settings, "players": None if player is None else [player]}
    main, players = _main(stamp), stamp.get("players")
    own = {k: v for k, v in (stamp.get(SETTINGS_KEY) or {}).items() if k != player}
    differs = {k: v for k, v in settings.items() if main.get(k) != v}
    if differs:
        own[player] = differs
    listed = None if players is None else sorted({*players, player})
    return {**main, "players": listed, **({SETTINGS_KEY: own} if own else {})}


def stored_stamp(dataset: Dataset, batch: str) -> dict[str, Any] | None:
    """The stamp of the batch's grades (None without both grade files)."""
    if not dataset.batch_file("grade_candidates", batch).is_file():
        return None
    return read_stamp(dataset.batch_file("grades", batch), GRADER_KEY)


def up_to_date(dataset: Dataset, batch: str, options: GradeOptions) -> bool:
    """Whether the batch holds grades of this grader and these options for the seats asked
    for (a player's own settings: other players' rows may have been made otherwise)."""
    found = settings_of(stored_stamp(dataset, batch), options.player)
    return same_settings(found, options.grader())


def stored_settings(root: str | Path, player: str | None) -> tuple[int, int] | None:
    """The rollouts and seed ``player``'s stored grades (every seat's, if None) were made
    with: those of most batches, None if no batch holds them."""
    dataset = Dataset(root)
    seen: Counter[tuple[int, int]] = Counter()
    for batch in dataset.batches():
        stamp = stored_stamp(dataset, batch)
        found = settings_of(stamp, player)
        if stamp is not None and player is None and stamp.get("players") is None:
            found = _main(stamp)  # most seats' settings, some players' graded otherwise
        rollouts, seed = (found or {}).get("rollouts"), (found or {}).get("seed")
        if isinstance(rollouts, int) and isinstance(seed, int):
            seen[(rollouts, seed)] += 1
    return seen.most_common(1)[0][0] if seen else None


def seat_key(table: pa.Table) -> pa.ChunkedArray:
    """Each row's seat as one value, ``hand_key/seat`` (the seat, a number, follows the
    last slash, so no two seats share a key)."""
    return pc.binary_join_element_wise(table["hand_key"], pc.cast(table["seat"], pa.string()), "/")


def drop_seats(table: pa.Table, seats: pa.Table) -> pa.Table:
    """``table`` without the rows of the seats ``seats`` has rows of (what a player's new
    rows replace)."""
    return table.filter(pc.invert(pc.is_in(seat_key(table), value_set=seat_key(seats))))


def _older(stored: pa.Schema, today: pa.Schema) -> pa.Schema:
    """``stored``'s columns with today's types where both have them (a file of an older
    grader keeps the columns it has)."""
    return pa.schema(
        [today.field(f.name) if f.name in today.names else f for f in stored],
        metadata=stored.metadata,
    )


def _merge(
    dataset: Dataset, batch: str, options: GradeOptions, tables: dict[str, pa.Table]
) -> tuple[dict[str, pa.Table], bytes]:
    """One player's new grades with the batch's other stored grades, and the stamp.

    Grading a second player keeps the first one's grades whatever settings
    they were made with; the stamp says each player's.
    """
    settings = options.grader()
    stamp = stored_stamp(dataset, batch) if options.player is not None else None
    merged = with_player(stamp, settings, options.player)
    if stamp is None:
        return tables, json.dumps(merged, sort_keys=True).encode()
    out = {}
    for name, table in tables.items():
        old = pq.read_table(dataset.batch_file(name, batch)).replace_schema_metadata(None)
        kept = drop_seats(old, tables["grades"]).cast(_older(old.schema, table.schema))
        # Grades of an older grader lack its newer columns: null there, in today's layout.
        out[name] = pa.concat_tables([kept, table], promote_options="default").select(
            table.column_names
        )
    return out, json.dumps(merged, sort_keys=True).encode()


def _stale_replays(
    dataset: Dataset, batch: str, options: GradeOptions, grades: pa.Table
) -> pa.Table | None:
    """The batch's replays without those of the seats just graded otherwise (None: they all
    still hold).  A replay plays the stored grades' advice and quotes their claims: the
    grades replaced, it replays nothing stored."""
    path = dataset.batch_file("replays", batch)
    stamp = read_stamp(path, REPLAY_KEY)
    if stamp is None:
        return None
    if same_settings(settings_of(stamp, options.player), options.grader()):
        return None  # made from grades of these settings: the same advice, the same claims
    old = pq.read_table(path)
    table = old.replace_schema_metadata(None)
    if options.player is None:
        table, left = table.slice(0, 0), {**_main(stamp), "players": []}
    else:
        table = drop_seats(table, grades)
        players = stamp.get("players")
        if players is None:  # every seat was replayed: now those of the rows left
            players = sorted(set(table["player"].to_pylist()))
        own = {k: v for k, v in (stamp.get(SETTINGS_KEY) or {}).items() if k != options.player}
        left = {**_main(stamp), "players": [p for p in players if p != options.player]}
        if own:
            left[SETTINGS_KEY] = own
    if table.num_rows == old.num_rows and left == stamp:
        return None
    return table.replace_schema_metadata({REPLAY_KEY: json.dumps(left, sort_keys=True).encode()})


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
    if options.player is not None:
        summary.mine(root, options.player, options)
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
    tables, stamp = _merge(dataset, batch, options, tables)
    tables["grades"] = tables["grades"].replace_schema_metadata({GRADER_KEY: stamp})
    replays = _stale_replays(dataset, batch, options, grades)
    if replays is not None:
        tables["replays"] = replays
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
