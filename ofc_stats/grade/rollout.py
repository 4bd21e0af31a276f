"""The value of each candidate play: expected final points by Monte Carlo rollouts.

A rollout deals the cards the player has not seen in a random order and
hands them out in blocks: the seat's own later streets first, then each
opponent's remaining streets (or its whole Fantasyland deal).  Every
candidate of a decision gets the *same* rollouts (common random numbers), and
because the opponents' blocks do not depend on the candidate, their boards are
played once per rollout, not once per candidate.  Boards are played on by
:mod:`ofc_stats.grade.policy`; Fantasyland opponents are set by the greedy
:mod:`ofc_stats.grade.setter`.  The finished hands are scored by
:func:`~ofc_stats.core.scoring.score_batch`; a candidate's value is
the seat's net points (uncapped) plus the value of the Fantasyland its board
earns (:func:`fantasy_value`).  The value splits into four parts that sum to
it: row points on live boards, row points lost to fouls, royalties (own minus
each opponent's), and Fantasyland.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats.core.scoring import score_batch
from ofc_stats.engine.board import ROW_SIZES
from ofc_stats.engine.fantasy_value import published_value
from ofc_stats.engine.rules import Deck, Ruleset
from ofc_stats.engine.vector.rule_arrays import CompiledRules, compile_rules
from ofc_stats.errors import UnplayablePosition
from ofc_stats.grade.policy import imagine, play_street, state_of
from ofc_stats.grade.position import Decision, Opponent
from ofc_stats.grade.setter import set_fantasy
from ofc_stats.sim.lookahead import Candidates, apply, candidates

PARTS = ("rows", "fouls", "royalties", "fantasy")


def fantasy_value(cards: int, deck: Deck = Deck.STANDARD52) -> float:
    """Points a ``cards``-card Fantasyland is worth over a normal hand; 0 for no entry.

    The published figures the solver's ``--stay-value auto`` uses
    (:func:`ofc_stats.engine.fantasy_value.published_value`).
    """
    return published_value(cards, deck)[0] if cards else 0.0


@dataclass(frozen=True)
class Setup:
    """Everything about one decision that every rollout shares."""

    decision: Decision
    ruleset: Ruleset
    rules: CompiledRules
    cands: Candidates
    legal: npt.NDArray[np.int64]  # candidates that fit the rows
    chosen: int  # index of the play made, in cands
    after: npt.NDArray[np.int8]  # (C, 13) board after each candidate
    fill: npt.NDArray[np.int8]  # (C, 3)
    known: npt.NDArray[np.bool_]  # (deck,) cards the player has seen
    unseen: int
    fantasy_values: npt.NDArray[np.float64]  # by cards of the Fantasyland earned


def setup(decision: Decision) -> Setup:
    """The decision's candidates and what every rollout shares; a bad position is refused."""
    ruleset = decision.ruleset
    rules = compile_rules(ruleset)
    board = np.array(decision.board, dtype=np.int8)
    fill = np.array(
        [(board[s] >= 0).sum() for s in (slice(0, 3), slice(3, 8), slice(8, 13))], np.int8
    )
    if len(decision.dealt) != len(decision.chosen) or not 0 <= decision.discards <= len(
        decision.dealt
    ):
        raise UnplayablePosition("the street's cards and destinations do not match")
    cands = candidates(len(decision.dealt), decision.discards)
    after, fits = apply(board[None], fill[None], np.array([decision.dealt], np.int8), cands)
    legal = np.flatnonzero(fits[0])
    match = np.flatnonzero((cands.dest == np.array(decision.chosen)).all(axis=1))
    if not len(match) or not fits[0, match[0]]:
        raise UnplayablePosition("the play made does not fit the rows")
    deck = ruleset.deck.size
    known = np.zeros(deck, dtype=bool)
    seen = [c for c in decision.board if c >= 0] + list(decision.dealt) + list(decision.dead)
    for opponent in decision.opponents:
        seen += [c for c in opponent.board if c >= 0]
    if any(not 0 <= c < deck for c in seen) or len(set(seen)) != len(seen):
        raise UnplayablePosition("a card is outside the deck or seen twice")
    known[seen] = True
    need = _own_need(decision) + sum(_opponent_need(decision, o) for o in decision.opponents)
    unseen = int((~known).sum())
    if need > unseen:
        raise UnplayablePosition(f"the rollouts need {need} cards, {unseen} are unseen")
    new_fill = fill[None] + cands.count
    values = np.array([fantasy_value(n, ruleset.deck) for n in range(32)])
    return Setup(
        decision,
        ruleset,
        rules,
        cands,
        legal,
        int(match[0]),
        after[0],
        new_fill.astype(np.int8),
        known,
        unseen,
        values,
    )


