"""`ofc-stats audit`: the room's reported results against the rules.

Exit status: 0 when the audit ran (whatever it found), 1 on an input error
(the one OfcError handler of ``main``; an unknown ``--player`` is one, naming the
closest players), 2 on a usage error (click), and 3
with ``--fail-on-mismatch`` when any hand differs from the rules.
"""

from __future__ import annotations

import io
import os
import sys
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ofc_stats.audit.rules_book import RulesBook

from ofc_stats.cli.options import (
    DATA_OPTION,
    Finite,
    out_file,
    out_folder,
    refuse_empty_rules,
)
from ofc_stats.cli.text import echo_data, say
from ofc_stats.wording import plural

MISMATCH_EXIT = 3
LEDGER_STAGE = "pricing the ledger"  # the bar's last stage, after the audit's own


def _rules_book(value: str) -> RulesBook:
    from ofc_stats.audit.rules_book import RulesBook
    from ofc_stats.errors import OfcError

    try:
        book = RulesBook.load(value)
        for entry in book.entries:  # a file given, or each of a folder's: none empty
            refuse_empty_rules(entry.source)
    except OfcError as error:  # a bad option value: a usage error, as ruleset_option's
        raise click.BadParameter(str(error), param_hint="--rules") from None
    except OSError as error:  # a name no file can have (too long): a bad value too
        raise click.BadParameter(
            f"{value}: {error.strerror or error}", param_hint="--rules"
        ) from None
    return book


OUT_SUFFIXES = (".csv", ".parquet")


def _check_out(out: str) -> None:
    """Refuse an --out the mismatches cannot be written to before any work: a folder (one
    that exists, or a name ending in a slash) or a file that is not .csv or .parquet."""
    if out.endswith(("/", os.sep)) or Path(out).is_dir():
        raise click.FileError(
            out, hint="that is a folder; give a file name ending .csv or .parquet"
        )
    if Path(out).suffix.lower() not in OUT_SUFFIXES:
        raise click.BadParameter(
            f"{out}: write the mismatches as .csv or .parquet (or - for CSV on stdout)",
            param_hint="--out",
        )


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 128 * 1024  # its default, before any block is freed


