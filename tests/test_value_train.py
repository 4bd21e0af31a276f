"""The learned board value through the binding: training, the weights file, its play."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ofc_stats import _core
from ofc_stats.cli.main import main
from ofc_stats.grade.position import HAND_COLUMNS, PLACEMENT_COLUMNS, SEAT_COLUMNS, read_positions
from ofc_stats.grade.replay import final_seats, policy_advice, replay
from ofc_stats.grade.train import WEIGHTS, Training, learned_value, train
from ofc_stats.grade.train import main as train_main
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.rulesets import DatasetRulesets

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sim-open.jsonl"
TINY = Training(first_hands=40, hands=40, rounds=1)


def test_training_is_reproducible_on_any_thread_count() -> None:
    one = train(TINY, threads=1).to_json()
    two = train(TINY, threads=2).to_json()
    assert one == two
    assert train(Training(seed=1, first_hands=40, hands=40, rounds=1), threads=2).to_json() != one
    doc = json.loads(one)
    assert doc["training"]["seed"] == 0 and doc["training"]["hands"] == 40
    # One model per street of Pineapple: 5, 7, 9, 11 and 13 cards placed.
    assert [m["placed"] for m in doc["models"]] == [5, 7, 9, 11, 13]
    assert _core.ValueFunction(one).to_json() == one


def test_bootstrapped_training_is_reproducible_and_recorded() -> None:
    boot = Training(first_hands=40, hands=40, rounds=1, target_deals=4, lam=0.0)
    one = train(boot, threads=1).to_json()
    assert train(boot, threads=2).to_json() == one
    doc = json.loads(one)
    assert (doc["training"]["target_deals"], doc["training"]["lambda"]) == (4, 0.0)
    # The outcome's (Monte Carlo) files keep their earlier record.
    assert "target_deals" not in json.loads(train(TINY, threads=2).to_json())["training"]
    assert doc["models"] != json.loads(train(TINY, threads=2).to_json())["models"]


def test_a_bad_target_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--target", "search:0"], ["--target", "dp"], ["--lambda", "2"]):
        with pytest.raises(SystemExit) as stop:
            train_main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "error:" in err.strip().splitlines()[-1] and "Traceback" not in err


def test_bad_weights_are_refused() -> None:
    with pytest.raises(ValueError, match="value weights"):
        _core.ValueFunction('{"version": 99}')
    with pytest.raises(ValueError, match="value weights"):
        _core.ValueFunction("not json")


def test_the_versioned_weights_load() -> None:
    value = learned_value()
    assert value.placed == [5, 7, 9, 11, 13]
    recorded = json.loads(WEIGHTS.read_text())["training"]
    default = Training()
    assert (recorded["seed"], recorded["hands"], recorded["rounds"]) == (
        default.seed,
        default.hands,
        default.rounds,
    )


def test_the_learned_policy_plays_legal_boards_the_same_on_any_threads(
    tmp_path: Path,
) -> None:
    source = tmp_path / "sample.jsonl"
    source.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:15]))
    root = tmp_path / "data"
    done = CliRunner().invoke(main, ["import", "--quiet", "--data", str(root), str(source)])
    assert done.exit_code == 0, done.output
    dataset = Dataset(root)
    (batch,) = dataset.batches()
    hands = pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS)
    seats = pq.read_table(dataset.batch_file("seats", batch), columns=[*SEAT_COLUMNS, "stack"])
    placements = pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS)
    decisions = read_positions(hands, seats, placements, DatasetRulesets(root)).decisions
    finals = final_seats(seats)
    value = learned_value()
    played = replay(decisions, finals, policy_advice(seed=1, threads=1, value=value))
    assert played
    for seat in played:
        assert -1 not in seat.bot_board and len(set(seat.bot_board)) == 13
    again = replay(decisions, finals, policy_advice(seed=1, threads=2, value=value))
    assert [s.bot_board for s in again] == [s.bot_board for s in played]
    # It is the replay's default, and another policy than the imagination's.
    default = replay(decisions, finals, policy_advice(seed=1, threads=2))
    assert [s.bot_board for s in default] == [s.bot_board for s in played]
    imagined = replay(decisions, finals, policy_advice(seed=1, threads=2, value=None))
    assert [s.bot_board for s in imagined] != [s.bot_board for s in played]
    # Looking 4 deals of the next street ahead: legal boards, the same on any threads.
    ahead = replay(decisions, finals, policy_advice(seed=1, threads=1, dreams=4))
    assert all(-1 not in s.bot_board and len(set(s.bot_board)) == 13 for s in ahead)
    twice = replay(decisions, finals, policy_advice(seed=1, threads=2, dreams=4))
    assert [s.bot_board for s in twice] == [s.bot_board for s in ahead]
