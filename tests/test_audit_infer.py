"""Rules inferred option by option: a simulated room with non-standard options, read back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit.guess import guess_rulesets
from ofc_stats.audit.infer import Inferred, infer_rules
from ofc_stats.audit.points import audit
from ofc_stats.audit.rules_file import write_rule_files
from ofc_stats.cli.main import main
from ofc_stats.engine.ruleset_toml import load_ruleset
from ofc_stats.payouts.room_rules import load_room_rules
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute

# A room that calls its game pineapple-progressive but plays classic royalties, deals 15
# cards after QQ and KK (not 14 and 15), never repeats Fantasyland, moves the button on
# Fantasyland hands, takes 5% rounded down to 0.1 and pays short stacks in order of action.
ODD_ROOM = """
extends = "pineapple-progressive"
royalties = "classic"
button_moves_on_fantasy = true

[fantasy]
entry_cards = { QQ = 15, KK = 15, AA = 16, "222" = 17 }
repeat = "none"

[room]
rake_rate = 0.05
rake_tick = 0.1
rake_mode = "down"
settlement = "action"
money_stack = 15
"""


@pytest.fixture(scope="module")
def odd_room(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("odd")
    rules = folder / "odd.toml"
    rules.write_text(ODD_ROOM, encoding="utf-8")
    # The hands name the preset the room claims; the bots play the room's real options.
    ruleset = replace(load_ruleset(rules), name="pineapple-progressive")
    out = folder / "sim.jsonl"
    write_simulation(
        out, 700, ruleset, seats=3, players=6, seed=31, rollouts=2, room=load_room_rules(rules)
    )
    import_paths([out], folder / "data")
    recompute(folder / "data")
    return folder / "data", rules


@pytest.fixture(scope="module")
def inferred(odd_room: tuple[Path, Path]) -> Inferred:
    with ofc_stats.open(odd_room[0]) as db:
        return infer_rules(db)


def test_the_inferred_options_are_the_rooms(
    inferred: Inferred, odd_room: tuple[Path, Path]
) -> None:
    (group,) = inferred.groups
    truth = load_ruleset(odd_room[1])
    found = group.ruleset
    assert (found.scoring, found.royalties, found.deck) == (
        truth.scoring,
        truth.royalties,
        truth.deck,
    )
    assert dict(found.fantasy.entry_cards)["QQ"] == 15
    assert dict(found.fantasy.entry_cards)["KK"] == 15
    assert found.fantasy.repeat is None
    assert found.button_moves_on_fantasy is True
    room = group.room_rules
    assert (room.rake_rate, room.rake_tick, room.rake_mode, room.settlement) == (
        0.05,
        0.1,
        "down",
        "action",
    )
    evidence = {e.option: e for e in group.evidence}
    assert evidence["royalties"].value == "classic" and evidence["royalties"].support > 0
    assert evidence["royalties"].contradict == 0
    assert evidence["fantasy.entry_cards.QQ"].support > 0
    assert evidence["deck"].value == "standard52"


def test_the_written_file_audits_the_room_clean(
    inferred: Inferred, odd_room: tuple[Path, Path], tmp_path: Path
) -> None:
    (path,) = write_rule_files(inferred, tmp_path)
    ruleset, room = load_ruleset(path), load_room_rules(path)
    truth = load_ruleset(odd_room[1])
    assert ruleset.royalties == truth.royalties
    assert dict(ruleset.fantasy.entry_cards) == {"QQ": 15, "KK": 15, "AA": 16, "222": 17} or (
        dict(ruleset.fantasy.entry_cards)["QQ"] == 15
    )
    assert room is not None and room.settlement == "action"
    with ofc_stats.open(odd_room[0]) as db:
        own = audit(db)
        with_file = audit(db, ruleset=ruleset, room_rules=room)
    assert len(own.mismatches) > 50  # the named preset does not explain the room
    assert with_file.mismatches.empty, with_file.mismatches.head().to_string()
    result = CliRunner().invoke(
        main, ["audit", "--data", str(odd_room[0]), "--rules", str(path), "--fail-on-mismatch"]
    )
    assert result.exit_code == 0, result.output


def test_the_named_ranking_counts_telling_hands_and_respects_the_deck(
    odd_room: tuple[Path, Path],
) -> None:
    with ofc_stats.open(odd_room[0]) as db:
        ranking = guess_rulesets(db)
        checked = db.df("SELECT count(*) AS n FROM hands")["n"][0]
    joker = ranking[ranking["ruleset"] == "joker-pineapple"].iloc[0]
    assert joker["ruled_out"].startswith("no joker in") and joker["rank"] == len(ranking)
    assert (ranking["hands"] <= checked).all() and ranking["hands"].nunique() == 1
    # Rulesets that agree on every telling hand share a rank.
    for _, tied in ranking[ranking["tied"]].groupby("explained"):
        assert tied["rank"].nunique() == 1


def test_the_order_of_action_room_has_no_contradicting_hand(inferred: Inferred) -> None:
    """Why 3-4 telling hands used to contradict "action": the money was settled from the
    points of the named preset (american royalties) while the room plays classic ones.
    In hand T0000:13 seat 0 is +7 and seat 1 +15 under the preset, the short stack pays
    15: in order of action 7 then 8, so 6.7 and 7.6 after 5% rounded down to 0.1.  Under
    the room's classic royalties they are +9 and +13: 9 then 6, paid 8.6 and 5.7, which is
    what the room paid.  Settled from the inferred rules' points, every telling hand fits."""
    (group,) = inferred.groups
    evidence = {e.option: e for e in group.evidence}["room.settlement"]
    assert evidence.value == "action" and evidence.support > 50
    assert evidence.contradict == 0
    assert all(n < evidence.support for n in evidence.alternatives.values())


