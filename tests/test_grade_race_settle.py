"""The race's version switches reach the core: ``recall`` (grader version 8) and ``settle``
(version 9), each off giving the older grade of a real decision it changed.

Two decisions of the real samples (``shared/samples/apps``, pineapple-ultimate), graded with
the learned value and the published Fantasyland figures at 32 rollouts, seed 0.  Version 8's
fresh rollouts kept the play made of the second against the race's pick but measured
another play above it beyond 2 SE; version 9 measures that play against the play made once
more, on rollouts of its own, finds it ahead beyond 2 SE and advises it.
"""

from __future__ import annotations

import numpy as np

from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.grade.position import Decision, Opponent
from ofc_stats.grade.race import Graded, decision_seed, grade_many
from tests.test_grade import DISCARD, MIDDLE, TOP, board

ULTIMATE = get_ruleset("pineapple-ultimate")

# Street 4 (the fourth), acting first against one opponent: a candidate that left the race
# early comes back with version 8's recall.
RECALLED = Decision(
    hand_key="app-json:Ppp:6862981:200528051140-6862981-0000011-1",
    seat=0,
    position=0,
    player="pid3744876",
    ruleset=ULTIMATE,
    street=3,
    board=board("Qc Kh", "2s 5d 2d", "8h Tc 9s 7h"),
    dealt=parse_cards("3s 5c Ac"),
    discards=1,
    dead=parse_cards("6d Qh"),
    opponents=(Opponent(1, board("Qs Kd", "2h 7s 2c", "9h 9c Jc Jh"), next_street=3),),
    chosen=(MIDDLE, MIDDLE, DISCARD),
)

# Street 3, between a Fantasyland opponent and one who acted first: the play made (Jc top,
# 3d middle, 2d thrown) is kept by the fresh rollouts against the race's pick, which measure
# another play above it beyond 2 SE.
SETTLED = Decision(
    hand_key="app-json:Ppp:21947173:210330175926-21947173-0000106-1",
    seat=1,
    position=1,
    player="pid2923305",
    ruleset=ULTIMATE,
    street=2,
    board=board("Qc", "3h 8h 2h", "4s 7s 5s"),
    dealt=parse_cards("Jc 3d 2d"),
    discards=1,
    dead=parse_cards("Tc"),
    opponents=(
        Opponent(0, board(), next_street=5, fantasy_cards=16),
        Opponent(2, board("Ah", "2s 4d", "7h Js 9h 9s"), next_street=2),
    ),
    chosen=(TOP, MIDDLE, DISCARD),
)


def _graded(d: Decision, **switches: bool) -> Graded:
    key = decision_seed(0, d.hand_key, d.seat, d.street)
    (g,) = grade_many([d], 32, [key], threads=1, **switches)
    assert isinstance(g, Graded)
    return g


def _above_the_best(g: Graded) -> list[int]:
    """Candidates measured above the best beyond 2 SE of their paired gap."""
    valued = (g.rollouts > 0) & (np.arange(len(g.candidates)) != g.best)
    return np.flatnonzero(valued & (g.gap < -2 * g.gap_se)).tolist()


def test_recall_off_is_version_7s_race() -> None:
    # With the recall a candidate that left early gets the race's rollouts it missed; the
    # advice is the same either way (as on every real decision the recall changed).
    now = _graded(RECALLED)
    before = _graded(RECALLED, recall=False)
    back = np.flatnonzero(now.rollouts > before.rollouts)
    assert back.size > 0
    assert (before.rollouts[back] < 32).all() and (now.rollouts[back] == 32).all()
    assert now.best == before.best


def test_settle_off_is_version_8s_grade() -> None:
    before = _graded(SETTLED, settle=False)
    # Version 8: the play made stays the best, uncharged, with a play measured above it
    # beyond 2 SE on the fresh rollouts they shared.
    assert before.best == before.chosen and before.loss == 0.0
    (rival,) = _above_the_best(before)
    now = _graded(SETTLED)
    # Version 9: that play, measured once more, is ahead beyond 2 SE: it is the advice and
    # the play made is charged; nothing is measured above the best beyond 2 SE.
    assert now.best == rival and now.chosen == before.chosen
    assert now.loss > 2 * now.loss_se > 0.0
    assert now.gap[now.chosen] == now.loss
    assert _above_the_best(now) == []
    assert np.nanmax(now.ev) == now.ev[now.best]
