"""`ofc-stats solve-fantasy`: the exact Fantasyland set for each dealt hand.

Input, JSON Lines: ``{"cards": "As Kd Qh ..."}`` (or a list of card strings).
Output, one line per deal: ``{"top": ..., "middle": ..., "bottom": ...,
"discards": ..., "royalties": N, "stays": bool, "value": X}``.  As with
`score`, a bad line is reported on stderr as ``FILE:LINE: reason``, the other
lines are still solved, and the exit code is 1 at the end.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, BinaryIO

import click

from ofc_stats.cli.options import JSON_OR_TABLE, Input, ruleset_option
from ofc_stats.cli.score_io import InputLines, LineError, LineErrors, json_line
from ofc_stats.cli.text import say, say_lines
from ofc_stats.core.fantasy import FantasySet, check_deal, solve_fantasy
from ofc_stats.engine.cards import format_cards, parse_cards
from ofc_stats.engine.fantasy_value import FantasyValues, documented_stay_value
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import HandError, OfcError


@dataclass(frozen=True)
class Deal:
    line: int
    cards: tuple[int, ...]


def parse_deal(text: str, line: int, ruleset: Ruleset, source: str) -> Deal:
    """One input line as a checked deal; raises OfcError naming ``source:line``."""
    where = f"{source}:{line}"
    data = json_line(text, where)
    value = data.get("cards") if isinstance(data, dict) else None
    if isinstance(value, list) and all(isinstance(card, str) for card in value):
        value = " ".join(value)
    if not isinstance(value, str):
        raise HandError(f'{where}: expected an object with "cards": "As Kd Qh ..."')
    try:
        cards = check_deal(parse_cards(value), ruleset)
    except OfcError as error:
        raise HandError(f"{where}: {error}") from None
    counts = ruleset.fantasy.sizes()
    if len(cards) not in counts:
        if not counts:
            raise HandError(f"{where}: ruleset {ruleset.name} has no Fantasyland")
        deals = ", ".join(str(c) for c in counts[:-1])
        deals = f"{deals} or {counts[-1]}" if deals else str(counts[-1])
        raise HandError(
            f"{where}: {len(cards)} cards; ruleset {ruleset.name} deals {deals} in Fantasyland"
        )
    return Deal(line, cards)


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(float(value), 6)


def set_record(found: FantasySet) -> dict[str, Any]:
    return {
        "top": format_cards(found.top),
        "middle": format_cards(found.middle),
        "bottom": format_cards(found.bottom),
        "discards": format_cards(found.discards),
        "royalties": found.royalties,
        "stays": found.stays,
        "value": _number(found.value),
    }


def format_set(deal: Deal, found: FantasySet, stay_value: float) -> str:
    """A deal's set laid out for a person."""
    lines = [
        f"deal at line {deal.line}: {len(deal.cards)} cards, stay value {_number(stay_value)}",
        f"  top       {format_cards(found.top)}",
        f"  middle    {format_cards(found.middle)}",
        f"  bottom    {format_cards(found.bottom)}",
        f"  discards  {format_cards(found.discards) or '-'}",
        f"  royalties {found.royalties}, stays {'yes' if found.stays else 'no'}, "
        f"value {_number(found.value)}",
    ]
    return "\n".join(lines)


def _stay_value(text: str) -> float | None:
    """``auto`` (None: the documented figure per card count) or points ≥ 0."""
    if text.strip().lower() == "auto":
        return None
    try:
        points = float(text)
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a number of points or 'auto'", param_hint="--stay-value"
        ) from None
    if not points >= 0 or points == float("inf"):
        raise click.BadParameter(
            f"{text!r}: a stay value is a finite number ≥ 0", param_hint="--stay-value"
        )
    return points


def _hands(count: int) -> str:
    return f"{count:,} hand" + ("" if count == 1 else "s")


def _estimate(data: str, ruleset: Ruleset) -> FantasyValues | None:
    """The dataset's Fantasyland values for the ruleset, said on stderr (None: not enough)."""
    from ofc_stats.store.fantasy import dataset_fantasy_values
    from ofc_stats.store.views import open_dataset

    with open_dataset(data) as dataset:
        values = dataset_fantasy_values(dataset, ruleset.name)
    if values is None:
        say(
            f"{data}: too few {ruleset.name} Fantasyland hands to estimate; "
            "using the published figures",
            err=True,
        )
        return None
    figures = ", ".join(
        f"{cards} cards {value:+.2f} ({_hands(values.hands[cards])})"
        for cards, value in sorted(values.value.items())
    )
    say(f"{data}: Fantasyland worth {figures}", err=True)
    return values


@click.command("solve-fantasy")
@click.option(
    "--rules",
    "rules_name",
    default="pineapple-progressive",
    show_default=True,
    metavar="NAME|FILE.toml",
    help="A named ruleset (see `ofc-stats rules`) or a ruleset TOML file.",
)
@click.option(
    "--stay-value",
    "stay_text",
    default="auto",
    show_default=True,
    metavar="POINTS|auto",
    help="Points a Fantasyland repeat is worth; auto: the published figure for the "
    "repeat's card count (0 when the ruleset has no repeat).",
)
@JSON_OR_TABLE
@click.option(
    "--data",
    default=None,
    type=click.Path(file_okay=False),
    help="With --stay-value auto: estimate the value of a repeat from this dataset's "
    "results (falls back to the published figure where the data cannot tell).",
)
@click.argument("source", type=Input(), default="-")
def solve_fantasy_command(
    rules_name: str, stay_text: str, output_format: str, data: str | None, source: BinaryIO
) -> None:
    """The exact Fantasyland set of each deal in JSON Lines (FILE or - for stdin).

    Each line: {"cards": "As Kd Qh ..."} with as many cards as the ruleset
    deals in Fantasyland.  The set maximises royalties + stay value × repeat
    over every set that does not foul; ties go to the strongest bottom, then
    middle, then top.  Bad lines are reported on stderr with their line
    number (the first ten, then a count); the rest are still solved and the
    exit code is 1.  Input that is not UTF-8 text is refused.
    """
    fixed = _stay_value(stay_text)
    if fixed is not None and data is not None:  # --data only estimates what auto would take
        raise click.UsageError(
            f"--data goes with --stay-value auto: it estimates the repeat's value, "
            f"which --stay-value {stay_text} fixes"
        )
    ruleset = ruleset_option(rules_name)
    estimated = _estimate(data, ruleset) if fixed is None and data is not None else None
    name = getattr(source, "name", "-")
    name = "-" if name == "<stdin>" else name
    lines = InputLines(source, name)
    errors = LineErrors()
    first = True
    for number, text in enumerate(lines, start=1):
        if isinstance(text, LineError):
            errors.add(text)
            continue
        if not text.strip():
            continue
        try:
            deal = parse_deal(text, number, ruleset, name)
        except OfcError as error:
            errors.add(LineError(number, str(error)))
            continue
        stay = fixed
        if stay is None and estimated is not None:
            stay = estimated.stay_value(ruleset, len(deal.cards))
        if stay is None:
            stay = documented_stay_value(ruleset, len(deal.cards))
        found = solve_fantasy(deal.cards, ruleset, stay)
        if output_format == "json":
            say(json.dumps(set_record(found), separators=(", ", ": ")))
        else:
            if not first:
                say("")
            say_lines(format_set(deal, found, stay))
        first = False
    if errors.count:
        for line in errors.summary(lines, "solved"):
            say(line, err=True)
        sys.exit(1)
