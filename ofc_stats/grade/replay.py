"""Counterfactual replay: what advice wins when it plays on the players' own cards.

In a real hand every seat's cards per street are recorded, and the cards a
seat receives do not depend on what it did before.  So a bot can take a
player's place on the same cards: at each street it sees only what the player
saw (its own board as the bot built it, the cards dealt, the opponents' boards
as they actually stood, its own discards) and plays; at the end its board is
scored against the opponents' actual final boards.  The player's real board is
scored the same way, and the seat's *realised gain* is the difference.  A
grader whose advice is right wins on this replay what it claims the player
lost; one that only claims it does not.

A board is worth its net points before caps (rows and royalties against every
opponent) plus the value of the Fantasyland it earns.  That value comes from
the dataset (:class:`~ofc_stats.engine.fantasy_value.FantasyValues`: what a
Fantasyland of that size nets over a normal hand, repeats included), never
from the grader's own assumption, so the replay cannot flatter the grader;
where the data cannot estimate a size, the published figure is the fallback.

The caveat: the opponents' plays are kept as they were, though in the real
hand they reacted to the player's board, not the bot's.

The advice is a function from decisions to the destinations to play, so the
same replay measures the grader's best play, the continuation policy alone,
or the player's own play (which must gain exactly 0: a test holds that).
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.board import DESTINATIONS, DISCARD_CODE, ROW_SLICES, Board
from ofc_stats.engine.cards import Rank, is_joker, rank_of
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.scoring import score_hand
from ofc_stats.engine.timeout import auto_placement
from ofc_stats.errors import UnplayablePosition
from ofc_stats.grade import rollout
from ofc_stats.grade.position import EMPTY, Decision
from ofc_stats.grade.race import Search, decision_seed, grade_many
from ofc_stats.grade.rollout import core_decision, fantasy_value, fantasy_values
from ofc_stats.grade.train import learned_value

# Destinations (0 top .. 3 discard) for each decision, in the order given.
Advice = Callable[[Sequence[Decision]], Sequence[Sequence[int]]]
# A final board in order of action: (13 cards, in Fantasyland, cards dealt to a Fantasyland).
FinalSeat = tuple[tuple[int, ...], bool, int | None]
# The value of a Fantasyland of n cards over a normal hand, per ruleset.
FantasyWorth = Callable[[Ruleset, int], float]

#: How the policy alone searches a street ahead by default (issue 26): the mean over 128
#: sampled deals of the next street of the best next afterstate's value, for every play on
#: streets 1-4.  Chosen on the tuning half of the real samples (+2.49 ± 0.45 a seat-hand
#: over the greedy value, the best of the settings tried there), reported on the holdout
#: half (+2.04 ± 0.47); see docs/grading.md ("Searching a street ahead").  The grader's
#: rollouts stay greedy: a search there costs 5-70 times their CPU.
POLICY_SEARCH = Search(deals=128, among=0, until=13)


def grader_advice(
    budget: int = 32,
    seed: int = 0,
    threads: int | None = None,
    fantasy_worth: FantasyWorth | None = None,
    value: _core.ValueFunction | Literal["learned"] | None = "learned",
    tie: float | None = None,
    extra: int | None = None,
    search: Search | None = None,
    search_next_only: bool = False,
) -> Advice:
    """The grader's best play at every decision (a position it cannot replay: the room's
    auto-placement, which the replay then counts as the advice), its rollouts valuing a
    Fantasyland by ``fantasy_worth`` (default: the published figures) and played on by a
    learned board ``value`` (default "learned": the versioned weights; None: imaginations),
    the race's ``tie`` margin and ``extra`` budget and the rollouts' ``search`` as
    :func:`grade_many` takes them."""

    def advise(decisions: Sequence[Decision]) -> list[tuple[int, ...]]:
        values = None if fantasy_worth is None else (lambda r: worth_table(r, fantasy_worth))
        out: list[tuple[int, ...]] = [()] * len(decisions)
        # The bot's own positions (no play made) are graded without preferring a play.
        for stick in (True, False):
            members = [i for i, d in enumerate(decisions) if bool(d.chosen) == stick]
            if not members:
                continue
            asked = [with_play(decisions[i]) for i in members]
            keys = [decision_seed(seed, d.hand_key, d.seat, d.street) for d in asked]
            graded = grade_many(
                asked,
                budget,
                keys,
                threads,
                values,
                value,
                tie,
                extra,
                stick,
                search,
                search_next_only,
            )
            for i, d, g in zip(members, asked, graded, strict=True):
                out[i] = (
                    placeholder_play(d, d.board)
                    if isinstance(g, UnplayablePosition)
                    else tuple(int(x) for x in g.destinations[g.best])
                )
        return out

    return advise


def policy_advice(
    seed: int = 0,
    threads: int | None = None,
    fantasy_worth: FantasyWorth | None = None,
    dreams: int | None = None,
    ahead: int | None = None,
    value: _core.ValueFunction | Literal["learned"] | None = "learned",
    search: Search | None = POLICY_SEARCH,
    chase_search: Search | None = None,
    chase_deep: tuple[int, int, int, int] | None = None,
    chase_worth: FantasyWorth | None = None,
) -> Advice:
    """The continuation policy's play at every decision, alone (the rollouts' player),
    valuing a Fantasyland by ``fantasy_worth`` (default: the grader's values), with
    ``dreams`` imaginations a street (None: as many as in the rollouts) and look-ahead
    where at least ``ahead`` streets are still to come (0: none; None: as the rollouts),
    or played by a learned board ``value`` (default: the versioned weights; with
    ``dreams`` it looks that many deals of the next street ahead; None: imaginations),
    searching a street ahead with ``search`` (:class:`Search`: deals keyed by the
    decision; default :data:`POLICY_SEARCH`; None: greedily, as in the rollouts), and
    with ``chase_search`` instead where the Fantasyland chase is live (:func:`chase_live`),
    there two streets deep with ``chase_deep`` = (among, deals, next among, next deals)
    (``ofc_core::search::Deep``), valuing a Fantasyland by ``chase_worth`` there (None: as
    elsewhere); a position it cannot play: the room's auto-placement."""
    learned = learned_value() if value == "learned" else value

    def advise(decisions: Sequence[Decision]) -> list[tuple[int, ...]]:
        Group = tuple[Ruleset, Search | None, tuple[int, int, int, int] | None, bool]
        by_search: dict[Group, list[int]] = defaultdict(list)
        chasing = chase_search is not None or chase_deep is not None or chase_worth is not None
        for i, d in enumerate(decisions):
            if chasing and chase_live(d):
                by_search[(d.ruleset, chase_search or search, chase_deep, True)].append(i)
            else:
                by_search[(d.ruleset, search, None, False)].append(i)
        out: list[tuple[int, ...]] = [()] * len(decisions)
        for (ruleset, searched, deep, live), members in by_search.items():
            plays = _core.policy_plays(
                core_rules(ruleset),
                rollout.streets(ruleset),
                worth_table(ruleset, chase_worth if live and chase_worth else fantasy_worth),
                [
                    core_decision(
                        with_play(decisions[i]),
                        decision_seed(
                            seed, decisions[i].hand_key, decisions[i].seat, decisions[i].street
                        ),
                    )
                    for i in members
                ],
                dreams,
                threads,
                ahead,
                learned,
                None if searched is None else searched.core(),
                deep,
            )
            for i, play in zip(members, plays, strict=True):
                d = decisions[i]
                out[i] = (
                    placeholder_play(d, d.board)
                    if isinstance(play, UnplayablePosition)
                    else tuple(int(x) for x in play)
                )
        return out

    return advise


def chase_live(decision: Decision) -> bool:
    """Whether the Fantasyland chase is at stake in this decision: the first two streets,
    with a queen, king or ace on the top row already or dealt while the top is empty
    (one that could start a pair of queens or better there)."""
    if decision.street > 1:
        return False
    top = [c for c in decision.board[:3] if c >= 0]
    return any(not is_joker(c) and rank_of(c) >= Rank.QUEEN for c in (top or decision.dealt))


def worth_table(ruleset: Ruleset, fantasy_worth: FantasyWorth | None) -> npt.NDArray[np.float64]:
    """The value of each Fantasyland size (0..31 cards) as the core looks it up; a value
    that is not finite points >= 0 raises :class:`~ofc_stats.errors.RulesetError`."""
    if fantasy_worth is None:
        return fantasy_values(ruleset.deck)
    return rollout.checked_values([fantasy_worth(ruleset, n) if n else 0.0 for n in range(32)])


def published_worth(ruleset: Ruleset, cards: int) -> float:
    """The fallback value: the published figure the grader uses (0 for no entry)."""
    return fantasy_value(cards, ruleset.deck)


@dataclass(frozen=True)
class SeatReplay:
    """One seat played again by the advice, beside what the player did."""

    hand_key: str
    seat: int
    player: str
    bot_board: tuple[int, ...]
    player_board: tuple[int, ...]
    bot_value: float  # net points before caps + the Fantasyland it earns
    player_value: float
    first_deviation: int | None  # first street the advice played otherwise; None: never

    @property
    def gain(self) -> float:
        """What the advice won over the player on the player's cards."""
        return self.bot_value - self.player_value


def with_play(decision: Decision) -> Decision:
    """The decision with a play made: the bot's own positions (``chosen == ()``, no play
    made) take the room's auto-placement, which the core needs as a legal candidate."""
    if decision.chosen:
        return decision
    return replace(decision, chosen=placeholder_play(decision, decision.board))


def placeholder_play(decision: Decision, board: tuple[int, ...]) -> tuple[int, ...]:
    """A legal play of the decision's cards on ``board`` (the room's auto-placement).

    A grader needs *a* play made to grade against; for a bot's board the
    player's own play may not fit, so the core is given this one instead, and
    told it is no play made (``stick=False``): it must not win ties.
    """
    filled = [sum(board[s] != EMPTY for s in range(sl.start, sl.stop)) for sl in ROW_SLICES]
    names = auto_placement(decision.ruleset.variant, decision.street, filled, len(decision.dealt))
    return tuple(DESTINATIONS.index(name) for name in names)


def _place(board: list[int], dead: list[int], dealt: Sequence[int], dest: Sequence[int]) -> None:
    for card, to in zip(dealt, dest, strict=True):
        if to == DISCARD_CODE:
            dead.append(card)
            continue
        sl = ROW_SLICES[to]
        slot = next(i for i in range(sl.start, sl.stop) if board[i] == EMPTY)
        board[slot] = card


def _worth(
    ruleset: Ruleset,
    finals: Sequence[FinalSeat],
    position: int,
    board: tuple[int, ...],
    fantasy_worth: FantasyWorth,
) -> float:
    """The seat's net points before caps with ``board`` in its place, plus its Fantasyland."""
    boards = [Board.from_flat(b) for b, _, _ in finals]
    boards[position] = Board.from_flat(board)
    result = score_hand(
        boards,
        ruleset,
        in_fantasy=[f for _, f, _ in finals],
        fantasy_cards=[c for _, _, c in finals],
    )
    earned = result.boards[position].fantasyland.cards or 0
    return float(result.net[position]) + fantasy_worth(ruleset, earned)


def replay(
    decisions: Sequence[Decision],
    finals: dict[str, list[FinalSeat]],
    advice: Advice,
    fantasy_worth: FantasyWorth = published_worth,
) -> list[SeatReplay]:
    """Replay every seat whose every street is among ``decisions``, street by street.

    ``finals[hand_key]`` holds each seat's final board in order of action.
    All seats' street ``s`` decisions go to ``advice`` together, so a grader
    can take them as one batch.
    """
    by_seat: dict[tuple[str, int], dict[int, Decision]] = defaultdict(dict)
    for d in decisions:
        by_seat[(d.hand_key, d.position)][d.street] = d
    seats: dict[tuple[str, int], list[Decision]] = {}
    for key, streets in by_seat.items():
        plan = next(iter(streets.values())).ruleset.variant.streets
        if key[0] in finals and sorted(streets) == list(range(len(plan))):
            seats[key] = [streets[s] for s in range(len(plan))]
    boards = {key: [EMPTY] * 13 for key in seats}
    dead: dict[tuple[str, int], list[int]] = {key: [] for key in seats}
    deviated: dict[tuple[str, int], int | None] = dict.fromkeys(seats)
    rounds = max((len(streets) for streets in seats.values()), default=0)
    for street in range(rounds):
        keys = [key for key, streets in seats.items() if street < len(streets)]
        asked = []
        for key in keys:
            real = seats[key][street]
            board = tuple(boards[key])
            asked.append(
                replace(
                    real,
                    board=board,
                    dead=tuple(dead[key]),
                    # The bot's own position has no play made: () (see with_play).
                    chosen=real.chosen if board == real.board else (),
                )
            )
        plays = advice(asked)
        for key, decision, play in zip(keys, asked, plays, strict=True):
            if deviated[key] is None and (
                tuple(play) != tuple(seats[key][street].chosen)
                or decision.board != seats[key][street].board
            ):
                deviated[key] = street
            _place(boards[key], dead[key], decision.dealt, play)
    out = []
    for key, played in seats.items():
        hand_key, position = key
        first = played[0]
        hand = finals[hand_key]
        bot = tuple(boards[key])
        out.append(
            SeatReplay(
                hand_key=hand_key,
                seat=first.seat,
                player=first.player,
                bot_board=bot,
                player_board=hand[position][0],
                bot_value=_worth(first.ruleset, hand, position, bot, fantasy_worth),
                player_value=_worth(
                    first.ruleset, hand, position, hand[position][0], fantasy_worth
                ),
                first_deviation=deviated[key],
            )
        )
    return out


def final_seats(seats: pa.Table) -> dict[str, list[FinalSeat]]:
    """Each hand's final boards in order of action, from a batch's ``seats`` table.

    Hands with a board not stored (the room hid it) are left out: they cannot be scored.
    """
    columns = ("hand_key", "seat", "board", "in_fantasy", "fantasy_cards")
    rows = seats.select(list(columns)).to_pylist()
    by_hand: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_hand[str(row["hand_key"])].append(row)
    out: dict[str, list[FinalSeat]] = {}
    for key, seated in by_hand.items():
        seated.sort(key=lambda row: int(row["seat"]))
        if any(row["board"] is None for row in seated):
            continue
        out[key] = [
            (
                tuple(c - 256 if c > 127 else c for c in bytes(row["board"])),
                bool(row["in_fantasy"]),
                None if row["fantasy_cards"] is None else int(row["fantasy_cards"]),
            )
            for row in seated
        ]
    return out


def half(hand_key: str) -> Literal["tune", "holdout"]:
    """The seat's half of a dataset for choosing the grader's settings without overfitting:
    "tune" where the CRC-32 of the hand key is even (settings are chosen there), "holdout"
    where it is odd (they are reported there, and on all seats).

    >>> half("c"), half("d")
    ('holdout', 'tune')
    """
    return "tune" if zlib.crc32(hand_key.encode("utf-8")) % 2 == 0 else "holdout"


@dataclass(frozen=True)
class Realised:
    """Mean realised gain with its standard error, over some seats."""

    seats: int
    mean: float
    se: float

    def __str__(self) -> str:
        return f"{self.mean:+.2f} ± {self.se:.2f} over {self.seats} seats"


def realised(gains: Sequence[float]) -> Realised:
    """The mean gain a seat and its standard error (0 for fewer than two seats).

    >>> str(realised([1.0, 3.0]))
    '+2.00 ± 1.00 over 2 seats'
    """
    n = len(gains)
    if not n:
        return Realised(0, math.nan, math.nan)
    mean = sum(gains) / n
    if n < 2:
        return Realised(n, mean, 0.0)
    var = sum((g - mean) ** 2 for g in gains) / (n - 1)
    return Realised(n, mean, math.sqrt(var / n))


def by_first_deviation(seats: Sequence[SeatReplay]) -> dict[int | None, Realised]:
    """The realised gain grouped by the street where the advice first played otherwise."""
    groups: dict[int | None, list[float]] = defaultdict(list)
    for seat in seats:
        groups[seat.first_deviation].append(seat.gain)
    return {street: realised(gains) for street, gains in groups.items()}
