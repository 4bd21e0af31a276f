"""What a player could see at each decision, read from one batch's stored tables.

A decision is one street of one seat: its board before the street, the cards
dealt on it, its own earlier discards, and each opponent's board *as placed so
far in order of action* (seats that act earlier have placed this street,
later ones have not).  A Fantasyland opponent's board is hidden until the
showdown; no opponent's discards are ever shown.  Seats whose streets cannot
be rebuilt (the room hid the discards, or a street holds the wrong number of
cards) are counted as skipped with the reason, never guessed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.engine.board import DESTINATIONS, DISCARD_CODE, ROW_SIZES, ROW_SLICES
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import OfcError
from ofc_stats.store.rows import with_hand_keys

EMPTY = -1


@dataclass(frozen=True)
class Opponent:
    """An opponent as the player sees it: its visible board and the streets it still plays."""

    seat: int  # index in order of action
    board: tuple[int, ...]  # 13 positions, -1 = empty (all empty for Fantasyland)
    next_street: int  # first street it has not placed yet
    fantasy_cards: int = 0  # > 0: plays Fantasyland with this many cards, board hidden


@dataclass(frozen=True)
class Decision:
    """One street of one seat, as the player saw it."""

    hand_key: str
    seat: int  # the stored seat number
    position: int  # index in order of action
    player: str
    ruleset: Ruleset
    street: int
    board: tuple[int, ...]  # 13 positions before this street, -1 = empty
    dealt: tuple[int, ...]
    discards: int  # how many of the dealt cards are thrown
    dead: tuple[int, ...]  # the seat's own earlier discards
    opponents: tuple[Opponent, ...]
    chosen: tuple[int, ...]  # destination code of each dealt card (0 top .. 3 discard)


@dataclass(frozen=True)
class FantasyDeal:
    """A Fantasyland hand whose dealt cards are all known."""

    hand_key: str
    seat: int
    player: str
    ruleset: Ruleset
    cards: tuple[int, ...]
    board: tuple[int, ...]  # the set played, 13 cards


@dataclass
class Positions:
    decisions: list[Decision] = field(default_factory=list)
    fantasies: list[FantasyDeal] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    hands: int = 0


Lookup = Callable[[str], Ruleset]
Row = dict[str, Any]  # one seat row of the batch
HAND_COLUMNS = ["hand_key", "ruleset", "hand_id"]
SEAT_COLUMNS = [
    "hand_key",
    "seat",
    "player",
    "player_id",
    "in_fantasy",
    "fantasy_cards",
    "board",
    "discards",
]
PLACEMENT_COLUMNS = ["hand_id", "seat", "street", "card", "destination"]  # as stored (schema 5)


def players_seats(seats: pa.Table, player: str) -> pa.ChunkedArray:
    """Which of ``seats`` are ``player``'s: by stored name or by the room's player id.

    >>> seats = pa.table({"player": ["Ann", "Bo", None], "player_id": ["7", None, "Ann"]})
    >>> players_seats(seats, "Ann").to_pylist()
    [True, False, True]
    """
    by_name = pc.fill_null(pc.equal(seats["player"], player), False)
    by_id = pc.fill_null(pc.equal(seats["player_id"], player), False)
    return pc.or_(by_name, by_id)


def _board(rows: list[list[int]]) -> tuple[int, ...]:
    flat = [EMPTY] * 13
    for row, cards in enumerate(rows):
        start = ROW_SLICES[row].start
        for i, card in enumerate(cards):
            flat[start + i] = card
    return tuple(flat)


def read_positions(
    hands: pa.Table,
    seats: pa.Table,
    placements: pa.Table,
    lookup: Lookup,
    player: str | None = None,
) -> Positions:
    """Every gradable decision and Fantasyland deal of the batch (``player``'s only, if given)."""
    out = Positions()
    moves: dict[tuple[str, int], list[tuple[int, int, int]]] = defaultdict(list)
    placements = with_hand_keys(placements, hands)
    columns = [placements[name].to_pylist() for name in ("hand_key", "seat", "street", "card")]
    destinations = placements["destination"].cast(pa.string()).to_pylist()
    codes = {name: code for code, name in enumerate(DESTINATIONS)}
    for key, seat, street, card, dest in zip(*columns, destinations, strict=True):
        moves[(key, seat)].append((street, card, codes.get(dest, -1)))
    by_hand: dict[str, list[Row]] = defaultdict(list)
    rows = seats.select(SEAT_COLUMNS)
    mine = [True] * len(rows) if player is None else players_seats(rows, player).to_pylist()
    for row, is_mine in zip(rows.to_pylist(), mine, strict=True):
        row["mine"] = is_mine
        by_hand[row["hand_key"]].append(row)
    rulesets: dict[str, Ruleset | None] = {}
    for key, name in zip(hands["hand_key"].to_pylist(), hands["ruleset"].to_pylist(), strict=True):
        seated = sorted(by_hand.get(key, []), key=lambda s: int(s["seat"]))
        if not any(s["mine"] for s in seated):
            continue
        out.hands += 1
        if name not in rulesets:
            try:
                rulesets[name] = lookup(name)
            except OfcError:
                rulesets[name] = None
        ruleset = rulesets[name]
        if ruleset is None:
            out.skipped["unknown ruleset"] += 1
            continue
        _hand(out, key, ruleset, seated, moves, player)
    return out


def _hand(
    out: Positions,
    key: str,
    ruleset: Ruleset,
    seated: list[Row],
    moves: dict[tuple[str, int], list[tuple[int, int, int]]],
    player: str | None,
) -> None:
    streets = ruleset.variant.streets
    for position, seat in enumerate(seated):
        if not seat["mine"]:
            continue
        number = int(seat["seat"])
        if seat["in_fantasy"]:
            _fantasy(out, key, ruleset, seat)
            continue
        mine = moves.get((key, number), [])
        by_street: list[list[tuple[int, int]]] = [[] for _ in streets]
        for street, card, dest in mine:
            if 0 <= street < len(streets):
                by_street[street].append((card, dest))
        if not all(
            len(cards) == dealt and sum(d == DISCARD_CODE for _, d in cards) == dealt - placed
            for cards, (dealt, placed) in zip(by_street, streets, strict=True)
        ):
            out.skipped["streets unknown"] += 1
            continue
        opponents = _opponents(key, seated, position, moves, ruleset)
        if opponents is None:
            out.skipped["opponents' streets unknown"] += len(streets)
            continue
        rows: list[list[int]] = [[], [], []]
        dead: list[int] = []
        for street, cards in enumerate(by_street):
            out.decisions.append(
                Decision(
                    hand_key=key,
                    seat=number,
                    position=position,
                    player=str(seat["player"]),
                    ruleset=ruleset,
                    street=street,
                    board=_board(rows),
                    dealt=tuple(c for c, _ in cards),
                    discards=streets[street][0] - streets[street][1],
                    dead=tuple(dead),
                    opponents=tuple(o(street) for o in opponents),
                    chosen=tuple(d for _, d in cards),
                )
            )
            for card, dest in cards:
                if dest == DISCARD_CODE:
                    dead.append(card)
                elif 0 <= dest < 3:
                    rows[dest].append(card)


def _opponents(
    key: str,
    seated: list[Row],
    me: int,
    moves: dict[tuple[str, int], list[tuple[int, int, int]]],
    ruleset: Ruleset,
) -> list[Callable[[int], Opponent]] | None:
    """For each opponent, its view at a given street; None if its streets are unknown."""
    streets = ruleset.variant.streets
    views: list[Callable[[int], Opponent]] = []
    for position, seat in enumerate(seated):
        if position == me:
            continue
        if seat["in_fantasy"]:
            cards = int(seat["fantasy_cards"] or ruleset.variant.standard_fantasy_cards)
            hidden = Opponent(position, (EMPTY,) * 13, len(streets), cards)
            views.append(_fixed(hidden))
            continue
        placed = [(s, c, d) for s, c, d in moves.get((key, int(seat["seat"])), []) if 0 <= d < 3]
        counts = Counter(s for s, _, _ in placed)
        if [counts.get(s, 0) for s in range(len(streets))] != [p for _, p in streets]:
            return None

        def view(
            street: int, placed: list[tuple[int, int, int]] = placed, position: int = position
        ) -> Opponent:
            shown = street if position < me else street - 1
            rows: list[list[int]] = [[], [], []]
            for s, card, dest in placed:
                if s <= shown:
                    rows[dest].append(card)
            return Opponent(position, _board(rows), shown + 1)

        views.append(view)
    return views


def _fixed(opponent: Opponent) -> Callable[[int], Opponent]:
    """The same view at every street: a Fantasyland board stays hidden until the showdown."""
    return lambda street: opponent


def _fantasy(out: Positions, key: str, ruleset: Ruleset, seat: Row) -> None:
    discards = seat["discards"]
    board = seat["board"]
    if discards is None or board is None:
        out.skipped["Fantasyland discards hidden"] += 1
        return
    cards = tuple(bytes(board)) if isinstance(board, bytes) else tuple(board)
    cards = tuple(c - 256 if c > 127 else c for c in cards)
    thrown = tuple(int(c) for c in discards)
    if len(cards) != sum(ROW_SIZES) or len(thrown) + 13 < 13:
        out.skipped["Fantasyland board incomplete"] += 1
        return
    out.fantasies.append(
        FantasyDeal(key, int(seat["seat"]), str(seat["player"]), ruleset, cards + thrown, cards)
    )
