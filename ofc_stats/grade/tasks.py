"""Grading tasks: street decisions and Fantasyland sets into Arrow rows.

:func:`grade_chunk` hands a chunk of street decisions to the core, which races
them on threads; :func:`fantasy_chunk` grades Fantasyland sets.  Each returns
the ``grades`` and ``grade_candidates`` rows of its share, in the schemas of
:mod:`ofc_stats.store.schema`.  Every decision is seeded on its own
(:func:`~ofc_stats.grade.race.decision_seed`), so a task's rows do not depend
on the threads or on what else the chunk held.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ofc_stats.engine.board import DESTINATIONS, ROWS
from ofc_stats.engine.cards import format_cards
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import UnplayablePosition
from ofc_stats.grade.fantasy import RoomTables, grade_set, room_tables
from ofc_stats.grade.mistakes import mistake_name
from ofc_stats.grade.position import Decision, FantasyDeal
from ofc_stats.grade.race import Graded, decision_seed, grade_many
from ofc_stats.grade.rollout import PARTS, fantasy_values
from ofc_stats.grade.train import weights_id
from ofc_stats.store.schema import ENGINE_VERSION, GRADE_CANDIDATES, GRADES

# Bump when the policy or the values change: stored grades are redone.
# 2: the race in the core, with its own random streams.
# 3: a loss charged only beyond 2 SE of fresh rollouts; candidates valued by their gap to
#    the best; a foul's cost under fouls; no screen before the last street; named mistakes.
# 4: the rollouts value a Fantasyland by the room's own values (grade.fantasy.room_values),
#    as the replay does, not by the published figures.
# 5: the rollouts are played on by the board value learned from self-play (grade/train.py,
#    data/value-v1.json) instead of imagined completions: its advice on the first two
#    streets no longer loses on the replay, so every street is graded again.
# 6: in a rollout where one of the two plays fouls, the Fantasyland the live board earns is
#    filed under fouls with its rows and royalties (a Fantasyland already earned on top was
#    lost by fouling, not "missed").
# 7: grade_candidates keeps each candidate's measured gap behind the best, signed, with its
#    SE and whether it is within the noise of the best (a candidate the rollouts measured
#    above a tied best showed only the best's value); where the fresh rollouts clear the
#    play made, the race's leader is valued by them too; grades name each decision's rival
#    (the report's close calls).  The advice and losses are 6's.
# 8: the grader no longer advises a play its own rollouts measure below another beyond the
#    tie margin: a candidate that left the race early (behind an early leader) but measures
#    above a play the race can advise comes back for the rollouts it missed and races on; a
#    finalist is tied with the race's top only if no finalist measures above it beyond the
#    margin (7 judged against the top only); where the fresh rollouts keep the play made
#    against the race's pick, every play the race measured above the play made is valued on
#    those rollouts too.  The advice changes on 17 of the real samples' 15,485 decisions.
# 9: where those fresh rollouts measure such a play above the kept play made beyond 2 SE,
#    their top is measured against the play made once more, on rollouts of its own, and is
#    the advice if ahead there (charged beyond 2 SE): no candidate is left measured above
#    the best beyond 2 SE.  The advice changes on 8 of the real samples' decisions.
GRADER_VERSION = 9


@dataclass(frozen=True)
class GradeOptions:
    rollouts: int = 32  # at most this many rollouts per candidate
    player: str | None = None
    seed: int = 0
    # What a Fantasyland is worth in each room (None: the published figures, until
    # :meth:`for_dataset` reads the dataset's own).
    fantasy: RoomTables | None = None

    def for_dataset(self, root: str | Path) -> GradeOptions:
        """These options with the Fantasyland values of the dataset at ``root``'s rooms."""
        return self if self.fantasy is not None else replace(self, fantasy=room_tables(root))

    def fantasy_table(self, ruleset: Ruleset) -> npt.NDArray[np.float64]:
        """What a Fantasyland of 0..31 cards is worth in ``ruleset``'s room, as the core
        reads it (the published figures for a room the dataset does not hold)."""
        tables = dict(self.fantasy or ())
        found = tables.get(ruleset.name)
        return fantasy_values(ruleset.deck) if found is None else np.array(found, dtype=np.float64)

    def grader(self) -> dict[str, object]:
        """What makes two runs' grades comparable: the grader, its options and values."""
        out: dict[str, object] = {
            "version": GRADER_VERSION,
            "engine": ENGINE_VERSION,
            "rollouts": self.rollouts,
            "seed": self.seed,
            "value": weights_id(),  # the learned board value the rollouts play by
        }
        if self.fantasy is not None:
            out["fantasy_values"] = {name: list(values) for name, values in self.fantasy}
        return out


