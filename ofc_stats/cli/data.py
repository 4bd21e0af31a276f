"""The dataset commands: `recompute`, `sql`, `audit`."""

from __future__ import annotations

import json
import math
from typing import Any

import click

from ofc_stats.cli.options import progress_bar, ruleset_option
from ofc_stats.errors import OfcError

DATA_OPTION = click.option(
    "--data",
    default="ofc-data",
    show_default=True,
    type=click.Path(file_okay=False),
    help="The dataset folder.",
)


def run_recompute(data: str, *, force: bool, quiet: bool, wait: float = 0.0) -> list[str]:
    """Score the batches without results (all with ``force``) under the dataset lock."""
    from ofc_stats.store.dataset import Dataset
    from ofc_stats.store.recompute import recompute

    dataset = Dataset(data)
    if not dataset.exists():
        raise OfcError(f"{data}: no ofc-stats dataset here; create one with `ofc-stats import`")
    hands = _stored_hands(dataset)
    with dataset.locked(wait), progress_bar(quiet, hands, "recomputing") as advance:
        summary = recompute(data, force=force, progress=advance)
    return summary.lines()


def _stored_hands(dataset: Any) -> int:
    import pyarrow.parquet as pq

    return sum(pq.read_metadata(path).num_rows for path in dataset.files("hands"))


@click.command("recompute")
@DATA_OPTION
@click.option("--force", is_flag=True, help="Score every hand again, not only new batches.")
@click.option("--wait", default=0.0, metavar="SECONDS", help="Wait for an import to end.")
@click.option("--quiet", is_flag=True)
def recompute_command(data: str, force: bool, wait: float, quiet: bool) -> None:
    """Score stored hands through the engine into the results tables (import does this)."""
    lines = run_recompute(data, force=force, quiet=quiet, wait=wait)
    for line in lines:
        click.echo(line)


@click.command("migrate")
@DATA_OPTION
@click.option("--wait", default=0.0, metavar="SECONDS", help="Wait for an import to end.")
def migrate_command(data: str, wait: float) -> None:
    """Upgrade a dataset written by an older ofc-stats (opening it does this too)."""
    from ofc_stats.store.dataset import Dataset
    from ofc_stats.store.migrate import needs_upgrade
    from ofc_stats.store.schema import SCHEMA_VERSION

    dataset = Dataset(data)
    if not dataset.exists():
        raise OfcError(f"{data}: no ofc-stats dataset here")
    if not needs_upgrade(data):
        dataset.check_version()
        click.echo(f"{data}: schema version {SCHEMA_VERSION}, nothing to do")
        return
    with dataset.locked(wait):
        pass  # taking the lock upgrades
    click.echo(f"{data}: upgraded to schema version {SCHEMA_VERSION}")


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


@click.command("audit")
@DATA_OPTION
@click.option(
    "--rules",
    "rules_name",
    default=None,
    metavar="NAME|FILE.toml",
    help="Audit against this ruleset instead of the one each room named.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write one row per mismatch (.parquet or .csv).",
)
@click.option(
    "--guess-rules",
    is_flag=True,
    help="Rank the named rulesets by how many of each room's hands they explain.",
)
@click.option(
    "--max-gap",
    type=click.FloatRange(0),
    default=15.0,
    show_default=True,
    help="Minutes between hands beyond which Fantasyland is not traced.",
)
def audit_command(
    data: str, rules_name: str | None, out: str | None, guess_rules: bool, max_gap: float
) -> None:
    """Compare the room's reported results with the rules; explain every difference."""
    from ofc_stats.audit.points import audit, guess_rulesets, write_mismatches
    from ofc_stats.store.views import open_dataset

    ruleset = ruleset_option(rules_name) if rules_name else None
    with open_dataset(data) as dataset:
        if guess_rules:
            ranking = guess_rulesets(dataset, max_gap_minutes=max_gap)
            click.echo(ranking.to_string(index=False))
            return
        report = audit(dataset, ruleset=ruleset, max_gap_minutes=max_gap)
    if out:
        write_mismatches(report, out)
    for line in report.lines():
        click.echo(line)
    mismatches = len(report.mismatches)
    if out:
        click.echo(f"{mismatches} mismatch row(s) written to {out}")
    elif mismatches:
        click.echo(f"{mismatches} mismatch row(s); --out FILE.csv writes them with explanations")
