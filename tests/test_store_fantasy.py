"""--stay-value auto from a dataset: the Markov-chain estimate on the stored results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from ofc_stats.engine.fantasy_value import fantasy_values
from ofc_stats.store.fantasy import dataset_fantasy_values
from tests.builders import sim_records, write_dataset

DEAL = '{"cards": "Ah Kh Qh Jh Th 9s 9d 9c 5s 5d 3c 3d 2s Qd"}\n'


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("fl"), sim_records(400, seed=21))


def test_the_estimate_is_the_chain_on_the_stored_seats(data: Path) -> None:
    with ofc_stats.open(data) as db:
        values = dataset_fantasy_values(db, "pineapple-progressive")
        rows = db.sql(
            "SELECT in_fantasy, fantasy_cards, net, fantasy_next FROM seat_results "
            "WHERE status = 'scored'"
        ).fetchall()
    assert values is not None
    known = [r for r in rows if r[3] is not None and (not r[0] or r[1] is not None)]
    cards = np.array([r[1] if r[0] else 0 for r in known])
    again = fantasy_values(cards, np.array([r[2] for r in known]), np.array([r[3] for r in known]))
    assert values == again
    assert sum(values.hands.values()) == int((cards > 0).sum()) > 0


def test_no_estimate_for_a_ruleset_the_dataset_does_not_hold(data: Path) -> None:
    with ofc_stats.open(data) as db:
        assert dataset_fantasy_values(db, "classic") is None


def test_solve_fantasy_with_data_uses_the_dataset_and_says_so(data: Path, tmp_path: Path) -> None:
    deal = tmp_path / "deal.jsonl"
    deal.write_text(DEAL)
    published = CliRunner().invoke(main, ["solve-fantasy", str(deal)])
    with ofc_stats.open(data) as db:
        values = dataset_fantasy_values(db, "pineapple-progressive")
    assert values is not None and 14 in values.value
    estimated = CliRunner().invoke(main, ["solve-fantasy", "--data", str(data), str(deal)])
    assert estimated.exit_code == 0, estimated.output
    assert f"{data}: Fantasyland worth 14 cards {values.value[14]:+.2f}" in estimated.stderr
    # The best set keeps the royal flush on the bottom, which earns the progressive repeat
    # (bottom four of a kind or better): 14 cards, so value = royalties + that estimate.
    record = json.loads(estimated.stdout)
    assert record["stays"] is True
    assert record["value"] == pytest.approx(record["royalties"] + values.value[14], abs=1e-5)
    assert json.loads(published.stdout)["value"] != record["value"]