def play_text(dealt: tuple[int, ...], dest: tuple[int, ...] | list[int]) -> str:
    """``top Qs | bottom 7h 7d | discard 2c``: where each dealt card went.

    The core writes each candidate's text the same way (``StreetGrade.plays``).
    """
    parts = []
    for code, name in enumerate(DESTINATIONS):
        cards = [c for c, d in zip(dealt, dest, strict=True) if d == code]
        if cards:
            parts.append(f"{name} {format_cards(cards)}")
    return " | ".join(parts)


def rival(graded: Graded) -> int | None:
    """The play the decision's play made is measured against, or None (a forced street, or
    no other play within the noise): the best play where it is another, else the other play
    within the noise of the best (then the play made) the rollouts measured highest."""
    if graded.best != graded.chosen:
        return graded.best
    near = [
        i
        for i in range(len(graded.candidates))
        if i != graded.chosen and graded.rollouts[i] > 0 and graded.within_noise[i]
    ]
    return min(near, key=lambda i: (float(graded.gap[i]), i)) if near else None


def _rival_columns(dealt: tuple[int, ...], chosen: tuple[int, ...], g: Graded) -> dict[str, object]:
    """The grades' rival columns: the rival's play and name against the play made, its value
    minus the play made's as the rollouts measured them (signed), that difference's SE, and
    whether it is within the noise (one of the two is the best, gap 0: the other's gap)."""
    at = rival(g)
    if at is None:
        return {}
    other = at if g.best == g.chosen else g.chosen
    edge = float(g.gap[g.chosen] - g.gap[at])
    return {
        "rival_play": g.plays[at],
        "rival_mistake": mistake_name(dealt, chosen, [int(x) for x in g.destinations[at]]),
        "rival_edge": edge,
        "rival_se": float(g.gap_se[other]),
        "rival_within_noise": bool(g.within_noise[other]),
    }


def _main_part(parts: dict[str, float], loss: float) -> str:
    if loss <= 0:
        return "none"
    return max(PARTS, key=lambda name: parts[name])


class GradeRows:
    """The two tables, filled decision by decision: ``grades`` as column lists, each
    decision's candidates as arrays (a first street has 232) joined at the end."""

    def __init__(self) -> None:
        self.grades: dict[str, list[object]] = {name: [] for name in GRADES.names}
        self.streets: list[tuple[Decision, Graded]] = []
        self.plays: list[str] = []

    def grade_row(self, **values: object) -> None:
        for name in GRADES.names:
            self.grades[name].append(values.get(name))

    def street(self, decision: Decision, graded: Graded) -> None:
        dealt = decision.dealt
        chosen, best = graded.chosen, graded.best
        self.grade_row(
            hand_key=decision.hand_key,
            seat=decision.seat,
            player=decision.player,
            street=decision.street,
            kind="street",
            decision=_main_part(graded.parts, graded.loss),
            status="forced" if graded.forced else "graded",
            candidates=len(graded.candidates),
            rollouts=int(graded.rollouts[chosen]),
            dealt=list(dealt),
            chosen_play=play_text(dealt, decision.chosen),
            best_play=graded.plays[best],
            ev_chosen=float(graded.ev[chosen]),
            se_chosen=float(graded.se[chosen]),
            ev_best=float(graded.ev[best]),
            se_best=float(graded.se[best]),
            loss=graded.loss,
            loss_se=graded.loss_se,
            loss_se_independent=graded.loss_se_independent,
            **{f"loss_{name}": graded.parts[name] for name in PARTS},
            mistake=mistake_name(
                dealt, decision.chosen, [int(x) for x in graded.destinations[best]]
            ),
            **_rival_columns(dealt, decision.chosen, graded),
        )
        self.streets.append((decision, graded))
        self.plays += graded.plays

    def unplayable(self, decision: Decision, why: str) -> None:
        self.grade_row(
            hand_key=decision.hand_key,
            seat=decision.seat,
            player=decision.player,
            street=decision.street,
            kind="street",
            decision="none",
            status=f"unplayable: {why}",
            dealt=list(decision.dealt),
            chosen_play=play_text(decision.dealt, decision.chosen),
        )

    def tables(self) -> dict[str, pa.Table]:
        return {
            "grades": pa.table(self.grades, schema=GRADES),
            "grade_candidates": self._candidates(),
        }

    def _candidates(self) -> pa.Table:
        if not self.streets:
            return GRADE_CANDIDATES.empty_table()
        graded = [g for _, g in self.streets]
        counts = np.array([len(g.candidates) for g in graded])
        rolled = np.concatenate([g.rollouts for g in graded])
        ev = np.concatenate([g.ev for g in graded])
        se = np.concatenate([g.se for g in graded])
        gap = np.concatenate([g.gap for g in graded])
        gap_se = np.concatenate([g.gap_se for g in graded])
        within = np.concatenate([g.within_noise for g in graded])
        dest = [g.destinations for g in graded]
        widths = np.repeat([d.shape[1] for d in dest], counts)
        offsets = np.concatenate([[0], np.cumsum(widths)]).astype(np.int32)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        flags = {}
        for name in ("chosen", "best"):
            flag = np.zeros(len(ev), dtype=bool)
            flag[first + [getattr(g, name) for g in graded]] = True
            flags[name] = flag
        keys: list[str] = []
        for (decision, _), count in zip(self.streets, counts.tolist(), strict=True):
            keys += [decision.hand_key] * count
        columns = {
            "hand_key": pa.array(keys, pa.string()),
            "seat": np.repeat([d.seat for d, _ in self.streets], counts).astype(np.int8),
            "street": np.repeat([d.street for d, _ in self.streets], counts).astype(np.int8),
            "candidate": np.concatenate([g.candidates for g in graded]).astype(np.int16),
            "play": pa.array(self.plays, pa.string()),
            "destinations": pa.ListArray.from_arrays(
                offsets, np.concatenate([d.reshape(-1) for d in dest]).astype(np.int8)
            ),
            # screened-out candidates have no value; an SE is 0 when valued exactly
            "ev": pa.array(ev, mask=rolled == 0),
            "se": pa.array(se, mask=np.isnan(se)),
            "rollouts": rolled.astype(np.int32),
            "chosen": flags["chosen"],
            "best": flags["best"],
            # the measured gap behind the best, signed: the rollouts' order among near-ties
            "gap": pa.array(gap, mask=rolled == 0),
            "gap_se": pa.array(gap_se, mask=rolled == 0),
            "within_noise": pa.array(within, mask=rolled == 0),
        }
        return pa.table(columns, schema=GRADE_CANDIDATES)


