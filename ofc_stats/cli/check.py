"""`ofc-stats check [--repair]`: name a dataset's damaged and stray files, repair what can be."""

from __future__ import annotations

from pathlib import Path

import click

from ofc_stats.cli.options import DATA_OPTION, wait_option
from ofc_stats.cli.text import say
from ofc_stats.wording import plural


@click.command("check")
@DATA_OPTION
@click.option(
    "--repair", is_flag=True, help="Set strays and broken batches aside, rebuild the rest."
)
@wait_option()
def check_command(data: str, repair: bool, wait: float) -> None:
    """Read every file of the dataset; name what is damaged or stray and what it holds.

    Exit status 0 when the dataset is whole, 1 when damage is left.
    --repair moves what it cannot rebuild to .damaged/ inside the
    dataset, never deleting it.
    """
    from ofc_stats.store.check import CANNOT_HELP, scan
    from ofc_stats.store.check import repair as repair_dataset

    root = Path(data)
    found, aside = repair_dataset(root, wait_seconds=wait) if repair else (scan(root), None)
    for damage in found:
        say(damage.line(root))
    if not found:
        say(f"{root}: every file read; nothing damaged or stray")
        return
    if not repair:
        repair_it = f"`ofc-stats check --repair --data {root}`"
        helped = sum(not damage.repair.startswith(CANNOT_HELP) for damage in found)
        if not helped:  # (it said "--repair cannot help", then "--repair repairs them")
            say(f"{plural(len(found), 'problem')}; --repair cannot help (said above)")
        elif helped < len(found):
            say(f"{plural(len(found), 'problem')}; {repair_it} repairs {helped} of them")
        else:
            say(f"{plural(len(found), 'problem')}; {repair_it} repairs them")
        raise SystemExit(1)
    if aside is not None:
        say(f"set aside in {aside}")
    left = scan(root)
    for damage in left:
        say(f"left: {damage.line(root)}", err=True)
    if left:
        raise SystemExit(1)
    say(f"repaired {plural(len(found), 'problem')}; the dataset reads whole")
