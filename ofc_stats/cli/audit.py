"""`ofc-stats audit`: the room's reported results against the rules."""

from __future__ import annotations

import click

from ofc_stats.cli.options import DATA_OPTION, ruleset_option


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
