"""Vectorised row ranking through lookup tables derived from :mod:`hand_rank`.

A row is ranked by walking a small finite-state machine one card column at a
time, for all rows at once: ``state = NEXT[state + card]`` is one NumPy add and
one gather per card, no sort and no Python loop per row.  The state is the
multiset of ranks seen so far plus a suit status (one suit so far, or mixed);
states are stored pre-multiplied by 52 so the next index is a plain add.  The
last card's table gives the row's *class*: a dense strength index
(0..7461 for 5-card rows, 0..454 for 3-card rows), ascending with strength.

Every table entry is computed by :func:`hand_rank.rank_row` on a
representative row, so the vectorised path agrees with the scalar definition
by construction; the property tests check the machinery.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import DECK_SIZE
from ofc_stats.engine.rank import Category, RowRank, rank_row

IntArray = npt.NDArray[np.integer]
MIXED = 4
EMPTY = 5
SUIT_STATUSES = 6
START5 = EMPTY * DECK_SIZE  # empty multiset (id 0), no suit seen yet


@dataclass(frozen=True)
class RankTables:
    """Every table the vectorised ranker and the batch scorer read."""

    next5: npt.NDArray[np.int32]  # (states*52,) -> next state * 52
    last5: npt.NDArray[np.int16]  # (states*52,) -> 5-card class
    next3: npt.NDArray[np.int32]
    last3: npt.NDArray[np.int16]
    key5: npt.NDArray[np.int32]  # class -> shared-scale key
    key3: npt.NDArray[np.int32]
    top_limit: npt.NDArray[np.int16]  # 5-card class -> highest top class not above it
    rank5: tuple[RowRank, ...]  # class -> RowRank, for tables keyed by category
    rank3: tuple[RowRank, ...]


def _multisets(max_size: int) -> list[tuple[int, ...]]:
    """All rank multisets of size 0..max_size with at most four of a rank."""
    out: list[tuple[int, ...]] = []
    for size in range(max_size + 1):
        for combo in combinations_with_replacement(range(13), size):
            if all(combo.count(r) <= 4 for r in set(combo)):
                out.append(combo)
    return out


def _representative(ranks: tuple[int, ...], flush: bool) -> list[int]:
    """Real cards with these ranks: one suit if ``flush``, else not all one suit."""
    if flush:
        return [rank * 4 for rank in ranks]
    seen: dict[int, int] = {}
    cards = []
    for rank in ranks:
        suit = seen.get(rank, 0)
        seen[rank] = suit + 1
        cards.append(rank * 4 + suit)
    if len(set(ranks)) == len(ranks):  # all suit 0 so far: break the flush
        cards[-1] += 1
    return cards


def _class_table(
    finals: Sequence[tuple[int, ...]], with_flush: bool
) -> tuple[dict[tuple[tuple[int, ...], bool], int], npt.NDArray[np.int32], tuple[RowRank, ...]]:
    """Dense strength classes for final multisets; returns (index, keys, ranks)."""
    ranked: dict[tuple[tuple[int, ...], bool], RowRank] = {}
    for ranks in finals:
        ranked[(ranks, False)] = rank_row(_representative(ranks, flush=False))
        if with_flush and len(set(ranks)) == len(ranks):
            ranked[(ranks, True)] = rank_row(_representative(ranks, flush=True))
    distinct = sorted({rank.key: rank for rank in ranked.values()}.items())
    keys = np.array([key for key, _ in distinct], dtype=np.int32)
    rows = tuple(rank for _, rank in distinct)
    position = {key: index for index, (key, _) in enumerate(distinct)}
    index = {combo: position[rank.key] for combo, rank in ranked.items()}
    return index, keys, rows


_INSTALLED: list[RankTables] = []  # the process's tables, once built or installed


def tables() -> RankTables:
    """Every lookup table, built on first use (~0.2 s) unless :func:`install` gave them."""
    if not _INSTALLED:
        _INSTALLED.append(build_tables())
    return _INSTALLED[0]


def install(built: RankTables) -> None:
    """Use these tables (e.g. :func:`from_arrays` of a saved copy) instead of building."""
    _INSTALLED[:] = [built]


def to_arrays(built: RankTables) -> dict[str, npt.NDArray[np.integer]]:
    """The tables as plain arrays, for a cache that needs no pickle to load."""
    arrays: dict[str, npt.NDArray[np.integer]] = {
        name: getattr(built, name) for name in ARRAY_FIELDS
    }
    for name in ("rank5", "rank3"):
        ranks: tuple[RowRank, ...] = getattr(built, name)
        out = np.full((len(ranks), 6), -1, dtype=np.int8)  # category, then up to 5 ranks
        for index, rank in enumerate(ranks):
            out[index, 0] = int(rank.category)
            out[index, 1 : 1 + len(rank.ranks)] = rank.ranks
        arrays[name] = out
    return arrays


def from_arrays(arrays: Mapping[str, npt.NDArray[np.integer]]) -> RankTables:
    """The tables back from :func:`to_arrays` (KeyError or ValueError when it is not that)."""
    categories = list(Category)

    def ranks(rows: npt.NDArray[np.integer]) -> tuple[RowRank, ...]:
        if rows.ndim != 2 or rows.shape[1] != 6:
            raise ValueError("not a table of row ranks")
        return tuple(
            RowRank(categories[row[0]], tuple(r for r in row[1:] if r >= 0))
            for row in rows.tolist()
        )

    loaded = {name: np.asarray(arrays[name]) for name in ARRAY_FIELDS}
    for name, kind in ARRAY_FIELDS.items():
        if loaded[name].dtype != kind or loaded[name].ndim != 1:
            raise ValueError(f"{name}: not a {kind} vector")
    return RankTables(**loaded, rank5=ranks(arrays["rank5"]), rank3=ranks(arrays["rank3"]))


ARRAY_FIELDS = {
    "next5": np.int32,
    "last5": np.int16,
    "next3": np.int32,
    "last3": np.int16,
    "key5": np.int32,
    "key3": np.int32,
    "top_limit": np.int16,
}


def build_tables() -> RankTables:
    """Build every lookup table from :func:`rank_row` (~0.2 s)."""
    ms4 = _multisets(4)
    ms_id = {ms: i for i, ms in enumerate(ms4)}
    n_ms = len(ms4)
    finals5 = [ms for ms in _multisets(5) if len(ms) == 5]
    class5, key5, rank5 = _class_table(finals5, with_flush=True)
    finals3 = [ms for ms in _multisets(3) if len(ms) == 3]
    class3, key3, rank3 = _class_table(finals3, with_flush=False)

    cards = np.arange(DECK_SIZE)
    card_rank, card_suit = cards >> 2, cards & 3
    # Rank transitions on multisets (-1 where a fifth card of a rank would appear).
    rank_next = np.full((n_ms, 13), -1, dtype=np.int64)
    last5_by_rank = np.full((n_ms, 13, 2), -1, dtype=np.int64)
    last3_by_rank = np.full((n_ms, 13), -1, dtype=np.int64)
    for ms, i in ms_id.items():
        for r in range(13):
            grown = tuple(sorted((*ms, r)))
            if grown.count(r) > 4:
                continue
            if len(grown) <= 4:
                rank_next[i, r] = ms_id[grown]
            if len(grown) == 5:
                last5_by_rank[i, r, 0] = class5[(grown, False)]
                if (grown, True) in class5:
                    last5_by_rank[i, r, 1] = class5[(grown, True)]
            if len(grown) == 3:
                last3_by_rank[i, r] = class3[(grown, False)]
    suit_next = np.empty((SUIT_STATUSES, 4), dtype=np.int64)
    for status in range(SUIT_STATUSES):
        for suit in range(4):
            same = status in (suit, EMPTY)
            suit_next[status, suit] = suit if same else MIXED

    # Combined state = multiset * 6 + suit status, stored pre-multiplied by 52.
    ms_index = np.repeat(np.arange(n_ms), SUIT_STATUSES)
    status_index = np.tile(np.arange(SUIT_STATUSES), n_ms)
    nxt_ms = rank_next[ms_index[:, None], card_rank[None, :]]
    nxt_status = suit_next[status_index[:, None], card_suit[None, :]]
    next5 = np.where(nxt_ms >= 0, (nxt_ms * SUIT_STATUSES + nxt_status) * DECK_SIZE, 0)
    flush = (status_index[:, None] == card_suit[None, :]).astype(np.int64)
    last5 = last5_by_rank[ms_index[:, None], card_rank[None, :], flush]
    # The 3-card machine ignores suits: state = multiset, pre-multiplied by 52.
    next3 = np.where(rank_next[:, card_rank] >= 0, rank_next[:, card_rank] * DECK_SIZE, 0)
    last3 = last3_by_rank[:, card_rank]
    return RankTables(
        next5=next5.reshape(-1).astype(np.int32),
        last5=np.maximum(last5, 0).reshape(-1).astype(np.int16),
        next3=next3.reshape(-1).astype(np.int32),
        last3=np.maximum(last3, 0).reshape(-1).astype(np.int16),
        key5=key5,
        key3=key3,
        top_limit=(np.searchsorted(key3, key5, side="right") - 1).astype(np.int16),
        rank5=rank5,
        rank3=rank3,
    )


def columns(cards: IntArray) -> npt.NDArray[np.int8]:
    """(N, k) card ids as a contiguous (k, N) int8 array: the ranker's layout.

    One byte a card keeps the transpose cheap; the state stays int32.
    """
    return np.ascontiguousarray(np.asarray(cards, dtype=np.int8).T)


def classify_five_columns(cols: IntArray) -> npt.NDArray[np.int16]:
    """Strength class (0..7461) of 5-card rows given as five (N,) card columns."""
    t = tables()
    state = np.take(t.next5, cols[0].astype(np.int32) + START5)
    for column in range(1, 4):
        np.add(state, cols[column], out=state)
        state = np.take(t.next5, state)
    np.add(state, cols[4], out=state)
    classes: npt.NDArray[np.int16] = np.take(t.last5, state)
    return classes


def classify_three_columns(cols: IntArray) -> npt.NDArray[np.int16]:
    """Strength class (0..454) of 3-card rows given as three (N,) card columns."""
    t = tables()
    state = np.take(t.next3, cols[0].astype(np.int32))
    np.add(state, cols[1], out=state)
    state = np.take(t.next3, state)
    np.add(state, cols[2], out=state)
    classes: npt.NDArray[np.int16] = np.take(t.last3, state)
    return classes


def classify_five(cards: IntArray) -> npt.NDArray[np.int16]:
    """Strength class (0..7461) of each 5-card row of an (N, 5) card-id array."""
    return classify_five_columns(columns(cards))


def classify_three(cards: IntArray) -> npt.NDArray[np.int16]:
    """Strength class (0..454) of each 3-card row of an (N, 3) card-id array."""
    return classify_three_columns(columns(cards))


def classify_rows(cards: IntArray) -> npt.NDArray[np.int16]:
    """Strength classes of (N, 3) top rows or (N, 5) middle/bottom rows."""
    return classify_three(cards) if np.shape(cards)[1] == 3 else classify_five(cards)


def keys_five(cards: IntArray) -> npt.NDArray[np.int32]:
    """Shared-scale keys (as :attr:`RowRank.key`) of (N, 5) rows."""
    return tables().key5[classify_five(cards)]


def keys_three(cards: IntArray) -> npt.NDArray[np.int32]:
    """Shared-scale keys of (N, 3) rows."""
    return tables().key3[classify_three(cards)]
