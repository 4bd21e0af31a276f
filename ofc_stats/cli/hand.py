"""`ofc-stats hand KEY`: one hand, every seat street by street, as text, JSON or a page."""

from __future__ import annotations

from typing import Any

import click

from ofc_stats.cli.options import DATA_OPTION, out_file, replace_text
from ofc_stats.cli.text import echo_data, json_text, say, terminal_safe
from ofc_stats.wording import signed

ROWS = ("top", "middle", "bottom")


def _signed(value: float | None) -> str:
    """Points or money with their sign; nothing rounds to "-0", whole numbers without cents.

    >>> _signed(-0.0), _signed(-0.001), _signed(1234.5), _signed(-3.0)
    ('0', '0', '+1,234.50', '-3')
    """
    if value is None:
        return "–"
    text = signed(value, 2)
    return text[: -len(".00")] if text.endswith(".00") else text


def _money(value: float, currency: str | None) -> str:
    """Money as the report and the audit write it: its sign, cents and currency.

    >>> _money(-8.2, "USD"), _money(12.0, None), _money(-0.001, "INR")
    ('-8.20 USD', '+12.00', '0.00 INR')
    """
    text = signed(value, 2)
    return f"{text} {currency}" if currency else text


def _close_call(grade: dict[str, Any]) -> list[str]:
    """The play the rollouts measured highest above the one made, within their noise.

    >>> _close_call({"candidates": [
    ...     {"play": "middle 5h 2d", "ev": 17.76, "chosen": False, "above_best": True},
    ...     {"play": "middle 5h 7h", "ev": 11.23, "chosen": True, "above_best": False}]})
    ['    close call: middle 5h 2d measured +6.53 above it, within the noise']
    """
    made = [c["ev"] for c in grade.get("candidates") or () if c["chosen"]]
    above = [c for c in grade.get("candidates") or () if c.get("above_best")]
    if not made or made[0] is None or not above:
        return []
    top = max(above, key=lambda c: c["ev"])
    gap = top["ev"] - made[0]
    return [f"    close call: {top['play']} measured {gap:+.2f} above it, within the noise"]


def _candidates(grade: dict[str, Any]) -> list[str]:
    """A charged street's plays as the rollouts measured them, highest first (every one they
    valued: the race's finalists and those it left behind), the play made and the best marked.

    >>> for line in _candidates({"candidates": [
    ...     {"play": "middle 6c 4c | discard 9s", "ev": 3.29, "se": 1.1, "chosen": False,
    ...      "best": False, "above_best": True},
    ...     {"play": "top 6c 9s | discard 4c", "ev": -1.58, "se": 0.9, "chosen": False,
    ...      "best": True, "above_best": False},
    ...     {"play": "top 6c 4c | discard 9s", "ev": -16.67, "se": 0.8, "chosen": True,
    ...      "best": False, "above_best": False}]}):
    ...     print(line)
         +3.29 ± 1.10  middle 6c 4c | discard 9s  (above the best, within the noise)
         -1.58 ± 0.90  top 6c 9s | discard 4c  (best)
        -16.67 ± 0.80  top 6c 4c | discard 9s  (played)
    """
    lines = []
    for c in grade.get("candidates") or ():
        if c["ev"] is None:
            continue
        marks = [m for m, on in (("played", c["chosen"]), ("best", c["best"])) if on]
        if c.get("above_best"):
            marks.append("above the best, within the noise")
        value = f"{signed(c['ev'], 2)} ± {c['se'] or 0.0:.2f}"
        tail = f"  ({', '.join(marks)})" if marks else ""
        lines.append(f"    {value:>13}  {c['play']}{tail}")
    return lines


LEDGER_SQL = """
SELECT seat, money_rules, rules, rules_source, out_of_sample FROM ledger
WHERE hand_key = $k ORDER BY seat
"""


def money_rules(dataset: Any, key: str) -> dict[str, Any] | None:
    """What the room's money rules pay each seat of hand ``key`` (the ledger the import
    priced): the rules in words, where they come from, and each seat's money; None where
    the room paid no money in this hand."""
    rows = dataset.sql(LEDGER_SQL, {"k": key}).fetchall()
    if not rows:
        return None
    _, _, rules, source, holds = rows[0]
    return {
        "rules": rules,
        "source": source,
        "out_of_sample": holds,
        "seats": {seat: money for seat, money, *_ in rows},
    }