def _own_need(decision: Decision) -> int:
    streets = decision.ruleset.variant.streets
    return sum(dealt for dealt, _ in streets[decision.street + 1 :])


def _opponent_need(decision: Decision, opponent: Opponent) -> int:
    """Cards an opponent still gets: its remaining streets, or its whole Fantasyland deal."""
    if opponent.fantasy_cards:
        return opponent.fantasy_cards
    streets = decision.ruleset.variant.streets
    return sum(dealt for dealt, _ in streets[opponent.next_street :])


@dataclass(frozen=True)
class Rollouts:
    """Values (C, R) of C candidates over R common rollouts, and their parts."""

    total: npt.NDArray[np.float64]
    parts: dict[str, npt.NDArray[np.float64]]


def _play_on(
    boards: npt.NDArray[np.int8],
    state: npt.NDArray[np.int64],
    block: npt.NDArray[np.int8],
    streets: tuple[tuple[int, int], ...],
    known: npt.NDArray[np.bool_],
    where: npt.NDArray[np.int64],
    rngs: list[np.random.Generator],
    rules: CompiledRules,
    jokers: bool,
) -> npt.NDArray[np.int8]:
    """Play ``streets`` on boards (N, 13); board n belongs to rollout ``where[n]``.

    The G x R rollouts (decision-major) deal the cards ``block`` (G x R, n) and
    know the cards ``known`` (G x R, deck); decision g imagines with ``rngs[g]``.
    """
    placed = int((boards[0] >= 0).sum())
    known = known.copy()
    rollouts = np.arange(len(block))[:, None]
    per = len(block) // len(rngs)
    offset = 0
    for dealt_count, placed_count in streets:
        dealt = block[:, offset : offset + dealt_count]
        offset += dealt_count
        known[rollouts, dealt] = True
        placed += placed_count
        need = sum(ROW_SIZES) - placed
        imagined = None
        if need:
            imagined = np.concatenate(
                [imagine(known[g * per : (g + 1) * per], need, r) for g, r in enumerate(rngs)]
            )
        boards, state = play_street(
            boards,
            state,
            dealt[where],
            dealt_count - placed_count,
            None if imagined is None else imagined[where],
            rules,
            jokers,
        )
    return boards


def shape(plan: Setup) -> tuple[object, ...]:
    """Decisions of one shape share every array size: :func:`simulate_many` takes them together."""
    d = plan.decision
    rivals = tuple((o.seat, o.next_street, o.fantasy_cards) for o in d.opponents)
    return (d.ruleset, d.street, d.position, rivals, plan.unseen)


def simulate(
    plan: Setup, rows: npt.NDArray[np.int64], rollouts: int, rng: np.random.Generator
) -> Rollouts:
    """The values of candidates ``rows`` over ``rollouts`` common rollouts."""
    return simulate_many([plan], [rows], rollouts, [rng])[0]


