"""A rules file sets only what the data showed: an option no hand tells is a comment."""

from __future__ import annotations

import tomllib

from ofc_stats.audit.evidence import Evidence
from ofc_stats.audit.infer import GroupRules
from ofc_stats.audit.room_rules import RoomRules, room_rules_from_mapping
from ofc_stats.audit.rules_file import ruleset_toml
from ofc_stats.engine.presets import get_ruleset


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
    assert '# settlement = "proportional"  # assumed (the default): not observable' in text
    assert 'rake_mode = "down"' in text  # the rake the data showed stays a setting
    assert room_rules_from_mapping(tomllib.loads(text)["room"]).settlement == "proportional"


def test_a_told_settlement_stays_a_setting() -> None:
    told = Evidence("room.settlement", "rules", 3, 0)
    text = ruleset_toml(_group((told,)))  # the group's RoomRules keeps its default kind
    assert 'settlement = "proportional"' in text.splitlines()
