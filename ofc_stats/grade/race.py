"""Grading one decision: a race between its candidates, rollouts spent where they matter.

When a street has more than ``SCREEN_ABOVE`` legal candidates (the first
street's 232, a Pineapple street's 27) and is not the last, a cheap screen
first keeps the ``SCREEN_KEEP`` the policy itself values most over
``SCREEN_DREAMS`` imagined completions, and always the play made.  Every
remaining candidate starts with the same rollouts.  Then rounds of
``STEP`` common rollouts go to the candidates still in the race; one leaves
it when it is behind the leader by more than ``Z`` standard errors of the
paired difference.  The play made and the leader always stay.  The race ends
when they are the only ones left and the loss is known to ``TARGET_SE``
points, or at the rollout budget.  The loss is the leader's mean minus the
chosen one's over fresh common rollouts (0 when the play made leads or the
fresh rollouts say it is as good; see :func:`_result`), with the SE of that
paired difference; the SE two independent estimates would have had is kept
too, to measure what the common random numbers save.
"""

from __future__ import annotations

import zlib
from collections.abc import Generator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats.grade.policy import candidate_values, imagine, state_of
from ofc_stats.grade.rollout import PARTS, Rollouts, Setup, shape, simulate_many

SCREEN_ABOVE = 12
SCREEN_DREAMS = 32
SCREEN_KEEP = 10
STEP = 16
Z = 3.0
TARGET_SE = 0.5


@dataclass(frozen=True)
class Graded:
    """The grade of one decision; candidate arrays are in ``Setup.legal`` order."""

    candidates: npt.NDArray[np.int64]  # candidate index (into the candidate table)
    ev: npt.NDArray[np.float64]
    se: npt.NDArray[np.float64]
    rollouts: npt.NDArray[np.int32]
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
    """One generator seed per decision: the grades never depend on batching or workers."""
    return [seed, zlib.crc32(hand_key.encode("utf-8")), seat, street]


# A race asks for rollouts by yielding (candidate rows, rollouts) and is sent their values.
Race = Generator[tuple[npt.NDArray[np.int64], int], Rollouts, Graded]


def grade(plan: Setup, budget: int, rng: np.random.Generator) -> Graded:
    """Race the legal candidates of one decision with at most ``budget`` rollouts each."""
    return grade_many([plan], budget, [rng])[0]


def grade_many(plans: list[Setup], budget: int, rngs: list[np.random.Generator]) -> list[Graded]:
    """Run the races of many decisions in lockstep: each round, the rollouts every race
    asks for are simulated together for the decisions of one shape.

    Each race draws only from its own generator, so its grade is the same
    whatever else runs beside it.
    """
    races = [racing(p, budget, r) for p, r in zip(plans, rngs, strict=True)]
    done: dict[int, Graded] = {}
    asks: dict[int, tuple[npt.NDArray[np.int64], int]] = {}
    for i, race in enumerate(races):
        try:
            asks[i] = next(race)
        except StopIteration as stop:
            done[i] = stop.value
    while asks:
        groups: dict[tuple[tuple[object, ...], int], list[int]] = {}
        for i, (_, count) in asks.items():
            groups.setdefault((shape(plans[i]), count), []).append(i)
        for (_, count), members in groups.items():
            outs = simulate_many(
                [plans[i] for i in members],
                [asks[i][0] for i in members],
                count,
                [rngs[i] for i in members],
            )
            for i, out in zip(members, outs, strict=True):
                try:
                    asks[i] = races[i].send(out)
                except StopIteration as stop:
                    done[i] = stop.value
                    del asks[i]
    return [done[i] for i in range(len(plans))]


def racing(plan: Setup, budget: int, rng: np.random.Generator) -> Race:
    """One decision's race (see the module doc), asking for its rollouts as it goes."""
    legal = plan.legal
    chosen = int(np.flatnonzero(legal == plan.chosen)[0])
    count = len(legal)
    values: list[list[npt.NDArray[np.float64]]] = [[] for _ in range(count)]
    parts: list[list[dict[str, npt.NDArray[np.float64]]]] = [[] for _ in range(count)]
    alive = np.arange(count)
    if count > SCREEN_ABOVE and plan.decision.street + 1 < len(plan.ruleset.variant.streets):
        rough = screen(plan, rng)
        keep = set(np.argsort(-rough)[:SCREEN_KEEP].tolist()) | {chosen}
        alive = np.array(sorted(keep))
    done = 0
    while done < budget:
        step = min(STEP, budget - done)
        out = yield plan.legal[alive], step
        _record(out, alive, values, parts)
        done += step
        common = np.stack([np.concatenate(values[i]) for i in alive])  # (A, n)
        n = common.shape[1]
        at = int(common.mean(axis=1).argmax())
        leader = int(alive[at])
        diff = common[at][None, :] - common
        gap = diff.mean(axis=1)
        gap_se = diff.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(len(alive))
        chosen_se = float(gap_se[alive == chosen][0])
        alive = alive[(gap - Z * gap_se <= 0) | (alive == leader) | (alive == chosen)]
        if len(alive) == 1:
            break
        if set(alive.tolist()) <= {leader, chosen} and chosen_se <= TARGET_SE:
            break
    return (yield from _result(plan, values, parts, alive, chosen, max(budget, 2)))


