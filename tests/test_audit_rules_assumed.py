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


def _progressive_group(evidence: tuple[Evidence, ...], cards: dict[str, int]) -> GroupRules:
    from dataclasses import replace

    from ofc_stats.engine.rules import FrozenMap

    base = get_ruleset("pineapple-progressive")
    ruleset = base.with_options(fantasy=replace(base.fantasy, entry_cards=FrozenMap(cards)))
    return GroupRules("Spartan", "rs", base.name, 10, evidence, ruleset, RoomRules())


def test_an_unseen_fantasyland_tier_is_a_comment_and_reads_back_as_the_preset() -> None:
    """The trial's two Spartan files: one had seen no entry after trips on top and wrote the
    preset's 16 as a setting, the other saw 17 twice.  Now the unseen tier is a comment
    marked assumed, and the file reads back with the preset's 16 for it, QQ's seen 15 kept;
    the file that saw trips writes its 17."""
    cards = {"QQ": 15, "KK": 15, "AA": 16, "222": 16}  # 16 for 222: the preset's, unseen
    evidence = (
        Evidence("fantasy.entry_cards.QQ", "15", 7, 0),
        Evidence("fantasy.entry_cards.KK", "15", 5, 0),
        Evidence("fantasy.entry_cards.AA", "16", 4, 0),
        Evidence("fantasy.entry_cards.222", "", 0, 0, note="no entry seen; kept"),
    )
    text = ruleset_toml(_progressive_group(evidence, cards))
    assert 'entry_cards = { "QQ" = 15, "KK" = 15, "AA" = 16 }' in text.splitlines()
    assumed = "  # assumed (the preset's or the room's default): not observable, no entry seen"
    assert f'# entry_cards."222" = 16{assumed}' in text
    from ofc_stats.engine.ruleset_toml import ruleset_from_text

    read = ruleset_from_text(text).fantasy.entry_cards
    preset = get_ruleset("pineapple-progressive").fantasy.entry_cards
    assert dict(read) == {**dict(preset), "QQ": 15, "KK": 15, "AA": 16}
    seen = (*evidence[:3], Evidence("fantasy.entry_cards.222", "17", 2, 0))
    text = ruleset_toml(_progressive_group(seen, {**cards, "222": 17}))
    assert '"222" = 17 }' in text and "# entry_cards" not in text


def test_the_reader_merges_tiers_by_the_top_row_they_name() -> None:
    """A file listing one tier keeps every other tier of its preset (progressive: QQ 14,
    KK 15, AA 16, 222 17, RULES.md §6); ``qq`` is the QQ tier; 0 drops a tier."""
    from ofc_stats.engine.ruleset_toml import ruleset_from_text

    head = 'extends = "pineapple-progressive"\n[fantasy]\n'
    one = ruleset_from_text(head + 'entry_cards = { "222" = 18 }').fantasy.entry_cards
    assert dict(one) == {"QQ": 14, "KK": 15, "AA": 16, "222": 18}
    renamed = ruleset_from_text(head + 'entry_cards = { qq = 15, "222" = 0 }').fantasy
    assert dict(renamed.entry_cards) == {"KK": 15, "AA": 16, "qq": 15}
