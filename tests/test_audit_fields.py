"""Field verdicts: a room whose `result` is not the hand's points is found and said once."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit.fields import field_verdicts
from ofc_stats.audit.output import csv_safe, write_mismatches
from ofc_stats.audit.points import audit
from ofc_stats.cli.main import main
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from tests.builders import hand_record, seat_record, write_dataset


@pytest.fixture(scope="module")
def running_total(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated room whose `result` is each player's running total at the table."""
    folder = tmp_path_factory.mktemp("running")
    out = folder / "sim.jsonl"
    room = RoomRules(result_field="running_total")
    write_simulation(
        out, 150, get_ruleset("pineapple-ultimate"), seats=3, players=6, seed=11, rollouts=2,
        room=room,
    )  # fmt: skip
    import_paths([out], folder / "data")
    recompute(folder / "data")
    return folder / "data"


def test_a_running_total_is_detected_as_such(running_total: Path) -> None:
    with ofc_stats.open(running_total) as db:
        (verdict,) = field_verdicts(db)
        report = audit(db)
        everything = audit(db, all_fields=True)
    assert not verdict.measures and verdict.agree < 0.5
    name, share = verdict.best
    assert name == "a running total of the player's points at the table" and share == 1.0
    assert verdict.tried["this hand's points"] == verdict.agree
    assert "not this hand's points" in verdict.describe()
    assert "running total" in verdict.describe()
    # Left out of the per-hand mismatches, said once; --all-fields brings them back.
    assert report.mismatches.empty
    assert any(
        "field ofc-stats-sim `result`: not this hand's points" in line for line in report.lines()
    )
    assert (everything.mismatches["unit"] == "points").sum() > 100


def test_a_room_paying_the_points_gets_the_verdict_that_it_does(tmp_path: Path) -> None:
    out = tmp_path / "sim.jsonl"
    write_simulation(out, 60, get_ruleset("pineapple-ultimate"), seats=3, players=6, seed=3,
                     rollouts=2)  # fmt: skip
    import_paths([out], tmp_path / "data")
    recompute(tmp_path / "data")
    with ofc_stats.open(tmp_path / "data") as db:
        (verdict,) = field_verdicts(db)
    assert verdict.measures and verdict.agree == 1.0 and verdict.zero_sum == 1.0
    assert verdict.corr_points == pytest.approx(1.0)


ALICE = seat_record(0, "=HYPERLINK(1)", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
BOB = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")


def _wrong_room(tmp_path: Path) -> Path:
    """Alice +21 by the rules; a room without top royalties reports +14 (QQ pays 7)."""
    seats = (replace(ALICE, reported_points=14.0), replace(BOB, reported_points=-14.0))
    return write_dataset(tmp_path, [hand_record(1, seats)])


def test_mismatches_to_stdout_as_numbers_with_units_and_safe_text(tmp_path: Path) -> None:
    data = _wrong_room(tmp_path)
    result = CliRunner().invoke(main, ["audit", "--data", str(data), "--out", "-"])
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(io.StringIO(result.stdout))
    assert list(frame["room_value"]) == [14.0, -14.0]
    assert list(frame["recomputed_value"]) == [21.0, -21.0]
    assert list(frame["unit"]) == ["points", "points"]
    assert frame["player"][0] == "'=HYPERLINK(1)"  # a spreadsheet shows it as text
    assert "audit against" in result.stderr and "audit against" not in result.stdout


def test_fail_on_mismatch_exits_3_and_0_without_it(tmp_path: Path) -> None:
    data = _wrong_room(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["audit", "--data", str(data)]).exit_code == 0
    failing = runner.invoke(main, ["audit", "--data", str(data), "--fail-on-mismatch"])
    assert failing.exit_code == 3
    (tmp_path / "clean").mkdir()
    clean = write_dataset(tmp_path / "clean", [hand_record(1, (ALICE, BOB))])
    assert runner.invoke(main, ["audit", "--data", str(clean), "--fail-on-mismatch"]).exit_code == 0
    missing = runner.invoke(main, ["audit", "--data", str(tmp_path / "nothing")])
    assert missing.exit_code == 1


def test_parquet_keeps_numbers_and_csv_safe_leaves_plain_text() -> None:
    assert csv_safe("-3 points") == "'-3 points" and csv_safe("Bob") == "Bob"
    assert csv_safe("@SUM") == "'@SUM" and csv_safe("+1") == "'+1"


def test_parquet_mismatch_file(tmp_path: Path) -> None:
    data = _wrong_room(tmp_path)
    with ofc_stats.open(data) as db:
        report = audit(db)
    write_mismatches(report, tmp_path / "m.parquet")
    frame = pd.read_parquet(tmp_path / "m.parquet")
    assert frame["room_value"].dtype == "float64" and frame["player"][0] == "=HYPERLINK(1)"
