"""Learning from the players: a model of their choices added to the learned board value.

The players of the samples beat the continuation policy (greedy on the board value
learned from self-play) by almost three points a hand, mostly by converting
Fantasyland chases.  A *conditional-logit* model says which candidate a player makes
of a street's legal plays: the play of afterstate features ``x`` is chosen with
probability proportional to ``exp(beta * V + u . x)``, ``V`` the board value (the
policy's own opinion), ``u`` the players' preference beyond it, one ``(beta, u)`` per
street (cards placed after it), fitted by maximum likelihood with an L2 penalty on
``u`` (numpy: full-batch Adam, deterministic).  Then ``V + lam * (u . x) / beta`` is
the value a policy plays by: ``lam = 1`` plays the model's most likely play, 0 the
value alone.  The preference lies in the value's own feature layout, so it is added to
the weights of its *net a opponent* target (divided by the opponents at the table)
and plays in the rollouts at no extra cost.

Anything fitted on real decisions is fitted on the tuning half of the seats only
(``ofc_stats.grade.replay.half``) and judged on the holdout half: see
``docs/grading.md``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import UnplayablePosition
from ofc_stats.grade import rollout
from ofc_stats.grade.position import Decision
from ofc_stats.grade.replay import FantasyWorth, worth_table

# Features of an afterstate (the core's); one slot more for "no feature".
DIM = _core.VALUE_FEATURES


@dataclass(frozen=True)
class Offered:
    """One real decision's legal candidates as the board value sees them."""

    hand_key: str
    street: int
    placed: int  # cards on the board after the street (the value's model)
    chosen: int  # the play made, a position among the candidates
    values: npt.NDArray[np.float64]  # (n,) the board value of each candidate
    index: npt.NDArray[np.int32]  # (n, 24) feature indices, -1: none
    weight: npt.NDArray[np.float32]  # (n, 24) feature values


def offered(
    decisions: Sequence[Decision],
    value: _core.ValueFunction,
    fantasy_worth: FantasyWorth | None,
    threads: int | None = None,
) -> list[Offered]:
    """The legal candidates of every decision the core can set up (others are left out)."""
    by_ruleset: dict[Ruleset, list[Decision]] = defaultdict(list)
    for d in decisions:
        if d.chosen:
            by_ruleset[d.ruleset].append(d)
    out = []
    for ruleset, members in by_ruleset.items():
        got = _core.offered_candidates(
            core_rules(ruleset),
            rollout.streets(ruleset),
            worth_table(ruleset, fantasy_worth),
            [rollout.core_decision(d, (0,)) for d in members],
            value,
            threads,
        )
        for d, o in zip(members, got, strict=True):
            if isinstance(o, UnplayablePosition):
                continue
            chosen, placed, values, index, weight = o
            out.append(Offered(d.hand_key, d.street, placed, chosen, values, index, weight))
    return out


@dataclass(frozen=True)
class Preference:
    """The players' preference on one street: ``beta`` on the value, ``u`` on the features."""

    beta: float
    u: npt.NDArray[np.float64]  # (DIM,)


