"""The `ofc-stats` command line: a thin layer over the library."""

from __future__ import annotations

import json
import sys
from typing import TextIO

import click

from ofc_stats.cli.options import progress_bar as _progress
from ofc_stats.cli.options import ruleset_option as _ruleset
from ofc_stats.cli.score_io import LineError, format_table, score_stream
from ofc_stats.engine.presets import ALIASES, PRESETS
from ofc_stats.errors import OfcError

MAX_MESSAGES = 20


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ofc-stats")
def main() -> None:
    """Open Face Chinese Poker hand histories: score, audit, find leaks."""


@main.command()
@click.option(
    "--rules",
    "rules_name",
    default="pineapple",
    show_default=True,
    metavar="NAME|FILE.toml",
    help="A named ruleset (see `ofc-stats rules`) or a ruleset TOML file.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "table"]),
    default="json",
    show_default=True,
)
@click.argument("source", type=click.File("r", encoding="utf-8"), default="-")
def score(rules_name: str, output_format: str, source: TextIO) -> None:
    """Score finished hands from JSON Lines (FILE or - for stdin).

    Each line: {"boards": [{"top": "Qs Qd 5c", "middle": "...", "bottom": "..."}, ...],
    "stacks": [50, 50], "in_fantasy": [false, true]}.  Seats are in order of
    action, the button last.  Bad lines are reported on stderr with their line
    number; the rest are still scored and the exit code is 1.
    """
    ruleset = _ruleset(rules_name)
    name = getattr(source, "name", "-")
    name = "-" if name == "<stdin>" else name
    errors = 0
    first = True
    for item in score_stream(source, ruleset, name):
        if isinstance(item, LineError):
            errors += 1
            click.echo(item.message, err=True)
            continue
        hand, record, result, index = item
        if output_format == "json":
            click.echo(json.dumps(record, separators=(", ", ": ")))
        else:
            if not first:
                click.echo("")
            click.echo(format_table(hand, record, result, index))
        first = False
    if errors:
        click.echo(f"{errors} line(s) could not be scored", err=True)
        sys.exit(1)


@main.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--data", default="ofc-data", show_default=True, help="The dataset folder.")
@click.option(
    "--format",
    "format_name",
    default="auto",
    show_default=True,
    help="auto (sniff each file) or one of the formats `ofc-stats formats` lists.",
)
@click.option(
    "--rules",
    "rules_name",
    default=None,
    metavar="NAME|FILE.toml",
    help="Score these hands under this ruleset instead of the one the room named.",
)
@click.option("--wait", default=0.0, metavar="SECONDS", help="Wait for another import to end.")
@click.option("--quiet", is_flag=True, help="No progress bar, no per-hand messages.")
@click.option(
    "--no-recompute",
    is_flag=True,
    help="Do not score the new hands now (`ofc-stats recompute` does it later).",
)
def import_command(
    paths: tuple[str, ...],
    data: str,
    format_name: str,
    rules_name: str | None,
    wait: float,
    quiet: bool,
    no_recompute: bool,
) -> None:
    """Import hand-history files, folders and .zip archives into the Parquet dataset.

    Re-importing changes nothing; a grown file adds only its new hands; hands
    that cannot be stored are quarantined with the reason, file and line.
    """
    from ofc_stats.store.importer import import_paths, total_bytes
    from parsers.base import get_parser

    ruleset = _ruleset(rules_name) if rules_name else None
    if format_name != "auto":
        try:
            get_parser(format_name)
        except KeyError as error:
            raise click.BadParameter(str(error.args[0]), param_hint="--format") from None
    with _progress(quiet, total_bytes(paths), "importing") as advance:
        try:
            summary = import_paths(
                paths,
                data,
                format_name=format_name,
                rules=ruleset,
                wait_seconds=wait,
                on_bytes=advance,
            )
        except OfcError as error:
            raise click.ClickException(str(error)) from None
    if not quiet:
        for message in summary.messages[:MAX_MESSAGES]:
            click.echo(message, err=True)
        if len(summary.messages) > MAX_MESSAGES:
            more = len(summary.messages) - MAX_MESSAGES
            click.echo(f"... and {more} more in the quarantine table", err=True)
    for line in summary.lines():
        click.echo(line)
    if not no_recompute:
        from ofc_stats.cli.data import run_recompute

        try:
            for line in run_recompute(data, force=False, quiet=quiet, wait=wait):
                click.echo(line)
        except OfcError as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"dataset: {data}")


