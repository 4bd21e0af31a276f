"""`ofc-stats forget FILE|BATCH`: take back what one import stored."""

from __future__ import annotations

import click

from ofc_stats.cli.options import DATA_OPTION, wait_option
from ofc_stats.cli.text import say


@click.command("forget")
@click.argument("targets", nargs=-1, required=True, metavar="FILE|BATCH...")
@DATA_OPTION
@wait_option()
def forget_command(targets: tuple[str, ...], data: str, wait: float) -> None:
    """Remove a file's (or a batch's) hands, quarantine entries and import records.

    Every row about those hands goes with them (scores, grades, the audit's money
    ledger); an import record is the file's row of `files`.  The dataset
    afterwards is the one that never imported it, so importing the file again
    reads it anew (with another --format, say).
    """
    from ofc_stats.store.forget import forget

    for target in targets:
        for line in forget(data, target, wait_seconds=wait).lines():
            say(line)
