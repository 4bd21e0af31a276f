"""The plain exhaustive Fantasyland search: the reference the solver is checked against.

Built on the definitions only.  Each 5- and 3-card subset of the deal is
ranked once with :func:`~ofc_stats.engine.rank.rank_row` (at most
C(18, 5) = 8,568 of them) and given its royalty and repeat condition by the
ruleset's scalar functions; every (bottom, middle, top) split is then scored
over those numbers in NumPy, fouled as
:func:`~ofc_stats.engine.scoring.score_board` fouls: no bounds, no pruning.
Boards holding jokers are scored whole by ``score_board`` (the engine's joker
reading), 1-30 ms a board: only the splits whose upper bound reaches the best
value found are read (see :func:`_with_jokers`), and joker deals stay at 13
or 14 cards.  It shares nothing with the core (:mod:`ofc_stats.core.fantasy`,
``rust/ofc-core/src/fantasy.rs``), not even the row classes, so the tests can
hold the solver to it: the value and the very set.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.board import Board
from ofc_stats.engine.cards import DECK_SIZE
from ofc_stats.engine.rank import rank_row
from ofc_stats.engine.rules import Combine, FantasyMode, RepeatRule, Ruleset
from ofc_stats.engine.scoring import score_board

Split = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]  # top, middle, bottom
Ints = npt.NDArray[np.int64]
SPLITS_PER_STEP = 1 << 21
TOP_BITS = 10  # a 3-subset's strength order among the deal's: < C(18, 3) = 816
FIVE_BITS = 14  # a 5-subset's: < C(18, 5) = 8,568


@lru_cache(maxsize=8)
def _subsets(n: int) -> tuple[Ints, Ints, Ints, Ints, Ints]:
    """5- and 3-subsets of n positions, and for each bottom the index of every middle
    (B, Pm) and of every 3-subset of its rest (B, C(n-5,3)), plus each (middle, top)
    pair's top as an index into that rest list (Pm, Pt)."""
    bit = 1 << np.arange(n, dtype=np.int64)
    five = np.array(list(combinations(range(n), 5)), dtype=np.int64)
    three = np.array(list(combinations(range(n), 3)), dtype=np.int64)
    index5 = np.zeros(1 << n, dtype=np.int64)
    index5[bit[five].sum(axis=1)] = np.arange(len(five))
    index3 = np.zeros(1 << n, dtype=np.int64)
    index3[bit[three].sum(axis=1)] = np.arange(len(three))
    inside = np.zeros((len(five), n), dtype=bool)
    inside[np.arange(len(five))[:, None], five] = True
    rest = np.nonzero(~inside)[1].reshape(len(five), n - 5)
    rel5 = np.array(list(combinations(range(n - 5), 5)), dtype=np.int64)
    rel3 = list(combinations(range(n - 5), 3))
    middle = index5[bit[rest[:, rel5]].sum(axis=2)]
    rest3 = index3[bit[rest[:, np.array(rel3)]].sum(axis=2)]
    rel3_index = {c: i for i, c in enumerate(rel3)}
    top_rel = np.array(
        [
            [rel3_index[t] for t in combinations([p for p in range(n - 5) if p not in m], 3)]
            for m in rel5.tolist()
        ]
    )
    return five, three, middle, rest3, top_rel


def _alone(repeat: RepeatRule | None, row: str) -> RepeatRule | None:
    """The repeat rule with only ``row``'s condition (None when that row has none)."""
    if repeat is None or getattr(repeat, row) is None:
        return None
    return RepeatRule(
        top=repeat.top if row == "top" else None,
        middle=repeat.middle if row == "middle" else None,
        bottom=repeat.bottom if row == "bottom" else None,
    )


