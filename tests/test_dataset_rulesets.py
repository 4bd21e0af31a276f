"""Hands imported under a room's TOML rules are scored by them, here and in every later run.

The hand: ana fouls (her middle, a pair of queens, is weaker than her top pair
of kings); bo's board is legal with no royalties (top 4-high, middle a pair of
sixes, bottom two pair).  Under Pineapple a foul loses every row and the
scoop: 3 rows + 3 = 6 points, so ana -6 and bo +6.  The room's file keeps
Pineapple but with ``foul_policy = "rows-only"``: the fouled seat loses its
three rows and no scoop bonus, ana -3 and bo +3.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from ofc_stats.errors import RulesetError
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from ofc_stats.store.rulesets import DatasetRulesets, keep_ruleset
from parsers.app_json import dumps_app
from parsers.open_format import dumps
from tests.builders import hand_record, seat_record

ROOM_RULES = 'extends = "pineapple"\nfoul_policy = "rows-only"\n'


def _hand(ruleset: str, **extra: object) -> str:
    seats = (
        seat_record(0, "ana", "Ks Kd 2c", "Qs Qd 3c 4d 5h", "As Ad 7c 8d 9h"),
        seat_record(1, "bo", "2d 3h 4s", "6c 6d 8c 9d Th", "7h 7s Jc Jd 2h"),
    )
    return dumps(replace(hand_record(1, seats, **extra), ruleset=ruleset))


def _nets(data: Path) -> list[tuple[str, str, int]]:
    rows = (
        ofc_stats.open(data)
        .sql("SELECT ruleset, status, net FROM results ORDER BY seat")
        .fetchall()
    )
    return [(str(r), str(s), int(n)) for r, s, n in rows]


def test_a_room_toml_is_kept_and_recompute_scores_by_it(tmp_path: Path) -> None:
    rules = tmp_path / "my-room.toml"
    rules.write_text(ROOM_RULES, encoding="utf-8")
    source = tmp_path / "hands.jsonl"
    source.write_text(_hand("my-room") + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["import", str(source), "--data", str(tmp_path / "data"), "--rules", str(rules)]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "data" / "rulesets" / "my-room.toml").read_text() == ROOM_RULES
    assert _nets(tmp_path / "data") == [("my-room", "scored", -3), ("my-room", "scored", 3)]
    recompute(tmp_path / "data", force=True, workers=2)  # a fresh lookup, in workers too
    assert _nets(tmp_path / "data") == [("my-room", "scored", -3), ("my-room", "scored", 3)]
    # The same hand under the preset: the foul costs the scoop too.
    plain = tmp_path / "plain.jsonl"
    plain.write_text(_hand("pineapple") + "\n", encoding="utf-8")
    import_paths([plain], tmp_path / "preset")
    recompute(tmp_path / "preset")
    assert _nets(tmp_path / "preset") == [("pineapple", "scored", -6), ("pineapple", "scored", 6)]


def test_without_rules_a_name_no_preset_knows_is_quarantined(tmp_path: Path) -> None:
    source = tmp_path / "hands.jsonl"
    source.write_text(_hand("my-room") + "\n", encoding="utf-8")
    summary = import_paths([source], tmp_path / "data")
    assert (summary.stored, summary.quarantined) == (0, 1)
    assert any("unknown ruleset 'my-room'" in m for m in summary.messages)


def test_an_app_rule_string_no_preset_knows_imports_under_rules(tmp_path: Path) -> None:
    seats = (
        seat_record(0, "ana", "Ks Kd 2c", "Qs Qd 3c 4d 5h", "As Ad 7c 8d 9h"),
        seat_record(1, "bo", "2d 3h 4s", "6c 6d 8c 9d Th", "7h 7s Jc Jd 2h"),
    )
    record = replace(hand_record(2, seats, rules_text="crazy_pineapple_9000"), ruleset="pineapple")
    source = tmp_path / "hands.hh"
    source.write_text(dumps_app(record) + "\n\n", encoding="utf-8")
    refused = import_paths([source], tmp_path / "refused")
    assert (refused.stored, refused.quarantined) == (0, 1)
    assert any("unknown rule string 'crazy_pineapple_9000'" in m for m in refused.messages)
    stored = import_paths([source], tmp_path / "data", rules="pineapple")
    assert (stored.stored, stored.quarantined) == (1, 0)
    hands = ofc_stats.open(tmp_path / "data").sql("SELECT ruleset, rules_text FROM hands")
    assert hands.fetchall() == [("pineapple", "crazy_pineapple_9000")]


def test_other_rules_under_a_kept_name_or_a_preset_name_are_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    first = tmp_path / "a" / "my-room.toml"
    first.parent.mkdir()
    first.write_text(ROOM_RULES, encoding="utf-8")
    assert keep_ruleset(data, first).name == "my-room"
    assert keep_ruleset(data, first).name == "my-room"  # the same rules again: fine
    other = tmp_path / "b" / "my-room.toml"
    other.parent.mkdir()
    other.write_text('extends = "classic"\n', encoding="utf-8")
    with pytest.raises(RulesetError, match="already keeps other rules named 'my-room'"):
        keep_ruleset(data, other)
    fake = tmp_path / "pineapple.toml"
    fake.write_text(ROOM_RULES, encoding="utf-8")
    with pytest.raises(RulesetError, match="like a preset but differs"):
        keep_ruleset(data, fake)
    assert sorted(p.name for p in (data / "rulesets").iterdir()) == ["my-room.toml"]


@pytest.mark.parametrize("name", ["../my-room", "a/b", ".hidden", "x\\y", ""])
def test_a_stored_name_is_never_a_path(tmp_path: Path, name: str) -> None:
    (tmp_path / "rulesets").mkdir()
    (tmp_path / "my-room.toml").write_text(ROOM_RULES, encoding="utf-8")
    with pytest.raises(RulesetError, match="unknown ruleset"):
        DatasetRulesets(tmp_path)(name)


def test_the_lookup_takes_presets_first(tmp_path: Path) -> None:
    assert DatasetRulesets(tmp_path)("Pineapple").name == "pineapple"