def _money_lines(hand: dict[str, Any], seat: dict[str, Any]) -> list[str]:
    """The seat's money: what the room paid, what the rules pay, and why a loser paid less
    than its points at the stakes (a short stack, where the rules settle short stacks).

    >>> hand = {"currency": "PHP", "stakes": 20.0, "money_rules": {"rules":
    ...     "3.00% of the winnings; short stacks: winners paid in order of action",
    ...     "seats": {0: -430.0}}}
    >>> seat = {"seat": 0, "reported_money": -430.0, "net_capped": -27.0}
    >>> for line in _money_lines(hand, seat):
    ...     print(line)
      money -430.00 PHP (room), -430.00 PHP by the rules
        27 points at 20 a point are 540.00 PHP: a short stack pays what it has
    """
    paid, currency = seat["reported_money"], hand["currency"]
    if paid is None:
        return []
    ledger = hand.get("money_rules") or {"seats": {}, "rules": ""}
    rules = ledger["seats"].get(seat["seat"])
    line = f"  money {_money(paid, currency)} (room)"
    if rules is None:
        return [line + ("" if seat["seat"] not in ledger["seats"] else "; not priced")]
    lines = [line + f", {_money(rules, currency)} by the rules"]
    points, stakes = seat["net_capped"], hand["stakes"]
    owed = None if points is None or stakes is None else -points * stakes
    if (
        owed is not None
        and rules < 0
        and -rules < owed - 0.005
        and "short stacks" in (ledger["rules"] or "")
    ):
        lines.append(
            f"    {-points:g} points at {stakes:g} a point are "
            f"{_money(owed, currency).lstrip('+')}: a short stack pays what it has"
        )
    return lines


def hand_text(hand: dict[str, Any]) -> str:
    """The hand for a terminal: streets numbered 1-5, then final boards and points."""
    where = [
        hand["room"],
        f"table {hand['table']}" if hand["table"] else "",
        hand["played_at"] or "",
        hand["ruleset"],
        f"{hand['stakes']:g} {hand['currency'] or ''} a point".replace("  ", " ")
        if hand["stakes"] is not None
        else "",
    ]
    lines = [
        f"hand {hand['key']}"
        + (f" (room id {hand['room_hand_id']})" if hand["room_hand_id"] else ""),
        " · ".join(str(w) for w in where if w),
    ]
    ledger = hand.get("money_rules")
    if ledger and ledger["rules"]:
        source, checked = ledger["source"], ledger["out_of_sample"] or ""
        if checked in ("holds", "does not hold"):  # checked on the hands held out of the fit
            source += f"; {checked} on hands held out"
        lines.append(f"money rules ({source}): {ledger['rules']}")
    for seat in hand["seats"]:
        tags = [t for t, on in (("hero", seat["hero"]), ("Fantasyland", seat["in_fantasy"])) if on]
        lines += [
            "",
            f"seat {seat['seat']}: {seat['player']}" + (f" ({', '.join(tags)})" if tags else ""),
        ]
        if not seat["streets"]:
            lines.append("  streets: unknown (final board only)")
        for street in seat["streets"]:
            placed = ", ".join(f"{row} {' '.join(street[row])}" for row in ROWS if street[row])
            dropped = f"; discards {' '.join(street['discards'])}" if street["discards"] else ""
            lines.append(f"  street {street['street']}: {placed or '-'}{dropped}")
            grade = street.get("grade")
            if grade and grade["loss"] is not None and grade["loss"] <= 0:
                # A race within 2 SE keeps the play made: no loss, not a proof of the best.
                lines.append("    no expected loss: the best play, or within 2 SE of it")
                lines += _close_call(grade)
            elif grade and grade["loss"] is not None:
                se = grade["loss_se"] or 0.0
                lines.append(
                    f"    expected loss {grade['loss']:.2f} ± {se:.2f}; best: {grade['best']}"
                )
                lines += _candidates(grade)
        for row in ROWS:
            name = seat["names"][row] or ""
            lines.append(f"  {row:<6} {' '.join(seat['rows'][row]):<15} {name}".rstrip())
        royalties = seat["royalties"]
        if seat["fouled"]:
            lines.append("  fouled: no royalties")
        elif royalties["total"] is not None:
            lines.append(
                f"  royalties {royalties['total']} (top {royalties['top']}, "
                f"middle {royalties['middle']}, bottom {royalties['bottom']})"
            )
        points = f"  points {_signed(seat['net_capped'])} (engine)"
        if seat["reported_points"] is not None:
            points += f", {_signed(seat['reported_points'])} (room)"
        lines.append(points)
        lines += _money_lines(hand, seat)
        if seat["versus"]:
            lines.append(
                "  against "
                + ", ".join(f"seat {o}: {_signed(p)}" for o, p in seat["versus"].items())
            )
        if seat["fantasy_entry"]:
            lines.append(f"  earns Fantasyland ({seat['fantasy_entry']} cards)")
        if seat["fantasy_stays"]:
            lines.append("  stays in Fantasyland")
    if "audit" in hand:  # what the audit finds in this hand (ofc_stats.audit.hand_findings)
        lines += ["", "audit:"]
        lines += [f"  {line}" for line in hand["audit"]] or ["  nothing found in this hand"]
    return "\n".join(terminal_safe(line) for line in lines)


