"""Text out of the CLI: for a person at a terminal, or data for a file or a pipe.

The escaping itself lives in the low layer (:mod:`ofc_stats.safe_text`); this
module decides which one a stream gets.
"""

from __future__ import annotations

import sys

import click

from ofc_stats.safe_text import json_text, terminal_lines, terminal_safe

__all__ = ["echo_data", "json_text", "stdout_is_terminal", "terminal_lines", "terminal_safe"]


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