def screen(plan: Setup, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """The policy's own value of each legal candidate, averaged over imagined completions.

    Cheap (one board per candidate and imagination, no play-out): it only
    decides which candidates are worth rollouts.
    """
    decision = plan.decision
    board = np.array(decision.board, dtype=np.int8)
    fill = np.array([(board[s] >= 0).sum() for s in (slice(0, 3), slice(3, 8), slice(8, 13))])
    dealt = np.array(decision.dealt, dtype=np.int8)
    need = 13 - int(fill.sum()) - (len(dealt) - decision.discards)
    known = np.broadcast_to(plan.known, (SCREEN_DREAMS, len(plan.known)))
    value, _, _ = candidate_values(
        np.tile(board, (SCREEN_DREAMS, 1)),
        np.full(SCREEN_DREAMS, state_of(fill.astype(np.int8))),
        np.tile(dealt, (SCREEN_DREAMS, 1)),
        decision.discards,
        imagine(known, need, rng) if need else None,
        plan.rules,
        plan.ruleset.deck.size > 52,
    )
    mean: npt.NDArray[np.float64] = value[:, plan.legal].mean(axis=0)
    return mean


def _record(
    out: Rollouts,
    alive: npt.NDArray[np.int64],
    values: list[list[npt.NDArray[np.float64]]],
    parts: list[list[dict[str, npt.NDArray[np.float64]]]],
) -> None:
    for row, i in enumerate(alive.tolist()):
        values[i].append(out.total[row])
        parts[i].append({name: out.parts[name][row] for name in PARTS})


def _result(
    plan: Setup,
    values: list[list[npt.NDArray[np.float64]]],
    parts: list[list[dict[str, npt.NDArray[np.float64]]]],
    alive: npt.NDArray[np.int64],
    chosen: int,
    fresh: int,
) -> Race:
    """The race's estimates, and the loss measured again on ``fresh`` rollouts.

    The leader of a race is the candidate whose estimate came out highest, so
    its own estimate is biased upwards (the maximum of noisy numbers); the
    loss is therefore measured on new common rollouts of the leader and the
    play made.  When they say the play made is at least as good, it is the
    best and the loss is 0 (so the loss is never negative; the price is a
    small upward bias, under 0.4 SE, where the two are truly equal).
    """
    empty = np.zeros(0)
    flat = [np.concatenate(v) if v else empty for v in values]  # screened out: no rollouts
    n = np.array([len(v) for v in flat], dtype=np.int32)
    ev = np.array([v.mean() if len(v) else np.nan for v in flat])
    se = np.array([v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else np.nan for v in flat])
    finalists = alive[n[alive] == n[alive].max()]
    best = int(finalists[int(ev[finalists].argmax())])
    if best == chosen:
        return Graded(plan.legal, ev, se, n, chosen, best, 0.0, 0.0, 0.0, dict.fromkeys(PARTS, 0.0))
    again = yield plan.legal[[best, chosen]], fresh
    diff = again.total[0] - again.total[1]
    if diff.mean() <= 0:  # on fresh evidence the play made is as good: it is the best
        return Graded(
            plan.legal, ev, se, n, chosen, chosen, 0.0, 0.0, 0.0, dict.fromkeys(PARTS, 0.0)
        )
    ev, se, n = ev.copy(), se.copy(), n.copy()
    for row, i in enumerate((best, chosen)):
        ev[i] = again.total[row].mean()
        se[i] = again.total[row].std(ddof=1) / np.sqrt(fresh)
        n[i] = fresh
    return Graded(
        plan.legal,
        ev,
        se,
        n,
        chosen,
        best,
        float(diff.mean()),
        float(diff.std(ddof=1) / np.sqrt(fresh)),
        float(np.hypot(se[best], se[chosen])),
        {name: float((again.parts[name][0] - again.parts[name][1]).mean()) for name in PARTS},
    )