CHOICES_SQL = """
SELECT hand_key, format, room, table_id, strftime(played_at, '%Y-%m-%d %H:%M:%S') AS played_at
FROM hands WHERE room_hand_id = $k AND NOT EXISTS (SELECT 1 FROM hands WHERE hand_key = $k)
ORDER BY played_at, hand_key LIMIT 11
"""
SHOWN_CHOICES = 10


def _refuse_a_shared_id(dataset: Any, key: str) -> None:
    """A room's hand id that names several hands: say what tells them apart, list each."""
    from ofc_stats.errors import UnknownHand

    rows = dataset.sql(CHOICES_SQL, {"k": key}).fetchall()
    if len(rows) < 2:
        return
    fields = ("format", "room", "table", "played at")
    shared = [
        f"{name} {rows[0][i + 1]}"
        for i, name in enumerate(fields)
        if len({row[i + 1] for row in rows}) == 1
    ]
    differ = [name for i, name in enumerate(fields) if len({row[i + 1] for row in rows}) > 1]
    where = f" ({', '.join(shared)})" if shared else ""
    apart = f"; they differ in {' and '.join(differ)}" if differ else ""
    choices = []
    for hand_key, *values in rows[:SHOWN_CHOICES]:
        told = ", ".join(f"{name} {values[i]}" for i, name in enumerate(fields) if name in differ)
        choices.append(f"{hand_key}" + (f"  ({told})" if told else ""))
    raise UnknownHand(
        f"hand id {key!r} names {len(rows) if len(rows) <= SHOWN_CHOICES else 'more than 10'}"
        f" hands{where}{apart}; give one hand_key:",
        choices=tuple(choices),
    )


@click.command("hand")
@click.argument("key")
@DATA_OPTION
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "html"]),
    default="table",
    show_default=True,
    help="Text, one JSON object, or a page with the hand replayer.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write to this file, not stdout (missing folders are made).",
)
def hand_command(key: str, data: str, output_format: str, out: str | None) -> None:
    """Show one hand (its hand_key, or the room's hand id): streets, boards, points, the
    grades where `ofc-stats grade` ran (each street's expected loss; where a loss is
    charged, the best play and every play's value as the rollouts measured it; the page and
    JSON carry them for every street), and what the audit finds
    in it (points or money the room reported otherwise than the rules, Fantasyland dealt
    otherwise, recorded timeouts)."""
    from ofc_stats.audit.hand_findings import hand_findings
    from ofc_stats.store.views import open_dataset
    from reports.html import hand_page
    from reports.replay import EVERY_CANDIDATE, find_hand

    with open_dataset(data) as dataset:
        _refuse_a_shared_id(dataset, key)
        hand = find_hand(dataset, key, top=EVERY_CANDIDATE)
        hand["money_rules"] = money_rules(dataset, hand["key"])
        hand["audit"] = [finding.line() for finding in hand_findings(dataset, hand["key"])]
    if output_format == "json":
        text = json_text(hand, indent=2)
    elif output_format == "html":
        text = hand_page(hand)
    else:
        text = hand_text(hand)
    if out is None:
        echo_data(text)
    else:
        replace_text(out_file(out), text + "\n")  # whole or not at all, as report's page
        say(f"hand {hand['key']}: {out}")
