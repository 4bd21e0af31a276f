"""max_loss inferred: a simulated room that caps each seat's loss, read back; a room without."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

import ofc_stats
from ofc_stats.audit.infer import infer_rules
from ofc_stats.audit.max_loss import NOT_INFERABLE, largest_losses
from ofc_stats.audit.points import audit
from ofc_stats.audit.rules_file import guess_lines, write_rule_files
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.ruleset_toml import load_ruleset
from ofc_stats.sim.rooms import simulate
from tests.builders import sim_records, write_dataset

CAP = 12  # points a seat can lose in one hand


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bots play pineapple-progressive with a loss cap of 12; the hands name the preset."""
    named = get_ruleset("pineapple-progressive")
    # The simulator reports points under the ruleset it plays: the capped one, named as
    # the preset the room claims.
    played = replace(named.with_options(max_loss=CAP), name=named.name)
    records = [r for r, _ in simulate(300, played, seats=3, players=6, seed=41, rollouts=2)]
    return write_dataset(tmp_path_factory.mktemp("capped"), records)


def test_largest_losses_are_whole_points_per_room_and_rule_string() -> None:
    shown = pd.DataFrame(
        {
            "room": ["a", "a", "a", "b", "c"],
            "rules_text": ["x", "x", "x", "y", "z"],
            "shown": [-12.0, 5.0, -3.0, -2.5, 4.0],
        }
    )
    # a: the largest loss is 12; b loses 2.5 (no whole-point cap); c shows no loss at all.
    assert largest_losses([shown]) == {("a", "x"): 12}
    # read a batch at a time: the largest over the batches (12 in the first, 3 in the next)
    assert largest_losses([shown.iloc[:1], shown.iloc[1:]]) == {("a", "x"): 12}


def test_a_capped_room_shows_its_cap(capped: Path, tmp_path: Path) -> None:
    with ofc_stats.open(capped) as db:
        inferred = infer_rules(db)
        (group,) = inferred.groups
        evidence = {e.option: e for e in group.evidence}["max_loss"]
        # Support: hands where a seat would lose more than 12 uncapped and lost exactly the
        # capped amount; none where the uncapped points are what the room reported.
        assert evidence.value == str(CAP) and evidence.support > 0 and evidence.contradict == 0
        assert group.ruleset.max_loss == CAP
        (path,) = write_rule_files(inferred, tmp_path)
        assert f"max_loss = {CAP}" in path.read_text(encoding="utf-8")
        assert load_ruleset(path).max_loss == CAP
        own = audit(db)
        with_file = audit(db, ruleset=load_ruleset(path))
    assert len(own.mismatches) > 0  # the named preset has no cap: the capped hands differ
    assert with_file.mismatches.empty, with_file.mismatches.head().to_string()


def test_without_a_cap_it_is_not_inferable(tmp_path: Path) -> None:
    """No seat can lose more than the largest loss seen: a cap and none look the same."""
    data = write_dataset(tmp_path, sim_records(120, 42))
    with ofc_stats.open(data) as db:
        inferred = infer_rules(db)
    evidence = {e.option: e for e in inferred.groups[0].evidence}["max_loss"]
    assert evidence.value == "" and evidence.note.startswith(NOT_INFERABLE)
    assert inferred.groups[0].ruleset.max_loss is None
    assert any(
        "max_loss: not observable (not inferable from these hands" in line
        for line in guess_lines(inferred)
    )
