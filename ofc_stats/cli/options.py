"""Helpers the command modules share: the --data option, progress bars, ruleset options."""

from __future__ import annotations

import calendar
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.ruleset_toml import resolve_ruleset
from ofc_stats.errors import OfcError

F = TypeVar("F", bound=Callable[..., Any])

# score and solve-fantasy: JSON Lines for programs, or an aligned table for people.
JSON_OR_TABLE = click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "table"]),
    default="json",
    show_default=True,
)


def data_option(help: str = "The dataset folder.") -> Callable[[F], F]:
    """``--data DIRECTORY``, default ``ofc-data``: every command's dataset option."""
    return click.option(
        "--data",
        default="ofc-data",
        show_default=True,
        type=click.Path(file_okay=False),
        help=help,
    )


DATA_OPTION = data_option()


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


def stage_text(label: str, stages: Sequence[str], done: int) -> str:
    """The bar's words once ``done`` stages are: the stage under way, named.

    >>> stage_text("auditing", ("points", "money"), 1)
    'auditing: money'
    >>> stage_text("auditing", ("points", "money"), 2)
    'auditing'
    """
    return f"{label}: {stages[done]}" if 0 <= done < len(stages) else label


@contextmanager
def stage_bar(quiet: bool, stages: Sequence[str], label: str) -> Iterator[Callable[[str], None]]:
    """A progress bar over named stages on stderr, the stage under way named beside it and
    the time spent: a long stage shows what runs, not a bar sitting still at 0 or at its
    end.  The callback it yields is told each stage as it starts (those before it are done);
    leaving the bar ends the last one (only on a terminal, and not under --quiet)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if quiet or not sys.stderr.isatty():
        yield lambda name: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(
        *columns, TimeElapsedColumn(), console=Console(stderr=True), transient=True
    ) as bar:
        task = bar.add_task(stage_text(label, stages, 0), total=len(stages))

        def begin(name: str) -> None:
            done = stages.index(name) if name in stages else 0
            bar.update(task, completed=done, description=stage_text(label, stages, done))

        yield begin


@contextmanager
def status_line(quiet: bool, text: str) -> Iterator[Callable[[str], None]]:
    """A status line on stderr (a spinner and ``text``) for work of no known length; the
    callback it yields says what runs now (only on a terminal, and not under --quiet)."""
    from rich.console import Console

    if quiet or not sys.stderr.isatty():
        yield lambda now: None
        return
    with Console(stderr=True).status(text) as status:
        yield lambda now: status.update(now)


# Bounds on counts a user types: past these a run would never end or overflow a column.
INT64 = 2**63 - 1


class AtLeast(click.IntRange):
    """A whole number from ``low`` up, kept within a 64-bit column; its message says
    "x>=1", not the 19-digit upper bound a user never meant to reach."""

    def __init__(self, low: int) -> None:
        super().__init__(low, INT64)

    def _describe_range(self) -> str:
        return f"x>={self.min}"


SEED = AtLeast(0)
MAX_SIM_HANDS = 100_000_000  # about 6 CPU-hours at the simulator's 4,400 hands a CPU-second


class Finite(click.FloatRange):
    """click's FloatRange (its range shown in the help), and finite: FloatRange lets ``nan``
    through (no comparison with it fails): a watch every ``nan`` seconds never slept, a
    room erring on ``nan`` of its hands ran, ``--wait nan`` was taken."""

    def __init__(self, low: float = 0.0, high: float | None = None) -> None:
        super().__init__(min=low, max=high)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def wait_option(what: str = "an import") -> Callable[[F], F]:
    """``--wait SECONDS``: how long to wait for the dataset's lock (a finite number >= 0)."""
    return click.option(
        "--wait", type=Finite(), default=0.0, metavar="SECONDS", help=f"Wait for {what} to end."
    )


class Day(click.ParamType[date]):
    """A day as ``YYYY-MM-DD``; a day the calendar does not have is named as such (click's
    DateTime said "does not match the format '%Y-%m-%d'" of 2026-02-30).

    >>> Day().convert("2026-02-28", None, None)
    datetime.date(2026, 2, 28)
    >>> Day().convert("2026-02-30", None, None)
    Traceback (most recent call last):
    ...
    click.exceptions.BadParameter: '2026-02-30' is not a day: February 2026 has 28 days
    """

    name = "YYYY-MM-DD"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> date:
        if isinstance(value, date):
            return value
        text = str(value)
        parts = text.split("-")
        if [len(p) for p in parts] != [4, 2, 2] or not all(p.isdigit() for p in parts):
            self.fail(f"{text!r} is not a day: write it as YYYY-MM-DD", param, ctx)
        year, month, day = (int(p) for p in parts)
        try:
            return date(year, month, day)
        except ValueError:
            pass
        if year < 1:
            self.fail(f"{text!r} is not a day: there is no year 0", param, ctx)
        if not 1 <= month <= 12:
            self.fail(f"{text!r} is not a day: there is no month {month}", param, ctx)
        days = calendar.monthrange(year, month)[1]
        self.fail(
            f"{text!r} is not a day: {calendar.month_name[month]} {year} has {days} days",
            param,
            ctx,
        )


CLOSED_STDIN = "stdin is closed: give a FILE, or pipe the lines in"


class Input(click.File):
    """A FILE to read as bytes, ``-`` for stdin; a closed stdin (``<&-``, where Python's
    ``sys.stdin`` is None) is a command-line mistake, not click's RuntimeError."""

    def __init__(self) -> None:
        super().__init__("rb")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == "-" and sys.stdin is None:
            self.fail(CLOSED_STDIN, param, ctx)
        return super().convert(value, param, ctx)


