"""`audit --rules` per room and by each file's name; `audit --player` prints the ledger only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from ofc_stats.cli.main import main
from tests.builders import hand_record, seat_record, write_dataset

# Heads-up at 1 a point: Alice scoops Bob with royalties, +21 / -21 (test_audit_ledger's).
ALICE = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah", hero=True)
BOB = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
# A [room] table naming no room: 10% of the winnings.  Room A pays 21 (no rake), room B
# pays 18.9 (21 less 10%): the table is B's money, and A's hands would all read as wrong.
RULES = """extends = "pineapple-progressive"
name = "home"

[room]
rake_rate = 0.1
rake_tick = 0.1
rake_mode = "nearest"
"""


def _data(tmp_path: Path) -> Path:
    hands = []
    for number, (room, paid) in enumerate((("A", 21.0), ("A", 21.0), ("B", 18.9))):
        seats = (
            replace(ALICE, reported_points=21.0, reported_money=paid),
            replace(BOB, reported_points=-21.0, reported_money=-21.0),
        )
        hands.append(replace(hand_record(number, seats, currency="USD"), room=room))
    return write_dataset(tmp_path, hands)


def test_a_room_table_naming_no_room_is_refused_on_several_rooms(tmp_path: Path) -> None:
    """Before, the file's 10% rake judged room A too (2 'room errors' that are the file's)."""
    data = _data(tmp_path)
    rules = tmp_path / "home.toml"
    rules.write_text(RULES, encoding="utf-8")
    result = CliRunner().invoke(main, ["audit", "--data", str(data), "--rules", str(rules)])
    assert result.exit_code == 2
    assert "names no room and these hands are of 2 rooms (A, B)" in result.output


def test_room_equals_file_gives_the_table_to_that_room_and_names_the_group_by_file(
    tmp_path: Path,
) -> None:
    """B=home.toml: B's hand judged by the file's 10% (18.9: it matches), A's by its own
    inferred rule (no rake: both match); B's group reads as the file, not the preset."""
    data = _data(tmp_path)
    rules = tmp_path / "home.toml"
    rules.write_text(RULES, encoding="utf-8")
    argv = ["audit", "--data", str(data), "--rules", f"B={rules}", "--quiet"]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    assert (
        "B · home.toml: 1 hand: 1 checked (points, Fantasyland or money), 1 of them matches"
        in result.output
    )
    # (A's second hand differs on Fantasyland: Alice's queens on top earn it; not money's)
    assert "A · pineapple-progressive: 2 hands: 2 checked" in result.output
    assert "  money: 2 of 2 checked hands match (100.0%)" in result.output.splitlines()
    assert "A · every rule string: 2 hands; the room's money is judged by a rake inferred" in (
        result.output
    )
    assert "rake B USD: 10.00% of the winnings, rounded nearest to 0.1 (from the rules file" in (
        result.output
    )
    assert "rake A USD: no rake (inferred" in result.output


def test_audit_player_prints_the_ledger_without_the_room_audit(tmp_path: Path) -> None:
    data = _data(tmp_path)
    argv = ["audit", "--data", str(data), "--player", "Alice", "--quiet"]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Alice · A USD: 2 hands")
    assert "audit against" not in result.output and "\nrake " not in result.output


def test_a_ledger_priced_by_an_earlier_rules_file_names_it(tmp_path: Path) -> None:
    """`audit --player` with no --rules reads the ledger the last audit stored: priced by
    an earlier run's rules file, it said only '(from the rules file', naming neither the
    file nor the earlier run."""
    data = _data(tmp_path)
    rules = tmp_path / "home.toml"
    rules.write_text(RULES, encoding="utf-8")
    given = f"B={rules}"
    done = CliRunner().invoke(main, ["audit", "--data", str(data), "--rules", given, "--quiet"])
    assert done.exit_code == 0, done.output
    later = CliRunner().invoke(main, ["audit", "--data", str(data), "--player", "Alice"])
    assert later.exit_code == 0, later.output
    lines = later.output.splitlines()
    b_rules = next(i for i, line in enumerate(lines) if f"from the rules file {rules}" in line)
    assert f"(from the rules file {rules}, given to `ofc-stats audit --rules`;" in lines[b_rules]
    assert lines[b_rules + 1].startswith("  (priced by an earlier `ofc-stats audit --rules`")
    assert later.output.count("priced by an earlier") == 1  # room A's rules are inferred
    argv = ["audit", "--data", str(data), "--player", "Alice", "--rules", given]
    same_run = CliRunner().invoke(main, argv)
    assert same_run.exit_code == 0, same_run.output
    assert f"from the rules file {rules}" in same_run.output
    assert "priced by an earlier" not in same_run.output
