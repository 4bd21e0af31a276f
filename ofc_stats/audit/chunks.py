"""The audit's whole-dataset passes, a share of the tables at a time.

Every window the audit reads (a player's hands at a table, the seats of a
hand, the table's next hand) stays within one table, so the tables can be
read a share at a time and the shares' sums added: memory follows the share
(about :data:`CHUNK_HANDS` hands), not the dataset.  A share is the tables whose
(room, table id) hash to it, a predicate each query filters the hands by.
"""

from __future__ import annotations

import math

from ofc_stats.store.views import FANTASY_SQL, OfcData

CHUNK_HANDS = 25_000  # hands a share holds, about: tables are not split


def table_shares(data: OfcData, alias: str = "") -> list[str]:
    """SQL predicates on ``room`` and ``table_id`` (of the hands; ``alias``: of that
    relation), one per share of the tables; together they hold every hand once."""
    hands = int(data.sql("SELECT count(*) FROM hands").fetchall()[0][0])
    count = max(1, math.ceil(hands / CHUNK_HANDS))
    if count == 1:
        return ["true"]
    return [f"hash({alias}room, {alias}table_id) % {count:d} = {share:d}" for share in range(count)]


def share_fantasy(share: str) -> str:
    """The fantasy view's rows of the tables ``share`` holds, from their hands only (the
    view's windows stay within a table); the view itself for every table."""
    if share == "true":
        return "fantasy"
    query = FANTASY_SQL.format(
        hands=f"(SELECT * FROM hands WHERE {share})",
        seat_results=f"(SELECT * FROM seat_results WHERE {share})",
    )
    return f"({query})"


__all__ = ["CHUNK_HANDS", "share_fantasy", "table_shares"]
