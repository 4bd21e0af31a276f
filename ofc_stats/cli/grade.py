"""`grade`: the expected points every street decision and Fantasyland set lost."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from ofc_stats.cli.options import DATA_OPTION, SEED, wait_option
from ofc_stats.cli.recompute import check_engine, fraction_to_hands, spark_options
from ofc_stats.cli.text import say_lines


@contextmanager
def _bar(quiet: bool) -> Iterator[tuple[Callable[[int], None], Callable[[int], None]]]:
    """A rich bar on stderr with hands/s and an ETA: (set total, advance)."""
    if quiet or not sys.stderr.isatty():
        yield (lambda n: None), (lambda n: None)
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    speed = TextColumn("{task.fields[rate]}")
    with Progress(
        "grading", BarColumn(), MofNCompleteColumn(), speed, TimeRemainingColumn(), transient=True
    ) as bar:
        task = bar.add_task("grading", total=None, rate="")

        def advance(n: int) -> None:
            bar.advance(task, n)
            rate = bar.tasks[0].speed
            bar.update(task, rate=f"{rate:,.1f} hands/s" if rate else "")

        yield (lambda n: bar.update(task, total=n)), advance


@click.command("grade")
@DATA_OPTION
@click.option(
    "--player",
    default=None,
    help="Grade only this player's seats (stored name, room id, or an alias: each of its "
    "accounts); others' grades are kept.",
)
@click.option(
    "--rollouts",
    type=click.IntRange(4, 4096),
    default=32,
    show_default=True,
    help="Most rollouts per candidate; close races get them, clear ones stop early. "
    "Not given, the stored grades' own (of --player's seats, if given) are kept.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Threads grading side by side (default: one per core).",
)
@click.option(
    "--seed",
    type=SEED,
    default=0,
    show_default=True,
    help="Same seed, same grades. Not given, the stored grades' own is kept.",
)
@click.option("--force", is_flag=True, help="Grade every batch again, not only new ones.")
@click.option(
    "--replay",
    is_flag=True,
    help="Then play the grader's advice on each graded seat's own cards and store what it "
    "realised against the player (the regret report shows it beside the claimed loss).",
)
@wait_option()
@click.option("--quiet", is_flag=True, help="No progress bar.")
@spark_options
def grade_command(
    data: str,
    player: str | None,
    rollouts: int,
    workers: int | None,
    seed: int,
    force: bool,
    replay: bool,
    wait: float,
    quiet: bool,
    engine: str,
    master: str | None,
    conf: tuple[str, ...],
) -> None:
    """Grade every decision: expected points lost against the best legal play.

    Stored in the dataset's grades and grade_candidates tables, batch by batch.
    """
    from ofc_stats.grade.run import grade_dataset
    from ofc_stats.store.dataset import Dataset

    ctx = click.get_current_context()
    given = {
        name: ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT
        for name in ("rollouts", "seed")
    }

    dataset = Dataset(data)
    dataset.require()
    accounts: list[str | None] = [None] if player is None else _accounts(data, player)
    check_engine(engine, master, conf)
    if len(accounts) > 1:
        listed = ", ".join(map(str, accounts))
        say_lines(f"{player}: an alias of {len(accounts)} accounts ({listed}), each graded in turn")
    for account in accounts:
        if len(accounts) > 1:
            say_lines(f"{account}:")
        options = _options(data, account, rollouts, seed, given)
        if engine == "spark":
            summary = _grade_on_spark(dataset, options, force, wait, quiet, master, conf)
        else:
            with dataset.locked(wait), _bar(quiet) as (planned, advance):
                summary = grade_dataset(
                    data, options, force=force, workers=workers, progress=advance, planned=planned
                )
        if options.player is not None and summary.player is None:  # Spark: not counted yet
            summary.mine(data, options.player, options)
        for line in summary.lines():
            say_lines(line)
        if replay:
            from ofc_stats.grade.replay_store import replay_dataset

            with dataset.locked(wait):
                replayed = replay_dataset(data, options, force=force, workers=workers)
            for line in replayed.lines():
                say_lines(line)


def _options(
    data: str, player: str | None, rollouts: int, seed: int, given: dict[str, bool]
) -> Any:
    """The options to grade ``player`` (every seat, if None) with: a setting not given
    is the stored grades' own, so `grade --player X --replay` after `grade --player X
    --rollouts 256` replays those grades rather than grading X again at the default."""
    from ofc_stats.grade.run import GradeOptions, stored_settings

    stored = None if all(given.values()) else stored_settings(data, player)
    if stored is not None:
        rollouts = rollouts if given["rollouts"] else stored[0]
        seed = seed if given["seed"] else stored[1]
    return GradeOptions(rollouts=rollouts, player=player, seed=seed)


def _grade_on_spark(
    dataset: Any,
    options: Any,
    force: bool,
    wait: float,
    quiet: bool,
    master: str | None,
    conf: tuple[str, ...],
) -> Any:
    """The same grades from Spark tasks (ofc_stats.spark.grade); the bar follows Spark's tasks."""
    import pyarrow.parquet as pq

    from ofc_stats.spark import grade, parse_conf, spark_session

    settings = parse_conf(conf)
    hands = sum(pq.read_metadata(path).num_rows for path in dataset.files("hands"))
    with dataset.locked(wait):
        spark = spark_session(master or "local[*]", settings)
        with _bar(quiet) as (planned, advance):
            planned(hands)
            return grade(
                spark,
                dataset.root,
                options,
                force=force,
                progress=fraction_to_hands(hands, advance),
            )


def _accounts(data: str, player: str) -> list[str | None]:
    """The accounts ``player`` names: an alias's (``players alias``), else ``player`` itself
    once a stored name or room id matches it; else the error, with the closest names."""
    from ofc_stats.store.views import open_dataset
    from reports.filters import unknown_player

    with open_dataset(data) as db:
        aliased = db.sql(
            "SELECT account FROM player_aliases WHERE name = $p ORDER BY account", {"p": player}
        ).fetchall()
        if aliased:
            return [str(r[0]) for r in aliased]
        found = db.sql(
            "SELECT count(*) FROM seats WHERE player = $p OR player_id = $p", {"p": player}
        ).fetchall()[0][0]
        if found:
            return [player]
        raise unknown_player(db, player)
