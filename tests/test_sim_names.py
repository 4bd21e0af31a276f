"""`simulate` names its tables per run: two runs never share a table in one dataset.

Every run used to call its tables T0000, T0001, ... and number their hands from 0:
two runs with other options (or into other files) wrote hands with the same keys,
and in one dataset their hands interleaved as one table's.  Now the tables are
``<run>-T0000``, ...: ``--table-prefix`` names the run, and by default the name is a
hash of the output file's name and the options, so the same command twice still
writes the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.sim.rooms import open_line, run_name, simulate_timed, write_simulation
from ofc_stats.store.importer import import_paths
from tests.test_cli import run

HANDS = ("--hands", "40", "--seed", "3", "--quiet", "--timeouts", "0")


def _tables(path: Path) -> list[str]:
    return [json.loads(line)["table"] for line in path.read_text(encoding="utf-8").splitlines()]


def _without_tables(path: Path) -> list[dict[str, object]]:
    hands = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for hand in hands:
        del hand["table"]
    return hands


def test_two_files_of_one_seed_have_their_own_tables(tmp_path: Path) -> None:
    one, other = tmp_path / "one.jsonl", tmp_path / "other.jsonl"
    for out in (one, other):
        assert run("simulate", *HANDS, "--out", str(out)).exit_code == 0
    # The same hands (same seed and options) at tables of other names: 40 hands are
    # 2 tables of 20 (table_count_for), each file's own.
    assert _without_tables(one) == _without_tables(other)
    assert len(set(_tables(one))) == 2 and not set(_tables(one)) & set(_tables(other))
    summary = import_paths([one, other], tmp_path / "data")
    assert (summary.stored, summary.duplicates) == (80, 0)
    assert "reused another hand's room hand id" not in "\n".join(summary.lines())


def test_other_options_name_other_tables_and_the_same_command_the_same_bytes(
    tmp_path: Path,
) -> None:
    first, again = tmp_path / "a" / "sim.jsonl", tmp_path / "b" / "sim.jsonl"
    for out in (first, again):  # the same command in another folder: the file's name is one
        assert run("simulate", *HANDS, "--out", str(out)).exit_code == 0
    assert first.read_bytes() == again.read_bytes()
    more = tmp_path / "c" / "sim.jsonl"
    assert run("simulate", *HANDS, "--players", "5", "--out", str(more)).exit_code == 0
    assert not set(_tables(first)) & set(_tables(more))


def test_the_table_prefix_names_the_tables_and_the_command_says_which(tmp_path: Path) -> None:
    out = tmp_path / "sim.jsonl"
    named = run("simulate", *HANDS, "--table-prefix", "club 7", "--out", str(out))
    assert named.exit_code == 0, named.output
    assert sorted(set(_tables(out))) == ["club 7-T0000", "club 7-T0001"]
    assert named.stdout.endswith(f"wrote {out} (tables club 7-T0000 to club 7-T0001)\n")
    bare = run("simulate", *HANDS, "--table-prefix", "", "--out", str(out))
    assert sorted(set(_tables(out))) == ["T0000", "T0001"]  # the names before runs had names
    assert bare.stdout.endswith(f"wrote {out} (tables T0000 to T0001)\n")
    default = run("simulate", *HANDS, "--out", str(out))
    name = run_name(
        out, 40, get_ruleset("pineapple-progressive"), "open",
        seats=3, players=9, seed=3, room_errors=0.0, timeout_rate=0.0, stack=None, room=None,
    )  # fmt: skip
    assert sorted(set(_tables(out))) == [f"{name}-T0000", f"{name}-T0001"]
    assert default.stdout.endswith(f"(tables {name}-T0000 to {name}-T0001)\n")


def test_the_run_name_is_the_files_and_the_options() -> None:
    rules = get_ruleset("pineapple-progressive")
    base = run_name("x/sim.jsonl", 100, rules, "open", seed=1)
    assert base == run_name("y/sim.jsonl", 100, rules, "open", seed=1)  # the folder is not
    assert len(base) == 8 and int(base, 16) >= 0
    others = {
        run_name("x/sim2.jsonl", 100, rules, "open", seed=1),
        run_name("x/sim.jsonl", 101, rules, "open", seed=1),
        run_name("x/sim.jsonl", 100, get_ruleset("pineapple-ultimate"), "open", seed=1),
        run_name("x/sim.jsonl", 100, rules, "app-json", seed=1),
        run_name("x/sim.jsonl", 100, rules, "open", seed=2),
        run_name("x/sim.jsonl", 100, rules, "open", seed=1, stack=50.0),
    }
    assert base not in others and len(others) == 6


def test_the_core_writes_a_name_as_python_writes_it(tmp_path: Path) -> None:
    # A name with characters JSON escapes: the core's lines (the file) are the lines
    # Python writes from the records.
    rules, name = get_ruleset("pineapple-progressive"), 'Zoë "Z" <\\>'
    out = tmp_path / "sim.jsonl"
    write_simulation(out, 20, rules, seats=3, seed=5, rollouts=1, run=name)
    assert set(_tables(out)) == {name + "-T0000"}
    played = simulate_timed(20, rules, seats=3, seed=5, rollouts=1, run=name)
    python = [open_line(p.record, p.timed_out) + "\n" for p in played]
    assert out.read_text(encoding="utf-8") == "".join(python)
