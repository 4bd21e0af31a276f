"""`ofc-stats report`: one player's report as a page or as files."""

from __future__ import annotations

from typing import Any

import click

from ofc_stats.cli.options import DATA_OPTION
from ofc_stats.safe_text import terminal_safe


@click.command("report")
@DATA_OPTION
@click.option("--player", default=None, help="Whose report (default: the most frequent hero).")
@click.option("--since", type=click.DateTime(["%Y-%m-%d"]), default=None, help="From this day.")
@click.option("--until", type=click.DateTime(["%Y-%m-%d"]), default=None, help="To this day.")
@click.option("--room", default=None, help="Only this app or room.")
@click.option("--rules", "ruleset", default=None, metavar="NAME", help="Only this ruleset.")
@click.option("--seats", type=click.IntRange(2, 4), default=None, help="Only tables this size.")
@click.option("--opponent", default=None, help="Only hands against this player.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["html", "png", "svg", "csv"]),
    default="html",
    show_default=True,
    help="One HTML page, or each chart or table as its own file in the --out folder.",
)
@click.option(
    "--out",
    type=click.Path(),
    required=True,
    help="The HTML file, or a folder for png/svg/csv.",
)
def report_command(
    data: str,
    player: str | None,
    since: Any,
    until: Any,
    room: str | None,
    ruleset: str | None,
    seats: int | None,
    opponent: str | None,
    output_format: str,
    out: str,
) -> None:
    """Write the player's report: results, fouls, Fantasyland, decisions, royalties."""
    from pathlib import Path

    from ofc_stats.store.views import open_dataset
    from reports import Filters, build_all, leak_summary, resolve_player
    from reports.html import render, write_files

    with open_dataset(data) as dataset:
        key, name = resolve_player(dataset, player)
        filters = Filters(
            player=key,
            since=since.date() if since else None,
            until=until.date() if until else None,
            room=room,
            ruleset=ruleset,
            seats=seats,
            opponent=opponent,
        )
        built = build_all(dataset, filters)
    target = Path(out)
    if output_format == "html":
        scope = _scope(filters)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(name, scope, built, leak_summary(built)), encoding="utf-8")
        click.echo(terminal_safe(f"report for {name}: {target}"))
    else:
        written = write_files(target, built, output_format)
        click.echo(terminal_safe(f"{len(written)} {output_format} file(s) for {name} in {target}"))


def _scope(filters: Any) -> str:
    parts = []
    for label, value in (
        ("since", filters.since),
        ("until", filters.until),
        ("room", filters.room),
        ("ruleset", filters.ruleset),
        ("seats", filters.seats),
        ("against", filters.opponent),
    ):
        if value is not None:
            parts.append(f"{label} {value}")
    return "all hands" if not parts else ", ".join(parts)
