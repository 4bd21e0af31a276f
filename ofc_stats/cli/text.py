"""Text out of the CLI: for a person at a terminal, or data for a file or a pipe.

The one way the commands print (``tests/test_cli_terminal.py`` holds them to
it): :func:`say` a line, :func:`say_lines` a block of ours, :func:`echo_data`
data.  Names, file names and refusal reasons come from files anyone can
write, so nothing a terminal would obey or that reorders text on screen
(escapes, C1, bidirectional overrides such as U+202E, zero-width marks)
reaches it raw.  The escaping itself lives in the low layer
(:mod:`ofc_stats.safe_text`); this module decides which one a stream gets.
"""

from __future__ import annotations

import sys

import click

from ofc_stats.safe_text import json_text, terminal_lines, terminal_safe

__all__ = [
    "echo_data",
    "json_text",
    "say",
    "say_lines",
    "stdout_is_terminal",
    "terminal_lines",
    "terminal_safe",
]


def say(line: str, err: bool = False) -> None:
    """One line for a person: every control and invisible format character shown as an
    escape, a line break in a name too (one row stays one line)."""
    click.echo(terminal_safe(line), err=err)


def say_lines(text: str, err: bool = False) -> None:
    """A block whose line breaks are ours (a table, a message): each line as :func:`say`."""
    click.echo(terminal_lines(text), err=err)


def stdout_is_terminal() -> bool:
    """Whether a person reads stdout (then data formats get their controls escaped too)."""
    return sys.stdout.isatty()


def echo_data(text: str, nl: bool = True) -> None:
    """Data (CSV, JSON, a page) to stdout: byte-exact to a file or a pipe.

    ``click.echo`` would strip ANSI sequences when stdout is not a terminal,
    silently changing the data; at a terminal every control but the line
    breaks is shown as an escape instead.
    """
    if stdout_is_terminal():
        click.echo(terminal_lines(text), nl=nl)
    else:
        click.echo(text, nl=nl, color=True)
