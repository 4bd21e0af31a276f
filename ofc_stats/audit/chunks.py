"""The audit's whole-dataset passes, a share of the tables at a time.

Every window the audit reads (a player's hands at a table, the seats of a
hand, the table's next hand) stays within one table, so the tables can be
read a share at a time and the shares' sums added: memory follows the share
(about :data:`CHUNK_HANDS` hands), not the dataset.  A share is the tables whose
(room, table id) hash falls in its range, a predicate each query filters the hands by.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from itertools import pairwise
from typing import TypeVar

from ofc_stats.store.views import (
    FANTASY_SQL,
    RESULTS_BY_ID,
    SEAT_RESULTS_SQL,
    TABLE_RUNS,
    OfcData,
)

CHUNK_HANDS = 10_000  # hands a share holds, about: tables are not split
HASHES = 2**64  # hash() is a UBIGINT
T = TypeVar("T")


def table_shares(data: OfcData, alias: str = "") -> list[str]:
    """SQL predicates on ``room`` and ``table_id`` (of the hands; ``alias``: of that
    relation), one per share of the tables; together they hold every hand once.

    A share is a range of the hash, not its remainder: DuckDB pushes a comparison below
    a view's LEFT JOIN (seat_results' results) but not arithmetic, and a filter left
    above the join has the join's hash table hold every hand of the dataset."""
    hands = int(data.sql("SELECT count(*) FROM hands").fetchall()[0][0])
    count = max(1, math.ceil(hands / CHUNK_HANDS))
    if count == 1:
        return ["true"]
    bounds = [HASHES * share // count for share in range(count + 1)]
    return [
        f"hash({alias}room, {alias}table_id) BETWEEN {low:d}::UBIGINT AND {high - 1:d}::UBIGINT"
        for low, high in pairwise(bounds)
    ]


def each_share(data: OfcData, shares: Iterable[T]) -> Iterator[T]:
    """``shares`` (of :func:`table_shares`) one at a time, the memory DuckDB kept from a
    share's queries given back before the next (:meth:`OfcData.give_back`): a pass holds
    one share's, not that of every share read so far."""
    for share in shares:
        yield share
        data.give_back()


IN_SHARE = "hand_id IN (SELECT hand_id FROM hands WHERE {share})"  # a share's rows by id


def in_share(share: str) -> str:
    """A predicate on ``hand_id``: the rows of the tables ``share`` holds ("true": all)."""
    return "true" if share == "true" else IN_SHARE.format(share=share)


def share_hands(share: str) -> str:
    """The hands of the tables ``share`` holds; the view itself for every table."""
    return "hands" if share == "true" else f"(SELECT * FROM hands WHERE {share})"


def share_seats(share: str) -> str:
    """The seats of the tables ``share`` holds (by hand id); the view itself for every table."""
    return "seats" if share == "true" else f"(SELECT * FROM seats WHERE {in_share(share)})"


def share_table_runs(share: str) -> str:
    """The table_runs view's rows of the tables ``share`` holds, from their hands only (a run
    stays within a table); the view itself for every table."""
    return "table_runs" if share == "true" else f"({TABLE_RUNS.format(hands=share_hands(share))})"


def share_seat_results(share: str) -> str:
    """The seat_results view's rows of the tables ``share`` holds, each relation it joins
    cut to them first: the view filtered after its joins can build a join's hash table on
    every result of the dataset (a WHERE on the results' status makes its LEFT JOIN an
    inner one, which DuckDB may build on the results); the view itself for every table."""
    if share == "true":
        return "seat_results"
    query = SEAT_RESULTS_SQL.format(
        hands=share_hands(share),
        results=f"(SELECT * FROM {RESULTS_BY_ID} WHERE {in_share(share)})",
    )
    return f"({query})"


def share_fantasy(share: str) -> str:
    """The fantasy view's rows of the tables ``share`` holds, from their hands only (the
    view's windows stay within a table); the view itself for every table."""
    if share == "true":
        return "fantasy"
    query = FANTASY_SQL.format(
        hands=share_hands(share),
        seat_results=share_seat_results(share),
    )
    return f"({query})"


__all__ = [
    "CHUNK_HANDS",
    "each_share",
    "in_share",
    "share_fantasy",
    "share_hands",
    "share_seat_results",
    "share_seats",
    "share_table_runs",
    "table_shares",
]
