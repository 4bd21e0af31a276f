"""Rulesets: presets and aliases, validation, TOML files."""

from pathlib import Path

import pytest

from ofc_stats.engine.presets import PRESETS, get_ruleset
from ofc_stats.engine.rules import (
    CLASSIC_ROYALTIES,
    Deck,
    FantasyMode,
    FrozenMap,
    RepeatRule,
    RoyaltyTable,
    Ruleset,
    Scoring,
    Variant,
)
from ofc_stats.engine.ruleset_toml import load_ruleset, resolve_ruleset, ruleset_from_mapping
from ofc_stats.errors import RulesetError

RULES_MD_TABLE = {
    # name: (variant, deck, scoring, royalties, fantasy mode, entry cards for QQ)
    "pineapple": ("pineapple", "standard52", "american", "american", "standard", 14),
    "pineapple-progressive": ("pineapple", "standard52", "american", "american", "progressive", 14),
    "pineapple-ultimate": ("pineapple", "standard52", "american", "american", "ultimate", 14),
    "pineapple-tournament": ("pineapple", "standard52", "american", "american", "tournament", 13),
    "pineapple-russian": ("pineapple", "standard52", "american", "classic", "standard", 14),
    "joker-pineapple": ("pineapple", "joker54", "american", "american", "progressive", 14),
    "classic": ("classic", "standard52", "classic", "classic", "standard", 13),
    "classic-american": ("classic", "standard52", "american", "american", "standard", 13),
    "turbo": ("turbo", "standard52", "classic", "classic", "standard", 13),
}


@pytest.mark.parametrize(("name", "expected"), RULES_MD_TABLE.items())
def test_presets_match_rules_md_section_8(name: str, expected: tuple) -> None:
    rs = get_ruleset(name)
    variant, deck, scoring, royalties, mode, qq_cards = expected
    assert (rs.variant, rs.deck, rs.scoring, rs.royalties.name, rs.fantasy.mode) == (
        variant,
        deck,
        scoring,
        royalties,
        mode,
    )
    assert rs.fantasy.entry_cards["QQ"] == qq_cards


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("PINEAPPLE", "pineapple"),
        ("Pineapple_Progressive", "pineapple-progressive"),
        ("progressive", "pineapple-progressive"),
        ("Joker", "joker-pineapple"),
        ("regular", "classic"),
        ("  Turbo ", "turbo"),
    ],
)
def test_aliases_are_case_insensitive(alias: str, name: str) -> None:
    assert get_ruleset(alias).name == name


def test_unknown_ruleset_lists_known_ones() -> None:
    with pytest.raises(RulesetError) as error:
        get_ruleset("pinapple")
    for name in PRESETS:
        assert name in str(error.value)


def test_validation_names_the_option() -> None:
    with pytest.raises(RulesetError, match="scoring"):
        Ruleset(name="x", scoring="1-6")  # type: ignore[arg-type]
    with pytest.raises(RulesetError, match="max_loss"):
        Ruleset(name="x", max_loss=-5)
    with pytest.raises(RulesetError, match=r"royalties\.middle: unknown key 'quads'"):
        RoyaltyTable(top=FrozenMap({}), middle=FrozenMap({"quads": 20}), bottom=FrozenMap({}))
    with pytest.raises(RulesetError, match="whole number"):
        RoyaltyTable(top=FrozenMap({"QQ": -1}), middle=FrozenMap({}), bottom=FrozenMap({}))
    with pytest.raises(RulesetError, match="unknown category"):
        RepeatRule(bottom="quads")
    with pytest.raises(RulesetError, match="unknown top pattern"):
        RepeatRule(top="QQQQ")


def test_rulesets_are_frozen_and_hashable() -> None:
    rs = get_ruleset("pineapple")
    with pytest.raises(AttributeError):
        rs.scoring = Scoring.CLASSIC  # type: ignore[misc]
    assert hash(rs) == hash(get_ruleset("pineapple"))
    assert rs.with_options(max_loss=50) != rs


