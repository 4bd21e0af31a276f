"""`--guess-rules` a batch at a time: the same rules guessed whatever the batches.

The options' evidence is read one import batch at a time (each seat's shown points,
each value's scoring) and only a place and a flag kept per hand; the two folds halve
the telling hands by hand key, not by the batches' hand ids.  So a dataset imported in
four interleaved batches must guess exactly what the same hands in one batch guess.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit.evidence import Shown
from ofc_stats.audit.infer import infer_rules
from ofc_stats.audit.rules_file import guess_lines, write_rule_files
from ofc_stats.cli.main import main
from ofc_stats.engine.ruleset_toml import load_ruleset
from ofc_stats.payouts.room_rules import load_room_rules
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from tests.test_audit_infer import ODD_ROOM

PARTS = 4


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The odd room's hands imported whole (one batch) and as four batches, each of every
    fourth hand (so the batches' hand ids run across the hand keys' order)."""
    folder = tmp_path_factory.mktemp("batches")
    rules = folder / "odd.toml"
    rules.write_text(ODD_ROOM, encoding="utf-8")
    ruleset = replace(load_ruleset(rules), name="pineapple-progressive")
    out = folder / "sim.jsonl"
    write_simulation(
        out, 240, ruleset, seats=3, players=6, seed=7, rollouts=2, room=load_room_rules(rules)
    )
    import_paths([out], folder / "whole")
    recompute(folder / "whole")
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    for part in range(PARTS):
        piece = folder / f"part{part}.jsonl"
        piece.write_text("".join(lines[part::PARTS]), encoding="utf-8")
        import_paths([piece], folder / "parts")
    recompute(folder / "parts")
    assert len(Dataset(folder / "whole").batches()) == 1
    assert len(Dataset(folder / "parts").batches()) == PARTS
    return folder / "whole", folder / "parts"


def _guessed(data: Path, folder: Path) -> tuple[list[str], dict[str, str]]:
    with ofc_stats.open(data) as db:
        inferred = infer_rules(db)
    files = write_rule_files(inferred, folder)
    return list(guess_lines(inferred)), {p.name: p.read_text(encoding="utf-8") for p in files}


def test_the_rules_guessed_are_the_same_in_one_batch_or_four(
    datasets: tuple[Path, Path], tmp_path: Path
) -> None:
    whole, parts = datasets
    lines, files = _guessed(whole, tmp_path / "whole")
    assert any("out of sample" in line for line in lines)  # the folds were drawn
    assert _guessed(parts, tmp_path / "parts") == (lines, files)


def test_the_shown_points_are_read_a_batch_at_a_time(datasets: tuple[Path, Path]) -> None:
    """Each frame holds one batch's seats, and together every seat once."""
    _, parts = datasets
    with ofc_stats.open(parts) as db:
        seats = int(db.df("SELECT count(*) AS n FROM seats")["n"].iloc[0])
        frames = [frame for _, frame in Shown(frozenset(), {}).batches(db)]
        per_batch = db.df(
            "SELECT count(*) AS n FROM seats JOIN hands USING (hand_id) GROUP BY source_file"
        )
    assert len(frames) == PARTS
    assert sum(map(len, frames)) == seats
    assert max(map(len, frames)) < seats / 2
    assert sorted(map(len, frames)) == sorted(per_batch["n"].astype(int).tolist())


def test_a_rules_name_no_file_can_have_is_a_usage_error(datasets: tuple[Path, Path]) -> None:
    """A 10,000-character --rules: the system refuses the name (File name too long),
    which was an input error (exit 1); it is a bad option value, said in one line."""
    whole, _ = datasets
    result = CliRunner().invoke(main, ["audit", "--data", str(whole), "--rules", "a" * 10_000])
    assert result.exit_code == 2, result.output
    assert "File name too long" in result.output
    assert len(result.output.strip().splitlines()) == 1
