"""`recompute` (score stored hands into the results tables) and `migrate`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ofc_stats.cli.options import DATA_OPTION, progress_bar, status_line, wait_option
from ofc_stats.cli.text import say, say_lines


def run_recompute(
    data: str,
    *,
    force: bool,
    quiet: bool,
    wait: float = 0.0,
    engine: str = "local",
    master: str = "local[*]",
    conf: tuple[str, ...] = (),
) -> list[str]:
    """Score the batches without results (all with ``force``) under the dataset lock."""
    from ofc_stats.store.dataset import Dataset
    from ofc_stats.store.recompute import recompute

    dataset = Dataset(data)
    dataset.require()
    hands = _stored_hands(dataset)
    if engine == "spark":
        return _recompute_on_spark(dataset, hands, force, quiet, wait, master, conf)
    with dataset.locked(wait), progress_bar(quiet, hands, "recomputing") as advance:
        summary = recompute(data, force=force, progress=advance)
    price_ledger_batches(data, quiet)
    return summary.lines()


def price_ledger_batches(data: str, quiet: bool = True) -> None:
    """The room ledger of the batches scored now, priced and stored batch by batch, so a
    report or audit reads it (``ofc_stats.audit.ledger.price_batches``); a status line
    on a terminal says which step runs (seconds at 300,000 hands, after the bar)."""
    from ofc_stats.audit.ledger import ledger_is_current, price_batches
    from ofc_stats.store.views import open_dataset

    with open_dataset(data) as db:
        if not ledger_is_current(db):
            with status_line(quiet, "ledger: pricing") as say:
                price_batches(db, progress=say)


def _recompute_on_spark(
    dataset: Any,
    hands: int,
    force: bool,
    quiet: bool,
    wait: float,
    master: str,
    conf: tuple[str, ...],
) -> list[str]:
    """The same under Spark; the bar follows the fraction of Spark tasks done."""
    from ofc_stats.spark import parse_conf, recompute, spark_session

    settings = parse_conf(conf)
    with dataset.locked(wait):
        spark = spark_session(master, settings)
        with progress_bar(quiet, hands, "recomputing on Spark") as advance:
            progress = fraction_to_hands(hands, advance)
            summary = recompute(spark, dataset.root, force=force, progress=progress)
    price_ledger_batches(str(dataset.root), quiet)
    return [*summary.lines(), f"  engine: spark ({spark.sparkContext.master})"]


def _stored_hands(dataset: Any) -> int:
    import pyarrow.parquet as pq

    return sum(pq.read_metadata(path).num_rows for path in dataset.files("hands"))


def spark_options(command: Callable[..., None]) -> Callable[..., None]:
    """``--engine local|spark``, ``--master URL`` and ``--conf KEY=VALUE`` (recompute, grade)."""
    for option in reversed(SPARK_OPTIONS):
        command = option(command)
    return command


def check_engine(engine: str, master: str | None, conf: tuple[str, ...]) -> None:
    if engine != "spark" and (master or conf):  # a mistake in the command line: exit 2
        raise click.UsageError("--master and --conf are Spark settings: add --engine spark")


def fraction_to_hands(hands: int, advance: Callable[[int], None]) -> Callable[[float], None]:
    """Spark's fraction of tasks done as hands for a bar counting hands."""
    shown = [0]

    def progress(fraction: float) -> None:
        now = int(fraction * hands)
        advance(now - shown[0])
        shown[0] = now

    return progress


def _conf_pairs(
    ctx: click.Context, param: click.Parameter, pairs: tuple[str, ...]
) -> tuple[str, ...]:
    """Each ``--conf`` checked as ``KEY=VALUE`` while the command line is read: a malformed
    one is a usage error (one line, exit 2), not a failure of the run (exit 1)."""
    if pairs:
        from ofc_stats.errors import SparkUnavailable
        from ofc_stats.spark.session import parse_conf

        try:
            parse_conf(pairs)
        except SparkUnavailable as error:
            raise click.BadParameter(str(error).removeprefix("--conf "), ctx, param) from None
    return pairs


SPARK_OPTIONS = [
    click.option(
        "--engine",
        type=click.Choice(["local", "spark"]),
        default="local",
        show_default=True,
        help="Run here, or on Apache Spark (needs the spark extra and Java).",
    ),
    click.option(
        "--master",
        metavar="URL",
        help="Spark master for --engine spark: local[*] (the default), local[N], "
        "spark://host:7077, yarn.",
    ),
    click.option(
        "--conf",
        multiple=True,
        metavar="KEY=VALUE",
        callback=_conf_pairs,
        help="A Spark setting for --engine spark; repeat for more.",
    ),
]


@click.command("recompute")
@DATA_OPTION
@click.option("--force", is_flag=True, help="Score every hand again, not only new batches.")
@wait_option()
@click.option("--quiet", is_flag=True, help="No progress bar.")
@spark_options
def recompute_command(
    data: str,
    force: bool,
    wait: float,
    quiet: bool,
    engine: str,
    master: str | None,
    conf: tuple[str, ...],
) -> None:
    """Score stored hands through the engine into the results tables (import does this)."""
    check_engine(engine, master, conf)
    lines = run_recompute(
        data,
        force=force,
        quiet=quiet,
        wait=wait,
        engine=engine,
        master=master or "local[*]",
        conf=conf,
    )
    for line in lines:
        say_lines(line)


@click.command("migrate")
@DATA_OPTION
@wait_option()
def migrate_command(data: str, wait: float) -> None:
    """Upgrade a dataset written by an older ofc-stats (import and recompute do this too)."""
    from ofc_stats.store.dataset import Dataset
    from ofc_stats.store.migrate import needs_upgrade
    from ofc_stats.store.schema import SCHEMA_VERSION

    dataset = Dataset(data)
    dataset.require()
    if not needs_upgrade(data):
        dataset.check_version()
        say(f"{data}: schema version {SCHEMA_VERSION}, nothing to do")
        return
    with dataset.locked(wait):
        pass  # taking the lock upgrades
    say(f"{data}: upgraded to schema version {SCHEMA_VERSION}")
