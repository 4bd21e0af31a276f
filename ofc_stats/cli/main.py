"""The `ofc-stats` command group: every command, and one translation of errors.

Library code raises :class:`ofc_stats.errors.OfcError` subclasses with a
message for people; :class:`OfcGroup` turns any of them into click's usage
error (message on stderr with control characters made visible, exit 1), so
no command catches them itself.
"""

from __future__ import annotations

from typing import Any

import click

from ofc_stats.cli.audit import audit_command
from ofc_stats.cli.forget import forget_command
from ofc_stats.cli.grade import grade_command
from ofc_stats.cli.hand import hand_command
from ofc_stats.cli.imports import import_command, simulate
from ofc_stats.cli.players import players_command
from ofc_stats.cli.recompute import migrate_command, recompute_command
from ofc_stats.cli.report import report_command
from ofc_stats.cli.score import formats, rules, score
from ofc_stats.cli.solve import solve_fantasy_command
from ofc_stats.cli.sql import sql_command
from ofc_stats.errors import OfcError
from ofc_stats.safe_text import terminal_lines


class OfcGroup(click.Group):
    """A click group whose commands may raise OfcError: one message, exit status 1.

    A file the system refuses (a folder where a file goes, a full disk, a path
    through a file) is one message too, naming the file: never a traceback.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OfcError as error:
            raise click.ClickException(terminal_lines(str(error))) from None
        except BrokenPipeError:
            raise SystemExit(1) from None  # the reader went away (`| head`): nothing to tell
        except OSError as error:
            raise click.ClickException(terminal_lines(system_message(error))) from None


def system_message(error: OSError) -> str:
    """``PATH: reason`` for a refused file operation.

    >>> system_message(IsADirectoryError(21, "Is a directory", "out"))
    'out: Is a directory'
    """
    reason = error.strerror or str(error) or type(error).__name__
    return f"{error.filename}: {reason}" if error.filename else reason


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
):
    main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
