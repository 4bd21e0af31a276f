"""The `ofc-stats` command group: every command, and one translation of errors.

Library code raises :class:`ofc_stats.errors.OfcError` subclasses with a
message for people; :class:`OfcGroup` turns any of them into click's usage
error (message on stderr, exit 1), so no command catches them itself; a
mistake in the command line is one line too (exit 2).  Every error, ours or
click's, is said through :func:`ofc_stats.cli.text.error_text`: control
characters made visible, a long value cut short.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

import click

from ofc_stats.cli.audit import audit_command
from ofc_stats.cli.check import check_command
from ofc_stats.cli.forget import forget_command
from ofc_stats.cli.grade import grade_command
from ofc_stats.cli.hand import hand_command
from ofc_stats.cli.imports import import_command, simulate
from ofc_stats.cli.options import discard_cut_outputs, new_command
from ofc_stats.cli.players import players_command
from ofc_stats.cli.recompute import migrate_command, recompute_command
from ofc_stats.cli.report import report_command
from ofc_stats.cli.score import formats, rules, score
from ofc_stats.cli.solve import solve_fantasy_command
from ofc_stats.cli.sql import sql_command
from ofc_stats.cli.text import error_text, reader_gone, say_lines
from ofc_stats.errors import OfcError
from ofc_stats.safe_text import terminal_safe


class OfcGroup(click.Group):
    """A click group whose commands may raise OfcError: one message, exit status 1.

    Any other error is one line too, never a traceback (``OFC_STATS_DEBUG=1``
    lets it through): a file the system refuses names the file, and an error
    on a damaged dataset names the damage and ``ofc-stats check --repair``.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["ofc_args"] = list(args)  # the command line, for the --data an error names
        try:
            return self._parsed(ctx, args)
        except BrokenPipeError:  # `ofc-stats --help | head -0`: as any command's output
            reader_gone()
        except click.ClickException as error:
            raise ErrorLine(error) from None

    def _parsed(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.exceptions.NoArgsIsHelpError:  # a bare `ofc-stats`: its help, as asked
            say_lines(ctx.get_help())
            raise SystemExit(0) from None
        except click.UsageError as error:
            raise UsageLine(error) from None

    def invoke(self, ctx: click.Context) -> Any:
        new_command()
        try:
            return self._translated(ctx)
        except SystemExit:  # an exit status the command chose (audit --fail-on-mismatch)
            raise
        except BaseException as error:
            discard_cut_outputs()  # a file cut short by the failure is not left behind
            if isinstance(error, click.ClickException):
                raise ErrorLine(error) from None
            raise

    def _translated(self, ctx: click.Context) -> Any:
        try:
            done = super().invoke(ctx)
            sys.stdout.flush()  # what a command left buffered meets a closed pipe here
            return done
        except OfcError as error:
            lines = [str(error), *(f"  {choice}" for choice in error.choices)]
            # each part made safe before the parts are joined: a line feed inside a stored
            # name is shown as \n, so the error stays the lines we meant
            raise click.ClickException("\n".join(map(terminal_safe, lines))) from None
        except BrokenPipeError:  # the reader went away (`| head`): nothing to tell
            reader_gone()
        except click.UsageError as error:
            raise UsageLine(error) from None
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            raise Interrupted() from None
        except Exception as error:
            if os.environ.get("OFC_STATS_DEBUG"):
                raise
            if str(error).strip() == DUCKDB_INTERRUPTED:  # Ctrl-C inside a DuckDB query
                raise Interrupted() from None
            raise click.ClickException(unexpected(error, _data_option(ctx))) from None


class ErrorLine(click.ClickException):
    """Any error as the terminal gets it (:func:`error_text`: no control character raw, no
    value repeated whole however long), with the exit status it had."""

    def __init__(self, error: click.ClickException) -> None:
        super().__init__(error_text(error.format_message()))
        # (click types exit_code as a class variable; this one is the error's own)
        setattr(self, "exit_code", error.exit_code)  # noqa: B010


DUCKDB_INTERRUPTED = "Query interrupted"  # what DuckDB raises when Ctrl-C stops a query


class Interrupted(click.ClickException):
    """Ctrl-C: one line saying what is kept, and exit status 130 (128 + SIGINT), the shell's
    convention, not click's "Aborted!" and 1.  Every store step commits whole batches, so
    what was committed stays and a second run goes on from there."""

    exit_code = 130

    def __init__(self) -> None:
        super().__init__(
            "interrupted: what was committed before is kept; run the command again to go on"
        )


class UsageLine(click.ClickException):
    """A mistake in the command line as one line, not click's three (usage, hint, error);
    exit status 2, the convention for usage errors (click's and argparse's)."""

    exit_code = 2

    def __init__(self, error: click.UsageError) -> None:
        where = error.ctx.command_path if error.ctx is not None else "ofc-stats"
        super().__init__(f"{terminal_safe(error.format_message())} (see '{where} --help')")


def one_line(text: str) -> str:
    """A message as one terminal-safe line (a DuckDB error's caret drawing dropped)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return terminal_safe(lines[0] if lines else text)


def _data_option(ctx: click.Context) -> str | None:
    """The --data folder the command was given (its default when it takes one and was not)."""
    args: list[str] = ctx.meta.get("ofc_args", [])
    command = next((main.commands[arg] for arg in args if arg in main.commands), None)
    if command is None:
        return None
    for at, arg in enumerate(args):
        if arg == "--data" and at + 1 < len(args):
            return args[at + 1]
        if arg.startswith("--data="):
            return arg.split("=", 1)[1]
    if any(param.name == "data" for param in command.params):
        return "ofc-data"
    return None


# The system's refusals that say nothing about the dataset's files: said as they are.
_NOT_DAMAGE = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EMFILE}


def _inside(name: object, data: str | None) -> bool:
    """Whether a file an error names is in the dataset folder (or the error names none)."""
    if not isinstance(name, str | bytes | os.PathLike) or data is None:
        return True
    path, root = os.path.realpath(os.fsdecode(name)), os.path.realpath(data)
    return path == root or path.startswith(root + os.sep)


def unexpected(error: Exception, data: str | None) -> str:
    """One line for an error no command expected: damage in the dataset names its repair.

    A file the system refuses (a folder where a file goes, a full disk, a
    path through a file) names the file; a DuckDB error is its first line.
    """
    from ofc_stats.store.check import first_damage

    outside = isinstance(error, OSError) and (
        error.errno in _NOT_DAMAGE or not _inside(error.filename, data)
    )
    if data is not None and os.path.isdir(data) and not outside:
        found = first_damage(data)
        if found is not None:
            damage, count = found
            more = f" (and {count - 1} more)" if count > 1 else ""
            return terminal_safe(
                f"{data}: damaged: {damage.line(Path(data))}{more}; "
                f"run `ofc-stats check --repair --data {data}`"
            )
    if isinstance(error, OSError):
        return terminal_safe(system_message(error))
    if isinstance(error, MemoryError):
        return "out of memory: try a smaller --limit or fewer files at a time"
    module = type(error).__module__.split(".")[0]
    if module in ("duckdb", "_duckdb"):
        return one_line(str(error))
    return one_line(f"{type(error).__name__}: {error} (OFC_STATS_DEBUG=1 shows where)")


def system_message(error: OSError) -> str:
    """``PATH: reason`` for a refused file operation.

    >>> system_message(IsADirectoryError(21, "Is a directory", "out"))
    'out: Is a directory'
    """
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename:
        return f"{error.filename}: {reason}"
    if error.errno == errno.ENOSPC:
        return f"{reason} (the disk, or the file standard output goes to, is full)"
    return reason


@click.group(cls=OfcGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ofc-stats")
def main() -> None:
    """Open Face Chinese Poker hand histories: score, audit, find leaks."""


for _command in (
    score,
    import_command,
    simulate,
    formats,
    rules,
    recompute_command,
    sql_command,
    audit_command,
    report_command,
    hand_command,
    players_command,
    migrate_command,
    solve_fantasy_command,
    grade_command,
    forget_command,
    check_command,
):
    main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
