"""Ruleset files in TOML: a preset to extend plus any option overridden.

    extends = "pineapple"          # any preset name or alias
    name = "my-room"
    scoring = "two-four"
    max_loss = 100

    [royalties.middle]             # replaces the whole middle table
    three_of_a_kind = 2
    straight = 4

    [fantasy]
    mode = "progressive"           # starts from that mode's preset
    entry_cards = { "222" = 17 }   # per tier; a tier not listed keeps the preset's, 0 drops it
    repeat_cards = 15              # or "entry" (as many as the hand played)

    [fantasy.repeat]               # or repeat = "none"
    top = "222"
    bottom = "four_of_a_kind"
    combine = "any"

An unknown key or a bad value raises :class:`RulesetError` naming the key and
the file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import (
    ROYALTY_TABLES,
    Combine,
    FantasyMode,
    FantasyRules,
    FrozenMap,
    RepeatRule,
    RoyaltyTable,
    Ruleset,
    fantasy_preset,
    top_threshold,
)
from ofc_stats.errors import RulesetError

_SCALAR_OPTIONS = {
    "name": str,
    "description": str,
    "variant": str,
    "deck": str,
    "scoring": str,
    "foul_policy": str,
    "majority_bonus": str,
    "stack_cap": bool,
    "max_loss": int,
    "button_moves_on_fantasy": bool,
}
# [room] (rake, short-stack settlement) is the room's way of paying, read by the
# audit and the simulator (ofc_stats.payouts.room_rules); the game's rules skip it.
_KIND_NAMES = {str: "text", bool: "true or false", int: "an integer"}
_TOP_LEVEL = {"extends", "royalties", "fantasy", "room", *_SCALAR_OPTIONS}
_FANTASY_KEYS = {"mode", "entry_cards", "repeat", "repeat_cards"}
_REPEAT_KEYS = {"top", "middle", "bottom", "combine"}


def _unknown(where: str, keys: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(keys) - allowed)
    if extra:
        raise RulesetError(f"{where}unknown key {extra[0]!r}; known: {', '.join(sorted(allowed))}")


def _royalties(base: RoyaltyTable, value: Any, where: str) -> RoyaltyTable:
    if isinstance(value, str):
        if value not in ROYALTY_TABLES:
            known = ", ".join(ROYALTY_TABLES)
            raise RulesetError(f"{where}royalties: unknown table {value!r}; known: {known}")
        return ROYALTY_TABLES[value]
    if not isinstance(value, Mapping):
        raise RulesetError(f"{where}royalties: expected a table name or a table")
    _unknown(f"{where}royalties: ", value, {"top", "middle", "bottom"})
    rows = {}
    for row in ("top", "middle", "bottom"):
        table = value.get(row, getattr(base, row))
        if not isinstance(table, Mapping):
            raise RulesetError(f"{where}royalties.{row}: expected a table of points")
        rows[row] = FrozenMap({str(k).upper() if row == "top" else k: v for k, v in table.items()})
    try:
        return RoyaltyTable(**rows, name="custom")
    except RulesetError as error:
        raise RulesetError(f"{where}{error}") from None


def _fantasy(base: Ruleset, value: Any, where: str) -> FantasyRules:
    if not isinstance(value, Mapping):
        raise RulesetError(f"{where}fantasy: expected a table")
    _unknown(f"{where}fantasy: ", value, _FANTASY_KEYS)
    rules = base.fantasy
    if "mode" in value:
        try:
            rules = fantasy_preset(value["mode"], base.variant)
        except ValueError:
            known = ", ".join(mode.value for mode in FantasyMode)
            message = f"{where}fantasy.mode: {value['mode']!r} is not one of {known}"
            raise RulesetError(message) from None
    options: dict[str, Any] = {}
    if "entry_cards" in value:
        if not isinstance(value["entry_cards"], Mapping):
            raise RulesetError(f"{where}fantasy.entry_cards: expected a table like {{QQ = 14}}")
        options["entry_cards"] = _entry_tiers(rules, value["entry_cards"], where)
    if "repeat" in value:
        options["repeat"] = _repeat(value["repeat"], where)
    if "repeat_cards" in value:
        cards = value["repeat_cards"]
        options["repeat_cards"] = None if cards == "entry" else cards
    try:
        return replace(rules, **options)
    except RulesetError as error:
        raise RulesetError(f"{where}{error}") from None


def _entry_tiers(rules: FantasyRules, listed: Mapping[str, Any], where: str) -> FrozenMap[int]:
    """The preset's tiers with the listed ones merged in: a file that says only what its
    hands showed (one tier) keeps the preset's count for every other, and ``0`` drops a
    tier.  Tiers match by the top row they name, so ``qq`` is ``QQ``."""
    merged = dict(rules.entry_cards)
    for pattern, cards in listed.items():
        try:
            key = top_threshold(str(pattern), f"{where}fantasy.entry_cards: ").key
        except RulesetError:
            merged[pattern] = cards  # the rules' own check names the bad tier
            continue
        for old in [p for p in merged if _tier_key(p) == key]:
            del merged[old]
        if cards != 0:
            merged[str(pattern)] = cards
    return FrozenMap(merged)


def _tier_key(pattern: str) -> object:
    try:
        return top_threshold(pattern).key
    except RulesetError:
        return pattern


def _repeat(value: Any, where: str) -> RepeatRule | None:
    if value == "none":
        return None
    if not isinstance(value, Mapping):
        raise RulesetError(f'{where}fantasy.repeat: expected "none" or a table')
    _unknown(f"{where}fantasy.repeat: ", value, _REPEAT_KEYS)
    combine = value.get("combine", "any")
    if combine not in ("any", "all"):
        raise RulesetError(f"{where}fantasy.repeat.combine: {combine!r} is not any or all")
    try:
        return RepeatRule(
            top=value.get("top"),
            middle=value.get("middle"),
            bottom=value.get("bottom"),
            combine=Combine(combine),
        )
    except RulesetError as error:
        raise RulesetError(f"{where}{error}") from None


def ruleset_from_mapping(data: Mapping[str, Any], source: str = "") -> Ruleset:
    """Build a ruleset from parsed TOML (or any mapping) of the form above."""
    where = f"{source}: " if source else ""
    _unknown(where, data, _TOP_LEVEL)
    base = get_ruleset(str(data.get("extends", "pineapple")))
    options: dict[str, Any] = {}
    for key, kind in _SCALAR_OPTIONS.items():
        if key in data:
            value = data[key]
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise RulesetError(f"{where}{key}: {value!r} is not {_KIND_NAMES[kind]}")
            options[key] = value
    options.setdefault("name", Path(source).stem if source else f"{base.name}-custom")
    try:
        ruleset = replace(base, **options)
    except RulesetError as error:
        raise RulesetError(f"{where}{error}") from None
    if "royalties" in data:
        ruleset = replace(
            ruleset, royalties=_royalties(ruleset.royalties, data["royalties"], where)
        )
    if "fantasy" in data:
        ruleset = replace(ruleset, fantasy=_fantasy(ruleset, data["fantasy"], where))
    return ruleset


def ruleset_from_text(text: str, source: str = "") -> Ruleset:
    """Build a ruleset from TOML text; any defect is a :class:`RulesetError` naming ``source``.

    >>> ruleset_from_text('name = "home"').name
    'home'
    >>> ruleset_from_text("x = " + "[" * 5000, "deep.toml")
    Traceback (most recent call last):
    ...
    ofc_stats.errors.RulesetError: deep.toml: not valid TOML: nested too deeply
    """
    where = source or "ruleset"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesetError(f"{where}: not valid TOML: {error}") from None
    except RecursionError:
        raise RulesetError(f"{where}: not valid TOML: nested too deeply") from None
    return ruleset_from_mapping(data, source)


def read_ruleset_file(path: str | Path) -> tuple[str, Ruleset]:
    """A ruleset TOML file's text and its ruleset (the text is what a dataset keeps)."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise RulesetError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise RulesetError(f"{path}: cannot read: {error.strerror}") from None
    return text, ruleset_from_text(text, str(path))


def load_ruleset(path: str | Path) -> Ruleset:
    """Read a ruleset TOML file."""
    return read_ruleset_file(path)[1]


def names_a_file(name_or_path: str) -> bool:
    """Whether :func:`resolve_ruleset` reads ``name_or_path`` as a TOML file, not a preset.

    >>> names_a_file("my-room.toml"), names_a_file("pineapple")
    (True, False)
    """
    return name_or_path.endswith(".toml") or Path(name_or_path).is_file()


def resolve_ruleset(name_or_path: str) -> Ruleset:
    """A preset name or alias, or a path to a ``.toml`` ruleset file."""
    if names_a_file(name_or_path):
        return load_ruleset(name_or_path)
    return get_ruleset(name_or_path)