def _fixed_mmap_threshold() -> None:
    """Have glibc map every large block, and unmap it when freed, for the whole run.

    Its threshold rises with each mapped block freed (up to 32 MB), after which blocks
    that size come from the heap, which keeps what they leave behind: ``--guess-rules``
    scores batches and shares again and again, and its resting memory grew by 60 MB over
    the named rulesets at 100,000 hands (none at 30,000); fixed, it stays flat.  Not
    glibc (no ``mallopt``): nothing to do.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    except (OSError, AttributeError):
        pass


def _say(line: str, to_stderr: bool) -> None:
    say(line, err=to_stderr)


@click.command("audit")
@DATA_OPTION
@click.option(
    "--rules",
    "rules_name",
    default=None,
    metavar="NAME|FILE.toml|ROOM=FILE.toml|DIR",
    help=(
        "Audit against this ruleset, file, or folder of files (as --write-rules writes "
        "them): a file naming its room and rule string audits those hands only; its "
        "[room] table also fixes that room's rake and settlement (ROOM=FILE.toml gives it a room)."
    ),
)
@click.option(
    "--out",
    default=None,
    metavar="FILE|-",
    help="Write one row per mismatch (.parquet or .csv; - writes CSV to stdout).",
)
@click.option(
    "--guess-rules",
    is_flag=True,
    help="Infer each room's rules option by option, and rank the named rulesets.",
)
@click.option(
    "--write-rules",
    "write_rules",
    default=None,
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="With --guess-rules: write one ruleset TOML per room and rule string into DIR.",
)
@click.option(
    "--player",
    "players",
    multiple=True,
    metavar="NAME",
    help=(
        "Print the ledger of this player (name, player id, or hero) instead of the room "
        "audit; repeatable (with --out, the audit's rows are still written)."
    ),
)
@click.option(
    "--alias",
    default=None,
    metavar="LABEL",
    help="With several --player: sum them as one person's aliases under LABEL.",
)
@click.option(
    "--all-fields",
    is_flag=True,
    help="Compare every field hand by hand, even one the data shows is not what it is named.",
)
@click.option(
    "--fail-on-mismatch",
    is_flag=True,
    help=f"Exit with status {MISMATCH_EXIT} when any hand differs from the rules.",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--max-gap",
    type=Finite(),
    default=15.0,
    show_default=True,
    help="Minutes between hands beyond which Fantasyland is not traced.",
)
def audit_command(
    data: str,
    rules_name: str | None,
    out: str | None,
    guess_rules: bool,
    write_rules: str | None,
    players: tuple[str, ...],
    alias: str | None,
    all_fields: bool,
    fail_on_mismatch: bool,
    quiet: bool,
    max_gap: float,
) -> None:
    """Compare the room's reported results with the rules; explain every difference."""
    from ofc_stats.audit.infer import INFER_STEPS, infer_rules
    from ofc_stats.audit.ledger import HERO, ledger, ledger_lines, store_priced
    from ofc_stats.audit.money import RoomMoney
    from ofc_stats.audit.output import write_mismatches
    from ofc_stats.audit.points import AUDIT_STAGES, audit
    from ofc_stats.audit.rules_book import book_results
    from ofc_stats.audit.rules_file import guess_lines, write_rule_files
    from ofc_stats.cli.options import progress_bar, stage_bar
    from ofc_stats.store.views import open_dataset
    from reports.filters import choose_player

    if write_rules and not guess_rules:
        raise click.UsageError("--write-rules needs --guess-rules")
    # Arrow's default pool (mimalloc) keeps what an audit's shares freed, about 50 MB more
    # at 100,000 hands than at 30,000 even after each share gives memory back; jemalloc
    # returns it (bench/audit_memory.py), at no measurable CPU cost
    import pyarrow

    with suppress(NotImplementedError):  # a build without jemalloc keeps its own
        pyarrow.set_memory_pool(pyarrow.jemalloc_memory_pool())
    if alias is not None and not players:
        raise click.UsageError("--alias LABEL goes with --player: it names their sum")
    if out and out != "-":
        _check_out(out)
        out_file(out)  # checked (and its folder made) before the audit runs
    if write_rules:
        out_folder(write_rules)
    book = _rules_book(rules_name) if rules_name else None
    # One file or preset for every hand: the ruleset override; else each hand its entry.
    whole = book is not None and len(book.entries) == 1 and book.entries[0].room is None
    ruleset = book.entries[0].ruleset if book is not None and whole else None
    room_rules = book.entries[0].money if book is not None and whole else None
    money_rules = room_rules if book is None or whole else book.money_for
    # The file each room's given money rules come from: the stored ledger names it.
    files = None
    if book is not None:
        files = (lambda room: book.entries[0].source) if whole else book.money_file
    to_stderr = out == "-"
    with open_dataset(data) as dataset:
        unnamed = book.unnamed_money() if book is not None else None
        if unnamed is not None:
            rooms = dataset.df(
                "SELECT DISTINCT room FROM hands WHERE hand_key IN "
                "(SELECT hand_key FROM seats WHERE reported_money IS NOT NULL) ORDER BY room"
            )["room"].tolist()
            if len(rooms) > 1:
                raise click.BadParameter(
                    f"{unnamed.source}: its [room] table (rake, settlement) names no room and "
                    f"these hands are of {len(rooms)} rooms ({', '.join(map(str, rooms))}): "
                    f'name it (room = "…") or give --rules ROOM={unnamed.source}',
                    param_hint="--rules",
                )
        for name in players:  # an unknown name fails first, as `report --player` does
            if name != HERO:
                choose_player(dataset, name)
        if guess_rules:
            _fixed_mmap_threshold()
            with progress_bar(quiet, INFER_STEPS, "inferring rules") as advance:
                inferred = infer_rules(dataset, max_gap_minutes=max_gap, progress=advance)
            for line in guess_lines(inferred):
                _say(line, to_stderr)
            if write_rules:
                for path in write_rule_files(inferred, Path(write_rules)):
                    _say(f"wrote {path}", to_stderr)
            return
        # A ledger is read on its own (its money rules inferred or given as the audit's);
        # the whole room audit runs only when its rows are asked for or decide the exit.
        report = None
        if not players or out or fail_on_mismatch:
            with stage_bar(quiet, (*AUDIT_STAGES, LEDGER_STAGE), "auditing") as begin:
                report = audit(
                    dataset,
                    ruleset=ruleset,
                    max_gap_minutes=max_gap,
                    all_fields=all_fields,
                    room_rules=room_rules,
                    book=None if whole else book,
                    stage=begin,
                )
                # The dataset's ledger priced by the money rules this audit judged by,
                # batch by batch (the whole ledger of a big dataset was the audit's peak).
                begin(LEDGER_STAGE)
                if report.money is not None:
                    money = RoomMoney(report.money, report.rakes, report.settlements)
                    store_priced(dataset, money, report.holdouts, files=files)
        accounts = None
        if players:
            with ExitStack() as scope:
                scored = dataset
                if book is not None:  # the ledger's money by the same rules as the audit's
                    scored = scope.enter_context(dataset.rescored(book_results(dataset, book)))
                accounts = ledger(scored, players, alias=alias, rules=money_rules, files=files)
    if report is not None and out == "-":
        # through the text module: escaped at a terminal, and flushed while a closed
        # pipe is still the command's to report (not at the interpreter's exit)
        rows_csv = io.StringIO()
        write_mismatches(report, out, rows_csv)
        echo_data(rows_csv.getvalue(), nl=False)
    elif report is not None and out:
        write_mismatches(report, out)
    if report is not None and not players:
        for line in report.lines():
            _say(line, to_stderr)
    if accounts is not None:
        for line in ledger_lines(accounts, rules_given=book is not None):
            _say(line, to_stderr)
    if report is None:
        return
    mismatches = len(report.mismatches)
    if out:
        rows = plural(mismatches, "mismatch row")
        _say(f"{rows} written to {'stdout' if to_stderr else out}", True)
    elif mismatches:
        rows = plural(mismatches, "mismatch row")
        _say(f"{rows}; --out FILE.csv writes them with explanations", False)
    if fail_on_mismatch and mismatches:
        sys.exit(MISMATCH_EXIT)
