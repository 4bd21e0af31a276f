"""Rake caps: a room that keeps at most so much of one winner, inferred with its runner-up,
written to and read from the rules file, and played by the simulator."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np

import ofc_stats
from ofc_stats.audit.infer import infer_rules
from ofc_stats.audit.money import infer_cap
from ofc_stats.audit.points import audit
from ofc_stats.audit.rules_file import ruleset_toml
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.payouts.rake import rake_taken
from ofc_stats.payouts.room_rules import RoomRules, room_rules_from_mapping
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute


def test_the_cap_is_what_the_room_kept_of_the_big_wins() -> None:
    """3% rounded to 0.1: 490 -> 14.7 but the room kept 10 (the real Ppp AUD hand), 400 ->
    12 kept 10, 100 -> 3 kept 3, 20 -> 0.6 kept 0.6.  Without a cap the rule explains the
    two small wins; capped at 10 all four.  Two seats' rates take more than 10 (14.7, 12),
    both kept exactly 10."""
    gross = np.array([490.0, 400.0, 100.0, 20.0])
    money = np.array([480.0, 390.0, 97.0, 19.4])
    cap, with_cap, without, reach, fit = infer_cap(gross, money, 0.03, 0.1, "nearest")
    assert (cap, with_cap, without, reach, fit) == (10.0, 4, 2, 2, 2)
    assert rake_taken(gross, 0.03, 0.1, "nearest", cap).round(2).tolist() == [10, 10, 3, 0.6]


def test_no_cap_where_a_big_win_paid_the_whole_rate() -> None:
    """A room that once kept less than the rate (20 -> kept 0.5 of 0.6) and took the whole
    14.7 of a 490 win: a cap of 0.5 would break the big win (explains 1 against 1 without
    a cap, no gain), so none is inferred."""
    gross = np.array([490.0, 20.0])
    money = np.array([475.3, 19.5])
    assert infer_cap(gross, money, 0.03, 0.1, "nearest") == (None, 1, 1, 0, 0)


def test_the_rules_file_carries_a_cap_per_room_and_per_currency() -> None:
    rules = RoomRules(
        0.03, 0.1, "nearest", rake_cap=10.0, currencies=(("USD", 0.03, 0.01, "nearest", 2.0),)
    )
    read = room_rules_from_mapping(tomllib.loads(rules.toml())["room"])
    assert read == rules
    assert (read.cap_for("AUD"), read.cap_for("USD")) == (10.0, 2.0)
    assert "rake_cap = 10" in rules.toml() and "cap = 2" in rules.toml()


def test_a_simulated_capped_room_is_inferred_with_the_cap(tmp_path: Path) -> None:
    """5% rounded to 0.1, at most 0.5 a winner, 1 a point: every win of 11 points or more
    is capped.  The audit infers the cap, finds no mismatch, says the uncapped rule as the
    runner-up, and writes rake_cap = 0.5 into the room's file."""
    room = RoomRules(rake_rate=0.05, rake_tick=0.1, rake_cap=0.5)
    out = tmp_path / "sim.jsonl"
    write_simulation(
        out, 120, get_ruleset("pineapple"), seats=3, players=6, seed=5, rollouts=2, room=room
    )
    import_paths([out], tmp_path / "data")
    recompute(tmp_path / "data")
    with ofc_stats.open(tmp_path / "data") as db:
        report = audit(db)
        inferred = infer_rules(db)
    (rake,) = report.rakes
    assert (rake.rate, rake.tick, rake.mode, rake.cap) == (0.05, 0.1, "nearest", 0.5)
    assert rake.explained == rake.winners and rake.capped[0] == rake.capped[1] > 10
    assert rake.cap_runner_up is not None and rake.cap_runner_up[1] < rake.winners
    assert "without it the rule explains" in rake.describe()
    assert report.mismatches.empty
    text = ruleset_toml(inferred.groups[0])
    assert room_rules_from_mapping(tomllib.loads(text)["room"]).rake_cap == 0.5