def test_toml_extends_and_overrides(tmp_path: Path) -> None:
    path = tmp_path / "home-game.toml"
    path.write_text(
        """
extends = "Pineapple"
scoring = "two-four"
max_loss = 100
button_moves_on_fantasy = true

[royalties.middle]
three_of_a_kind = 3
straight = 5

[fantasy]
mode = "progressive"
repeat_cards = "entry"

[fantasy.repeat]
top = "trips"
middle = "full_house"
combine = "any"
""",
        encoding="utf-8",
    )
    rs = load_ruleset(path)
    assert rs.name == "home-game"
    assert rs.scoring is Scoring.TWO_FOUR and rs.max_loss == 100
    assert rs.button_moves_on_fantasy
    assert dict(rs.royalties.middle) == {"three_of_a_kind": 3, "straight": 5}
    assert rs.royalties.bottom == get_ruleset("pineapple").royalties.bottom
    assert rs.fantasy.mode is FantasyMode.PROGRESSIVE
    assert rs.fantasy.entry_cards["AA"] == 16
    assert rs.fantasy.repeat_cards is None
    assert rs.fantasy.repeat == RepeatRule(top="trips", middle="full_house", bottom=None)
    assert resolve_ruleset(str(path)) == rs


def test_toml_named_royalty_table_and_other_variant() -> None:
    rs = ruleset_from_mapping({"extends": "classic", "royalties": "classic", "deck": "joker54"})
    assert rs.royalties == CLASSIC_ROYALTIES
    assert rs.deck is Deck.JOKER54 and rs.variant is Variant.CLASSIC


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('scorng = "american"', "unknown key 'scorng'"),
        ('scoring = "1-6"', "scoring: '1-6' is not one of"),
        ("max_loss = true", "max_loss: True is not an integer"),
        ("[royalties.bottom]\nquads = 10", "royalties.bottom: unknown key 'quads'"),
        ('[fantasy]\nmode = "forever"', "fantasy.mode"),
        ("[fantasy]\nentry_cards = {QQ = 25}", "fantasy.entry_cards: 25"),
        ('[fantasy]\nrepeat = {top = "QQQQ"}', "unknown top pattern"),
        ("[fantasy]\nrepeat_card = 14", "unknown key 'repeat_card'"),
        ('extends = "nope"', "unknown ruleset 'nope'"),
        ("this is not toml", "not valid TOML"),
    ],
)
def test_toml_errors_name_the_key_and_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "room.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError) as error:
        load_ruleset(path)
    assert message in str(error.value)
    if "unknown ruleset" not in message:
        assert str(path) in str(error.value)


@pytest.mark.parametrize(
    "command",
    [
        ["rules", "RULES"],
        ["score", "--rules", "RULES"],
        ["import", "--data", "DATA", "--rules", "RULES", "RULES"],
        ["simulate", "--hands", "1", "--out", "DATA", "--rules", "RULES"],
    ],
)
def test_every_command_taking_a_ruleset_file_refuses_a_misspelt_room_key(
    tmp_path: Path, command: list[str]
) -> None:
    """A `[room]` typo (`rake_percent` for `rake_rate`) is refused by every command that
    reads the file, not only by `audit`, the one that uses the table; one line, exit 2,
    the known keys sorted."""
    from click.testing import CliRunner

    from ofc_stats.cli.main import main

    path = tmp_path / "my-room.toml"
    path.write_text('extends = "pineapple"\n[room]\nrake_percent = 3\n', encoding="utf-8")
    places = {"DATA": str(tmp_path / "data"), "RULES": str(path)}
    result = CliRunner().invoke(main, [places.get(a, a) for a in command])
    assert result.exit_code == 2, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("Error"))
    assert "room: unknown key 'rake_percent'; known: money_stack, rake, rake_cap," in line
    assert not (tmp_path / "data").exists()
