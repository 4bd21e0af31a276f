"""Playing many tables in lockstep: every table plays the same street together.

Each table seats players from the pool for a whole session; the button
rotates (and stays put after a Fantasyland hand unless the ruleset says it
moves), Fantasyland is granted by the engine's own results, and the room's
reported points are the engine's capped results.  Every random draw comes
from one seeded generator, so the same seed gives the same hands.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import numpy.typing as npt

from ofc_stats.core.fantasy import solve_fantasy_batch
from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.engine.fantasy_value import documented_stay_value
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.vector.rule_arrays import compile_rules
from ofc_stats.engine.vector.scoring import score_batch
from ofc_stats.engine.vector.timeout import auto_destinations
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, Placement, SeatRecord
from ofc_stats.sim.lookahead import DISCARD, ROW_SIZE, ROW_START, Style, choose

START = datetime(2026, 1, 1, 12, 0, 0)


@dataclass(frozen=True)
class Player:
    name: str
    style: Style


@dataclass(frozen=True)
class TableSpec:
    """Options of a simulated session."""

    ruleset: Ruleset
    seats: int
    rollouts: int = 5
    timeout_rate: float = 0.0
    stack: float | None = None  # points each player brings to every hand (caps)
    stakes: float = 1.0
    room: str = "ofc-stats-sim"


def _block(spec: TableSpec) -> int:
    """Cards reserved for each seat: its whole hand, discards and Fantasyland included."""
    streets = spec.ruleset.variant.streets
    normal = sum(dealt for dealt, _ in streets)
    most_fantasy = max(spec.ruleset.fantasy.entry_cards.values(), default=13)
    most_fantasy = max(most_fantasy, spec.ruleset.fantasy.repeat_cards or 0)
    block = max(normal, most_fantasy)
    if block * spec.seats > spec.ruleset.deck.size:
        raise OfcError(
            f"{spec.seats} seats need {block * spec.seats} cards; "
            f"the deck has {spec.ruleset.deck.size}"
        )
    return block


def play_hands(
    spec: TableSpec,
    tables: list[list[Player]],
    hands: int,
    rng: np.random.Generator,
    first_hand: int = 0,
    fantasy_errors: float = 0.0,
    error_rng: np.random.Generator | None = None,
    first_table: int = 0,
) -> Iterator[tuple[HandRecord, dict[str, object] | None]]:
    """Play ``hands`` hands at each table in lockstep; yield each record and its truth.

    With ``fantasy_errors`` the room, on that share of table-hands, gets the
    next hand's Fantasyland wrong for one seat (misses an earned one, or deals
    one not earned); the truth entry comes with the hand that shows it.
    """
    ruleset = spec.ruleset
    errors = error_rng or np.random.default_rng(0)
    pending: dict[int, dict[str, object]] = {}
    rules = compile_rules(ruleset)
    t, s = len(tables), spec.seats
    block = _block(spec)
    streets = ruleset.variant.streets
    button = rng.integers(0, s, size=t)
    fantasy_next = np.zeros((t, s), dtype=np.int8)  # by table position: cards of a granted FL
    styles = [[p.style for p in players] for players in tables]
    for hand in range(first_hand, first_hand + hands):
        decks = np.argsort(rng.random((t, ruleset.deck.size)), axis=1).astype(np.int8)
        # order[t, a]: table position of the seat acting a-th (0 = left of the button).
        order = (button[:, None] + 1 + np.arange(s)[None, :]) % s
        in_fantasy = np.take_along_axis(fantasy_next, order, axis=1) > 0
        fantasy_cards = np.take_along_axis(fantasy_next, order, axis=1)
        blocks = decks[:, : s * block].reshape(t, s, block)
        boards = np.full((t, s, 13), -1, dtype=np.int8)
        fill = np.zeros((t, s, 3), dtype=np.int8)
        seen_own = np.zeros((t, s, ruleset.deck.size), dtype=bool)
        placements: list[list[list[tuple[int, int, int]]]] = [
            [[] for _ in range(s)] for _ in range(t)
        ]
        discards: list[list[list[int]]] = [[[] for _ in range(s)] for _ in range(t)]
        _set_fantasies(
            ruleset, blocks, in_fantasy, fantasy_cards, boards, fill, placements, discards
        )
        offset = 0
        for street, (dealt_count, placed_count) in enumerate(streets):
            for seat in range(s):
                active = np.flatnonzero(~in_fantasy[:, seat])
                if not len(active):
                    continue
                dealt = blocks[active, seat, offset : offset + dealt_count]
                seen_own[active[:, None], seat, dealt] = True
                visible = _visible(boards[active], seen_own[active, seat], ruleset.deck.size)
                dest = choose(
                    boards[active, seat],
                    fill[active, seat],
                    dealt,
                    ~visible,
                    dealt_count - placed_count,
                    [styles[i][order[i, seat]] for i in active],
                    spec.rollouts,
                    rng,
                    rules,
                )
                if spec.timeout_rate > 0:
                    auto = auto_destinations(fill[active, seat], dealt_count, placed_count)
                    timed_out = rng.random(len(active)) < spec.timeout_rate
                    dest[timed_out] = auto[timed_out]
                _place(active, seat, street, dealt, dest, boards, fill, placements, discards)
            offset += dealt_count
        result = score_batch(
            boards,
            ruleset,
            in_fantasy=in_fantasy,
            fantasy_cards=fantasy_cards,
            stacks=None if spec.stack is None else np.full((t, s), spec.stack),
            check=False,
        )
        for i in range(t):
            record = _record(
                spec,
                tables[i],
                first_table + i,
                hand,
                order[i],
                in_fantasy[i],
                boards[i],
                placements[i],
                discards[i],
                result.net_capped[i],
            )
            truth = pending.pop(i, None)
            if truth is not None:
                truth["hand_key"] = record.hand_key
            yield record, truth
        granted = np.where(result.fantasy_stays, result.repeat_cards, result.fantasy_cards)
        if fantasy_errors:
            granted = granted.astype(np.int8)
            for wrong in np.flatnonzero(errors.random(t) < fantasy_errors).tolist():
                seat = int(errors.integers(0, s))
                earned = int(granted[wrong, seat])
                granted[wrong, seat] = 0 if earned else int(ruleset.variant.standard_fantasy_cards)
                pending[wrong] = {
                    "kind": "missed_fantasy" if earned else "extra_fantasy",
                    "player": tables[wrong][int(order[wrong, seat])].name,
                    "detail": (
                        f"earned {earned} cards of Fantasyland in the previous hand; not dealt"
                        if earned
                        else "dealt Fantasyland without earning it in the previous hand"
                    ),
                }
        next_by_position = np.zeros_like(fantasy_next)
        np.put_along_axis(next_by_position, order, granted.astype(np.int8), axis=1)
        fantasy_next = next_by_position
        moves = ruleset.button_moves_on_fantasy | ~in_fantasy.any(axis=1)
        button = (button + moves) % s


def _visible(
    boards: npt.NDArray[np.int8], own: npt.NDArray[np.bool_], deck: int
) -> npt.NDArray[np.bool_]:
    """Cards a seat has seen: every placed card at the table and its own dealt cards."""
    seen = own.copy()
    placed = boards.reshape(len(boards), -1)
    rows = np.repeat(np.arange(len(boards)), placed.shape[1])
    cards = placed.reshape(-1)
    keep = cards >= 0
    seen[rows[keep], cards[keep]] = True
    return seen


def _place(active, seat, street, dealt, dest, boards, fill, placements, discards) -> None:  # type: ignore[no-untyped-def]
    for row in range(3):
        for index in range(dealt.shape[1]):
            going = dest[:, index] == row
            if not going.any():
                continue
            tables_here = active[going]
            position = ROW_START[row] + fill[tables_here, seat, row]
            boards[tables_here, seat, position] = dealt[going, index]
            fill[tables_here, seat, row] += 1
    for i, table in enumerate(active):
        for card, to in zip(dealt[i].tolist(), dest[i].tolist(), strict=True):
            placements[table][seat].append((street, card, to))
            if to == DISCARD:
                discards[table][seat].append(card)


def _set_fantasies(
    ruleset: Ruleset,
    blocks: npt.NDArray[np.int8],
    in_fantasy: npt.NDArray[np.bool_],
    fantasy_cards: npt.NDArray[np.int8],
    boards: npt.NDArray[np.int8],
    fill: npt.NDArray[np.int8],
    placements: list[list[list[tuple[int, int, int]]]],
    discards: list[list[list[int]]],
) -> None:
    """Fantasyland seats set their exact best (a repeat valued at the published figure)."""
    for count in np.unique(fantasy_cards[in_fantasy]):
        tables_here, seats_here = np.nonzero(in_fantasy & (fantasy_cards == count))
        cards = blocks[tables_here, seats_here, :count]
        stay = documented_stay_value(ruleset, int(count))
        set_boards, thrown, _ = solve_fantasy_batch(cards, ruleset, stay)
        boards[tables_here, seats_here] = set_boards
        fill[tables_here, seats_here] = ROW_SIZE
        for i, (table, seat) in enumerate(
            zip(tables_here.tolist(), seats_here.tolist(), strict=True)
        ):
            row_of = {
                int(c): r
                for r, sl in enumerate((slice(0, 3), slice(3, 8), slice(8, 13)))
                for c in set_boards[i, sl]
            }
            for card in cards[i].tolist():
                placements[table][seat].append((0, card, row_of.get(card, DISCARD)))
            discards[table][seat].extend(thrown[i].tolist())


def _record(  # type: ignore[no-untyped-def]
    spec: TableSpec, players, table, hand, order, in_fantasy, boards, placements, discards, points
) -> HandRecord:
    seats = []
    moves = []
    for seat in range(spec.seats):
        board = boards[seat].tolist()
        net = float(points[seat])
        seats.append(
            SeatRecord(
                seat=seat,
                player=players[int(order[seat])].name,
                top=tuple(board[0:3]),
                middle=tuple(board[3:8]),
                bottom=tuple(board[8:13]),
                discards=tuple(discards[seat]),
                in_fantasy=bool(in_fantasy[seat]),
                reported_points=net,
                reported_money=round(net * spec.stakes, 2),
                stack=spec.stack,
            )
        )
        moves += [
            Placement(seat, street, card, DESTINATIONS[to]) for street, card, to in placements[seat]
        ]
    return HandRecord(
        format="open",
        room=spec.room,
        table_id=f"T{table:04d}",
        room_hand_id=str(hand),
        ruleset=spec.ruleset.name,
        seats=tuple(seats),
        placements=tuple(moves),
        played_at=START + timedelta(seconds=90 * hand),
        stakes=spec.stakes,
        currency="PTS",
    )
