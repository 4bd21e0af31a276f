"""The exact Fantasyland set: the best 13 of 13-18 cards under a ruleset.

Objective: ``value = royalties + stay_value × stays`` over every non-fouling
split of the dealt cards into top 3 / middle 5 / bottom 5 (the rest
discarded), where ``stays`` is the ruleset's Fantasyland repeat.  Ties go to
the strongest bottom, then middle, then top (strength classes of the rank
tables); sets still equal after that (same ranks, other suits) go to the first
in a fixed enumeration of the cards sorted by id, so the answer never depends
on the input order.

A non-fouling set always exists: the strongest 5 of the cards, the strongest
5 of the rest and any 3 of what is left never foul, because every row is at
least as strong as any of its subsets and the middle is the strongest 5-card
row of a pool holding the top.  With jokers the engine reads the placed
jokers so as to avoid a foul, and the same argument holds with them read as
unused real cards.

Search (bound and prune): every 5- and 3-card subset of the deal is ranked
once with the vector rank tables and given its royalties and repeat flags from
:func:`compile_rules` (built from the scalar rule functions).  Bottoms are
tried in order of an upper bound (bottom royalty + the best middle-plus-top
royalty any middle not above it allows + the repeat bonus if still
reachable), in growing chunks; each chunk's (bottom, middle) pairs are bounded
again with the middle's own royalty and cut, and only the survivors meet their
possible tops, all in NumPy.  The search stops at the first bottom whose bound
cannot beat the best set found.  A subset holding a joker is bounded by the
best reading of that row alone; candidate boards with jokers are then read by
the engine's own whole-board reading (:func:`resolve_jokers`), so a joker set
gets exactly the royalties and repeat the scorer would give it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ofc_stats.engine import fantasy_rows as rows
from ofc_stats.engine.board import Board
from ofc_stats.engine.cards import DECK_SIZE, format_cards
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.vector.boards import fouled_rows, royalty_sum
from ofc_stats.engine.vector.jokers import resolve_jokers
from ofc_stats.engine.vector.rank_tables import classify_five, classify_three, tables
from ofc_stats.engine.vector.rule_arrays import CompiledRules, compile_rules
from ofc_stats.errors import HandError

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]
MIN_CARDS, MAX_CARDS = 13, 18
INFEASIBLE = rows.NONE  # a royalty bound meaning "no row fits under this limit"
FIRST_CHUNK, MAX_CHUNK = 4, 256  # bottoms per step: small first, to find a good set fast
JOKER_BATCH = 256  # candidate joker boards read per engine call


@dataclass(frozen=True)
class FantasySet:
    """A Fantasyland set: rows and discards as card ids (jokers as 52/53, as placed).

    ``value`` is ``royalties + stay_value × stays``.
    """

    top: tuple[int, ...]
    middle: tuple[int, ...]
    bottom: tuple[int, ...]
    discards: tuple[int, ...]
    royalties: int
    stays: bool
    value: float

    @property
    def board(self) -> Board:
        return Board(self.top, self.middle, self.bottom)

    def __str__(self) -> str:
        rows = (self.top, self.middle, self.bottom)
        return " / ".join(format_cards(row) for row in rows)


@dataclass(frozen=True)
class _Layout:
    """Index tables of every split of n positions; they depend on n only."""

    five: I64  # (C(n,5), 5) positions
    three: I64  # (C(n,3), 3)
    five_mask: I32  # position bitmasks
    disjoint: npt.NDArray[np.int16]  # (C(n,5), C(n-5,5)): 5-subsets disjoint from each
    left_index: I32  # bitmask of n-10 positions -> row of left_tops
    left_tops: npt.NDArray[np.int16]  # (C(n,n-10), C(n-10,3)): the 3-subsets of each


def _combos(n: int, k: int) -> I64:
    return np.array(list(combinations(range(n), k)), dtype=np.int64).reshape(-1, k)


@lru_cache(maxsize=8)
def _layout(n: int) -> _Layout:
    """Built once per card count (about 0.1 s for 17 cards, 10 MB)."""
    bit = (1 << np.arange(n)).astype(np.int32)
    five, three = _combos(n, 5), _combos(n, 3)
    five_mask = bit[five].sum(axis=1, dtype=np.int32)
    index5 = np.full(1 << n, -1, dtype=np.int32)
    index5[five_mask] = np.arange(len(five))
    index3 = np.full(1 << n, -1, dtype=np.int32)
    index3[bit[three].sum(axis=1)] = np.arange(len(three))
    outside = ((five_mask[:, None] >> np.arange(n)) & 1) == 0
    rest = np.nonzero(outside)[1].reshape(len(five), n - 5)  # sorted positions per row
    pick = _combos(n - 5, 5)
    masks = np.zeros((len(five), len(pick)), dtype=np.int32)
    for column in range(5):
        masks |= bit[rest[:, pick[:, column]]]
    lefts = _combos(n, n - 10)
    left_index = np.full(1 << n, -1, dtype=np.int32)
    left_index[bit[lefts].sum(axis=1)] = np.arange(len(lefts))
    tops = bit[lefts[:, _combos(n - 10, 3)]].sum(axis=2)
    return _Layout(
        five=five,
        three=three,
        five_mask=five_mask,
        disjoint=index5[masks].astype(np.int16),
        left_index=left_index,
        left_tops=index3[tops].astype(np.int16),
    )


@dataclass
class _Best:
    value: float = -np.inf
    code: int = -1  # (bottom class, middle class, top class) packed: the tie-break
    bottom: int = -1  # subset indices
    middle: int = -1
    top: int = -1
    royalties: int = 0
    stays: bool = False

    def beaten_by(self, value: float, code: int) -> bool:
        return value > self.value or (value == self.value and code > self.code)


def _pack(bottom: npt.ArrayLike, middle: npt.ArrayLike, top: npt.ArrayLike) -> I64:
    """The tie-break as one integer: bottom class, then middle, then top."""
    packed = (np.asarray(bottom, np.int64) << 13 | np.asarray(middle, np.int64)) << 9
    return packed | np.asarray(top, np.int64)


class _Search:
    """One deal's subsets, bounds and the best set found so far."""

    def __init__(self, cards: npt.NDArray[np.int8], rules: CompiledRules, stay: float) -> None:
        self.cards, self.rules, self.stay = cards, rules, stay
        self.layout = lay = _layout(len(cards))
        self.jokers = bool((cards >= DECK_SIZE).any())
        self.all = rules.repeat_all and rules.has_repeat
        neutral5 = np.full(len(tables().key5), self.all)
        neutral3 = np.full(len(tables().key3), self.all)

        def flags(array: Bools | None, neutral: Bools) -> I32:
            source = neutral if array is None or not rules.has_repeat else array
            return source.astype(np.int32)

        rb, rm = rules.royalty_bottom.astype(np.int32), rules.royalty_middle.astype(np.int32)
        fb, fm = flags(rules.repeat_bottom, neutral5), flags(rules.repeat_middle, neutral5)
        rt, ft = rules.royalty_top.astype(np.int32), flags(rules.repeat_top, neutral3)
        self.rm_of = rm  # by class: the bottoms' bound and the engine-read boards
        self.fb_of, self.fm_of, self.ft_of = fb > 0, fm > 0, ft > 0
        m5, m3 = len(lay.five), len(lay.three)
        self.r5 = owner5, cls5 = rows.readings(cards[lay.five])
        owner3, cls3 = rows.readings(cards[lay.three])
        self.c5lo, self.c5 = rows.class_range(owner5, cls5, m5)
        self.c3lo, self.c3 = rows.class_range(owner3, cls3, m3)
        self.rb, self.rm = rows.most(owner5, rb[cls5], m5), rows.most(owner5, rm[cls5], m5)
        self.fb = rows.most(owner5, fb[cls5], m5) > 0
        self.fm = rows.most(owner5, fm[cls5], m5) > 0
        self.rt, self.ft = rows.most(owner3, rt[cls3], m3), rows.most(owner3, ft[cls3], m3) > 0
        self.top_limit = tables().top_limit.astype(np.int32)
        if self.jokers:  # royalties and repeats of a row under a cap on its class
            self.lowest = rows.lowest_by_label(owner5, cls5, m5)
            self.label_roy, self.label_flag = rows.label_values(rm), rows.label_values(fm) > 0
            self.top_cap = rows.capped(owner3, cls3, rt[cls3], m3)
            self.top_flag = rows.capped(owner3, cls3, ft[cls3], m3) > 0
            self.top_roy = self.top_cap.max(axis=0)
            self.top_rep = np.asarray(self.top_flag.any(axis=0))
            return
        # Best top royalty / repeat reachable under each top-class limit.
        order3 = np.argsort(self.c3, kind="stable")
        upto = np.searchsorted(self.c3[order3], np.arange(len(tables().key3)), side="right") - 1
        top_roy = np.maximum.accumulate(self.rt[order3])
        top_rep = np.logical_or.accumulate(self.ft[order3])
        self.top_roy = np.where(upto >= 0, top_roy[upto], INFEASIBLE)
        self.top_rep = (upto >= 0) & top_rep[np.maximum(upto, 0)]

    def _combine(self, *flags: Bools) -> Bools:
        out = flags[0]
        for flag in flags[1:]:
            out = out & flag if self.all else out | flag
        return out

    def _worth(self, royalties: npt.ArrayLike, stays: Bools) -> F64:
        """Royalties + stay value × stays, by one formula so bounds and values compare exactly."""
        return np.asarray(royalties, np.float64) + self.stay * stays.astype(np.float64)

    def bottom_bounds(self) -> F64:
        """Upper bound of every set on each 5-subset as the bottom.

        The best middle-plus-top royalty of any middle reading not above the
        bottom (ignoring which cards the bottom takes), and the repeat if reachable.
        """
        cls = self.r5[1]
        order = np.argsort(cls, kind="stable")
        middle_plus_top = self.rm_of[cls] + self.top_roy[self.top_limit[cls]]
        best = np.maximum.accumulate(middle_plus_top[order])
        any_fm = np.logical_or.accumulate(self.fm_of[cls][order])
        upto = np.searchsorted(cls[order], self.c5, side="right") - 1  # >= 0: itself
        reach = self._combine(self.fb, any_fm[upto], self.top_rep[self.top_limit[self.c5]])
        return self._worth(self.rb + best[upto], reach)

    def run(self) -> _Best:
        best = _Best()
        bound = self.bottom_bounds()
        order = np.lexsort((-self.c5, -bound))
        start, chunk = 0, FIRST_CHUNK
        while start < len(order):
            first = order[start]
            if not best.beaten_by(bound[first], int(_pack(self.c5[first], 8191, 511))):
                break
            self._chunk(order[start : start + chunk], best)
            start += chunk
            chunk = min(chunk * 2, MAX_CHUNK)
        return best

    def _chunk(self, bottoms: I64, best: _Best) -> None:
        """Every (bottom, middle, top) of these bottoms that can still beat ``best``."""
        lay = self.layout
        mids = lay.disjoint[bottoms].astype(np.int64)  # (k, d)
        b = np.broadcast_to(bottoms[:, None], mids.shape)
        cap = self.c5[b]  # a middle reads at most as strong as its bottom
        if self.jokers:
            under = self.lowest[mids] <= cap[:, :, None]  # (k, d, labels)
            mid_roy = np.where(under, self.label_roy, INFEASIBLE).max(axis=2)
            mid_flag = np.asarray((under & self.label_flag).any(axis=2))
            cm = np.minimum(self.c5[mids], cap)
        else:
            mid_roy, mid_flag, cm = self.rm[mids], self.fm[mids], self.c5[mids]
        lim = self.top_limit[cm]
        bound = self._worth(
            self.rb[b] + mid_roy + self.top_roy[lim],
            self._combine(self.fb[b], mid_flag, self.top_rep[lim]),
        )
        code = _pack(cap, cm, 511)
        keep = (self.c5lo[mids] <= cap) & (
            (bound > best.value) | ((bound == best.value) & (code > best.code))
        )
        bi, mi = np.nonzero(keep)
        if not len(bi):
            return
        bot, mid, cm_kept, lim_kept = bottoms[bi], mids[bi, mi], cm[bi, mi], lim[bi, mi][:, None]
        left = ((1 << len(self.cards)) - 1) ^ (lay.five_mask[bot] | lay.five_mask[mid])
        tops = lay.left_tops[lay.left_index[left]].astype(np.int64)  # (p, t)
        if self.jokers:
            top_roy, top_flag = self.top_cap[tops, lim_kept], self.top_flag[tops, lim_kept]
            fits, ct = top_roy > INFEASIBLE, np.minimum(self.c3[tops], lim_kept)
        else:
            top_roy, top_flag = self.rt[tops], self.ft[tops]
            fits, ct = self.c3[tops] <= lim_kept, self.c3[tops]
        royalties = (self.rb[bot] + mid_roy[bi, mi])[:, None] + top_roy
        stays = self._combine(self.fb[bot][:, None], mid_flag[bi, mi][:, None], top_flag)
        worth = np.where(fits, self._worth(royalties, stays), -np.inf)
        codes = _pack(self.c5[bot][:, None], cm_kept[:, None], ct)
        bot2 = np.broadcast_to(bot[:, None], tops.shape)
        mid2 = np.broadcast_to(mid[:, None], tops.shape)
        if self.jokers:
            self._read_jokers(bot2[fits], mid2[fits], tops[fits], worth[fits], codes[fits], best)
            return
        top_worth = worth.max()
        if top_worth == -np.inf:
            return
        at = int(np.where(worth == top_worth, codes, -1).argmax())
        if best.beaten_by(float(top_worth), int(codes.flat[at])):
            best.value, best.code = float(top_worth), int(codes.flat[at])
            best.bottom, best.middle, best.top = (int(a.flat[at]) for a in (bot2, mid2, tops))
            best.royalties, best.stays = int(royalties.flat[at]), bool(stays.flat[at])

    def _read_jokers(
        self, bot: I64, mid: I64, top: I64, bound: F64, code: I64, best: _Best
    ) -> None:
        """Candidate boards read by the engine, best bounds first, until none can win."""
        order = np.lexsort((-code, -bound))
        lay, rules = self.layout, self.rules
        for start in range(0, len(order), JOKER_BATCH):
            part = order[start : start + JOKER_BATCH]
            if not best.beaten_by(float(bound[part[0]]), int(code[part[0]])):
                return
            boards = np.concatenate(
                [
                    self.cards[lay.three[top[part]]],
                    self.cards[lay.five[mid[part]]],
                    self.cards[lay.five[bot[part]]],
                ],
                axis=1,
            )
            read = resolve_jokers(boards, rules)
            tc = classify_three(read[:, 0:3]).astype(np.int64)
            mc = classify_five(read[:, 3:8]).astype(np.int64)
            bc = classify_five(read[:, 8:13]).astype(np.int64)
            fouled = fouled_rows(tc, mc, bc)
            royalties = royalty_sum(rules, tc, mc, bc)
            stays = self._combine(self.fb_of[bc], self.fm_of[mc], self.ft_of[tc]) & ~fouled
            worth = np.where(fouled, -np.inf, self._worth(royalties, stays))
            codes = _pack(bc, mc, tc)
            top_worth = worth.max()
            if top_worth == -np.inf:
                continue
            at = int(np.where(worth == top_worth, codes, -1).argmax())
            if best.beaten_by(float(top_worth), int(codes[at])):
                best.value, best.code = float(top_worth), int(codes[at])
                best.bottom, best.middle, best.top = (
                    int(bot[part[at]]),
                    int(mid[part[at]]),
                    int(top[part[at]]),
                )
                best.royalties, best.stays = int(royalties[at]), bool(stays[at])


