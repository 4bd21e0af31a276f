"""One-line explanations of audit mismatches, for a person to check by hand.

They run once per mismatching seat (never per hand of the dataset) and name
the rows, the hands made and the rule that decides, e.g. "pair of Qs on top
pays 7 under pineapple-progressive; the room's points match 0 (american
table)".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ofc_stats.audit.money import Rake
from ofc_stats.core.tables import tables
from ofc_stats.engine.board import ROWS
from ofc_stats.payouts.settle import Settlement, kind_text
from ofc_stats.wording import plural


def describe_rows(top: int, middle: int, bottom: int) -> tuple[str, str, str]:
    """What each row made, from the dense row classes."""
    t = tables()
    return t.rank3[top].describe(), t.rank5[middle].describe(), t.rank5[bottom].describe()


def _rows(seat: Mapping[Any, Any]) -> tuple[str, str, str]:
    return describe_rows(
        int(seat["top_class"]), int(seat["middle_class"]), int(seat["bottom_class"])
    )


def signed(value: float) -> str:
    """Points as people write them: +7, -12, 0."""
    return f"{value:+g}" if value else "0"


def points_text(seat: Mapping[Any, Any], cause: str) -> str:
    room, ours = float(seat["reported_points"]), float(seat["net_capped"])
    apart = plural(abs(room - ours), "point")
    text = f"room {signed(room)}, recomputed {signed(ours)} ({apart} apart)"
    if cause == "sign flipped":
        return text + "; every seat's points have the opposite sign"
    if cause == "caps not applied":
        return text + f"; the room paid the uncapped {signed(float(seat['net']))}"
    return text + "; no single rule change explains it"


def royalty_text(seat: Mapping[Any, Any], alt: Mapping[Any, Any], table: str) -> str:
    names = _rows(seat)
    parts = []
    for row, name in zip(ROWS, names, strict=True):
        ours, theirs = int(seat[f"royalty_{row}"]), int(alt[f"royalty_{row}"])
        if ours != theirs:
            parts.append(
                f"{name} on {row} pays {ours} under {seat['scored_with']}; room paid {theirs}"
            )
    rows = "; ".join(parts) or "royalties differ on an opponent's board"
    return f"{rows} (the room's points match the {table})"


def foul_text(seat: Mapping[Any, Any]) -> str:
    top, middle, bottom = _rows(seat)
    if bool(seat["fouled"]):
        return (
            f"board fouls (top {top}, middle {middle}, bottom {bottom}): it scores as a "
            "scoop for every live opponent and no royalties; the room scored it as live"
        )
    return (
        f"board is live (top {top}, middle {middle}, bottom {bottom}); the room scored it as fouled"
    )


def fantasy_text(kind: str, row: Mapping[Any, Any]) -> str:
    previous = str(row["hand_key"])
    top = row.get("top_description") or "its top row"
    rules_cards = _count(row["rules_cards"])
    room_cards = _count(row["room_cards"])
    if kind == "fantasy_entry":
        if rules_cards:
            return (
                f"{top} on top in {previous} earns {rules_cards} cards of Fantasyland under "
                f"{row['ruleset']}; the room dealt a normal hand"
            )
        fouled = " (a fouled board)" if bool(row["fouled"]) else ""
        return (
            f"dealt Fantasyland, but {previous}'s board{fouled} with {top} on top earns none "
            f"under {row['ruleset']}"
        )
    if kind == "repeat":
        if rules_cards:
            return (
                f"the Fantasyland board of {previous} meets the repeat condition of "
                f"{row['ruleset']} ({rules_cards} cards); the room ended Fantasyland"
            )
        return (
            f"the Fantasyland board of {previous} does not meet the repeat condition of "
            f"{row['ruleset']}; the room dealt Fantasyland again"
        )
    what = "repeat" if bool(row["in_fantasy"]) else f"{top} on top"
    return (
        f"{what} in {previous} gives {rules_cards} cards under {row['ruleset']}; "
        f"the room dealt {room_cards}"
    )


def unchecked_text(row: Mapping[Any, Any]) -> str:
    """Why a Fantasyland decision cannot be checked: the room had no hand, or the files
    do not show the one it dealt."""
    previous, following = str(row["hand_key"]), str(row["next_hand_key"])
    if row["next_link"] == "gap":
        return (
            f"after {previous} the table's hand numbers skip to {following}: the hand the "
            "room dealt next is missing from the files, so its Fantasyland cannot be checked"
        )
    return (
        f"{row['player']} sat out the table's next hand after {previous} and came back in "
        f"{following}: the room had no hand of his to deal Fantasyland in, not checkable"
    )


def _count(value: Any) -> int:
    """A card count from a nullable column; unknown counts as 0."""
    try:
        return 0 if value is None or value != value else int(value)
    except (TypeError, ValueError):
        return 0


def money_text(row: Mapping[Any, Any], rake: Rake, settlement: Settlement | None = None) -> str:
    """A money row in words, naming the rake and settlement it is judged by, where they
    come from (inferred from the same hands, or a rules file) and how much of the room
    they explain, so "room wrong" reads apart from "inference uncertain"."""
    owed = float(row["owed"])
    money = float(row["reported_money"])
    expected = float(row["expected_money"])
    unit = _unit(row)
    points = plural(abs(float(row["net_capped"])), "point")
    stakes = _stakes(row)
    if owed < 0:  # amounts a loser gives up, written without a sign: "lost 5 points"
        if bool(row["short_paid"]):
            return (
                f"lost {points} × {stakes:g} = {-owed:g}{unit}; "
                f"the room took only {-money:g}{unit} (a short stack?)"
            )
        taken = f"charged {-money:g}{unit}" if money <= 0 else f"paid him {money:g}{unit}"
        return f"lost {-owed:g}{unit} by points × stakes; the room {taken}"
    won = f"{'won' if owed else 'scored'} {points} × {stakes:g} = {owed:g}{unit}"
    rule = (
        f"the rake rule {rake.source} ({rake.room}: {rake.rule()}; it {rake.support()}) "
        f"leaves {expected:g}{unit}"
    )
    if bool(row.get("short", False)):
        kind = kind_text(str(row.get("settlement", "proportional")))
        how = f"{settlement.source}: {kind}; it {settlement.support()}" if settlement else kind
        return (
            f"{won}, but a loser was short; by the settlement ({how}) this seat gets "
            f"{float(row['gross']):g}{unit}, and {rule}; {_paid(money, unit)}"
        )
    return f"{won}; {rule}; {_paid(money, unit)}{_kept(row, rake, unit)}"


def _unit(row: Mapping[Any, Any]) -> str:
    """The currency after an amount (" USD"), or nothing for a hand with none."""
    currency = row.get("currency") or ""
    return f" {currency}" if isinstance(currency, str) and currency else ""


def _paid(money: float, unit: str) -> str:
    """What the room did with the seat's money, without a sign on top of the verb."""
    return f"the room charged {-money:g}{unit}" if money < 0 else f"the room paid {money:g}{unit}"


