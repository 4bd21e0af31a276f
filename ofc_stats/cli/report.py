"""`ofc-stats report`: one player's report as a page or as files."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from ofc_stats.cli.options import DATA_OPTION, Day, out_file, out_folder, replace_text
from ofc_stats.cli.text import terminal_safe


@click.command("report")
@DATA_OPTION
@click.option(
    "--player",
    default=None,
    help="Whose report: an alias, a name or a room's player id (default: the hero).",
)
@click.option(
    "--hero",
    is_flag=True,
    default=False,
    help="Every seat the files mark as the hero's, across accounts (the default when any is).",
)
@click.option("--since", type=Day(), default=None, help="From this day.")
@click.option("--until", type=Day(), default=None, help="To this day.")
@click.option("--room", default=None, help="Only this app or room (any case).")
@click.option(
    "--rules", "ruleset", default=None, metavar="NAME", help="Only this ruleset (or an alias)."
)
@click.option("--seats", type=click.IntRange(2, 4), default=None, help="Only tables this size.")
@click.option("--opponent", default=None, help="Only hands against this player.")
@click.option(
    "--session-gap",
    type=click.IntRange(1, 10**9),  # minutes: a larger gap overflows DuckDB's interval
    default=30,
    show_default=True,
    metavar="MINUTES",
    help="A longer gap between hands at a table starts a new session.",
)
@click.option(
    "--self-play",
    type=click.Choice(["once", "skip"]),
    default="once",
    show_default=True,
    help="Hands where your accounts (an alias, or the hero's) met at a table: count each "
    "once, or leave them out.",
)
@click.option(
    "--allow-empty",
    is_flag=True,
    default=False,
    help="Write the report even when no hand matches the filters (else exit 1).",
)
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
    help="The HTML file, or a folder for png/svg/csv (missing folders are made).",
)
def report_command(
    data: str,
    player: str | None,
    hero: bool,
    since: Any,
    until: Any,
    room: str | None,
    ruleset: str | None,
    seats: int | None,
    opponent: str | None,
    session_gap: int,
    self_play: str,
    allow_empty: bool,
    output_format: str,
    out: str,
) -> None:
    """Write the player's report: results, sessions, hands, fouls, Fantasyland, decisions,
    and where `ofc-stats grade` ran, the regret section: the expected points the player's
    decisions lost, the costliest named leaks, and what the advice won on the player's own
    cards (`grade --replay`)."""
    from ofc_stats.errors import OfcError

    if hero and player is not None:
        raise OfcError("give --player NAME or --hero, not both")
    if since and until and since > until:
        raise click.BadParameter(
            f"--since {since} is after --until {until}: no day is both", param_hint="--until"
        )
    from reports import Filters

    wanted = Filters(
        since=since,
        until=until,
        room=room,
        ruleset=ruleset,
        seats=seats,
        opponent=opponent,
        session_gap=session_gap,
        self_play=self_play,
    )
    click.echo(
        terminal_safe(
            write_report(data, out, player, hero, wanted, allow_empty, output_format, warn=True)
        )
    )


def write_report(
    data: str,
    out: str,
    player: str | None = None,
    hero: bool = False,
    wanted: Any = None,
    allow_empty: bool = False,
    output_format: str = "html",
    warn: bool = False,
) -> str:
    """Write the report (``import --watch --report`` refreshes it too); the line to print.

    The page is written beside its target and renamed over it: a browser or
    a stopped watch never sees half a page.
    """
    with _cycle_collector_paused():
        return _write_report(data, out, player, hero, wanted, allow_empty, output_format, warn)


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a report is made, on again after.

    A report makes millions of small objects that hold no cycles (the page data's
    columns, rows read from DuckDB), and the collector walks the live ones again at
    each step: 0.25 s of CPU at 1M hands, for nothing it frees.  What the report
    leaves is freed by reference counting; a cycle waits for the next collection.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _write_report(
    data: str,
    out: str,
    player: str | None,
    hero: bool,
    wanted: Any,
    allow_empty: bool,
    output_format: str,
    warn: bool,
) -> str:
    from ofc_stats.audit.ledger import ensure_ledger
    from ofc_stats.errors import NoHands
    from ofc_stats.store.views import open_dataset
    from ofc_stats.wording import plural
    from reports import Filters, build_sections, checked, leak_summary, prepare
    from reports.explore import page_data, replays
    from reports.html import render, shared_text, write_files
    from reports.ledger import money_seats

    # The output is checked before the report is built (a folder as the file, a file
    # as the folder, an unwritable place: said at once).
    target = out_file(out) if output_format == "html" else out_folder(out)
    # One DuckDB thread: the report's queries read one player's seats, where a second
    # thread costs more CPU than it saves (1M hands: 6.2 s of CPU, not 6.9; wall alike)
    with open_dataset(data, threads=1) as dataset:
        chosen = _whose(dataset, player, hero, allow_empty)
        name = chosen.name
        filters = checked(dataset, chosen.scope(wanted or Filters()))
        scope = prepare(dataset, filters)
        nothing = f"no scored hand of {name} matches {_scope(filters)}"
        empty = scope.hand_count() == 0
        if empty and not allow_empty:
            raise NoHands(
                f"{nothing}; widen the filters, or pass --allow-empty to write an empty report"
            )
        # The page's ledger reads the priced money (the store's view); a big dataset's is
        # priced from the player's hands only.
        ensure_ledger(dataset, money_seats(scope)["hand_id"].tolist())
        built = build_sections(scope)
        shared = scope.shared_hands()
        if shared and warn:
            click.echo(terminal_safe("warning: " + shared_text(shared)), err=True)
        live: dict[str, Any] | None = None
        carried: dict[str, Any] = {}
        if output_format == "html":
            live = page_data(scope)
            known = {key for report in built for key in report.replays}
            carried = replays(dataset, live, known)
    said = f" (empty: {nothing})" if empty else ""  # --allow-empty's page, said as such
    if output_format == "html":
        page = render(name, _scope(filters), built, leak_summary(built), live=live, carried=carried)
        replace_text(target, page)
        return f"report for {name}: {target}{said}"
    written = write_files(target, built, output_format)
    return f"{plural(len(written), f'{output_format} file')} for {name} in {target}{said}"


def _whose(dataset: Any, player: str | None, hero: bool, allow_empty: bool) -> Any:
    """The report's player; with --allow-empty and no --player, the hero's (empty) page when
    the dataset has nobody to choose: no hand yet, or no hero seat under --hero.

    A name given is still looked up (a typo is refused, not written as an empty page),
    as an unknown --room or --opponent is.
    """
    from ofc_stats.errors import UnknownPlayer
    from reports import choose_player
    from reports.filters import hero_player

    try:
        return choose_player(dataset, player, hero=True if hero else None)
    except UnknownPlayer:
        if player is not None or not allow_empty:
            raise
        return hero_player()  # no hero account yet: the one-account name


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
