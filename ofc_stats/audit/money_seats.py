"""Every scored seat of the hands with money, as :data:`~ofc_stats.audit.money.MONEY_SQL`
gives them, read at a third of its memory.

MONEY_SQL reads the ``seat_results`` view: DuckDB joins hands, seats and results and
sorts the seats by hand key, and at 300,000 hands that held 590 MB for a 157 MB frame.
Here each table is read on its own (the money hands' rows, the columns MONEY_SQL names)
and joined by (hand id, seat) in numpy, the rows put in MONEY_SQL's order (hand key,
seat) by one sort of the hands' keys: the same frame, column for column.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.store.views import OfcData

# The hands with money ({in_share}: of the share read, so the semi-join holds its hands).
MONEY_HANDS = (
    "hand_id IN (SELECT hand_id FROM seats WHERE reported_money IS NOT NULL AND {in_share})"
)
# {share}: the tables read (chunks.table_shares), "true" for all.
HANDS_SQL = f"""
SELECT hand_id, hand_key, room, ruleset, stakes, coalesce(currency, '') AS currency
FROM hands WHERE {MONEY_HANDS} AND {{share}}
"""
IN_SHARE = "hand_id IN (SELECT hand_id FROM hands WHERE {share})"  # {in_share} below
SEATS_SQL = f"""
SELECT hand_id, seat, player, coalesce(player_id, player) AS player_key, hero,
       reported_points, reported_money, stack
FROM seats WHERE {MONEY_HANDS} AND {{in_share}}
"""
RESULTS_SQL = f"""
SELECT hand_id, seat, ruleset AS scored_with, net_capped
FROM results WHERE status = 'scored' AND {MONEY_HANDS} AND {{in_share}}
"""
# MONEY_SQL's columns, in its order, and the table each comes from.
COLUMNS = {
    "hand_key": "hand",
    "hand_id": "seat",
    "seat": "seat",
    "player": "seat",
    "player_key": "seat",
    "hero": "seat",
    "room": "hand",
    "ruleset": "hand",
    "scored_with": "result",
    "net_capped": "result",
    "reported_points": "seat",
    "stakes": "hand",
    "reported_money": "seat",
    "stack": "seat",
    "currency": "hand",
}


SEAT_KEY = 256  # a seat's key: hand id × 256 + seat (a table seats fewer)


def seat_keys(hand_ids: npt.ArrayLike, seats: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """One integer a seat, ordered as (hand id, seat): the audit's key for a seat."""
    ids = np.asarray(hand_ids, dtype=np.int64)
    return ids * SEAT_KEY + np.asarray(seats, dtype=np.int64)


def _seat_keys(table: pa.Table) -> npt.NDArray[np.int64]:
    return seat_keys(table["hand_id"].to_numpy(), table["seat"].to_numpy())


def money_seats(data: OfcData, share: str = "true") -> pd.DataFrame:
    """MONEY_SQL's frame: every scored seat of a hand with money reported, ordered by hand
    key and seat; of the tables ``share`` holds (:func:`~ofc_stats.audit.chunks.table_shares`),
    all of them by default."""
    in_share = "true" if share == "true" else IN_SHARE.format(share=share)
    hand = data.arrow(HANDS_SQL.format(share=share, in_share=in_share))
    seat = data.arrow(SEATS_SQL.format(in_share=in_share))
    result = data.arrow(RESULTS_SQL.format(in_share=in_share))
    # Each scored result's seat row (a seat without a scored result is not a row).
    seat_key = _seat_keys(seat)
    by_key = np.argsort(seat_key, kind="stable")
    result_key = _seat_keys(result)
    at = np.minimum(np.searchsorted(seat_key[by_key], result_key), max(len(seat_key) - 1, 0))
    found = seat_key[by_key[at]] == result_key if len(seat_key) else np.zeros(0, bool)
    result_rows = np.flatnonzero(found)
    seat_rows = by_key[at[found]]
    # Each row's hand, and the hands ranked by key: the rows sorted by (hand key, seat).
    hand_ids = np.asarray(hand["hand_id"].to_numpy(), dtype=np.int64)
    by_id = np.argsort(hand_ids, kind="stable")
    row_ids = result_key[result_rows] // SEAT_KEY
    hand_rows = by_id[np.searchsorted(hand_ids[by_id], row_ids)] if len(row_ids) else row_ids
    rank = np.empty(len(hand_ids), dtype=np.int64)
    rank[np.asarray(pc.sort_indices(hand["hand_key"]).to_numpy(), dtype=np.int64)] = np.arange(
        len(hand_ids)
    )
    row_seats = result_key[result_rows] % SEAT_KEY
    order = np.argsort(rank[hand_rows] * SEAT_KEY + row_seats, kind="stable")
    rows = {
        "hand": pa.array(hand_rows[order]),
        "seat": pa.array(seat_rows[order]),
        "result": pa.array(result_rows[order]),
    }
    tables = {"hand": hand, "seat": seat, "result": result}
    del hand, seat, result
    columns: dict[str, pa.ChunkedArray] = {}
    for of in ("hand", "seat", "result"):  # each table let go once its columns are taken
        table = tables.pop(of)
        columns.update(
            {name: table[name].take(rows[of]) for name, got in COLUMNS.items() if got == of}
        )
        del table
    ordered = pa.table({name: columns.pop(name) for name in COLUMNS})
    # Column by column into pandas, each arrow column freed as it is converted.
    frame: pd.DataFrame = ordered.to_pandas(split_blocks=True, self_destruct=True)
    return frame


__all__ = ["money_seats"]