def check_deal(cards: Sequence[int], ruleset: Ruleset, where: str = "") -> tuple[int, ...]:
    """The dealt cards as a tuple, or :class:`HandError` naming what is wrong."""
    origin = f"{where}: " if where else ""
    deal = tuple(int(card) for card in cards)
    if not MIN_CARDS <= len(deal) <= MAX_CARDS:
        raise HandError(f"{origin}{len(deal)} cards; a Fantasyland deal has 13 to 18")
    bad = [card for card in deal if not 0 <= card < ruleset.deck.size]
    if bad:
        extra = " (jokers need the joker54 deck)" if any(c >= DECK_SIZE for c in bad) else ""
        raise HandError(f"{origin}card ids {bad} are not in the {ruleset.deck} deck{extra}")
    if len(set(deal)) != len(deal):
        dupes = sorted({card for card in deal if deal.count(card) > 1})
        raise HandError(f"{origin}duplicate card {format_cards(dupes)}")
    return deal


def solve_fantasy(cards: Sequence[int], ruleset: Ruleset, stay_value: float = 0.0) -> FantasySet:
    """The set of 13 of ``cards`` maximising royalties + ``stay_value`` × repeat.

    Exact over every non-fouling split; ties go to the strongest rows from the
    bottom up.  Rows are listed highest card id first.

    >>> from ofc_stats.engine.cards import parse_cards
    >>> from ofc_stats.engine.presets import get_ruleset
    >>> deal = parse_cards("Ah Kh Qh Jh Th 9s 9d 9c 5s 5d 3c 3d 2s Qd")
    >>> best = solve_fantasy(deal, get_ruleset("pineapple-progressive"), stay_value=10)
    >>> print(best, "|", format_cards(best.discards), best.royalties, best.stays, best.value)
    Qd 3d 3c / 9s 9d 9c 5s 5d / Ah Kh Qh Jh Th | 2s 37 True 47.0
    """
    if not np.isfinite(stay_value) or stay_value < 0:
        raise ValueError(f"stay_value must be a finite number ≥ 0, not {stay_value!r}")
    deal = np.array(sorted(check_deal(cards, ruleset)), dtype=np.int8)
    found = _Search(deal, compile_rules(ruleset), float(stay_value)).run()
    assert found.bottom >= 0, "a non-fouling set always exists (see the module docstring)"
    lay = _layout(len(deal))

    def row(positions: I64) -> tuple[int, ...]:
        return tuple(sorted((int(c) for c in deal[positions]), reverse=True))

    top, middle, bottom = (
        row(lay.three[found.top]),
        row(lay.five[found.middle]),
        row(lay.five[found.bottom]),
    )
    placed = set(top + middle + bottom)
    return FantasySet(
        top=top,
        middle=middle,
        bottom=bottom,
        discards=tuple(sorted((int(c) for c in deal if int(c) not in placed), reverse=True)),
        royalties=found.royalties,
        stays=found.stays,
        value=float(found.royalties) + float(stay_value) * float(found.stays),
    )


def solve_fantasy_batch(
    cards: npt.ArrayLike, ruleset: Ruleset, stay_value: float = 0.0
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], list[FantasySet]]:
    """Solve (k, n) deals: boards (k, 13: top, middle, bottom), discards (k, n-13), sets."""
    deals = np.asarray(cards)
    sets = [solve_fantasy(row.tolist(), ruleset, stay_value) for row in deals]
    boards = np.array([s.top + s.middle + s.bottom for s in sets], dtype=np.int8)
    thrown = np.array([s.discards for s in sets], dtype=np.int8)
    return boards.reshape(len(sets), 13), thrown.reshape(len(sets), deals.shape[1] - 13), sets