def test_the_rooms_own_options_are_shown_once_per_room(inferred: Inferred) -> None:
    """Rake and settlement are read from every hand of a room, whatever its rule string:
    with two rule strings in one room they are printed once, under the room's total, not
    under each group (where a 10-hand group seemed to show 700 hands' rake)."""
    from ofc_stats.audit.rules_file import guess_lines

    (group,) = inferred.groups
    small = replace(group, rules_text="other-rules", hands=10)
    lines = list(guess_lines(replace(inferred, groups=[group, small])))
    rake = [line for line in lines if line.lstrip().startswith("room.rake")]
    assert len(rake) == 1, lines
    heads = [line for line in lines if not line.startswith(" ")]
    at = heads.index(
        f"{group.room} · every rule string: {group.hands + 10:,} hands (the room's own options)"
    )
    assert heads[:at] == [
        f"{group.room} · {group.rules_text}: {group.hands:,} hands (named: {group.base})",
        f"{group.room} · other-rules: 10 hands (named: {group.base})",
    ]
    assert any(line.lstrip().startswith("fantasy.entry_cards.QQ") for line in lines)


def test_a_room_no_field_verdict_judged_is_read_from_the_losers_money(
    odd_room: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A room whose `result` no field verdict judged (no scored seat reports it) is no
    points room, as the audit has it (fields.rooms_measuring): its options are read from
    the losers' money, said so, and room_money is told none of its rooms is one.  (The
    inference counted such a room as a points room, and read "from result".)"""
    from ofc_stats.audit import infer as infer_module

    monkeypatch.setattr(infer_module, "field_verdicts", lambda data: [])
    told: list[set[str]] = []
    real = infer_module.room_money

    def room_money(*args: object, **options: object) -> object:
        told.append(set(options["points_rooms"]))  # type: ignore[call-overload]
        return real(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(infer_module, "room_money", room_money)
    with ofc_stats.open(odd_room[0]) as db:
        found = infer_rules(db)
    assert told and all(rooms == set() for rooms in told)
    notes = [e.note for g in found.groups for e in g.evidence if e.note.startswith("read from")]
    assert notes and all(note == "read from the losers' money" for note in notes)
