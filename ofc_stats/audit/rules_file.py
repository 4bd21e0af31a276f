"""The inferred rules on paper: a ruleset TOML per room and rule string, and terminal lines.

Every option's evidence goes into the file as a comment, so the file says
why it says what it says; ``[room]`` holds the money rules
(:mod:`ofc_stats.payouts.room_rules`).  The room's texts (names, rule
strings) reach the file only inside comments, with control characters
replaced, so they cannot add a key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ofc_stats.audit.infer import GroupRules, Inferred, royalty_name

SHOWN_RANKS = 3  # named rulesets printed per group (the frame has them all)


def ruleset_toml(group: GroupRules) -> str:
    """The inferred rules as a ruleset file; every option's evidence as a comment."""
    r = group.ruleset
    lines = [
        f"# Inferred by `ofc-stats audit --guess-rules` from {group.hands} hands of "
        f"{_comment(group.room)}, rule string {_comment(group.rules_text)}.",
        *(f"# {_comment(e.describe())}" for e in group.evidence),
        f'extends = "{group.base}"',
        f'name = "{r.name}"',
        f'deck = "{r.deck}"',
        f'scoring = "{r.scoring}"',
        f'royalties = "{royalty_name(r)}"' if royalty_name(r) != "custom" else "",
        f"stack_cap = {str(r.stack_cap).lower()}",
        f"max_loss = {r.max_loss}" if r.max_loss is not None else "",
        f"button_moves_on_fantasy = {str(r.button_moves_on_fantasy).lower()}",
    ]
    if r.fantasy.entry_cards:
        repeat_cards = "entry" if r.fantasy.repeat_cards is None else r.fantasy.repeat_cards
        lines += [
            "",
            "[fantasy]",
            *_entry_lines(group),
            f'repeat_cards = "{repeat_cards}"' if repeat_cards == "entry" else
            f"repeat_cards = {repeat_cards}",
        ]  # fmt: skip
        rule = r.fantasy.repeat
        if rule is None:
            lines.append('repeat = "none"')
        else:
            lines += ["", "[fantasy.repeat]"]
            lines += [
                f'{row} = "{getattr(rule, row)}"'
                for row in ("top", "middle", "bottom")
                if getattr(rule, row)
            ]
            lines.append(f'combine = "{rule.combine}"')
    lines += ["", replace(group.room_rules, room=group.room, rule_string=group.rules_text).toml()]
    return _assumed("\n".join(line for line in lines if line is not None), group)


def _entry_lines(group: GroupRules) -> list[str]:
    """``entry_cards`` with only the tiers the room's hands showed; each unseen tier as a
    comment with the preset's count marked assumed (the reader keeps the preset's count
    for a tier the file does not list)."""
    seen = {e.option.removeprefix(ENTRY): e for e in group.evidence if e.option.startswith(ENTRY)}
    shown, untold = [], []
    for pattern, cards in group.ruleset.fantasy.entry_cards.items():
        evidence = seen.get(pattern)
        if evidence is not None and not evidence.value:
            why = _comment(evidence.note or "no entry seen")
            untold.append(f'# entry_cards."{pattern}" = {cards}  {ASSUMED}: not observable, {why}')
        else:
            shown.append(f'"{pattern}" = {cards}')
    lines = [f"entry_cards = {{ {', '.join(shown)} }}"] if shown else []
    return lines + untold


ENTRY = "fantasy.entry_cards."
ASSUMED = "# assumed (the preset's or the room's default)"
# The file's keys of each option that can be "not observable" (evidence value "").
ASSUMABLE = {
    "scoring": ("scoring",),
    "royalties": ("royalties",),
    "stack_cap": ("stack_cap",),
    "button_moves_on_fantasy": ("button_moves_on_fantasy",),
    "fantasy.repeat_cards": ("repeat_cards",),
    "room.settlement": ("settlement",),
    "room.rake": ("rake_rate", "rake_tick", "rake_mode"),
}


def _assumed(text: str, group: GroupRules) -> str:
    """The file with every option the hands could not tell written as a comment: the value
    it reads as (the preset's, or the room's default), marked assumed, never a setting the
    data did not show."""
    untold = {e.option: e.note for e in group.evidence if not e.value}
    keys = ASSUMABLE
    out = []
    for line in text.splitlines():
        key = line.split(" = ")[0]
        option = next((o for o, names in keys.items() if key in names and o in untold), None)
        if option is None:
            out.append(line)
            continue
        why = _comment(untold[option])
        out.append(f"# {line}  {ASSUMED}: not observable, {why}")
    return "\n".join(out) + "\n"


def _comment(text: str) -> str:
    """One line of a TOML comment: no newline or control character from the room's text."""
    return re.sub(r"[\x00-\x1f\x7f]", " ", text)


def write_rule_files(inferred: Inferred, folder: Path) -> list[Path]:
    """One ``<room>-<rule string>.toml`` per group; returns the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for group in inferred.groups:
        path = folder / f"{group.ruleset.name}.toml"
        path.write_text(ruleset_toml(group), encoding="utf-8")
        paths.append(path)
    return paths


ROOM_WIDE = "room."  # options of the room itself, inferred from all its hands


def guess_lines(inferred: Inferred) -> Iterable[str]:
    """The inference for a terminal: per group its options, then the named rulesets.

    The room's own options (``room.rake``, ``room.settlement``) are read from
    all of a room's hands, whatever their rule string: they are shown once per
    room, after its groups, not under each group as if that group showed them.
    """
    groups = list(inferred.groups)
    for index, group in enumerate(groups):
        yield f"{group.room} · {group.rules_text}: {group.hands:,} hands (named: {group.base})"
        for evidence in group.evidence:
            if not evidence.option.startswith(ROOM_WIDE):
                yield f"  {evidence.describe()}"
        last_of_room = index + 1 == len(groups) or groups[index + 1].room != group.room
        room_wide = [e for e in group.evidence if e.option.startswith(ROOM_WIDE)]
        if last_of_room and room_wide:
            hands = sum(g.hands for g in groups if g.room == group.room)
            yield f"{group.room} · every rule string: {hands:,} hands (the room's own options)"
            for evidence in room_wide:
                yield f"  {evidence.describe()}"
    if not inferred.ranking.empty:
        yield (
            f"named rulesets, by the telling hands they explain (ties share a rank; the first "
            f"{SHOWN_RANKS} ranks and those ruled out):"
        )
        for row in inferred.ranking.to_dict("records"):
            if int(row["rank"]) > SHOWN_RANKS and not row["ruled_out"]:
                continue
            out = f" — ruled out: {row['ruled_out']}" if row["ruled_out"] else ""
            tie = " (tie)" if row["tied"] else ""
            yield (
                f"  {row['room']} · {row['room_rules']}: #{row['rank']}{tie} {row['ruleset']} "
                f"explains {row['explained']} of {row['hands']} telling hands{out}"
            )