def _start_states(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    fill = np.stack([(boards[:, s] >= 0).sum(axis=1) for s in ROW_PARTS], axis=1)
    return state_of(fill.astype(np.int8))


ROW_PARTS = (slice(0, 3), slice(3, 8), slice(8, 13))


def simulate_many(
    plans: list[Setup],
    rows: list[npt.NDArray[np.int64]],
    rollouts: int,
    rngs: list[np.random.Generator],
) -> list[Rollouts]:
    """:func:`simulate` for decisions of one :func:`shape`, in one set of NumPy calls.

    Each decision draws from its own generator in the order :func:`simulate`
    does, so its values are the same as when it is simulated alone.
    """
    first = plans[0]
    decision, rules, ruleset = first.decision, first.rules, first.ruleset
    deck = ruleset.deck.size
    jokers = deck > 52
    streets = ruleset.variant.streets
    count = len(plans)
    keys = np.stack(
        [rng.random((rollouts, deck)) + p.known for p, rng in zip(plans, rngs, strict=True)]
    )
    order = np.argsort(keys, axis=2)[:, :, : first.unseen].astype(np.int8)
    order = order.reshape(count * rollouts, -1)
    known = np.repeat(np.stack([p.known for p in plans]), rollouts, axis=0)
    sizes = [len(r) for r in rows]
    where = np.concatenate(
        [g * rollouts + np.tile(np.arange(rollouts), size) for g, size in enumerate(sizes)]
    )
    offset = _own_need(decision)
    own = _play_on(
        np.concatenate(
            [np.repeat(p.after[r], rollouts, axis=0) for p, r in zip(plans, rows, strict=True)]
        ),
        np.concatenate(
            [np.repeat(state_of(p.fill[r]), rollouts) for p, r in zip(plans, rows, strict=True)]
        ),
        order[:, :offset],
        streets[decision.street + 1 :],
        known,
        where,
        rngs,
        rules,
        jokers,
    )
    seats = len(decision.opponents) + 1
    me = decision.position
    table = np.empty((len(where), seats, 13), dtype=np.int8)
    table[:, me] = own
    in_fantasy = np.zeros(seats, dtype=bool)
    fantasy_cards = np.zeros(seats, dtype=np.int8)
    for j, opponent in enumerate(decision.opponents):
        need = _opponent_need(decision, opponent)
        block = order[:, offset : offset + need]
        offset += need
        if opponent.fantasy_cards:
            boards, _ = set_fantasy(block)
            in_fantasy[opponent.seat] = True
            fantasy_cards[opponent.seat] = opponent.fantasy_cards
        else:
            start = np.stack([np.array(p.decision.opponents[j].board, np.int8) for p in plans])
            start = np.repeat(start, rollouts, axis=0)
            boards = _play_on(
                start,
                _start_states(start),
                block,
                streets[opponent.next_street :],
                known,
                np.arange(len(start)),
                rngs,
                rules,
                jokers,
            )
        table[:, opponent.seat] = boards[where]
    hands = len(where)
    result = score_batch(
        table,
        ruleset,
        in_fantasy=np.broadcast_to(in_fantasy, (hands, seats)),
        fantasy_cards=np.broadcast_to(fantasy_cards, (hands, seats)),
        check=False,
    )
    net = result.net[:, me].astype(np.float64)
    royalty = result.royalty_total.astype(np.float64)
    royalties = (seats - 1) * royalty[:, me] - (royalty.sum(axis=1) - royalty[:, me])
    rows_points = net - royalties
    fouled = result.fouled[:, me]
    fantasy = first.fantasy_values[result.fantasy_cards[:, me]]
    columns = {
        "total": net + fantasy,
        "rows": np.where(fouled, 0.0, rows_points),
        "fouls": np.where(fouled, rows_points, 0.0),
        "royalties": royalties,
        "fantasy": fantasy,
    }
    out = []
    start_at = 0
    for size in sizes:
        stop = start_at + size * rollouts
        part = {k: v[start_at:stop].reshape(size, rollouts) for k, v in columns.items()}
        total = part.pop("total")
        out.append(Rollouts(total, part))
        start_at = stop
    return out
