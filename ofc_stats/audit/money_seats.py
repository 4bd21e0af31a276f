"""Every scored seat of the hands with money, as :data:`~ofc_stats.audit.money.MONEY_SQL`
gives them, read at a third of its memory.

MONEY_SQL reads the ``seat_results`` view: DuckDB joins hands, seats and results and
sorts the seats by hand key, and at 300,000 hands that held 590 MB for a 157 MB frame.
Here each table is read on its own (the money hands' rows, the columns MONEY_SQL names)
and joined by (hand id, seat) in numpy, the rows put in MONEY_SQL's order (hand key,
seat) by one sort of the hands' keys: the same frame, column for column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.audit.chunks import in_share
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
KEYED = "seat_key"  # the index name of a frame keyed by its seats' keys (priced_frame)


def seat_keys(hand_ids: npt.ArrayLike, seats: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """One integer a seat, ordered as (hand id, seat): the audit's key for a seat."""
    ids = np.asarray(hand_ids, dtype=np.int64)
    return ids * SEAT_KEY + np.asarray(seats, dtype=np.int64)


def key_seats(keys: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The (hand id, seat) of each of :func:`seat_keys`' keys: the one way back."""
    known = np.asarray(keys, dtype=np.int64)
    return known // SEAT_KEY, known % SEAT_KEY


def priced_frame(keys: npt.NDArray[np.int64], values: npt.NDArray[np.float64]) -> pd.DataFrame:
    """What the rules give seats (hand_id, seat, expected_money), indexed by the seats' keys
    (:data:`KEYED`): :meth:`SeatMoney.of` takes those as they are, never encoding again."""
    ids, seats = key_seats(keys)
    return pd.DataFrame(
        {"hand_id": ids, "seat": seats, "expected_money": values},
        index=pd.Index(keys, name=KEYED),
    )


@dataclass(frozen=True)
class SeatMoney:
    """What the rules give each seat of a priced frame (hand_id, seat, expected_money), its
    first row's, by sorted seat key: read once, looked up batch by batch (the ledger's)."""

    keys: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]

    @classmethod
    def of(cls, seats: pd.DataFrame) -> SeatMoney:
        """From a frame keyed by seat (:func:`priced_frame`: its keys as they are), else
        from its hand_id and seat columns."""
        if seats.empty:
            return cls(np.zeros(0, np.int64), np.zeros(0))
        if seats.index.name == KEYED:
            keys = np.asarray(seats.index.to_numpy(), np.int64)
        else:
            keys = seat_keys(seats["hand_id"].to_numpy(), seats["seat"].to_numpy())
        values = seats["expected_money"].to_numpy(np.float64)
        if bool(np.all(keys[1:] > keys[:-1])):  # in order, once each (the audit's): as is
            return cls(keys, values)
        known, first = np.unique(keys, return_index=True)
        return cls(known, values[first])

    def at(self, ids: npt.NDArray[np.int64], seat: npt.NDArray[np.int64]) -> Any:
        """Each seat's money by the rules; NaN for a seat not priced (its hand not scored)."""
        out = np.full(len(ids), np.nan)
        if not len(ids) or not len(self.keys):
            return out
        wanted = seat_keys(ids, seat)
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        hit = self.keys[at] == wanted
        out[hit] = self.values[at[hit]]
        return out


def table_seat_keys(table: pa.Table) -> npt.NDArray[np.int64]:
    """:func:`seat_keys` of a table's hand_id and seat columns."""
    return seat_keys(table["hand_id"].to_numpy(), table["seat"].to_numpy())


def money_seats(data: OfcData, share: str = "true") -> pd.DataFrame:
    """MONEY_SQL's frame: every scored seat of a hand with money reported, ordered by hand
    key and seat; of the tables ``share`` holds (:func:`~ofc_stats.audit.chunks.table_shares`),
    all of them by default."""
    share_rows = in_share(share)
    hand = data.arrow(HANDS_SQL.format(share=share, in_share=share_rows))
    seat = data.arrow(SEATS_SQL.format(in_share=share_rows))
    result = data.arrow(RESULTS_SQL.format(in_share=share_rows))
    # Each scored result's seat row (a seat without a scored result is not a row).
    seat_key = table_seat_keys(seat)
    by_key = np.argsort(seat_key, kind="stable")
    result_key = table_seat_keys(result)
    at = np.minimum(np.searchsorted(seat_key[by_key], result_key), max(len(seat_key) - 1, 0))
    found = seat_key[by_key[at]] == result_key if len(seat_key) else np.zeros(0, bool)
    result_rows = np.flatnonzero(found)
    seat_rows = by_key[at[found]]
    # Each row's hand, and the hands ranked by key: the rows sorted by (hand key, seat).
    hand_ids = np.asarray(hand["hand_id"].to_numpy(), dtype=np.int64)
    by_id = np.argsort(hand_ids, kind="stable")
    row_ids, row_seats = key_seats(result_key[result_rows])
    hand_rows = by_id[np.searchsorted(hand_ids[by_id], row_ids)] if len(row_ids) else row_ids
    rank = np.empty(len(hand_ids), dtype=np.int64)
    rank[np.asarray(pc.sort_indices(hand["hand_key"]).to_numpy(), dtype=np.int64)] = np.arange(
        len(hand_ids)
    )
    order = np.argsort(seat_keys(rank[hand_rows], row_seats), kind="stable")
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


__all__ = [
    "SEAT_KEY",
    "SeatMoney",
    "key_seats",
    "money_seats",
    "priced_frame",
    "seat_keys",
    "table_seat_keys",
]
