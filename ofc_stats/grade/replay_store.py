"""`ofc-stats grade --replay`: the grader's advice played on each graded seat's own cards, stored.

For every normal seat whose streets are all known, a bot plays the grader's
best play street by street on the seat's real cards and is scored against the
opponents' real final boards (:func:`ofc_stats.grade.replay.replay`); the
seat's *realised gain* is the bot's value minus the player's real board's,
valued the same way.  One ``replays`` file per import batch, committed whole
and stamped with the grader's version and options like the grades, so the
regret report can put beside each claimed loss what the advice realised.

A board's value is its net points before caps plus what the Fantasyland it
earns is worth, and that worth comes from the dataset: what a Fantasyland of
that size nets over a normal hand in its room, repeats included (the
Markov-chain estimate, :func:`ofc_stats.grade.fantasy.room_values`: a size seen
too rarely takes the ruleset's self-play figure,
:mod:`ofc_stats.grade.fantasy_chain`).  The grader's rollouts take the same values
(``GradeOptions.for_dataset``), so advice and yardstick agree on what a
Fantasyland is worth, and neither is the grader's own assumption.

Until the bot plays otherwise than the player, its positions are the
player's own, graded already with the same keys: their stored best play is the
advice (the same the grader would compute again), so only the streets after a
first deviation are graded anew.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.engine.board import Board
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.scoring import score_board
from ofc_stats.grade.position import (
    HAND_COLUMNS,
    PLACEMENT_COLUMNS,
    SEAT_COLUMNS,
    Decision,
    read_positions,
)
from ofc_stats.grade.replay import (
    Advice,
    FantasyWorth,
    SeatReplay,
    final_seats,
    grader_advice,
    published_worth,
    replay,
)
from ofc_stats.grade.run import (
    REPLAY_KEY,
    drop_seats,
    players_rows,
    read_stamp,
    same_settings,
    settings_of,
    with_player,
)
from ofc_stats.grade.run import up_to_date as grades_up_to_date
from ofc_stats.grade.tasks import GradeOptions
from ofc_stats.store.dataset import EMPTY, Dataset, stale_batches
from ofc_stats.store.files import write_parquet
from ofc_stats.store.rulesets import DatasetRulesets
from ofc_stats.store.schema import REPLAYS
from ofc_stats.wording import plural, signed

# Bump when the replay's bot plays otherwise with the same grades: stored replays are redone.
# 2: on the bot's own positions (after its first deviation) the room's auto-placement, which
#    the core needs as a play made, no longer wins the race's ties (grade_many(stick=False)).
REPLAY_VERSION = 2


@dataclass
class DataWorth:
    """What a Fantasyland of each size is worth in a dataset's rooms (by ruleset name:
    a table by cards dealt), the published figure for a room not listed."""

    values: dict[str, tuple[float, ...]]

    def __call__(self, ruleset: Ruleset, cards: int) -> float:
        if not cards:
            return 0.0
        table = self.values.get(ruleset.name)
        if table is None or cards >= len(table):
            return published_worth(ruleset, cards)
        return table[cards]

    def sources(self) -> dict[str, list[float]]:
        """The stamp's record of the values."""
        return {name: list(v) for name, v in sorted(self.values.items())}


def dataset_worth(options: GradeOptions) -> DataWorth:
    """The rooms' Fantasyland values the options grade with (``options.for_dataset``)."""
    return DataWorth(dict(options.fantasy or ()))