@main.command()
@click.option("--hands", type=click.IntRange(1), required=True, help="How many hands to write.")
@click.option(
    "--rules",
    "rules_name",
    default="pineapple-progressive",
    show_default=True,
    metavar="NAME|FILE.toml",
)
@click.option("--seats", type=click.IntRange(2, 4), default=3, show_default=True)
@click.option(
    "--players",
    type=click.IntRange(2),
    default=9,
    show_default=True,
    help="Size of the pool of named bot players (styles in turn).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same file.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["open", "app-json"]),
    default="open",
    show_default=True,
)
@click.option(
    "--room-errors",
    type=click.FloatRange(0, 1),
    default=0.0,
    show_default=True,
    help="Share of hands whose reported results a buggy room corrupts (truth file).",
)
@click.option(
    "--timeouts",
    type=click.FloatRange(0, 1),
    default=0.02,
    show_default=True,
    help="Share of streets the room places on a timeout.",
)
@click.option("--stack", type=float, default=None, help="Points each player brings (caps).")
@click.option("--out", type=click.Path(dir_okay=False), required=True)
@click.option("--quiet", is_flag=True)
def simulate(
    hands: int,
    rules_name: str,
    seats: int,
    players: int,
    seed: int,
    output_format: str,
    room_errors: float,
    timeouts: float,
    stack: float | None,
    out: str,
    quiet: bool,
) -> None:
    """Bots play whole sessions and write realistic hand histories."""
    from ofc_stats.sim.rooms import write_simulation

    ruleset = _ruleset(rules_name)
    with _progress(quiet, hands, "simulating") as advance:
        try:
            summary = write_simulation(
                out,
                hands,
                ruleset,
                output_format=output_format,
                seats=seats,
                players=players,
                seed=seed,
                room_errors=room_errors,
                timeout_rate=timeouts,
                stack=stack,
                progress=advance,
            )
        except OfcError as error:
            raise click.ClickException(str(error)) from None
    click.echo(summary.line())
    click.echo(f"wrote {out}" + (f" and {out}.truth.jsonl" if summary.corrupted else ""))


@main.command()
def formats() -> None:
    """List the hand-history formats `import` reads."""
    from parsers.base import REGISTRY, known_formats

    known_formats()  # loads every parser
    for name, parser in sorted(REGISTRY.items()):
        click.echo(f"{name.ljust(10)}  {parser.description}")


@main.command()
@click.argument("name", required=False, metavar="[NAME|FILE.toml]")
def rules(name: str | None) -> None:
    """List the named rulesets, or show every option of one."""
    if name is None:
        width = max(len(n) for n in PRESETS)
        for preset in PRESETS.values():
            click.echo(f"{preset.name.ljust(width)}  {preset.summary()}")
        aliases = ", ".join(f"{alias}={target}" for alias, target in sorted(ALIASES.items()))
        click.echo(f"\naliases: {aliases}")
        return
    ruleset = _ruleset(name)
    fl = ruleset.fantasy
    click.echo(f"name: {ruleset.name}")
    if ruleset.description:
        click.echo(f"description: {ruleset.description}")
    for option in ("variant", "deck", "scoring", "foul_policy", "majority_bonus"):
        click.echo(f"{option}: {getattr(ruleset, option)}")
    click.echo(f"stack_cap: {str(ruleset.stack_cap).lower()}")
    click.echo(f"max_loss: {ruleset.max_loss if ruleset.max_loss is not None else 'none'}")
    click.echo(f"button_moves_on_fantasy: {str(ruleset.button_moves_on_fantasy).lower()}")
    click.echo(f"royalties: {ruleset.royalties.name}")
    for row in ("top", "middle", "bottom"):
        table = getattr(ruleset.royalties, row)
        click.echo(f"  {row}: " + ", ".join(f"{k}={v}" for k, v in table.items()))
    click.echo(f"fantasy: {fl.mode}")
    click.echo(
        "  entry_cards: " + (", ".join(f"{k}={v}" for k, v in fl.entry_cards.items()) or "-")
    )
    if fl.repeat is None:
        click.echo("  repeat: none")
    else:
        rule = fl.repeat
        click.echo(
            f"  repeat: top={rule.top or '-'} middle={rule.middle or '-'} "
            f"bottom={rule.bottom or '-'} combine={rule.combine}"
        )
        cards = "entry" if fl.repeat_cards is None else fl.repeat_cards
        click.echo(f"  repeat_cards: {cards}")


def _register() -> None:
    from ofc_stats.cli.data import audit_command, recompute_command, report_command, sql_command

    for command in (recompute_command, sql_command, audit_command, report_command):
        main.add_command(command)
    main.add_command(__import__("ofc_stats.cli.solve", fromlist=["_"]).solve_fantasy_command)


_register()


if __name__ == "__main__":  # pragma: no cover
    main()
