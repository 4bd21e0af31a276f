"""A rules file sets only what the data showed: an option no hand tells is a comment."""

from __future__ import annotations

import tomllib

import pandas as pd

from ofc_stats.audit.evidence import Evidence, pick
from ofc_stats.audit.infer import GroupRules
from ofc_stats.audit.rules_file import ruleset_toml
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.payouts.room_rules import RoomRules, room_rules_from_mapping


def _group(evidence: tuple[Evidence, ...]) -> GroupRules:
    base = get_ruleset("pineapple")
    return GroupRules("Room", "rs", base.name, 10, evidence, base, RoomRules(0.03, 0.1, "down"))


def test_a_settlement_no_hand_tells_is_written_as_an_assumed_comment() -> None:
    """The trial's file set `settlement = "proportional"` while its own comment said the
    option was not observable; now the line is a comment marked assumed, and the file
    reads back as the default (proportional) all the same."""
    untold = Evidence("room.settlement", "", 0, 0, note="no short-stack hand tells the kinds apart")
    rake = Evidence("room.rake.USD", "0.03, down to 0.1", 9, 0)
    text = ruleset_toml(_group((rake, untold)))
    settings = [line for line in text.splitlines() if line.startswith("settlement")]
    assert settings == []
    assumed = "  # assumed (the preset's or the room's default): not observable"
    assert f'# settlement = "proportional"{assumed}' in text
    assert 'rake_mode = "down"' in text  # the rake the data showed stays a setting
    assert room_rules_from_mapping(tomllib.loads(text)["room"]).settlement == "proportional"


def test_a_told_settlement_stays_a_setting() -> None:
    told = Evidence("room.settlement", "rules", 3, 0)
    text = ruleset_toml(_group((told,)))  # the group's RoomRules keeps its default kind
    assert 'settlement = "proportional"' in text.splitlines()


def test_an_option_is_judged_on_the_half_it_was_not_picked_from() -> None:
    """Four telling hands: value a fits h0-h2, b only h3; in sample a wins 3 to 1.  First
    half (h0, h1) picks a, which explains h2 and not h3: 1 support, 1 contradiction.
    Second half (h2, h3) ties 1-1 and the room's named value b wins the tie; b explains
    neither h0 nor h1: 2 contradictions.  Out of sample 1 support, 3 contradict — where
    in sample a has 3 and 1.  The second choices (b, then a) explain 1 + 2 = 3."""
    a = pd.Series([True, True, True, False], index=["h0", "h1", "h2", "h3"])
    evidence = pick("scoring", {"a": a, "b": ~a}, default="b")
    assert (evidence.value, evidence.support, evidence.contradict) == ("a", 3, 1)
    assert evidence.held == (1, 3) and evidence.runner_up == ("b", 3)
    assert "out of sample (each half's pick judged on the other half" in evidence.describe()


def test_an_option_no_hand_tells_is_not_observable_not_the_preset_as_a_finding() -> None:
    """Every hand fits both values: before, the preset's value came back as the option's
    value (written as a setting); now it is not observable, the preset's value assumed."""
    same = pd.Series([True, True], index=["h0", "h1"])
    evidence = pick("scoring", {"a": same, "b": same}, default="b")
    assert evidence.value == "" and "the preset's b assumed" in evidence.note