def stored_advice(
    dataset: Dataset,
    batch: str,
    options: GradeOptions,
    decisions: Sequence[Decision],
    threads: int | None = None,
) -> Advice:
    """The grader's advice, taking the stored best play where the bot's position is the
    player's own (same board, same discards) and the batch's grades are this grader's."""
    tables = dict(options.fantasy or ())
    grade_new = grader_advice(
        options.rollouts,
        options.seed,
        threads,
        fantasy_worth=DataWorth(tables) if options.fantasy is not None else None,
    )
    known: dict[tuple[str, int, int], tuple[int, ...]] = {}
    if grades_up_to_date(dataset, batch, options):
        table = pq.read_table(
            dataset.batch_file("grade_candidates", batch),
            columns=["hand_key", "seat", "street", "destinations", "best"],
        )
        table = table.filter(table["best"])
        for key, seat, street, dest in zip(
            *(table[n].to_pylist() for n in ("hand_key", "seat", "street", "destinations")),
            strict=True,
        ):
            known[(key, int(seat), int(street))] = tuple(int(x) for x in dest)
    real = {(d.hand_key, d.seat, d.street): d for d in decisions}

    def advise(asked: Sequence[Decision]) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...] | None] = []
        todo: list[int] = []
        for i, d in enumerate(asked):
            key = (d.hand_key, d.seat, d.street)
            mine = real.get(key)
            same = mine is not None and (mine.board, mine.dead) == (d.board, d.dead)
            out.append(known.get(key) if same else None)
            if out[-1] is None:
                todo.append(i)
        if todo:
            for i, play in zip(todo, grade_new([asked[i] for i in todo]), strict=True):
                out[i] = tuple(play)
        return [p for p in out if p is not None]

    return advise


def _claimed(dataset: Dataset, batch: str) -> dict[tuple[str, int], float]:
    """The grades' expected loss on each seat's street decisions (summed)."""
    path = dataset.batch_file("grades", batch)
    if not path.is_file():
        return {}
    grades = pq.read_table(path, columns=["hand_key", "seat", "kind", "loss"])
    grades = grades.filter(pc.and_(pc.equal(grades["kind"], "street"), pc.is_valid(grades["loss"])))
    out: dict[tuple[str, int], float] = defaultdict(float)
    for key, seat, loss in zip(
        *(grades[n].to_pylist() for n in ("hand_key", "seat", "loss")), strict=True
    ):
        out[(key, int(seat))] += float(loss)
    return out


def replay_rows(
    seats: Sequence[SeatReplay], rulesets: dict[str, Ruleset], claimed: dict[tuple[str, int], float]
) -> pa.Table:
    """The ``replays`` rows of some replayed seats."""
    columns: dict[str, list[Any]] = {name: [] for name in REPLAYS.names}
    for seat in seats:
        result = score_board(Board.from_flat(seat.bot_board), rulesets[seat.hand_key])
        row = {
            "hand_key": seat.hand_key,
            "seat": seat.seat,
            "player": seat.player,
            "first_deviation": seat.first_deviation,
            "bot_value": seat.bot_value,
            "player_value": seat.player_value,
            "gain": seat.gain,
            "claimed": claimed.get((seat.hand_key, seat.seat)),
            "bot_fouled": result.fouled,
            "bot_fantasy_cards": result.fantasyland.cards or 0,
            "bot_board": list(seat.bot_board),
        }
        for name in REPLAYS.names:
            columns[name].append(row[name])
    return pa.table(columns, schema=REPLAYS)


def _settings(options: GradeOptions, worth: DataWorth) -> dict[str, Any]:
    """What makes two replays the same: the grades' settings, the bot, the values."""
    return {**options.grader(), "replay": REPLAY_VERSION, "fantasy_values": worth.sources()}


def stored_stamp(dataset: Dataset, batch: str) -> dict[str, Any] | None:
    return read_stamp(dataset.batch_file("replays", batch), REPLAY_KEY)


def up_to_date(dataset: Dataset, batch: str, options: GradeOptions, worth: DataWorth) -> bool:
    """Whether the batch's replays of the seats asked for come from this grader, these
    values and this bot (a player's own: others' may have been replayed otherwise)."""
    found = settings_of(stored_stamp(dataset, batch), options.player)
    return same_settings(found, json.loads(json.dumps(_settings(options, worth))))