class _Rows:
    """Keys, royalties and repeat conditions of every 5- and 3-subset of one deal."""

    def __init__(self, deal: Sequence[int], ruleset: Ruleset) -> None:
        five, three = _subsets(len(deal))[:2]
        table, fantasy = ruleset.royalties, ruleset.fantasy
        repeat = fantasy.repeat if fantasy.mode is not FantasyMode.NONE else None
        self.has_repeat = repeat is not None
        self.all = repeat is not None and repeat.combine is Combine.ALL
        neutral = self.all  # an absent condition: true under "all", false under "any"
        rank5 = [rank_row([deal[p] for p in s]) for s in five.tolist()]
        rank3 = [rank_row([deal[p] for p in s]) for s in three.tolist()]
        low3, low5 = rank_row([0, 1, 2]), rank_row([0, 1, 2, 3, 5])  # any rows: ignored
        top, mid, bot = (_alone(repeat, row) for row in ("top", "middle", "bottom"))
        self.key5 = np.array([r.key for r in rank5], dtype=np.int64)
        self.key3 = np.array([r.key for r in rank3], dtype=np.int64)
        self.roy_mid = np.array([table.five_points("middle", r) for r in rank5], dtype=np.int64)
        self.roy_bot = np.array([table.five_points("bottom", r) for r in rank5], dtype=np.int64)
        self.roy_top = np.array([table.top_points(r) for r in rank3], dtype=np.int64)
        self.rep_mid = np.array(
            [neutral if mid is None else mid.holds(low3, r, low5) for r in rank5]
        )
        self.rep_bot = np.array(
            [neutral if bot is None else bot.holds(low3, low5, r) for r in rank5]
        )
        self.rep_top = np.array(
            [neutral if top is None else top.holds(r, low5, low5) for r in rank3]
        )
        # Strength order among this deal's subsets: the tie-break, packed in few bits.
        self.order5 = np.unique(self.key5, return_inverse=True)[1].astype(np.int64).ravel()
        self.order3 = np.unique(self.key3, return_inverse=True)[1].astype(np.int64).ravel()

    def combine(self, a: npt.NDArray[np.bool_], b: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return np.asarray(a & b if self.all else a | b)


def _plain(
    deal: Sequence[int], ruleset: Ruleset, stay_value: float
) -> tuple[float, int, bool, tuple[int, int, int]]:
    """(value, royalties, stays, (bottom, middle, top) subset indices), no jokers.

    Each top is scored as one key (top royalty << TOP_BITS | its strength order),
    best taken per (bottom, middle) pair separately among the splits that
    repeat and those that do not; the pairs then add their own royalties and
    the stay value.  Every split is still looked at.
    """
    five, _, middle, rest3, top_rel = _subsets(len(deal))
    rows = _Rows(deal, ruleset)
    o5, k5 = rows.order5, rows.key5
    key3 = (rows.roy_top << TOP_BITS) | rows.order3
    low = (1 << TOP_BITS) - 1
    per = max(1, SPLITS_PER_STEP // top_rel.size)
    # A whole stay value rides in the key (value << TOP_BITS | order): one max per pair.
    whole = float(stay_value).is_integer() and stay_value < 1 << 16
    branches: tuple[bool | None, ...] = (None,) if whole else (True, False)
    best: tuple[float, int, int, bool, int, int] | None = None
    for start in range(0, len(five), per):
        b = np.arange(start, min(start + per, len(five)))
        m = middle[b]  # (k, Pm)
        rest = rest3[b]  # (k, C(n-5, 3))
        keys = key3[rest][:, top_rel]  # (k, Pm, Pt)
        fits = rows.key3[rest][:, top_rel] <= k5[m][:, :, None]  # top not above middle
        stays = rows.combine(
            rows.combine(rows.rep_bot[b][:, None], rows.rep_mid[m])[:, :, None],
            rows.rep_top[rest][:, top_rel],
        )
        if not rows.has_repeat:
            stays = np.zeros_like(stays)
        pair_royalties = rows.roy_bot[b][:, None] + rows.roy_mid[m]
        live = k5[m] <= k5[b][:, None]  # middle not above bottom
        scored = keys
        for branch in branches:
            if branch is None:
                scored = keys + (stays.astype(np.int64) * int(stay_value) << TOP_BITS)
                top = np.where(fits, scored, -1).max(axis=2)
            else:
                top = np.where(fits & (stays == branch), keys, -1).max(axis=2)
            ok = live & (top >= 0)
            if not ok.any():
                continue
            value = np.where(ok, pair_royalties + (top >> TOP_BITS), -(1 << 40)).astype(np.float64)
            if branch:
                value += stay_value
            code = (o5[b][:, None] << FIVE_BITS | o5[m]) << TOP_BITS | (top & low)
            top_value = value.max()
            at = np.unravel_index(int(np.where(value == top_value, code, -1).argmax()), value.shape)
            i, j = int(at[0]), int(at[1])
            stay, total = bool(branch), int(pair_royalties[i, j] + (top[i, j] >> TOP_BITS))
            if branch is None:  # which top gave the key says whether the set repeats
                row = np.flatnonzero(fits[i, j] & (scored[i, j] == top[i, j]))[0]
                stay = bool(stays[i, j, row])
                total -= int(stay_value) * stay
            here = (float(top_value), int(code[i, j]), total, stay)
            if best is None or here[:2] > best[:2]:
                best = (*here, int(b[i]), int(m[i, j]))
    assert best is not None
    best_value, best_code, royalties, stay, b_best, m_best = best
    tops = rest3[b_best][top_rel[list(middle[b_best]).index(m_best)]]
    top_royalty = royalties - int(rows.roy_bot[b_best]) - int(rows.roy_mid[m_best])
    flag = rows.combine(rows.rep_bot[b_best], rows.rep_mid[m_best])
    top_stays = rows.combine(flag, rows.rep_top[tops]) & rows.has_repeat
    match = (key3[tops] == (top_royalty << TOP_BITS | (best_code & low))) & (top_stays == stay)
    top_best = int(tops[np.flatnonzero(match)[0]])
    return best_value, royalties, stay, (b_best, m_best, top_best)


def exhaustive_fantasy(
    cards: Sequence[int], ruleset: Ruleset, stay_value: float = 0.0
) -> tuple[float, int, bool, tuple[int, int, int], Split]:
    """Best (value, royalties, stays, (bottom, middle, top) keys, split) over every split.

    The split's rows are card ids as placed (jokers as 52/53), highest first;
    keys (:attr:`~ofc_stats.engine.rank.RowRank.key`) are of the rows as the
    engine reads them.  Ties: strongest bottom, then middle, then top; then the
    first split in enumeration order (bottoms, then middles of the rest, then
    tops of what is left, each in combination order of the sorted deal).
    """
    deal = sorted(int(c) for c in cards)
    if max(deal) >= DECK_SIZE:
        return _with_jokers(deal, ruleset, stay_value)
    value, royalties, stays, (b, m, t) = _plain(deal, ruleset, stay_value)
    five, three = _subsets(len(deal))[:2]
    picked = [[deal[p] for p in positions] for positions in (three[t], five[m], five[b])]
    top, mid, bot = (tuple(sorted(row, reverse=True)) for row in picked)
    keys = (rank_row(bot).key, rank_row(mid).key, rank_row(top).key)
    return value, royalties, stays, keys, (top, mid, bot)


def _with_jokers(
    deal: list[int], ruleset: Ruleset, stay_value: float
) -> tuple[float, int, bool, tuple[int, int, int], Split]:
    """Every split of a joker deal that could win, scored whole by the engine.

    ``score_board`` reads a board's jokers in 1-30 ms, too slow for all
    72,072 splits of 13 cards, so splits are taken in order of an upper bound
    (each row's most royalty over every reading of its own jokers, plus the
    stay value if every needed row could repeat) and the search stops at the
    first whose bound is below the best value found: no split that could
    win or tie is skipped.  Ties as in :func:`exhaustive_fantasy`.
    """
    fantasy = ruleset.fantasy
    repeat = fantasy.repeat if fantasy.mode is not FantasyMode.NONE else None
    every_all = repeat is not None and repeat.combine is Combine.ALL
    alone = tuple(_alone(repeat, row) for row in ("top", "middle", "bottom"))

    five, three, middle, rest3, top_rel = _subsets(len(deal))
    rows5 = [tuple(deal[p] for p in s) for s in five.tolist()]
    rows3 = [tuple(deal[p] for p in s) for s in three.tolist()]
    parts = {
        name: [
            _row_bound_of(row, name, ruleset, alone, every_all)
            for row in (rows3 if name == "top" else rows5)
        ]
        for name in ("top", "middle", "bottom")
    }
    most_of = {name: np.array([p for p, _ in found]) for name, found in parts.items()}
    flag_of = {name: np.array([f for _, f in found]) for name, found in parts.items()}
    # Every split as (bottom, middle, top) subset indices, in enumeration order.
    bottoms = np.repeat(np.arange(len(five)), middle.shape[1] * top_rel.shape[1])
    middles = np.repeat(middle, top_rel.shape[1], axis=1).reshape(-1)
    tops = rest3[:, top_rel].reshape(-1)
    flags = (flag_of["top"][tops], flag_of["middle"][middles], flag_of["bottom"][bottoms])
    can_stay = repeat is not None and (
        flags[0] & flags[1] & flags[2] if every_all else flags[0] | flags[1] | flags[2]
    )
    most_all = most_of["top"][tops] + most_of["middle"][middles] + most_of["bottom"][bottoms]
    most_all = most_all + max(stay_value, 0.0) * np.asarray(can_stay, dtype=np.float64)
    best: tuple[tuple[float, int, int, int, int], int, bool, Split] | None = None
    for index in np.argsort(-most_all, kind="stable").tolist():  # enumeration order on ties
        most = float(most_all[index])
        if best is not None and most < best[0][0]:
            break
        board = Board(rows3[tops[index]], rows5[middles[index]], rows5[bottoms[index]])
        scored = score_board(board, ruleset, in_fantasy=True)
        if scored.fouled:
            continue
        stays = scored.fantasyland.stays
        tk, mk, bk = (rank.key for rank in scored.ranks)
        here = (float(scored.royalties.total + stay_value * stays), bk, mk, tk, -index)
        if best is None or here > best[0]:
            split = tuple(tuple(sorted(row, reverse=True)) for row in board.rows)
            best = (here, scored.royalties.total, stays, (split[0], split[1], split[2]))
    assert best is not None
    (value, b, m, t, _), royalties, stays, split = best
    return value, royalties, stays, (b, m, t), split


def _row_bound_of(
    row: tuple[int, ...],
    name: str,
    ruleset: Ruleset,
    alone: tuple[RepeatRule | None, ...],
    every_all: bool,
) -> tuple[int, bool]:
    """Most royalty ``row`` can score as the ``name`` row, and whether its repeat
    condition can hold, over every card its jokers could read as (a bound: the
    board's reading is one of these)."""
    fixed = [card for card in row if card < DECK_SIZE]
    free = [card for card in range(DECK_SIZE) if card not in fixed]
    table = ruleset.royalties
    low3, low5 = rank_row([0, 1, 2]), rank_row([0, 1, 2, 3, 5])  # rows the check ignores
    check = alone[("top", "middle", "bottom").index(name)]
    most, can_repeat = 0, False
    for values in combinations(free, len(row) - len(fixed)):
        rank = rank_row(fixed + list(values))
        if name == "top":
            points = table.top_points(rank)
            holds = every_all if check is None else check.holds(rank, low5, low5)
        else:
            points = table.five_points(name, rank)
            if check is None:
                holds = every_all
            elif name == "middle":
                holds = check.holds(low3, rank, low5)
            else:
                holds = check.holds(low3, low5, rank)
        most, can_repeat = max(most, points), can_repeat or holds
    return most, can_repeat
