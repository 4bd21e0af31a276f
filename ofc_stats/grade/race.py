"""Grading one decision: a race between its candidates, rollouts spent where they matter.

The race runs in the core (``rust/ofc-core/src/race.rs``), decisions side by
side on threads; ``docs/grading.md`` tells the whole method.  When a street has
more than 12 legal candidates and the player still plays two streets or more
after it, a cheap screen (the policy's own values over 64 imagined completions,
keyed by the position, not the seed) keeps the 20 best and always the play
made.  Rounds of 16 common rollouts go to the candidates still in the race; one
leaves it when it is behind the leader by more than 3 standard errors of the
paired difference; one that left early but measures above the race's top (or a
finalist tied with it) beyond 2 SE on the rollouts they shared comes back for the
rollouts it missed and races on (grader version 8).  Finalists no finalist
measures above beyond 2 SE are tied with the race's top: the best play is the
play made if it is one of them, else the screen's favourite.  The loss is
measured again on fresh common rollouts of the best play and the play made (more
while unresolved) and charged only beyond 2 SE; where those keep the play made,
the plays the race measured above it are valued on them too; where they measure one
above the play made beyond 2 SE, their top is measured against it once more, on
rollouts of its own, and is the best play if ahead there (grader version 9).  Every other
candidate is valued by its paired gap to the best, so none is above it, and the
gap is kept with its sign and SE (``Graded.gap``: a candidate the rollouts measured
above a tied best shows so, ``within_noise``).  A
position with nothing left to deal is valued exactly, by one rollout.  The
replay's bot, on its own positions, has no play made: it is graded with
``stick=False`` (the placeholder play made wins no tie, no loss is measured).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import UnplayablePosition
from ofc_stats.grade.position import Decision
from ofc_stats.grade.rollout import PARTS, checked_values, core_decision, fantasy_values, streets
from ofc_stats.grade.train import learned_value


@dataclass(frozen=True)
class Search:
    """A learned value's search a street ahead (``ofc_core::search``, issue 26): a play
    is worth the mean over ``deals`` sampled deals of the next street of the best next
    afterstate's value, among the best ``among`` plays by value (0: every play), where
    the play leaves at most ``until`` cards placed (5: street 1; 7: streets 1-2) and at
    least ``from``."""

    deals: int
    among: int = 0
    until: int = 7
    start: int = 0

    @classmethod
    def parse(cls, text: str) -> Search:
        """``DEALS[:AMONG[:UNTIL[:FROM]]]``, e.g. ``8:0:7``; a ValueError saying what is wrong.

        >>> Search.parse("8:0:13:11")
        Search(deals=8, among=0, until=13, start=11)
        """
        form = "DEALS[:AMONG[:UNTIL[:FROM]]] of whole numbers >= 0"
        try:
            numbers = [int(p) for p in text.split(":")]
        except ValueError:
            raise ValueError(f"a search is {form}, not {text!r}") from None
        if not 1 <= len(numbers) <= 4 or min(numbers) < 0:
            raise ValueError(f"a search is {form}, not {text!r}")
        return cls(*numbers)

    def core(self) -> tuple[int, int, int, int]:
        """The core's ``(deals, among, until, from)``."""
        return (self.deals, self.among, self.until, self.start)


@dataclass(frozen=True)
class Graded:
    """The grade of one decision; candidate arrays are in legal-candidate order."""

    candidates: npt.NDArray[np.int64]  # candidate index (into the candidate table)
    destinations: npt.NDArray[np.int8]  # (candidates, cards): 0 top .. 3 discard
    plays: list[str]  # each candidate's play as text (tasks.play_text)
    ev: npt.NDArray[np.float64]  # NaN: screened out
    se: npt.NDArray[np.float64]  # NaN: screened out; 0: valued exactly
    rollouts: npt.NDArray[np.int32]
    # The paired gap behind the best as measured (best - it; < 0: the rollouts measured it
    # above the best, within their noise) and its SE; NaN: screened out.  ``ev`` is never
    # above the best's, the gap keeps the rollouts' order among near-ties.
    gap: npt.NDArray[np.float64]
    gap_se: npt.NDArray[np.float64]
    within_noise: npt.NDArray[np.bool_]  # |gap| <= 2 SE: the rollouts cannot tell it from the best
    chosen: int  # position in the arrays above
    best: int
    loss: float
    loss_se: float
    loss_se_independent: float
    parts: dict[str, float]  # the loss split by PARTS; sums to the loss

    @property
    def forced(self) -> bool:
        return len(self.candidates) == 1