class _Stacked:
    """The candidates of many decisions of one street, stacked for vectorised sums."""

    def __init__(self, offers: Sequence[Offered]) -> None:
        sizes = np.array([len(o.values) for o in offers])
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.values = np.concatenate([o.values for o in offers])
        index = np.concatenate([o.index for o in offers]).astype(np.int64)
        self.index = np.where(index < 0, DIM, index)  # DIM: a slot that is always 0
        self.weight = np.concatenate([o.weight for o in offers]).astype(np.float64)
        self.chosen = self.starts + np.array([o.chosen for o in offers])
        self.group = np.repeat(np.arange(len(offers)), sizes)
        self.decisions = len(offers)
        # The value's scale: standardise it so one step size fits every street.
        self.scale = float(np.std(self.values)) or 1.0

    def logits(self, beta: float, u: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        preference = (np.append(u, 0.0)[self.index] * self.weight).sum(1)
        out: npt.NDArray[np.float64] = beta * self.values / self.scale + preference
        return out

    def probabilities(self, z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        top = np.maximum.reduceat(z, self.starts)
        e = np.exp(z - top[self.group])
        out: npt.NDArray[np.float64] = e / np.add.reduceat(e, self.starts)[self.group]
        return out

    def log_likelihood(self, beta: float, u: npt.NDArray[np.float64]) -> float:
        """Mean log-probability of the plays made."""
        p = self.probabilities(self.logits(beta, u))
        return float(np.mean(np.log(np.maximum(p[self.chosen], 1e-300))))


def fit(
    offers: Sequence[Offered], l2: float, steps: int = 400, rate: float = 0.05
) -> dict[int, Preference]:
    """Maximum likelihood with ``l2 * |u|^2 / 2`` per decision, one model per street."""
    by_placed: dict[int, list[Offered]] = defaultdict(list)
    for o in offers:
        by_placed[o.placed].append(o)
    out = {}
    for placed, group in sorted(by_placed.items()):
        s = _Stacked(group)
        theta = np.zeros(DIM + 1)  # beta (on the standardised value), then u
        theta[0] = 1.0
        m, v = np.zeros_like(theta), np.zeros_like(theta)
        for step in range(1, steps + 1):
            p = s.probabilities(s.logits(theta[0], theta[1:]))
            r = p.copy()
            r[s.chosen] -= 1.0  # d(-log L)/dz
            grad = np.empty_like(theta)
            grad[0] = float(r @ (s.values / s.scale))
            g = np.bincount(
                s.index.ravel(), weights=(r[:, None] * s.weight).ravel(), minlength=DIM + 1
            )
            grad[1:] = g[:DIM]
            grad /= s.decisions
            grad[1:] += l2 * theta[1:]
            m = 0.9 * m + 0.1 * grad
            v = 0.999 * v + 0.001 * grad**2
            theta -= rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        out[placed] = Preference(beta=float(theta[0]) / s.scale, u=theta[1:].copy())
    return out


def log_likelihood(offers: Sequence[Offered], prefs: dict[int, Preference]) -> dict[int, float]:
    """Mean log-probability of the plays made, per street, under ``prefs``."""
    by_placed: dict[int, list[Offered]] = defaultdict(list)
    for o in offers:
        by_placed[o.placed].append(o)
    out = {}
    for placed, group in sorted(by_placed.items()):
        s = _Stacked(group)
        pref = prefs.get(placed, Preference(0.0, np.zeros(DIM)))
        out[placed] = s.log_likelihood(pref.beta * s.scale, pref.u)
    return out


def agreement(offers: Sequence[Offered], prefs: dict[int, Preference], lam: float) -> float:
    """Share of decisions where ``V + lam * u.x / beta`` is highest at the play made."""
    hits = 0
    for o in offers:
        pref = prefs.get(o.placed)
        score = o.values.copy()
        if pref is not None and pref.beta > 0:
            extra = (np.append(pref.u, 0.0)[np.where(o.index < 0, DIM, o.index)] * o.weight).sum(1)
            score = score + lam * extra / pref.beta
        hits += int(np.argmax(score) == o.chosen)
    return hits / max(len(offers), 1)


def combined(
    value: _core.ValueFunction,
    prefs: dict[int, Preference],
    lam: float,
    opponents: float,
    note: dict[str, object],
) -> _core.ValueFunction:
    """The value plus ``lam`` times the players' preference in points (``u / beta``), added
    to each street's *net a opponent* weights (divided by ``opponents``, the table's)."""
    doc = json.loads(value.to_json())
    for model in doc["models"]:
        pref = prefs.get(int(model["placed"]))
        if pref is None or pref.beta <= 0:
            continue
        net = np.array(model["targets"][0], dtype=np.float64)
        net += lam * pref.u / pref.beta / opponents
        model["targets"][0] = [round(float(x), 6) for x in net]
    doc["training"] = {"value": doc["training"], "imitation": note}
    return _core.ValueFunction(json.dumps(doc))
