"""Helpers the command modules share: the --data option, progress bars, ruleset options."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.ruleset_toml import resolve_ruleset
from ofc_stats.errors import OfcError

# score and solve-fantasy: JSON Lines for programs, or an aligned table for people.
JSON_OR_TABLE = click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "table"]),
    default="json",
    show_default=True,
)
DATA_OPTION = click.option(
    "--data",
    default="ofc-data",
    show_default=True,
    type=click.Path(file_okay=False),
    help="The dataset folder.",
)


@contextmanager
def progress_bar(quiet: bool, total: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr for long jobs (only when stderr is a terminal)."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        TimeRemainingColumn,
    )

    if quiet or not sys.stderr.isatty():
        yield lambda n: None
        return
    amount = DownloadColumn() if label == "importing" else MofNCompleteColumn()
    columns = (label, BarColumn(), amount, TimeRemainingColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


# Bounds on counts a user types: past these a run would never end or overflow a column.
INT64 = 2**63 - 1
SEED = click.IntRange(0, INT64)
MAX_SIM_HANDS = 100_000_000  # about 6 CPU-hours at the simulator's 4,400 hands a CPU-second


class Finite(click.ParamType[float]):
    """A finite float at least ``low`` (click's FloatRange lets ``nan`` and ``inf`` through)."""

    name = "float"

    def __init__(self, low: float = 0.0) -> None:
        self.low = low

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number) or number < self.low:
            self.fail(f"{value!r} is not a finite number >= {self.low:g}", param, ctx)
        return number


def ruleset_option(value: str) -> Ruleset:
    try:
        return resolve_ruleset(value)
    except OfcError as error:
        raise click.BadParameter(str(error)) from None


def out_file(out: str) -> Path:
    """An --out FILE whose folder is made when missing, as every --out does (the
    command then prints where it wrote); a folder that cannot be made is an error."""
    path = Path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.FileError(out, hint=error.strerror or str(error)) from None
    return path
