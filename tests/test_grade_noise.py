"""Near-ties in the stored grades: a coach sees which plays the rollouts preferred.

The race keeps the play made as the best play when it cannot tell it from its top
(advice to play otherwise needs evidence), and no candidate is valued above the best
(issue 26).  Grader version 6 stored a candidate the rollouts measured above that best
at the best's value, so the rollouts' order among near-ties was lost; version 7 keeps
each candidate's measured gap behind the best, signed, with its SE and whether it is
within the noise of the best.
"""

from __future__ import annotations

import numpy as np
import pytest

from ofc_stats.grade.race import grade_many
from ofc_stats.grade.rollout import simulate
from ofc_stats.grade.run import GradeOptions, grade_chunk
from tests.test_grade import BOTTOM, DISCARD, MIDDLE, TOP, flush, index, last_street

# 9h to the bottom keeps the flush draw; the play made puts the 5s in the middle and throws
# the 2c, its twin the other way round: the two differ by a low card in the middle.
TWIN_OF_KEEP = (BOTTOM, DISCARD, MIDDLE)
KEEP_SAFE = (MIDDLE, TOP, DISCARD)  # last street: Qh middle, 2c top, 3h thrown


def test_a_tied_best_keeps_the_plays_the_rollouts_measured_above_it() -> None:
    tables = grade_chunk([flush(TWIN_OF_KEEP)], GradeOptions(rollouts=32, seed=0), threads=1)
    grades = tables["grades"].to_pylist()[0]
    rows = tables["grade_candidates"].to_pylist()
    made = next(r for r in rows if r["chosen"])
    # The race cannot tell the play made from its top: it is the best play, no loss.
    assert made["best"] and grades["loss"] == 0.0 and grades["best_play"] == made["play"]
    assert made["gap"] == 0.0 and made["gap_se"] == 0.0 and made["within_noise"]
    twin = next(r for r in rows if r["play"] == "middle 2c | bottom 9h | discard 5s")
    # The rollouts measured the twin above the play made (a negative gap) within their
    # noise: valued no higher than the best (issue 26), but its order is kept.
    assert twin["gap"] < 0 and twin["within_noise"]
    assert -twin["gap"] <= 2 * twin["gap_se"]
    assert twin["ev"] == grades["ev_best"]
    valued = [r for r in rows if r["ev"] is not None]
    assert max(r["ev"] for r in valued) <= grades["ev_best"]
    # Every candidate's value is the best's minus its gap where positive.
    for r in valued:
        assert r["ev"] == pytest.approx(grades["ev_best"] - max(r["gap"], 0.0), abs=1e-9)
        assert r["within_noise"] == (abs(r["gap"]) <= 2 * r["gap_se"])
    # Screened-out or not raced: no value, no gap.
    for r in rows:
        if r["ev"] is None:
            assert r["gap"] is None and r["gap_se"] is None and r["within_noise"] is None


def test_the_gap_is_the_paired_mean_over_the_shared_rollouts() -> None:
    # With the imagination policy (value=None) the Python simulate plays the same rollouts
    # as the race: each candidate's gap is the mean of best - it over the rollouts the two
    # shared, its SE their paired SE.
    d = flush(TWIN_OF_KEEP)
    (g,) = grade_many([d], 32, [[4]], threads=1, value=None)
    assert not isinstance(g, Exception)
    valued = np.flatnonzero(g.rollouts > 0)
    assert (g.gap[valued] < 0).any(), "a candidate measured above the best"
    for i in valued:
        shared = int(min(g.rollouts[i], g.rollouts[g.best]))
        rows = [int(g.candidates[g.best]), int(g.candidates[i])]
        v = simulate(d, rows, shared, [4]).total
        diff = v[0] - v[1]
        se = 0.0 if i == g.best else diff.std(ddof=1) / np.sqrt(shared)
        assert g.gap[i] == pytest.approx(diff.mean(), abs=1e-9)
        assert g.gap_se[i] == pytest.approx(se, abs=1e-9)


def test_exact_positions_are_within_noise_only_when_worth_as_much() -> None:
    # Nothing left to deal (see tests/test_grade.py): Qh to the middle is worth 23.23, Qh on
    # top fouls (-6): its gap is 29.23 with no noise, not within noise of the best.
    (g,) = grade_many([last_street(KEEP_SAFE)], 16, [[1]], threads=1)
    assert not isinstance(g, Exception)
    assert (g.gap_se == 0.0).all()
    assert np.array_equal(g.gap, g.ev[g.best] - g.ev)
    assert np.array_equal(g.within_noise, g.ev == g.ev[g.best])
    foul = index((TOP, DISCARD, MIDDLE))  # Qh top, 2c thrown, 3h middle
    at = int(np.flatnonzero(g.candidates == foul)[0])
    assert g.gap[at] == pytest.approx(29.23, abs=1e-12) and not g.within_noise[at]
