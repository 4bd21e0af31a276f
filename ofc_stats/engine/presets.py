"""The named rulesets of RULES.md §8, found by name or alias, case-insensitively."""

from __future__ import annotations

from ofc_stats.engine.rules import (
    AMERICAN_ROYALTIES,
    CLASSIC_ROYALTIES,
    TRIPS_OR_QUADS,
    Deck,
    FantasyMode,
    FantasyRules,
    FrozenMap,
    Ruleset,
    Scoring,
    Variant,
    fantasy_preset,
)
from ofc_stats.errors import RulesetError


def _pineapple(name: str, mode: FantasyMode, description: str, **options: object) -> Ruleset:
    options.setdefault("fantasy", fantasy_preset(mode, Variant.PINEAPPLE))
    return Ruleset(
        name=name,
        variant=Variant.PINEAPPLE,
        description=description,
        **options,  # type: ignore[arg-type]
    )


def _classic(name: str, variant: Variant, scoring: Scoring, description: str) -> Ruleset:
    royalties = AMERICAN_ROYALTIES if scoring is Scoring.AMERICAN else CLASSIC_ROYALTIES
    return Ruleset(
        name=name,
        variant=variant,
        scoring=scoring,
        royalties=royalties,
        fantasy=fantasy_preset(FantasyMode.STANDARD, variant),
        description=description,
    )


PRESETS: dict[str, Ruleset] = {
    rs.name: rs
    for rs in (
        _pineapple("pineapple", FantasyMode.STANDARD, "Pineapple OFC, 14-card Fantasyland"),
        _pineapple(
            "pineapple-progressive",
            FantasyMode.PROGRESSIVE,
            "Progressive Fantasyland 14-17",
        ),
        _pineapple(
            "pineapple-ultimate",
            FantasyMode.ULTIMATE,
            "Progressive entry, repeats keep the count",
        ),
        _pineapple(
            "pineapple-tournament",
            FantasyMode.TOURNAMENT,
            "Fantasyland 13-16, no repeat",
        ),
        _pineapple(
            "pineapple-unlimited",
            FantasyMode.UNLIMITED,
            "14-card Fantasyland, unlimited repeats",
        ),
        _pineapple(
            "pineapple-progressive-16",
            FantasyMode.PROGRESSIVE,
            "Progressive capped at 16 (QQ 14, KK 15, AA 16, trips 16), repeats 14: "
            "the apps' progressive16_refant14",
            fantasy=FantasyRules(
                FantasyMode.PROGRESSIVE,
                FrozenMap({"QQ": 14, "KK": 15, "AA": 16, "222": 16}),
                TRIPS_OR_QUADS,
                14,
            ),
        ),
        _pineapple(
            "pineapple-russian",
            FantasyMode.STANDARD,
            "Pineapple with the classic (Russian) royalty table",
            royalties=CLASSIC_ROYALTIES,
        ),
        _pineapple(
            "joker-pineapple",
            FantasyMode.PROGRESSIVE,
            "54-card deck with two wild jokers, progressive Fantasyland",
            deck=Deck.JOKER54,
        ),
        _classic(
            "classic",
            Variant.CLASSIC,
            Scoring.CLASSIC,
            "Classic (Regular) OFC, 2 a row",
        ),
        _classic(
            "classic-american",
            Variant.CLASSIC,
            Scoring.AMERICAN,
            "Classic OFC with 1-6 scoring",
        ),
        _classic("turbo", Variant.TURBO, Scoring.CLASSIC, "Turbo OFC: 5 cards, then 2 × 4"),
    )
}

ALIASES: dict[str, str] = {
    "pineapple-standard": "pineapple",
    "ofc-pineapple": "pineapple",
    "pofc": "pineapple",
    "progressive": "pineapple-progressive",
    # The apps' progressive17 deals a repeat with the count just played (the real
    # hands show it: 15 and 16 card repeats), which is the ultimate mode.
    "progressive17-nojokers": "pineapple-ultimate",
    "progressive16-refant14-nojokers": "pineapple-progressive-16",
    "progressive16": "pineapple-progressive-16",
    "ultimate": "pineapple-ultimate",
    "tournament": "pineapple-tournament",
    "unlimited": "pineapple-unlimited",
    "russian": "pineapple-russian",
    "pineapple-classic-royalties": "pineapple-russian",
    "joker": "joker-pineapple",
    "jokers": "joker-pineapple",
    "pineapple-joker": "joker-pineapple",
    "regular": "classic",
    "ofc": "classic",
    "classic-ofc": "classic",
    "american": "classic-american",
    "classic-1-6": "classic-american",
    "turbo-ofc": "turbo",
}


def normalise_name(name: str) -> str:
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


def get_ruleset(name: str) -> Ruleset:
    """The preset called ``name`` or one of its aliases (case and ``_``/``-`` ignored).

    >>> get_ruleset("Pineapple_Progressive").name
    'pineapple-progressive'
    >>> get_ruleset("progressive").name  # an alias
    'pineapple-progressive'
    """
    key = normalise_name(name)
    key = ALIASES.get(key, key)
    if key in PRESETS:
        return PRESETS[key]
    known = ", ".join(sorted(PRESETS))
    raise RulesetError(f"unknown ruleset {name!r}; known rulesets: {known}")
