"""`ofc-stats sql`: DuckDB queries over the dataset's views, parameters always bound."""

from __future__ import annotations

import json
import math
from typing import Any

import click

from ofc_stats.cli.options import DATA_OPTION


def _parameter(text: str) -> tuple[str, object]:
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise click.BadParameter(f"{text!r}: write NAME=VALUE", param_hint="--param")
    return name, _typed(value)


def _typed(value: str) -> object:
    """Numbers as numbers, everything else as text (the query can CAST)."""
    try:
        return int(value)
    except ValueError:
        pass
    try:
        number = float(value)
        return number if math.isfinite(number) else value
    except ValueError:
        return value


@click.command("sql")
@click.argument("query")
@DATA_OPTION
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="Bind $NAME in the query to VALUE (never pasted into the SQL).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.option("--limit", type=click.IntRange(0), default=None, help="At most this many rows.")
def sql_command(
    query: str, data: str, params: tuple[str, ...], output_format: str, limit: int | None
) -> None:
    """Run a DuckDB query over the dataset's views (hands, seats, results, fantasy, ...).

    \b
    ofc-stats sql "SELECT player, avg(net) FROM seat_results GROUP BY player"
    ofc-stats sql "SELECT * FROM seat_results WHERE player = $p" -p p=Alice
    """
    from ofc_stats.store.views import open_dataset

    bound = dict(_parameter(p) for p in params) or None
    with open_dataset(data) as dataset:
        table = dataset.arrow(query, bound)
    if limit is not None:
        table = table.slice(0, limit)
    frame = table.to_pandas()
    if output_format == "csv":
        click.echo(frame.to_csv(index=False), nl=False)
    elif output_format == "json":
        for record in json.loads(frame.to_json(orient="records", date_format="iso")):
            click.echo(json.dumps(record, ensure_ascii=False))
    elif frame.empty:
        click.echo("(no rows)")
    else:
        click.echo(text_table(frame))


def text_table(frame: Any) -> str:
    """Columns separated by two spaces; numbers right-aligned, text left-aligned, NULL shown."""
    import pandas as pd

    lines: list[list[str]] = [[str(name) for name in frame.columns]]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and frame[c].dtype != bool for c in frame]
    for row in frame.itertuples(index=False):
        lines.append(["NULL" if _missing(v) else str(v) for v in row])
    widths = [max(len(line[i]) for line in lines) for i in range(len(frame.columns))]
    out = []
    for line in lines:
        cells = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(line, widths, numeric, strict=True)
        ]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def _missing(value: object) -> bool:
    try:
        return value is None or bool(value != value)
    except (TypeError, ValueError):
        return False