def given(ctx: click.Context, name: str) -> bool:
    """Whether the user gave option ``name`` (on the command line or from the environment),
    not its default: an option that only means something beside another is refused alone."""
    source = ctx.get_parameter_source(name)
    return source not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)


def ruleset_option(value: str, param_hint: str | None = "--rules") -> Ruleset:
    """A preset or a ruleset file; a file's ``[room]`` table is checked too (every command
    that takes a file refuses an unknown key in it, not only the audit, which reads it),
    and an empty one is refused (:func:`refuse_empty_rules`).  A file is read once."""
    from ofc_stats.engine.ruleset_toml import names_a_file

    if os.path.isdir(value):  # not "unknown ruleset" and every preset's name
        raise click.BadParameter(
            f"{value}: a folder; give a ruleset name or one .toml file", param_hint=param_hint
        )
    try:
        return _rules_file(value) if names_a_file(value) else resolve_ruleset(value)
    except OfcError as error:
        raise click.BadParameter(str(error), param_hint=param_hint) from None


def _rules_file(value: str) -> Ruleset:
    """A ruleset file's ruleset, its ``[room]`` table checked and an empty file refused,
    from one read of the file: its refusals in the engine's words (``read_ruleset_file``)."""
    import tomllib

    from ofc_stats.engine.ruleset_toml import read_ruleset_file
    from ofc_stats.payouts.room_rules import room_rules_from_mapping

    text, ruleset = read_ruleset_file(value)
    settings = tomllib.loads(text)  # the text the engine just read as TOML
    if "room" in settings:
        room_rules_from_mapping(settings["room"], value)
    _refuse_empty(settings, value)
    return ruleset


def refuse_empty_rules(value: str) -> None:
    """A ruleset file that sets nothing (empty, or comments only) is refused, naming it.

    Read as TOML it is plain ``pineapple`` under the file's name: a file cut
    short or never written (``> mine.toml`` that failed) would score and audit
    every hand by rules nobody chose.  A preset name passes; a file that does
    not parse is the reader's to refuse.  (:func:`ruleset_option` checks the
    file it reads itself; this is for a file another reader loaded.)
    """
    import tomllib

    from ofc_stats.engine.ruleset_toml import names_a_file

    if not names_a_file(value):
        return
    try:
        settings = tomllib.loads(Path(value).read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return
    _refuse_empty(settings, value)


def _refuse_empty(settings: dict[str, Any], value: str) -> None:
    from ofc_stats.errors import RulesetError

    if not settings:
        raise RulesetError(
            f'{value}: empty: a ruleset file sets at least extends = "NAME" '
            "(`ofc-stats rules` lists the names)"
        )


def out_file(out: str) -> Path:
    """An --out FILE whose folder is made when missing, as every --out does (the
    command then prints where it wrote); a folder that cannot be made is an error.

    Checked before any work (a folder given as the file is refused at once), and
    remembered: a command that fails after writing part of it removes the cut
    file (:func:`discard_cut_outputs`).
    """
    not_stdout(out, "file")
    path = Path(out)
    if path.is_dir():
        raise click.FileError(out, hint="Is a directory; give a file name")
    if any(p.exists() and not p.is_dir() for p in path.parents):
        raise click.FileError(out, hint="Not a directory: the path goes through a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.FileError(out, hint=error.strerror or str(error)) from None
    if not os.access(path.parent, os.W_OK):
        raise click.FileError(out, hint="its folder is not writable")
    _WRITING.append((path, _stamp(path)))
    return path


def not_stdout(out: str, what: str, option: str = "--out") -> None:
    """``-`` is stdout to ``audit --out``, so elsewhere it is refused, not made a file
    called ``-`` in the current folder (``./-`` still names one)."""
    if out == "-":
        raise click.UsageError(
            f"{option} - is not stdout here: {option} names a {what} (./- for one called '-')"
        )


def replace_text(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` whole or not at all: beside it, then renamed over it
    (a browser or a stopped watch never sees half a page).  A symbolic link is followed
    (the file it names is replaced; the link stays), and a target that is not a regular
    file (a FIFO, ``/dev/stdout``, a device) is written into, never replaced by a file.
    """
    real = Path(os.path.realpath(target))
    partial = real.with_name(f".{real.name}.{os.getpid()}.part")
    try:
        if target.exists() and not target.is_file():  # (both follow links, as open does)
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
            return
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, real)
    except BaseException as error:
        partial.unlink(missing_ok=True)  # a full disk leaves no half page behind
        # named by the file asked for, not the one beside it; a pipe whose reader went
        # away (--out /dev/stdout | head) is the group's to say, as for stdout itself
        if isinstance(error, OSError) and not isinstance(error, BrokenPipeError):
            raise click.FileError(str(target), hint=error.strerror or str(error)) from None
        raise


def out_folder(out: str) -> Path:
    """An --out FOLDER (made when missing); an existing file there is refused at once."""
    not_stdout(out, "folder")
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise click.FileError(out, hint="Not a directory; give a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.FileError(out, hint=error.strerror or str(error)) from None
    return path


_WRITING: list[tuple[Path, tuple[int, int] | None]] = []  # this command's --out files


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def new_command() -> None:
    """A command starts: no --out file of an earlier one (in this process) is its own."""
    _WRITING.clear()


def discard_cut_outputs() -> None:
    """After a failed command: remove the --out files it changed (they are cut short)."""
    while _WRITING:
        path, before = _WRITING.pop()
        if _stamp(path) != before and path.is_file():
            path.unlink(missing_ok=True)
