"""Text out of the CLI: for a person at a terminal, or data for a file or a pipe.

The one way the commands print (``tests/test_cli_terminal.py`` holds them to
it): :func:`say` a line, :func:`say_lines` a block of ours, :func:`echo_data`
data, and every error :func:`error_text` (``ofc_stats.cli.main``).  Names, file
names and refusal reasons come from files anyone can write, so nothing a
terminal would obey or that reorders text on screen (escapes, C1,
bidirectional overrides such as U+202E, zero-width marks) reaches it raw.
The escaping itself lives in the low layer (:mod:`ofc_stats.safe_text`);
this module decides which one a stream gets.
"""

from __future__ import annotations

import os
import re
import sys
from typing import NoReturn

import click

from ofc_stats.safe_text import json_text, terminal_lines, terminal_safe

__all__ = [
    "READER_GONE",
    "echo_data",
    "error_text",
    "json_text",
    "reader_gone",
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


# The most characters of one word an error line repeats (a path, a name, a value given:
# anyone's, and a 10,000-character one pasted by mistake), and of one line.  A longer word
# keeps its ends around an ellipsis: the start says what it was, the end its suffix.
ECHOED_WORD = 120
ERROR_LINE = 1000
_LONG_WORD = re.compile(rf"\S{{{ECHOED_WORD + 1},}}")


def error_text(message: str) -> str:
    """An error message as the terminal gets it: each line :func:`terminal_safe`, each word
    over :data:`ECHOED_WORD` characters and each line over :data:`ERROR_LINE` cut short.

    >>> line = error_text("no player '" + "x" * 500 + "' in this dataset")
    >>> len(line), line[:14], line.index("…"), line[-20:]
    (146, "no player 'xxx", 90, "xxx' in this dataset")
    """
    return "\n".join(_short_line(terminal_safe(line)) for line in message.split("\n"))


def _short_line(line: str) -> str:
    line = _LONG_WORD.sub(lambda word: _cut(word.group(), ECHOED_WORD), line)
    return _cut(line, ERROR_LINE)


def _cut(text: str, most: int) -> str:
    """``text`` in at most ``most`` characters: two thirds of them its start, then "…" and
    its end."""
    if len(text) <= most:
        return text
    head = most * 2 // 3
    return f"{text[:head]}…{text[len(text) - (most - head - 1) :]}"


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


# The exit status when the reader of stdout went away (`| head`, `| true`): 128 + SIGPIPE,
# what the shell shows for a tool the signal stopped (`yes | head -1`), as 130 is Ctrl-C's.
READER_GONE = 141


def reader_gone() -> NoReturn:
    """Stop quietly, exit status 141, when a pipe's reader has gone: every command alike.

    Python ignores SIGPIPE, so a write to a closed pipe raises BrokenPipeError
    (click's own handler exits 1, as Python's docs suggest).  141 tells
    "nobody read the rest" apart from a failure (1) while a shell treats it as
    it treats ``cat`` or ``git log`` stopped by the signal; nothing is said,
    since the reader has gone.  Standard output is pointed at /dev/null when
    it is the broken pipe, so Python's flush at exit finds nothing to complain
    about (the ``Exception ignored ... BrokenPipeError`` lines and exit 120).
    """
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):  # a stream with no descriptor (a test's runner)
            pass
    except OSError:
        pass
    raise SystemExit(READER_GONE)
