"""Learning from the players: the candidates as the value sees them, the fit, the blend."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.grade import imitate
from ofc_stats.grade.position import HAND_COLUMNS, PLACEMENT_COLUMNS, SEAT_COLUMNS, read_positions
from ofc_stats.grade.replay import final_seats, policy_advice, replay
from ofc_stats.grade.train import learned_value
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.rulesets import DatasetRulesets

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sim-open.jsonl"


def _decisions(tmp_path: Path):  # type: ignore[no-untyped-def]
    source = tmp_path / "sample.jsonl"
    source.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:10]))
    root = tmp_path / "data"
    done = CliRunner().invoke(main, ["import", "--quiet", "--data", str(root), str(source)])
    assert done.exit_code == 0, done.output
    dataset = Dataset(root)
    (batch,) = dataset.batches()
    hands = pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS)
    seats = pq.read_table(dataset.batch_file("seats", batch), columns=[*SEAT_COLUMNS, "stack"])
    placements = pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS)
    positions = read_positions(hands, seats, placements, DatasetRulesets(root))
    return positions.decisions, final_seats(seats)


def test_real_decisions_offer_every_legal_play_with_its_value(tmp_path: Path) -> None:
    # Every real decision is described: the play made among its candidates, the cards
    # placed after the street, one value and one feature row per candidate; a preference
    # on a feature every candidate has moves every value alike (the choice is unchanged).
    decisions, _ = _decisions(tmp_path)
    value = learned_value()
    offers = imitate.offered(decisions, value, None, threads=1)
    assert len(offers) == len(decisions)
    for d, o in zip(decisions, offers, strict=True):
        assert o.placed == sum(c >= 0 for c in d.board) + len(d.dealt) - d.discards
        assert 0 <= o.chosen < len(o.values) == len(o.index) == len(o.weight)
        # Street 1 deals 5 cards: 232 ways; a Pineapple street 3 cards, 27 ways at most.
        assert len(o.values) <= (232 if d.street == 0 else 27)
        # The bias feature (the last of the layout) is on for every candidate.
        assert all(imitate.DIM - 1 in row for row in o.index)


def test_the_fit_finds_what_the_players_prefer_beyond_the_value() -> None:
    # 300 decisions of 4 candidates; candidate k has feature k alone and a random value;
    # the players make the candidate of highest value + 3 points for feature 2.  The value
    # alone agrees with them on far fewer decisions than the value plus the fitted
    # preference, which puts feature 2 above the others and agrees nearly always.
    rng = np.random.default_rng(0)
    offers = []
    for n in range(300):
        index = np.full((4, 24), -1, dtype=np.int32)
        index[:, 0] = [0, 1, 2, 3]
        weight = np.zeros((4, 24), dtype=np.float32)
        weight[:, 0] = 1.0
        values = rng.normal(0, 2, 4)
        chosen = int(np.argmax(values + 3.0 * (np.arange(4) == 2)))
        offers.append(imitate.Offered(f"h{n}", 1, 7, chosen, values, index, weight))
    prefs = imitate.fit(offers, l2=0.001, steps=300)
    alone = imitate.agreement(offers, {}, 1.0)
    assert alone < 0.8
    assert imitate.agreement(offers, prefs, 1.0) >= max(0.95, alone + 0.15)
    u, beta = prefs[7].u, prefs[7].beta
    assert beta > 0
    # In points: feature 2 is worth about 3 more than the others.
    assert 1.5 < (u[2] - np.mean(u[[0, 1, 3]])) / beta < 6.0
    ll = imitate.log_likelihood(offers, prefs)[7]
    assert ll > imitate.log_likelihood(offers, {})[7] + 0.2


def test_the_blend_adds_the_preference_in_points_to_the_net_weights() -> None:
    # u = 3 on feature 10 of the 7-card model, beta 0.5, lam 2, two opponents:
    # the net a opponent weight of feature 10 grows by 2 * 3 / 0.5 / 2 = 6 points.
    value = learned_value()
    u = np.zeros(imitate.DIM)
    u[10] = 3.0
    blended = imitate.combined(value, {7: imitate.Preference(0.5, u)}, 2.0, 2.0, {"test": 1})
    before, after = json.loads(value.to_json()), json.loads(blended.to_json())
    for m0, m1 in zip(before["models"], after["models"], strict=True):
        for t, (w0, w1) in enumerate(zip(m0["targets"], m1["targets"], strict=True)):
            delta = np.array(w1) - np.array(w0)
            if m0["placed"] == 7 and t == 0:
                assert abs(delta[10] - 6.0) < 1e-6
                delta[10] = 0.0
            assert np.abs(delta).max() < 1e-6
    assert after["training"]["imitation"] == {"test": 1}


def test_lam_zero_plays_as_the_value_alone(tmp_path: Path) -> None:
    decisions, finals = _decisions(tmp_path)
    value = learned_value()
    u = np.ones(imitate.DIM)
    blended = imitate.combined(value, {5: imitate.Preference(1.0, u)}, 0.0, 2.0, {})
    a = replay(decisions, finals, policy_advice(seed=0, threads=1, value=value))
    b = replay(decisions, finals, policy_advice(seed=0, threads=1, value=blended))
    assert [s.bot_board for s in a] == [s.bot_board for s in b]
