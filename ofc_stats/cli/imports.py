"""Hands in: `import` (files into the dataset) and `simulate` (bots write files)."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from ofc_stats.cli.options import (
    MAX_SIM_HANDS,
    SEED,
    Finite,
    given,
    not_stdout,
    out_file,
    wait_option,
)
from ofc_stats.cli.options import progress_bar as _progress
from ofc_stats.cli.options import ruleset_option as _ruleset
from ofc_stats.cli.text import say, say_lines
from ofc_stats.errors import OfcError, UnknownFormat
from ofc_stats.store.import_summary import ALREADY_IMPORTED, ImportSummary
from ofc_stats.store.wrong_format import NOT_FPDB

MAX_MESSAGES = 20


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
# Not options.DATA_OPTION's type: a file given as --data is the dataset's own one-line
# refusal ("is a file, not a dataset folder"), exit 1, not a usage error; the same DIRECTORY.
@click.option(
    "--data", default="ofc-data", show_default=True, metavar="DIRECTORY", help="The dataset folder."
)
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
@wait_option("another import")
@click.option("--quiet", is_flag=True, help="No progress bar, no per-hand messages.")
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Name every file skipped as already imported (else they are counted).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Read files again that were already imported (hands are still stored once).",
)
@click.option(
    "--final",
    is_flag=True,
    help="The files will not grow: quarantine a hand cut short at a file's end now "
    "(else it is left for the next import).",
)
@click.option(
    "--no-recompute",
    is_flag=True,
    help="Do not score the new hands now (`ofc-stats recompute` does it later).",
)
@click.option(
    "--watch",
    is_flag=True,
    help="Keep following the folders: import new and grown files as the apps write them, "
    "score them, until Ctrl-C.",
)
@click.option(
    "--interval",
    type=Finite(0.1),
    default=5.0,
    show_default=True,
    metavar="SECONDS",
    help="With --watch: how often the folders are looked at.",
)
@click.option(
    "--report",
    "report_file",
    default=None,
    metavar="FILE",
    help="With --watch: write the hero's report page here after each import.",
)
def import_command(
    paths: tuple[str, ...],
    data: str,
    format_name: str,
    rules_name: str | None,
    wait: float,
    quiet: bool,
    verbose: bool,
    force: bool,
    final: bool,
    no_recompute: bool,
    watch: bool,
    interval: float,
    report_file: str | None,
) -> None:
    """Import hand-history files, folders and .zip archives into the Parquet dataset.

    Re-importing changes nothing; a grown file adds only its new hands; hands
    that cannot be stored are quarantined with the reason, file and line.
    """
    from ofc_stats.store.importer import import_paths, total_bytes
    from parsers.registry import get_parser

    if rules_name:
        _ruleset(rules_name)  # a usage error before anything is read
    if format_name != "auto":
        try:
            get_parser(format_name)
        except UnknownFormat as error:
            raise click.BadParameter(str(error), param_hint="--format") from None
    if final and watch:
        raise click.UsageError("--final is for files that will not grow, --watch for growing ones")
    if report_file is not None and not watch:
        raise click.UsageError("--report FILE goes with --watch (else run `ofc-stats report`)")
    if report_file is not None:  # said now, not after the first hands a watch stores
        not_stdout(report_file, "file", "--report")
    if given(click.get_current_context(), "interval") and not watch:
        raise click.UsageError("--interval goes with --watch: how often a watch looks")
    if watch:
        from ofc_stats.cli.watch import echo
        from ofc_stats.cli.watch import watch as follow

        follow(
            paths,
            data,
            interval=interval,
            report=report_file,
            format_name=format_name,
            rules=rules_name,
            wait=max(wait, interval),
            say=echo,
        )
        return
    existed = Path(data).exists()
    with _progress(quiet, total_bytes(paths), "importing") as advance:
        summary = import_paths(
            paths,
            data,
            format_name=format_name,
            rules=rules_name,  # by name, so a TOML file's rules are kept in the dataset
            wait_seconds=wait,
            on_bytes=advance,
            force=force,
            final=final,
        )
    refusal, folded = _nothing_stored(summary, data, existed)
    messages = [message for message in summary.messages if message != folded]
    if not quiet:
        for message in messages[:MAX_MESSAGES]:
            say(message, err=True)
        if len(messages) > MAX_MESSAGES:
            more = len(messages) - MAX_MESSAGES
            say(f"... and {more} more in the quarantine table", err=True)
    for line in summary.lines(verbose, data=str(data)):
        say(line)
    if refusal is not None:
        raise refusal
    from ofc_stats.store.overlap import SWC_FORMATS, chat_repeats, repeat_lines

    if any(f.stored and f.format in SWC_FORMATS for f in summary.files):
        for line in repeat_lines(chat_repeats(data)):
            say(line)
    if not no_recompute:
        from ofc_stats.cli.recompute import run_recompute

        for line in run_recompute(data, force=False, quiet=quiet, wait=wait):
            say_lines(line)
    say(f"dataset: {data}")


def _nothing_stored(
    summary: ImportSummary, data: str, existed: bool
) -> tuple[OfcError | None, str | None]:
    """An import that stored nothing new, found nothing known and left nothing for later is
    an error, not a success: the error (None: a success), and the refusal message it says
    itself (not said again above it).

    A lone file that could not be read at all (``/proc/self/mem``: an I/O
    error) is that one line: its name and the reason, not the reason and then
    "the one hand seen was refused" of a hand nobody saw.

    A dataset this import created is kept when it holds something: a
    quarantine row (the only record of a refused hand: its reason, file,
    line and text) or a hand cut short, left for the next import.  Nothing
    read at all (an empty folder, a lone picture) leaves no dataset behind.
    Refusals are replaced when their file is imported again, so a wrong
    ``--format`` leaves nothing a right one keeps.
    """
    known = summary.duplicates or any(f.skipped == ALREADY_IMPORTED for f in summary.files)
    if summary.stored or known or summary.partial:
        return None, None
    refused = summary.quarantined + summary.lines_quarantined
    unread = [f for f in summary.files if f.skipped and f.quarantined + f.lines_quarantined]
    if unread and refused == len(unread):  # each refusal a whole file that could not be read
        if len(unread) == 1 and len(summary.messages) == 1:
            file = unread[0]
            return OfcError(f"nothing stored: {file.path}: {file.skipped}"), summary.messages[0]
        return OfcError(
            f"nothing stored: none of the {len(unread):,} files could be read (named above and in "
            "the quarantine table)"
        ), None
    if not refused:
        if not existed:
            shutil.rmtree(data, ignore_errors=True)
        wrong = [f for f in summary.files if f.not_format]
        if wrong:
            return OfcError(
                f"nothing stored: no file given is {wrong[0].not_format} (--format "
                f"{wrong[0].not_format}); drop --format to read each file as the format "
                "it looks like"
            ), None
        readable = [f for f in summary.files if not f.skipped]
        found = "no file" if not summary.files else "no readable file" if not readable else ""
        if found and summary.files and all(f.skipped == NOT_FPDB for f in summary.files):
            found = "no fpdb-3 OFC hands"  # the reason, said above, not "unreadable"
        return OfcError(f"nothing to import: {found or 'no hand'} in the paths given"), None
    what = (
        (
            "the one hand seen was refused"
            if summary.hands_seen == 1
            else f"the {summary.hands_seen:,} hands seen were all refused"
        )
        if summary.hands_seen
        else f"no hand in the paths given; {summary.lines_quarantined:,} refused "
        "(unreadable capture lines or databases, named above)"
    )
    again = (
        "; wrong --format? importing the files again replaces those rows"
        if any(f.refused for f in summary.files)
        else ""
    )
    return OfcError(
        f"nothing stored: {what} (the reasons are above and in the quarantine table{again})"
    ), None


@click.command()
@click.option(
    "--hands",
    type=click.IntRange(1, MAX_SIM_HANDS),
    required=True,
    help="How many hands to write.",
)
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
    type=click.IntRange(2, 10_000),
    default=9,
    show_default=True,
    help="Size of the pool of named bot players (styles in turn).",
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Same seed, same file.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["open", "app-json"]),
    default="open",
    show_default=True,
)
@click.option(
    "--room-errors",
    type=Finite(0, 1),
    default=0.0,
    show_default=True,
    help="Share of hands whose reported results a buggy room corrupts (truth file).",
)
@click.option(
    "--timeouts",
    type=Finite(0, 1),
    default=0.02,
    show_default=True,
    help="Share of streets the room places on a timeout.",
)
@click.option(
    "--stack",
    type=Finite(),
    default=None,
    help="Points each player brings (caps; the open format only: the apps' JSON has none).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    required=True,
    help="The JSON Lines file to write (missing folders are made).",
)
@click.option(
    "--table-prefix",
    "run",
    metavar="NAME",
    default=None,
    help="Name the tables NAME-T0000, NAME-T0001, ... ('' for T0000, ...).  "
    "[default: 8 hex digits from the output file's name and the options: "
    "another file or other options, other tables; the same command, the same file]",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
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
    run: str | None,
    quiet: bool,
) -> None:
    """Bots play whole sessions and write hand histories as the rooms' apps do.

    With a truth file of the room errors planted.  The bots play weaker than
    real players (they reach Fantasyland far less often): test data for the
    pipeline and the audit, not a model of a player pool.
    """
    from ofc_stats.payouts.room_rules import load_room_rules
    from ofc_stats.sim.rooms import write_simulation

    ruleset = _ruleset(rules_name)
    target = out_file(out)
    out_file(f"{out}.truth.jsonl")  # removed with the file if the run fails
    room = load_room_rules(rules_name)  # a ruleset file's [room]: rake, settlement, stacks
    with _progress(quiet, hands, "simulating") as advance:
        summary = write_simulation(
            target,
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
            room=room,
            run=run,
        )
    click.echo(summary.line())
    truth = f" and {out}.truth.jsonl" if summary.corrupted else ""
    click.echo(f"wrote {out}{truth} (tables {summary.tables_text()})")
