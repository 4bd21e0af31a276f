"""--rules per room: the files --write-rules writes for several rooms audit each with its own."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit.infer import infer_rules
from ofc_stats.audit.points import audit
from ofc_stats.audit.rules_book import RulesBook
from ofc_stats.audit.rules_file import write_rule_files
from ofc_stats.cli.main import main
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import ROYALTY_TABLES
from ofc_stats.payouts.room_rules import RoomRules, load_room_rules
from ofc_stats.sim.rooms import simulate
from tests.builders import write_dataset

# Two rooms that both call their game pineapple-progressive.  North plays classic
# royalties, takes 5% rounded down to 0.1 and pays short stacks in order of action;
# south plays the preset as named, takes 3% to the cent and pays them proportionally.
NORTH = RoomRules(0.05, 0.1, "down", "action", money_stack=15)
SOUTH = RoomRules(0.03, 0.01, "nearest", "proportional", money_stack=15)


def _room(name: str, rules: RoomRules, royalties: str, seed: int) -> list:  # type: ignore[type-arg]
    named = get_ruleset("pineapple-progressive")
    played = replace(named.with_options(royalties=ROYALTY_TABLES[royalties]), name=named.name)
    return [
        replace(hand, room=name, currency="USD", stakes=1.0)
        for hand, _ in simulate(250, played, seats=3, players=6, seed=seed, rollouts=2, room=rules)
    ]


@pytest.fixture(scope="module")
def two_rooms(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("two-rooms")
    records = _room("north", NORTH, "classic", 5) + _room("south", SOUTH, "american", 6)
    data = write_dataset(folder, records)
    with ofc_stats.open(data) as db:
        inferred = infer_rules(db)
    write_rule_files(inferred, folder / "rules")
    return data, folder / "rules"


def test_each_written_file_names_its_room_and_rule_string(two_rooms: tuple[Path, Path]) -> None:
    files = sorted(two_rooms[1].glob("*.toml"))
    rooms = {load_room_rules(f).room: load_room_rules(f) for f in files}  # type: ignore[union-attr]
    assert set(rooms) == {"north", "south"}
    north, south = rooms["north"], rooms["south"]
    assert north is not None and south is not None
    assert (north.rake_rate, north.rake_tick, north.rake_mode, north.settlement) == (
        0.05,
        0.1,
        "down",
        "action",
    )
    assert (south.rake_rate, south.rake_tick, south.rake_mode) == (0.03, 0.01, "nearest")
    assert north.rule_string == south.rule_string == "pineapple-progressive"


def test_the_folder_audits_each_room_with_its_own_rules(two_rooms: tuple[Path, Path]) -> None:
    data, folder = two_rooms
    book = RulesBook.load(str(folder))
    north_file = next(e.source for e in book.entries if e.room == "north")
    with ofc_stats.open(data) as db:
        own = audit(db)
        per_room = audit(db, book=book)
        north_only = audit(db, book=RulesBook.load(north_file))
        # The old reading: north's file (game and [room]) applied to every hand.
        entry = RulesBook.load(north_file).entries[0]
        everywhere = audit(db, ruleset=entry.ruleset, room_rules=replace(entry.money, room=None))
    # Under the named preset north's classic royalties do not explain its points: every
    # north hand with a royalty the two tables pay differently is a mismatch.  The bots
    # (two-step opening, raced candidates) make such royalties in 18 of north's 252
    # hands at seed 5 (11 and 33 at seeds 7 and 9; the bots before them 41, 36, 32),
    # so more than 10 says "many hands", not a stray one.
    assert set(own.mismatches["room"]) == {"north"} and len(own.mismatches) > 10
    assert per_room.mismatches.empty, per_room.mismatches.head().to_string()
    # North's file alone: north by its file, south by its own preset and inferred rake.
    assert north_only.mismatches.empty, north_only.mismatches.head().to_string()
    wrong = everywhere.mismatches
    assert set(wrong["room"]) == {"south"} and {"money", "royalties"} <= set(wrong["class"])
    done = CliRunner().invoke(
        main, ["audit", "--data", str(data), "--rules", str(folder), "--fail-on-mismatch"]
    )
    assert done.exit_code == 0, done.output
    assert "the rules files:" in done.output


def test_a_folder_without_files_is_a_usage_error(tmp_path: Path) -> None:
    data = write_dataset(tmp_path, [])
    (tmp_path / "empty").mkdir()
    done = CliRunner().invoke(
        main, ["audit", "--data", str(data), "--rules", str(tmp_path / "empty")]
    )
    assert done.exit_code == 2 and "no .toml ruleset file" in done.output
