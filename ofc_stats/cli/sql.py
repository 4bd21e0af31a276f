"""`ofc-stats sql`: DuckDB queries over the dataset's views, parameters always bound.

Values keep their SQL type on the way out: integers with NULLs stay
integers, a BLOB is shown as hex (never raw bytes), and JSON takes every
DuckDB type (DATE, TIMESTAMP, INTERVAL as ISO 8601, DECIMAL as a number when
exact, UUID, lists, structs, maps).  Text from the data is made safe for a
terminal in tables and neutralised against spreadsheet formulas in CSV.
"""

from __future__ import annotations

import json
import math
import sys
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

import click

from ofc_stats.cli.options import DATA_OPTION, AtLeast
from ofc_stats.cli.text import (
    echo_data,
    json_text,
    say,
    say_lines,
    stdout_is_terminal,
    terminal_safe,
)
from ofc_stats.safe_text import csv_cell, csv_text

TYPES = ("str", "int", "float", "bool", "date", "timestamp")


def _parameter(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` binds text as written; ``NAME:TYPE=VALUE`` converts it first."""
    spec, sep, value = text.partition("=")
    name, _, kind = spec.partition(":")
    kind = kind or "str"
    if not sep or not name.isidentifier():
        raise click.BadParameter(f"{text!r}: write NAME=VALUE or NAME:TYPE=VALUE", param_hint="-p")
    if kind not in TYPES:
        raise click.BadParameter(
            f"{text!r}: type {kind!r}; one of {', '.join(TYPES)}", param_hint="-p"
        )
    try:
        return name, _convert(kind, value)
    except ValueError:
        raise click.BadParameter(
            f"{text!r}: {value!r} is not {KIND_NAMES[kind]}", param_hint="-p"
        ) from None


KIND_NAMES = {
    "int": "an integer",
    "float": "a finite number",
    "bool": "true or false (1/0, yes/no)",
    "date": "a date (YYYY-MM-DD)",
    "timestamp": "a timestamp (YYYY-MM-DD HH:MM[:SS])",
}


def _parameters(given: tuple[str, ...]) -> dict[str, object] | None:
    """The -p bindings; a name bound twice is refused (the first would be lost unseen)."""
    bound: dict[str, object] = {}
    for text in given:
        name, value = _parameter(text)
        if name in bound:
            raise click.BadParameter(f"${name} is bound twice", param_hint="-p")
        bound[name] = value
    return bound or None


def _statements(query: str) -> str:
    """The query (``-``: read from stdin); one statement, not empty."""
    if query == "-":
        if sys.stdin is None:
            raise click.BadParameter(
                "stdin is closed: give the query, or pipe it in", param_hint="QUERY"
            )
        query = sys.stdin.read()
    try:
        query.encode("utf-8")  # argv and stdin keep bytes that are not UTF-8 as surrogates
    except UnicodeEncodeError:
        raise click.BadParameter(
            "the query is not UTF-8: save it as UTF-8", param_hint="QUERY"
        ) from None
    import duckdb

    try:
        count = len(duckdb.extract_statements(query))
    except duckdb.Error:
        count = 1  # DuckDB's own error, with its position, comes from running it
    if count == 0:
        raise click.UsageError("the query is empty")
    if count > 1:
        raise click.UsageError(
            f"one statement at a time: this query holds {count} (only the last one's rows"
            " would show)"
        )
    return query


def _convert(kind: str, value: str) -> object:
    if kind == "int":
        return int(value)
    if kind == "float":
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(value)
        return number
    if kind == "bool":
        lowered = value.strip().lower()
        if lowered not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(value)
        return lowered in ("true", "1", "yes")
    if kind == "date":
        return date.fromisoformat(value)
    if kind == "timestamp":
        return datetime.fromisoformat(value)
    return value


def iso_duration(value: timedelta) -> str:
    """An INTERVAL as ISO 8601 (``P3DT2H``, ``-PT1.5S``)."""
    sign = "-" if value < timedelta(0) else ""
    value = abs(value)
    days, seconds = value.days, value.seconds + value.microseconds / 1e6
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    clock = "".join(
        f"{amount:g}{unit}"
        for amount, unit in ((hours, "H"), (minutes, "M"), (secs, "S"))
        if amount
    )
    text = (f"{days}D" if days else "") + (f"T{clock}" if clock else "")
    return f"{sign}P{text or 'T0S'}"


def json_value(value: object) -> Any:
    """Any value DuckDB returns as JSON-ready Python."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        as_float = float(value)
        return as_float if Decimal(repr(as_float)) == value else str(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return iso_duration(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return "\\x" + bytes(value).hex()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [json_value(v) for v in value]
    return str(value)


def text_value(value: object) -> str:
    """A cell for the table or CSV: NULL as ``NULL`` (table) is the caller's; no raw bytes.

    Infinity and NaN read as DuckDB writes them (``inf``, ``-inf``, ``nan``), not
    as the ``null`` JSON needs for them, which a table would show as a NULL.

    >>> [text_value(v) for v in (float("inf"), -float("inf"), float("nan"), 2.0, [1.5])]
    ['inf', '-inf', 'nan', '2.0', '[1.5]']
    """
    if isinstance(value, str):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value)
    converted = json_value(value)
    if isinstance(converted, list | dict):
        return json.dumps(converted, ensure_ascii=False)
    return str(converted)


def _table_value(value: object) -> str:
    """A table cell for a person: a double's binary noise rounded away (44.4, not 44.400…02).

    15 significant digits are what a double holds exactly; CSV and JSON keep
    every digit, for programs.
    """
    if isinstance(value, float) and math.isfinite(value) and not value.is_integer():
        return f"{value:.15g}"
    return text_value(value)


@click.command("sql")
@click.argument("query")
@DATA_OPTION
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="NAME[:TYPE]=VALUE",
    help="Bind $NAME to VALUE, as text unless a TYPE is given: "
    "int, float, bool, date, timestamp (never pasted into the SQL).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="json writes one JSON array of row objects.",
)
@click.option("--nl", is_flag=True, default=False, help="With --format json: one object per line.")
@click.option(
    "--limit",
    type=AtLeast(1),
    default=None,
    help="At most this many rows (1 or more; without it, every row).",
)
@click.option(
    "--read-only",
    is_flag=True,
    default=False,
    help="Only queries that read, and only the dataset's files (no COPY, ATTACH, read_text).",
)
def sql_command(
    query: str,
    data: str,
    params: tuple[str, ...],
    output_format: str,
    nl: bool,
    limit: int | None,
    read_only: bool,
) -> None:
    """Run a DuckDB query over the dataset's views (hands, seats, results, boards, ...).

    \b
    ofc-stats sql "SELECT player, avg(net) FROM seat_results GROUP BY player"
    ofc-stats sql "SELECT * FROM boards WHERE player = $p" -p p=Alice
    ofc-stats sql "SELECT * FROM hands WHERE seat_count = $n" -p n:int=3

    The query is DuckDB's whole language, run as you: COPY writes files,
    read_text and ATTACH read any file you may read.  --read-only (for a query
    someone else wrote) runs only SELECT and EXPLAIN and reads only the
    dataset's files.  One statement a run; QUERY - reads it from stdin (a
    file of SQL, or a query that starts with a -- comment).

    NULL is NULL in the table, an empty field in CSV and null in JSON; an
    infinite or NaN double (1/0) is inf, -inf or nan in the table and CSV, as
    DuckDB writes it, and null in JSON, which has no such numbers.
    """
    from ofc_stats.store.views import open_dataset

    if nl and output_format != "json":
        raise click.UsageError("--nl goes with --format json")
    bound = _parameters(params)
    query = _statements(query)
    with open_dataset(data) as dataset:
        if read_only:
            dataset.read_only()
        relation = dataset.sql(query, bound)
        if relation is None:
            return
        if limit is not None:
            relation = relation.limit(limit)
        columns = list(relation.columns)
        types = [str(t) for t in relation.types]
        rows = relation.fetchall()
    if output_format == "json":
        records = [{c: json_value(v) for c, v in zip(columns, row, strict=True)} for row in rows]
        if nl:
            echo_data("".join(json_text(record) + "\n" for record in records), nl=False)
        else:
            echo_data(json_text(records))
    elif output_format == "csv":
        echo_data(sql_csv(columns, rows, stdout_is_terminal()), nl=False)
    elif not rows:
        say("(no rows)")
    else:
        say_lines(text_table(columns, types, rows))


def sql_csv(columns: list[str], rows: list[tuple[Any, ...]], for_terminal: bool) -> str:
    """The rows as CSV (:func:`ofc_stats.safe_text.csv_text`): the data as it is, formulas
    neutralised, NULL as an empty field.

    ``for_terminal`` shows control characters as escapes, as the table does
    (one row, one line); to a file or a pipe nothing else is changed.  Cells
    are neutralised before they are escaped, so a leading tab or line break
    still gets its quote mark.
    """
    shown = terminal_safe if for_terminal else str

    def cell(value: object) -> object:
        """None for NULL (an empty field); a number as itself, never a formula (-inf
        too); anything else as neutralised text (NaN as ``nan``: an empty field is NULL)."""
        if value is None:
            return None
        if isinstance(value, bool):  # as DuckDB's own CSV (COPY ... TO) writes them
            return "true" if value else "false"
        if isinstance(value, datetime):
            return value.isoformat(sep=" ")
        if isinstance(value, int | float) and not (isinstance(value, float) and math.isnan(value)):
            return value
        return shown(csv_cell(text_value(value)))

    return csv_text([cell(c) for c in columns], ([cell(v) for v in row] for row in rows))


NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL")


def text_table(columns: list[str], types: list[str], rows: list[tuple[Any, ...]]) -> str:
    """Columns separated by two spaces; numbers right-aligned, text left-aligned, NULL shown."""
    right = [t.startswith(NUMERIC) or (t.startswith("U") and "INT" in t) for t in types]
    lines = [[terminal_safe(c) for c in columns]]
    for row in rows:
        lines.append(["NULL" if v is None else terminal_safe(_table_value(v)) for v in row])
    widths = [max(len(line[i]) for line in lines) for i in range(len(columns))]
    out = []
    for line in lines:
        cells = [
            cell.rjust(width) if r else cell.ljust(width)
            for cell, width, r in zip(line, widths, right, strict=True)
        ]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)
