"""The plain exhaustive Fantasyland search: the reference the solver is checked against.

Every (bottom, middle, top) split of the dealt cards is scored: no bounds, no
pruning, no ordering.  Rows are ranked with the vector rank tables and scored
with the compiled rule arrays (each entry computed by the scalar rule
functions); boards with jokers are read by the engine's whole-board reading.
It shares nothing with the core's branch and bound (:mod:`ofc_stats.core.fantasy`,
``rust/ofc-core/src/fantasy.rs``) but the engine's definitions, so the tests
and ``bench/fantasy.py`` can hold the solver to it: the value and the very
set.  It stays on the engine's vector modules on purpose (the engine layer
does not import the core, and a reference that shares no ranking code with
the core also checks the core's row classes).  Slow on purpose: about
20 / 110 / 600 ms per deal for 14 / 15 / 16 cards, seconds for 17.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import DECK_SIZE
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.vector.boards import fouled_rows, royalty_sum
from ofc_stats.engine.vector.jokers import resolve_jokers
from ofc_stats.engine.vector.rank_tables import classify_five, classify_three, tables
from ofc_stats.engine.vector.rule_arrays import CompiledRules, compile_rules

Split = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]  # top, middle, bottom
SPLITS_PER_STEP = 1 << 21
JOKER_SPLITS_PER_STEP = 1 << 14


@lru_cache(maxsize=8)
def _layout(n: int) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """Bottoms (C(n,5), 5), then every (middle, top) of the n-5 positions left, as
    positions into the sorted rest of the deal ((P, 5) and (P, 3))."""
    bottoms = np.array(list(combinations(range(n), 5)), dtype=np.int8)
    middles, tops = [], []
    rest = range(n - 5)
    for middle in combinations(rest, 5):
        left = [p for p in rest if p not in middle]
        for top in combinations(left, 3):
            middles.append(middle)
            tops.append(top)
    return bottoms, np.array(middles, dtype=np.int8), np.array(tops, dtype=np.int8)


def _boards(n: int, step: int) -> Iterator[npt.NDArray[np.int8]]:
    """Every split as (k, 13) positions: top, middle, bottom, in steps of about ``step``."""
    bottoms, middles, tops = _layout(n)
    inside = np.zeros((len(bottoms), n), dtype=bool)
    inside[np.arange(len(bottoms))[:, None], bottoms] = True
    rest = np.nonzero(~inside)[1].reshape(len(bottoms), n - 5).astype(np.int8)
    per = max(1, step // len(middles))
    for start in range(0, len(bottoms), per):
        chunk = slice(start, start + per)
        k = len(bottoms[chunk])
        yield np.concatenate(
            [
                rest[chunk][:, tops].reshape(-1, 3),
                rest[chunk][:, middles].reshape(-1, 5),
                np.repeat(bottoms[chunk], len(middles), axis=0),
            ],
            axis=1,
        ).reshape(k * len(middles), 13)


def _repeat(rules: CompiledRules, top: npt.NDArray[np.int64], mid: npt.NDArray[np.int64],
            bot: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:  # fmt: skip
    """The repeat condition of each (unfouled) board, combined as the ruleset says."""
    if not rules.has_repeat:
        return np.zeros(len(top), dtype=bool)
    checks = [
        array[cls]
        for array, cls in (
            (rules.repeat_top, top),
            (rules.repeat_middle, mid),
            (rules.repeat_bottom, bot),
        )
        if array is not None
    ]
    stacked = np.stack(checks)
    return np.asarray(stacked.all(axis=0) if rules.repeat_all else stacked.any(axis=0))


@lru_cache(maxsize=8)
def _subsets(n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64],
                              npt.NDArray[np.int64], npt.NDArray[np.int64]]:  # fmt: skip
    """For the no-joker path: 5- and 3-subsets, and for each bottom the global index of
    every middle (B, Pm) and of every 3-subset of its rest (B, C(n-5,3)), plus each
    (middle, top) pair's top as an index into that rest list (Pm, Pt)."""
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