def _stakes(row: Mapping[Any, Any]) -> float:
    """The hand's stakes; a hand with none is money at 1 per point, as the money check reads it."""
    stakes = row.get("stakes")
    return 1.0 if stakes is None or stakes != stakes else float(stakes)


def _kept(row: Mapping[Any, Any], rake: Rake, unit: str) -> str:
    """What the room kept of a winner's money, and whether the rule was ever seen to hold
    at this size or the room's rake is the rule's rate unrounded."""
    gross, money = float(row.get("gross", row["owed"])), float(row["reported_money"])
    kept = gross - money
    if kept < 0:
        return f", {-kept:g}{unit} more than the winnings"
    text = f", keeping {kept:g}{unit} ({kept / gross:.2%} of the winnings)" if gross else ""
    if rake.rate and abs(kept - gross * rake.rate) <= 0.011 and gross:
        return text + f": the rule's rate unrounded (the rule rounds {rake.mode} to {rake.tick:g})"
    if rake.rate and gross > rake.largest + 0.011:
        return text + (
            f"; the rule is untested at this size: the largest winning seat it explains "
            f"is {rake.largest:g}{unit}"
        )
    return text


def follows_text(row: Mapping[Any, Any], rake: Rake) -> str:
    """A seat paid exactly the money of the points the room reported for it: the money
    follows the hand's points row, no separate error (and no short stack to guess)."""
    unit = _unit(row)
    own, expected = float(row["own_money"]), float(row["expected_money"])
    verb = "charged" if own < 0 else "paid"
    after = " after the rake" if own > 0 and rake.rate else ""
    text = (
        f"the room {verb} this seat by the points it reported: "
        f"{signed(float(row['reported_points']))} × {_stakes(row):g} = {abs(own):g}{unit}"
        f"{after}, exactly what it {verb}; the rules give "
        f"{signed(float(row['net_capped']))} points"
    )
    if float(row["owed"]) > 0 and bool(row.get("short", False)):
        text += (
            f" and, as a loser paid the room's points rather than the rules', a short "
            f"stack's settlement of {expected:g}{unit}"
        )
    else:
        text += f", {expected:+g}{unit}"  # signed: the rules' charge reads -14, not 14
    return text + ": the money follows this hand's points row, not a separate money error"