def replay_batch(
    dataset: Dataset,
    batch: str,
    options: GradeOptions,
    worth: FantasyWorth | DataWorth,
    threads: int | None = None,
) -> list[SeatReplay]:
    """Replay one batch's seats (``options.player``'s only, if given) and commit the rows."""
    hands = pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS)
    seats = pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS)
    placements = pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS)
    positions = read_positions(
        hands, seats, placements, DatasetRulesets(dataset.root), options.player
    )
    decisions = positions.decisions
    advice = stored_advice(dataset, batch, options, decisions, threads)
    replayed = replay(decisions, final_seats(seats), advice, worth)
    rulesets = {d.hand_key: d.ruleset for d in decisions}
    table = replay_rows(replayed, rulesets, _claimed(dataset, batch))
    data_worth = worth if isinstance(worth, DataWorth) else DataWorth({})
    stamp = stored_stamp(dataset, batch) if options.player is not None else None
    if stamp is not None:  # other players' replays are kept, whatever they were made with
        old = pq.read_table(dataset.batch_file("replays", batch)).replace_schema_metadata(None)
        table = pa.concat_tables([drop_seats(old, table), table])
    merged = with_player(stamp, _settings(options, data_worth), options.player)
    metadata = {REPLAY_KEY: json.dumps(merged, sort_keys=True).encode()}
    table = table.replace_schema_metadata(metadata)
    dataset.commit(batch, {"replays": table}, step="replays")
    return replayed


@dataclass
class ReplaySummary:
    batches: int = 0
    up_to_date: int = 0
    seats: list[SeatReplay] | None = None
    seconds: float = 0.0
    player: str | None = None
    # the player's stored replays (gain, deviated) when this run replayed none of them
    stored: list[tuple[float, bool]] | None = None

    def lines(self) -> list[str]:
        seats = self.seats or []
        text = [
            f"replayed: {plural(len(seats), 'seat')} in "
            f"{plural(self.batches, 'batch', 'batches')}; "
            f"{plural(self.up_to_date, 'batch', 'batches')} already up to date"
        ]
        if seats:
            deviated = [(s.gain, s.first_deviation is not None) for s in seats]
            text.append(_won(self.player, deviated))
        elif self.stored:
            text.append(_won(self.player, self.stored) + " (stored)")
        return text


def _won(player: str | None, gains: Sequence[tuple[float, bool]]) -> str:
    """What the advice won on the seats' own cards, per 100 hands (+: over the play made);
    where it never played otherwise, that, not "+0 ± 0"."""
    from ofc_stats.grade.replay import realised

    if not any(deviated for _, deviated in gains):
        return (
            f"  the advice never played otherwise than {player or 'the players'} "
            f"on these {plural(len(gains), 'hand')}: nothing to realise"
        )
    gain = realised([g for g, _ in gains])
    whose = f"{player}'s" if player else "the players'"
    return (
        f"  won by the advice on {whose} own cards: {signed(100 * gain.mean, 0)} ± "
        f"{100 * gain.se:,.0f} per 100 hands over the play made ({plural(len(gains), 'hand')})"
    )


def player_replays(dataset: Dataset, player: str) -> list[tuple[float, bool]]:
    """``player``'s stored replays over every batch: each seat's gain and whether the
    advice played otherwise there."""
    out: list[tuple[float, bool]] = []
    for batch in dataset.batches():
        path = dataset.batch_file("replays", batch)
        if not path.is_file():
            continue
        rows = players_rows(dataset, batch, "replays", ["gain", "first_deviation"], player)
        deviated = pc.is_valid(rows["first_deviation"]).to_pylist()
        out += zip(rows["gain"].to_pylist(), deviated, strict=True)
    return out


def replay_dataset(
    root: str | Path,
    options: GradeOptions,
    *,
    force: bool = False,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReplaySummary:
    """Replay the batches whose replays are not current (all with ``force``); the caller
    holds the dataset lock and has graded the batches (the claims come from the grades)."""
    started = time.perf_counter()
    dataset = Dataset(root)
    folder = dataset.table_dir("replays")
    folder.mkdir(exist_ok=True)
    if not (folder / EMPTY).exists():
        write_parquet(REPLAYS.empty_table(), folder / EMPTY)
    options = options.for_dataset(root)
    worth = dataset_worth(options)
    summary = ReplaySummary(seats=[])
    todo, summary.up_to_date = stale_batches(
        dataset.batches(), lambda b: up_to_date(dataset, b, options, worth), force
    )
    for batch in todo:
        replayed = replay_batch(dataset, batch, options, worth, workers)
        assert summary.seats is not None
        summary.seats += replayed
        summary.batches += 1
        if progress is not None:
            progress(len(replayed))
    summary.player = options.player
    if options.player is not None and not summary.seats:
        summary.stored = player_replays(dataset, options.player)
    summary.seconds = time.perf_counter() - started
    return summary