def _flags(rules: CompiledRules, array: npt.NDArray[np.bool_] | None,
           cls: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:  # fmt: skip
    """One row's repeat condition per class (neutral when that row has none)."""
    if not rules.has_repeat:
        return np.zeros(len(cls), dtype=bool)
    return np.full(len(cls), rules.repeat_all) if array is None else array[cls]


def _plain(
    deal: npt.NDArray[np.int8], rules: CompiledRules, stay_value: float
) -> tuple[float, int, int, bool, tuple[int, int, int]]:
    """(value, code, royalties, stays, (bottom, middle, top) subset indices), no jokers.

    Each top is scored as one int32 key (top royalty << 9 | top class), best
    taken per (bottom, middle) pair separately among the splits that repeat
    and those that do not; the pairs then add their own royalties and the
    stay value.  Every split is still looked at.
    """
    five, three, middle, rest3, top_rel = _subsets(len(deal))
    limit = tables().top_limit.astype(np.int32)
    c5 = classify_five(deal[five]).astype(np.int64)
    c3 = classify_three(deal[three]).astype(np.int32)
    roy5 = rules.royalty_bottom[c5].astype(np.int64)
    roy_mid = rules.royalty_middle[c5].astype(np.int64)
    key3 = (rules.royalty_top[c3].astype(np.int32) << 9) | c3
    fb, fm = _flags(rules, rules.repeat_bottom, c5), _flags(rules, rules.repeat_middle, c5)
    ft = _flags(rules, rules.repeat_top, c3.astype(np.int64))
    per = max(1, SPLITS_PER_STEP // top_rel.size)
    # A whole stay value rides in the key (value << 9 | top class): one max per pair.
    whole = float(stay_value).is_integer() and stay_value < 1 << 16
    branches: tuple[bool | None, ...] = (None,) if whole else (True, False)
    best: tuple[float, int, int, bool, int, int] | None = None
    for start in range(0, len(five), per):
        b = np.arange(start, min(start + per, len(five)))
        m = middle[b]  # (k, Pm)
        rest = rest3[b]  # (k, C(n-5, 3))
        keys = key3[rest][:, top_rel]  # (k, Pm, Pt)
        top_flags = ft[rest][:, top_rel]
        fits = (keys & 511) <= limit[c5[m]][:, :, None]
        pair_flags = (fb[b][:, None] & fm[m]) if rules.repeat_all else (fb[b][:, None] | fm[m])
        if rules.repeat_all:
            stays = pair_flags[:, :, None] & top_flags
        else:
            stays = pair_flags[:, :, None] | top_flags
        pair_royalties = roy5[b][:, None] + roy_mid[m]
        live = c5[m] <= c5[b][:, None]
        scored = keys
        for branch in branches:
            if branch is None:
                scored = keys + (stays.astype(np.int32) * int(stay_value) << 9)
                top = np.where(fits, scored, -1).max(axis=2)
            else:
                top = np.where(fits & (stays == branch), keys, -1).max(axis=2)
            ok = live & (top >= 0)
            if not ok.any():
                continue
            value = np.where(ok, pair_royalties + (top >> 9), -(1 << 40)).astype(np.float64)
            if branch:
                value += stay_value
            code = (c5[b][:, None] << 13 | c5[m]) << 9 | (top & 511)
            top_value = value.max()
            at = np.unravel_index(int(np.where(value == top_value, code, -1).argmax()), value.shape)
            i, j = int(at[0]), int(at[1])
            stay, total = bool(branch), int(pair_royalties[i, j] + (top[i, j] >> 9))
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
    flag = (fb[b_best] & fm[m_best]) if rules.repeat_all else (fb[b_best] | fm[m_best])
    top_stays = (flag & ft[tops]) if rules.repeat_all else (flag | ft[tops])
    top_royalty = royalties - int(roy5[b_best]) - int(roy_mid[m_best])
    match = (key3[tops] == (top_royalty << 9 | (best_code & 511))) & (top_stays == stay)
    top_best = int(tops[np.flatnonzero(match)[0]])
    return best_value, best_code, royalties, stay, (b_best, m_best, top_best)


def exhaustive_fantasy(
    cards: Sequence[int], ruleset: Ruleset, stay_value: float = 0.0
) -> tuple[float, int, bool, tuple[int, int, int], Split]:
    """Best (value, royalties, stays, (bottom, middle, top) classes, split) over every split.

    The split's rows are card ids as placed (jokers as 52/53), highest first;
    classes are of the rows as the engine reads them.  Ties: strongest bottom,
    then middle, then top; then the first split in enumeration order.
    """
    deal = np.array(sorted(int(c) for c in cards), dtype=np.int8)
    rules = compile_rules(ruleset)
    if not (deal >= DECK_SIZE).any():
        value, code, royalties, stays, (b, m, t) = _plain(deal, rules, stay_value)
        five, three = _subsets(len(deal))[:2]
        rows = (deal[three[t]], deal[five[m]], deal[five[b]])
        split = tuple(tuple(sorted((int(c) for c in row), reverse=True)) for row in rows)
        classes = (code >> 22, (code >> 9) & 8191, code & 511)
        return value, royalties, stays, classes, (split[0], split[1], split[2])
    return _with_jokers(deal, rules, stay_value)


def _with_jokers(
    deal: npt.NDArray[np.int8], rules: CompiledRules, stay_value: float
) -> tuple[float, int, bool, tuple[int, int, int], Split]:
    """Every split of a joker deal as a whole board, read by the engine."""
    best: tuple[float, int, int, bool] | None = None
    chosen = np.zeros(13, dtype=np.int8)
    for positions in _boards(len(deal), JOKER_SPLITS_PER_STEP):
        read = resolve_jokers(deal[positions], rules)
        top = classify_three(read[:, 0:3]).astype(np.int64)
        mid = classify_five(read[:, 3:8]).astype(np.int64)
        bot = classify_five(read[:, 8:13]).astype(np.int64)
        fouled = fouled_rows(top, mid, bot)
        royalties = royalty_sum(rules, top, mid, bot)
        stays = _repeat(rules, top, mid, bot) & ~fouled
        value = np.where(fouled, -np.inf, royalties + stay_value * stays.astype(np.float64))
        code = (bot << 13 | mid) << 9 | top
        top_value = value.max()
        at = int(np.where(value == top_value, code, -1).argmax())
        here = (float(top_value), int(code[at]), int(royalties[at]), bool(stays[at]))
        if best is None or here[:2] > best[:2]:
            best, chosen = here, positions[at]
    assert best is not None and best[0] > -np.inf
    packed = best[1]
    classes = (packed >> 22, (packed >> 9) & 8191, packed & 511)
    split = tuple(
        tuple(sorted((int(c) for c in deal[chosen[rows]]), reverse=True))
        for rows in (slice(0, 3), slice(3, 8), slice(8, 13))
    )
    return best[0], best[2], best[3], classes, (split[0], split[1], split[2])
