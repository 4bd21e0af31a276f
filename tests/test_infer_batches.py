"""`--guess-rules` a batch at a time: the same rules guessed whatever the batches.

The options' evidence is read one import batch at a time (each seat's shown points,
each value's scoring) and only a place and a flag kept per hand; the two folds halve
the telling hands by hand key, not by the batches' hand ids.  So a dataset imported in
four interleaved batches must guess exactly what the same hands in one batch guess.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit import chunks
from ofc_stats.audit.evidence import HandOrder, Shown
from ofc_stats.audit.guess import guess_rulesets
from ofc_stats.audit.infer import (
    BUTTON_COUNTS_SQL,
    _button_counts,
    _entry_counts,
    _stays,
    infer_rules,
)
from ofc_stats.audit.rules_file import guess_lines, write_rule_files
from ofc_stats.cli.main import main
from ofc_stats.engine.presets import PRESETS
from ofc_stats.engine.ruleset_toml import load_ruleset
from ofc_stats.payouts.room_rules import load_room_rules
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from ofc_stats.store.views import OfcData
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
    room = load_room_rules(rules)
    # a room that gets a tenth of its hands wrong: options with contradicting hands
    write_simulation(
        out, 240, ruleset, seats=3, players=6, seed=7, rollouts=2, room=room, room_errors=0.1
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
    held = [line.split("out of sample")[1] for line in lines if "out of sample (" in line]
    assert any(" 0 contradict" not in part for part in held)  # the folds count contradictions
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


def test_the_named_rulesets_are_scored_a_share_of_the_tables_at_a_time(
    datasets: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With shares of about 40 hands (six here), every rescored handle the ranking opens
    holds one share's results, never all 240 hands' (it held them all per ruleset, 25 MB
    at 100,000 hands); and the ranking is the one a single share gives."""
    whole, _ = datasets
    with ofc_stats.open(whole) as db:
        single = guess_rulesets(db)
        seats = int(db.df("SELECT count(*) AS n FROM seats")["n"].iloc[0])
        monkeypatch.setattr(chunks, "CHUNK_HANDS", 40)
        sizes: list[int] = []
        opened = OfcData.rescored

        def rescored(self: OfcData, results: pa.Table) -> AbstractContextManager[OfcData]:
            sizes.append(results.num_rows)
            return opened(self, results)

        monkeypatch.setattr(OfcData, "rescored", rescored)
        shared = guess_rulesets(db)
        shares = len(chunks.table_shares(db))
    assert shares >= 4
    assert len(sizes) == shares * len(PRESETS)
    assert max(sizes) < seats / 2 and sum(sizes) == seats * len(PRESETS)
    pd.testing.assert_frame_equal(shared, single)


def test_the_fantasy_and_button_counts_add_up_over_shares(
    datasets: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entries, stays and button counts a share at a time are the whole view's."""
    whole, _ = datasets
    with ofc_stats.open(whole) as db:
        entries, stays, button = _entry_counts(db, 15.0), _stays(db, 15.0), _button_counts(db)
        monkeypatch.setattr(chunks, "CHUNK_HANDS", 40)
        assert len(chunks.table_shares(db)) >= 4
        assert int(entries["boards"].sum()) > 0 and int(button["hands"].sum()) > 0
        pd.testing.assert_frame_equal(_entry_counts(db, 15.0), entries, check_dtype=False)
        pd.testing.assert_frame_equal(_stays(db, 15.0), stays, check_dtype=False)
        pd.testing.assert_frame_equal(_button_counts(db), button, check_dtype=False)
        whole_button = db.df(BUTTON_COUNTS_SQL)
    pd.testing.assert_frame_equal(button, whole_button, check_dtype=False)


def test_the_hands_place_is_their_keys_order_not_their_ids(datasets: tuple[Path, Path]) -> None:
    """The folds halve the telling hands by hand key (as when the keys were the index);
    four interleaved batches give ids in another order, so the place is not the id's."""
    _, parts = datasets
    with ofc_stats.open(parts) as db:
        hands = db.df("SELECT hand_id, hand_key FROM hands")
        places = HandOrder(db)(hands["hand_id"].to_numpy(np.int64))
    by_key = hands["hand_key"].rank(method="first").astype(int).to_numpy() - 1
    by_id = hands["hand_id"].rank(method="first").astype(int).to_numpy() - 1
    assert (by_key != by_id).any()  # the batches' ids do run across the keys' order
    assert places.tolist() == by_key.tolist()
