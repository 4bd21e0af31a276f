"""Scoring one hand, readably (RULES.md §3-§6).

This is the scalar path: one hand at a time, for the CLI, the tests and as
the reference the compiled core (:mod:`ofc_stats.core.scoring`) must equal.  Seats are
in order of action: seat 0 acts first, the last seat is the button.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ofc_stats.engine.board import Board, check_hand
from ofc_stats.engine.jokers import best_reading
from ofc_stats.engine.rank import RowRank, rank_row
from ofc_stats.engine.rules import FantasyMode, FoulPolicy, MajorityBonus, Ruleset, Scoring
from ofc_stats.errors import HandError


@dataclass(frozen=True)
class Royalties:
    top: int = 0
    middle: int = 0
    bottom: int = 0

    @property
    def total(self) -> int:
        return self.top + self.middle + self.bottom


@dataclass(frozen=True)
class FantasyOutcome:
    """What the board means for the next hand.

    ``qualifies``/``cards``: entry into Fantasyland from a normal hand and the
    cards the next hand deals.  ``stays``/``repeat_cards``: a Fantasyland hand
    that earns a repeat, and its card count (None when the ruleset deals "as
    many as this Fantasyland" and that count was not given).
    """

    qualifies: bool = False
    cards: int | None = None
    stays: bool = False
    repeat_cards: int | None = None

    @property
    def next_cards(self) -> int | None:
        """Cards the next hand deals this seat: the repeat's count when it stays (None
        when that count is not known), else the entry's, else 0 (a normal hand).

        >>> FantasyOutcome(qualifies=True, cards=15).next_cards  # KK on top: 15 cards
        15
        >>> FantasyOutcome(stays=True, repeat_cards=14).next_cards, FantasyOutcome().next_cards
        (14, 0)
        >>> FantasyOutcome(stays=True).next_cards is None  # "as many as this one", not given
        True
        """
        if self.stays:
            return self.repeat_cards
        return self.cards if self.qualifies and self.cards is not None else 0


@dataclass(frozen=True)
class BoardResult:
    board: Board  # jokers replaced by the values they stand for
    ranks: tuple[RowRank, RowRank, RowRank]
    fouled: bool
    royalties: Royalties
    fantasyland: FantasyOutcome


@dataclass(frozen=True)
class HandResult:
    """``points[i][j]``: what seat i wins from seat j before caps (antisymmetric)."""

    boards: tuple[BoardResult, ...]
    points: tuple[tuple[int, ...], ...]
    net: tuple[int, ...]
    net_capped: tuple[float, ...]


def row_royalties(ruleset: Ruleset, top: RowRank, middle: RowRank, bottom: RowRank) -> Royalties:
    """Royalties of an unfouled board's rows under ``ruleset``.

    >>> from ofc_stats.engine.cards import parse_cards
    >>> from ofc_stats.engine.presets import get_ruleset
    >>> rows = [rank_row(parse_cards(r)) for r in ("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")]
    >>> row_royalties(get_ruleset("pineapple"), *rows)  # QQ 7, straight 4, flush 4
    Royalties(top=7, middle=4, bottom=4)
    """
    table = ruleset.royalties
    return Royalties(
        table.top_points(top),
        table.five_points("middle", middle),
        table.five_points("bottom", bottom),
    )


def fantasy_outcome(
    ruleset: Ruleset,
    ranks: tuple[RowRank, RowRank, RowRank],
    fouled: bool,
    in_fantasy: bool,
    fantasy_cards: int | None = None,
) -> FantasyOutcome:
    """Fantasyland entry or repeat earned by one board (RULES.md §6)."""
    rules = ruleset.fantasy
    if rules.mode is FantasyMode.NONE or fouled:
        return FantasyOutcome()
    if not in_fantasy:
        cards = rules.entry_cards_for(ranks[0])
        return FantasyOutcome(qualifies=cards is not None, cards=cards)
    if rules.repeat is None or not rules.repeat.holds(*ranks):
        return FantasyOutcome()
    repeat_cards = rules.repeat_cards if rules.repeat_cards is not None else fantasy_cards
    return FantasyOutcome(stays=True, repeat_cards=repeat_cards)


def score_board(
    board: Board,
    ruleset: Ruleset,
    in_fantasy: bool = False,
    fantasy_cards: int | None = None,
) -> BoardResult:
    """Foul, royalties and Fantasyland of one board; jokers read at their best.

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> board = Board.parse("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    >>> result = score_board(board, get_ruleset("pineapple-progressive"))
    >>> result.fouled, result.royalties.total, result.fantasyland.cards  # QQ on top: 14 cards
    (False, 15, 14)
    >>> score_board(Board.parse("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c"),
    ...             get_ruleset("pineapple")).fouled  # trips in the middle over a pair
    True
    """
    if board.jokers:
        board, _ = best_reading(board, lambda t, m, b: row_royalties(ruleset, t, m, b).total)
    top, middle, bottom = (rank_row(row) for row in board.rows)
    ranks = (top, middle, bottom)
    fouled = top.key > middle.key or middle.key > bottom.key
    royalties = Royalties() if fouled else row_royalties(ruleset, *ranks)
    outcome = fantasy_outcome(ruleset, ranks, fouled, in_fantasy, fantasy_cards)
    return BoardResult(board, ranks, fouled, royalties, outcome)


def row_points(ruleset: Ruleset, won: int, lost: int, foul: bool) -> int:
    """Row points for winning ``won`` and losing ``lost`` of the three rows.

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> pineapple = get_ruleset("pineapple")
    >>> row_points(pineapple, 3, 0, False), row_points(pineapple, 2, 1, False)  # scoop 3+3
    (6, 1)
    >>> row_points(get_ruleset("classic"), 2, 1, False)  # classic: 2 a row, no scoop bonus
    2
    """
    diff = won - lost
    if ruleset.scoring is Scoring.CLASSIC:
        return 2 * diff
    if foul and ruleset.foul_policy is FoulPolicy.ROWS_ONLY:
        return diff
    if ruleset.scoring is Scoring.AMERICAN:
        return diff + (3 if won == 3 else -3 if lost == 3 else 0)
    if ruleset.majority_bonus is MajorityBonus.MORE_ROWS:
        return diff + (1 if won > lost else -1 if lost > won else 0)
    return diff + (1 if won >= 2 else -1 if lost >= 2 else 0)


def rows_against(a: BoardResult, b: BoardResult) -> tuple[int, int, int]:
    """Rows board ``a`` wins, loses and ties against board ``b`` (RULES.md §4).

    A fouled board loses all three rows to a live one; two fouled boards compare
    none.  A scoop is all three rows won from one opponent.

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> pineapple = get_ruleset("pineapple")
    >>> alice = score_board(Board.parse("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah"), pineapple)
    >>> carol = score_board(Board.parse("Kc Kd 3s", "4c 4d Jh Js 2d", "5c 5d 5h 8d 9c"), pineapple)
    >>> rows_against(alice, carol)  # KK beats QQ; the straight two pair; the flush trips
    (2, 1, 0)
    >>> bob = score_board(Board.parse("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c"), pineapple)
    >>> bob.fouled, rows_against(alice, bob), rows_against(bob, bob)
    (True, (3, 0, 0), (0, 0, 0))
    """
    if a.fouled or b.fouled:
        live_a, live_b = not a.fouled, not b.fouled
        return 3 * (live_a and b.fouled), 3 * (live_b and a.fouled), 0
    signs = [(x.key > y.key) - (x.key < y.key) for x, y in zip(a.ranks, b.ranks, strict=True)]
    return signs.count(1), signs.count(-1), signs.count(0)


def pair_points(ruleset: Ruleset, a: BoardResult, b: BoardResult) -> int:
    """What board ``a`` wins from board ``b``: rows plus the royalty difference."""
    if a.fouled and b.fouled:
        return 0
    won, lost, _ = rows_against(a, b)
    rows = row_points(ruleset, won, lost, foul=a.fouled or b.fouled)
    return rows + a.royalties.total - b.royalties.total


def settlement_order(seats: int) -> list[tuple[int, int]]:
    """Pairs in the order they settle (RULES.md §4, 002).

    Seats are in order of action, the button last.  With three players this is
    (first, second), (first, button), (second, button): the players after the
    button settle with each other, then the first with the button, then the
    button with the second.  More seats follow the same lexicographic order.
    """
    return [(i, j) for i in range(seats) for j in range(i + 1, seats)]


def settle(
    ruleset: Ruleset,
    points: Sequence[Sequence[int]],
    stacks: Sequence[float] | None,
) -> tuple[float, ...]:
    """Net results after stack caps and the maximum loss, settling pair by pair.

    A loser pays at most what it has on the table at that moment (its stack,
    grown or shrunk by the pairs settled before) and at most what is left of
    ``max_loss``.  Without stacks or caps this is just the sum of ``points``.
    """
    seats = len(points)
    net = [0.0] * seats
    use_stacks = stacks is not None and ruleset.stack_cap
    chips = [float(s) for s in stacks] if stacks is not None and use_stacks else [0.0] * seats
    for i, j in settlement_order(seats):
        owed = points[i][j]
        if owed == 0:
            continue
        payer, payee = (j, i) if owed > 0 else (i, j)
        amount = float(abs(owed))
        if use_stacks:
            amount = min(amount, max(chips[payer], 0.0))
        if ruleset.max_loss is not None:
            amount = min(amount, max(ruleset.max_loss + net[payer], 0.0))
        chips[payer] -= amount
        chips[payee] += amount
        net[payer] -= amount
        net[payee] += amount
    return tuple(net)


def score_hand(
    boards: Sequence[Board],
    ruleset: Ruleset,
    *,
    stacks: Sequence[float] | None = None,
    in_fantasy: Sequence[bool] | None = None,
    fantasy_cards: Sequence[int | None] | None = None,
    where: str = "",
) -> HandResult:
    """Score one finished hand of 2-4 boards, seats in order of action.

    Alice (QQ top 7, straight 4, flush 4 = 15 royalties) scoops Bob, who
    fouls: 6 for the rows + 15 = 21 each way.

    >>> from ofc_stats.engine.presets import get_ruleset
    >>> alice = Board.parse("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    >>> bob = Board.parse("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    >>> score_hand([alice, bob], get_ruleset("pineapple-progressive")).net
    (21, -21)
    >>> score_hand([alice, bob], get_ruleset("pineapple-progressive"), stacks=[50, 10]).net_capped
    (10.0, -10.0)
    """
    check_hand(boards, ruleset.deck, ruleset.max_seats, where)
    seats = len(boards)
    origin = f"{where}: " if where else ""
    for name, values in (("stacks", stacks), ("in_fantasy", in_fantasy)):
        if values is not None and len(values) != seats:
            raise HandError(f"{origin}{name} has {len(values)} entries for {seats} seats")
    if stacks is not None and any(s < 0 for s in stacks):
        raise HandError(f"{origin}stacks must not be negative: {list(stacks)}")
    flags = list(in_fantasy) if in_fantasy is not None else [False] * seats
    counts = list(fantasy_cards) if fantasy_cards is not None else [None] * seats
    results = tuple(
        score_board(board, ruleset, bool(flag), count)
        for board, flag, count in zip(boards, flags, counts, strict=True)
    )
    points = tuple(
        tuple(0 if i == j else pair_points(ruleset, results[i], results[j]) for j in range(seats))
        for i in range(seats)
    )
    net = tuple(sum(row) for row in points)
    return HandResult(results, points, net, settle(ruleset, points, stacks))