def grade_chunk(
    decisions: list[Decision], options: GradeOptions, threads: int | None = None
) -> dict[str, pa.Table]:
    """Grade some street decisions in the core, on ``threads`` threads (None: every core)."""
    keys = [decision_seed(options.seed, d.hand_key, d.seat, d.street) for d in decisions]
    grades = grade_many(decisions, options.rollouts, keys, threads, options.fantasy_table)
    rows = GradeRows()
    for decision, graded in zip(decisions, grades, strict=True):
        if isinstance(graded, UnplayablePosition):
            rows.unplayable(decision, str(graded))
        else:
            rows.street(decision, graded)
    return rows.tables()


Real = dict[tuple[str, int], tuple[int | None, bool | None]]


def real_sets(results: pa.Table) -> Real:
    """(hand_key, seat) -> the stored royalties and repeat of each board."""
    columns = [results[name].to_pylist() for name in ("hand_key", "seat", "royalties")]
    stays = results["fantasy_stays"].to_pylist()
    return {(k, s): (r, st) for k, s, r, st in zip(*columns, stays, strict=True)}


def fantasy_chunk(deals: list[FantasyDeal], real: Real) -> dict[str, pa.Table]:
    """Grade some Fantasyland sets against the solver's (a worker's task)."""
    rows = GradeRows()
    for deal in deals:
        royalties, stays = real.get((deal.hand_key, deal.seat), (None, None))
        base: dict[str, object] = dict(
            hand_key=deal.hand_key,
            seat=deal.seat,
            player=deal.player,
            street=0,
            kind="fantasy",
            dealt=list(deal.cards),
            chosen_play=_board_text(deal.board),
            fantasy_cards=len(deal.cards),
        )
        if royalties is None:  # the board was not scored (incomplete)
            rows.grade_row(**base, status="no results", decision="none")
            continue
        graded = grade_set(deal, int(royalties), bool(stays))
        rows.grade_row(
            **base,
            status="graded",
            decision="fantasy" if graded.loss > 0 else "none",
            best_play=_board_text(graded.best_board),
            ev_chosen=graded.real_value,
            se_chosen=0.0,
            ev_best=graded.best_value,
            se_best=0.0,
            loss=graded.loss,
            loss_se=0.0,
            loss_se_independent=0.0,
            loss_rows=0.0,
            loss_fouls=0.0,
            loss_royalties=graded.loss if not graded.missed_repeat else 0.0,
            loss_fantasy=graded.loss if graded.missed_repeat else 0.0,
            missed_repeat=graded.missed_repeat,
        )
    return rows.tables()


def _board_text(board: tuple[int, ...]) -> str:
    """``top Th 8s 8d | middle ... | bottom ...``: each row's cards high to low, so the set
    played and the solver's read alike when they hold the same cards (placement order is
    not part of a Fantasyland set)."""
    rows = (board[0:3], board[3:8], board[8:13])
    return " | ".join(
        f"{name} {format_cards(sorted(cards, reverse=True))}"
        for name, cards in zip(ROWS, rows, strict=True)
    )
