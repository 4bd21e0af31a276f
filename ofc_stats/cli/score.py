"""The engine's commands: `score`, `rules`, `formats`."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, BinaryIO

import click

from ofc_stats.cli.options import JSON_OR_TABLE, Input
from ofc_stats.cli.options import ruleset_option as _ruleset
from ofc_stats.cli.score_io import (
    HandInput,
    InputLines,
    LineError,
    LineErrors,
    format_table,
    score_lines,
    score_stream,
)
from ofc_stats.cli.text import say, say_lines
from ofc_stats.core.scoring import BatchResult
from ofc_stats.engine.board import ROWS
from ofc_stats.engine.presets import ALIASES, PRESETS
from ofc_stats.engine.rules import Scoring


@click.command()
@click.option(
    "--rules",
    "rules_name",
    default="pineapple",
    show_default=True,
    metavar="NAME|FILE.toml",
    help="A named ruleset (see `ofc-stats rules`) or a ruleset TOML file.",
)
@JSON_OR_TABLE
@click.argument("source", type=Input(), default="-")
def score(rules_name: str, output_format: str, source: BinaryIO) -> None:
    """Score finished hands from JSON Lines (FILE or - for stdin).

    Each line: {"boards": [{"top": "Qs Qd 5c", "middle": "...", "bottom": "..."}, ...],
    "stacks": [50, 50], "in_fantasy": [false, true]}.  Seats are in order of
    action, the button last.  Bad lines are reported on stderr with their line
    number (the first ten, then a count); the rest are still scored and the
    exit code is 1.  Input that is not UTF-8 text is refused.
    """
    ruleset = _ruleset(rules_name)
    name = getattr(source, "name", "-")
    name = "-" if name == "<stdin>" else name
    lines = InputLines(source, name)
    errors = LineErrors()
    if output_format == "json":  # from arrays to text, chunk by chunk
        _echo_json(score_lines(lines, ruleset, name), errors)
    else:
        _echo_tables(score_stream(lines, ruleset, name), errors)
    if errors.count:
        for line in errors.summary(lines, "scored"):
            say(line, err=True)
        sys.exit(1)


def _echo_tables(
    items: Iterable[tuple[HandInput, dict[str, Any], BatchResult, int] | LineError],
    errors: LineErrors,
) -> None:
    first = True
    for item in items:
        if isinstance(item, LineError):
            errors.add(item)
            continue
        if not first:
            say("")
        say_lines(format_table(*item))
        first = False


def _echo_json(items: Iterable[str | LineError], errors: LineErrors) -> None:
    """Write result lines in blocks (one write per run of lines), errors as they come."""
    block: list[str] = []
    for item in items:
        if isinstance(item, LineError):
            if block:
                say_lines("\n".join(block))
                block = []
            errors.add(item)
            continue
        block.append(item)
        if len(block) >= 4096:
            say_lines("\n".join(block))
            block = []
    if block:
        say_lines("\n".join(block))


@click.command()
def formats() -> None:
    """List the hand-history formats `import` reads."""
    from parsers.registry import REGISTRY

    for name, parser in sorted(REGISTRY.items()):
        say(f"{name.ljust(10)}  {parser.description}")


@click.command()
@click.argument("name", required=False, metavar="[NAME|FILE.toml]")
def rules(name: str | None) -> None:
    """List the named rulesets, or show every option of one."""
    if name is None:
        width = max(len(n) for n in PRESETS)
        for preset in PRESETS.values():
            say(f"{preset.name.ljust(width)}  {preset.summary()}")
        aliases = ", ".join(f"{alias}={target}" for alias, target in sorted(ALIASES.items()))
        say_lines(f"\naliases: {aliases}")
        return
    ruleset = _ruleset(name, param_hint=None)  # an argument, not --rules
    fl = ruleset.fantasy
    say(f"name: {ruleset.name}")
    if ruleset.description:
        say(f"description: {ruleset.description}")
    for option in ("variant", "deck", "scoring", "foul_policy"):
        say(f"{option}: {getattr(ruleset, option)}")
    if ruleset.scoring is Scoring.TWO_FOUR:  # the only scoring that pays a majority bonus
        say(f"majority_bonus: {ruleset.majority_bonus}")
    say(f"stack_cap: {str(ruleset.stack_cap).lower()}")
    say(f"max_loss: {ruleset.max_loss if ruleset.max_loss is not None else 'none'}")
    say(f"button_moves_on_fantasy: {str(ruleset.button_moves_on_fantasy).lower()}")
    say(f"royalties: {ruleset.royalties.name}")
    for row in ROWS:
        table = getattr(ruleset.royalties, row)
        say(f"  {row}: " + ", ".join(f"{k}={v}" for k, v in table.items()))
    say(f"fantasy: {fl.mode}")
    say("  entry_cards: " + (", ".join(f"{k}={v}" for k, v in fl.entry_cards.items()) or "-"))
    if fl.repeat is None:
        say("  repeat: none")
    else:
        rule = fl.repeat
        say(
            f"  repeat: top={rule.top or '-'} middle={rule.middle or '-'} "
            f"bottom={rule.bottom or '-'} combine={rule.combine}"
        )
        cards = "entry" if fl.repeat_cards is None else fl.repeat_cards
        say(f"  repeat_cards: {cards}")