def decision_seed(seed: int, hand_key: str, seat: int, street: int) -> list[int]:
    """One random key per decision: the grades never depend on batching or threads."""
    return [seed, zlib.crc32(hand_key.encode("utf-8")), seat, street]


def _graded(core: _core.StreetGrade) -> Graded:
    return Graded(
        candidates=core.candidates,
        destinations=core.destinations,
        plays=core.plays,
        ev=core.ev,
        se=core.se,
        rollouts=core.rollouts,
        gap=core.gap,
        gap_se=core.gap_se,
        within_noise=core.within_noise,
        chosen=core.chosen,
        best=core.best,
        loss=core.loss,
        loss_se=core.loss_se,
        loss_se_independent=core.loss_se_independent,
        parts=dict(zip(PARTS, core.parts, strict=True)),
    )


def grade_many(
    decisions: Sequence[Decision],
    budget: int,
    keys: Sequence[Sequence[int]],
    threads: int | None = None,
    fantasy: Callable[[Ruleset], npt.NDArray[np.float64]] | None = None,
    value: _core.ValueFunction | Literal["learned"] | None = "learned",
    tie: float | None = None,
    extra: int | None = None,
    stick: bool = True,
    search: Search | None = None,
    search_next_only: bool = False,
    screen: Search | None = None,
    recall: bool = True,
    settle: bool = True,
) -> list[Graded | UnplayablePosition]:
    """Race every decision with at most ``budget`` rollouts a candidate, on ``threads``
    threads (None: every core), valuing a Fantasyland by ``fantasy(ruleset)`` (by cards
    dealt; None: the published figures), the boards played on by a learned board
    ``value`` (default "learned": the versioned weights; None: the imagination policy); a position
    that cannot be replayed comes back as the :class:`UnplayablePosition` saying why.
    ``tie`` (SEs) and ``extra`` (times the budget where the advice hinges) override the
    race's own (None: the grader's); ``stick=False`` grades positions whose play made is
    only a placeholder (the replay bot's own): the play made wins no tie, no loss is measured.
    ``search`` has the rollouts' learned value search a street ahead (:class:`Search`; None:
    greedily), on the graded seat's first street after the decision only with
    ``search_next_only``; ``screen``: the race's screen (which candidates race, the favourite
    among tied ones) ranks by the learned value searching so (None: imagined
    completions).  ``recall=False`` is grader version 7's race (no early leaver comes back),
    ``settle=False`` version 8's grade (no second look where the fresh rollouts put a play
    above a kept play made), for studies.  Decision i draws from ``keys[i]`` only.
    Fantasyland values that are not finite points >= 0 raise :class:`RulesetError`.
    """
    if value == "learned":
        value = learned_value()
    by_ruleset: dict[Ruleset, list[int]] = {}
    for i, decision in enumerate(decisions):
        by_ruleset.setdefault(decision.ruleset, []).append(i)
    out: list[Graded | UnplayablePosition | None] = [None] * len(decisions)
    for ruleset, members in by_ruleset.items():
        results = _core.grade_street_decisions(
            core_rules(ruleset),
            streets(ruleset),
            checked_values(fantasy_values(ruleset.deck) if fantasy is None else fantasy(ruleset)),
            [core_decision(decisions[i], keys[i]) for i in members],
            max(budget, 1),
            threads,
            value,
            tie,
            extra,
            stick,
            None if search is None else search.core(),
            search_next_only,
            None if screen is None else screen.core(),
            recall,
            settle,
        )
        for i, result in zip(members, results, strict=True):
            out[i] = result if isinstance(result, UnplayablePosition) else _graded(result)
    return [g for g in out if g is not None]


def grade(decision: Decision, budget: int, key: Sequence[int] = (0,)) -> Graded:
    """Race the legal candidates of one decision; raises :class:`UnplayablePosition`."""
    (result,) = grade_many([decision], budget, [key], threads=1)
    if isinstance(result, UnplayablePosition):
        raise result
    return result
