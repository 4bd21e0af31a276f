"""A dataset as a DuckDB connection with documented views over its Parquet files.

``ofc_stats.open("ofc-data")`` gives an :class:`OfcData`; its views are
described in README.md ("Querying").  Queries take parameters bound by
DuckDB (``$name`` or ``?``), never pasted into the SQL text, because player
names are untrusted text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa

from ofc_stats.engine.vector.rank_tables import tables
from ofc_stats.errors import OfcError
from ofc_stats.store.dataset import EMPTY, Dataset
from ofc_stats.store.migrate import needs_upgrade
from ofc_stats.store.rescore import board_array
from ofc_stats.store.schema import DERIVED, IMPORTED
from ofc_stats.store.streets import STREETS_SQL, rule_tables

Params = Sequence[object] | Mapping[str, object] | None

__all__ = ["OfcData", "Params", "board_array", "open_dataset"]  # what reports may use

SEAT_RESULTS_VIEW = """
CREATE OR REPLACE VIEW seat_results AS
SELECT h.hand_key, h.format, h.room, h.table_id, h.room_hand_id, h.played_at, h.ruleset,
       h.seat_count, h.stakes, h.currency, s.seat, s.player, s.player_id,
       coalesce(s.player_id, s.player) AS player_key, s.hero, s.in_fantasy, s.fantasy_cards,
       s.reported_points, s.reported_money, s.stack, s.board, s.board_streets, s.discards,
       r.* EXCLUDE (hand_key, hand_id, seat, ruleset), r.ruleset AS scored_with, h.hand_id
FROM hands h JOIN seats s USING (hand_id) LEFT JOIN results r USING (hand_id, seat)
"""

# results and versus are stored keyed by hand_id; their views add the hand's key.
RESULTS_VIEW = """
CREATE OR REPLACE VIEW results AS
SELECT h.hand_key, t.* FROM read_parquet([{files}], union_by_name = true) t
JOIN (SELECT hand_id, hand_key FROM hands) h ON h.hand_id = t.hand_id
"""
# versus holds each pair of seats once (seat < opponent): here both ways round.
VERSUS_VIEW = """
CREATE OR REPLACE VIEW versus AS
WITH pairs AS (SELECT * FROM read_parquet([{files}], union_by_name = true))
SELECT h.hand_key, p.hand_id, p.seat, p.opponent, p.rows_won, p.rows_lost, p.rows_tied,
       p.rows_won = 3 AS scoop, p.points
FROM (SELECT hand_id, seat, opponent, rows_won, rows_lost, rows_tied, points FROM pairs
      UNION ALL
      SELECT hand_id, opponent, seat, rows_lost, rows_won, rows_tied, -points FROM pairs) p
JOIN (SELECT hand_id, hand_key FROM hands) h ON h.hand_id = p.hand_id
"""

FANTASY_VIEW = """
CREATE OR REPLACE VIEW fantasy AS
WITH linked AS (
  SELECT hand_key, format, room, table_id, played_at, seat, player, player_key,
         in_fantasy, fantasy_cards, status, fouled, fantasy_entry, fantasy_stays,
         repeat_cards, fantasy_next,
         lead(hand_key) OVER next AS next_hand_key,
         lead(seat) OVER next AS next_seat,
         lead(played_at) OVER next AS next_played_at,
         lead(in_fantasy) OVER next AS next_in_fantasy,
         lead(fantasy_cards) OVER next AS next_fantasy_cards
  FROM seat_results
  WINDOW next AS (PARTITION BY format, room, table_id, player_key
                  ORDER BY played_at, room_hand_id, hand_key)
)
SELECT *,
  date_diff('second', played_at, next_played_at) AS seconds_to_next,
  next_in_fantasy AS room_fantasy,
  CASE WHEN next_in_fantasy THEN next_fantasy_cards ELSE 0 END AS room_cards,
  fantasy_stays OR fantasy_entry > 0 AS rules_fantasy,
  fantasy_next AS rules_cards
FROM linked
"""


class OfcData:
    """A read-only DuckDB view of one dataset: ``sql`` for relations, ``df`` for frames."""

    def __init__(self, root: str | Path, *, threads: int | None = None) -> None:
        self.root = Path(root)
        dataset = Dataset(self.root)
        if not dataset.exists():
            raise OfcError(
                f"{self.root}: no ofc-stats dataset here; create one with `ofc-stats import`"
            )
        if needs_upgrade(self.root):
            with dataset.locked():  # upgrades the dataset in place
                pass
        dataset.check_version()
        config: dict[str, Any] = {}
        if threads is not None:
            config["threads"] = threads
        self.connection = duckdb.connect(config=config)
        self.connection.sql("SET enable_progress_bar = false")  # ours, when there is one
        self._views(dataset)

    def _views(self, dataset: Dataset) -> None:
        con = self.connection
        for name in [*IMPORTED, *DERIVED]:  # hands before the views that join it
            self._parquet_view(dataset, name)
        rule_tables(con)
        con.sql(
            "CREATE OR REPLACE VIEW streets AS "
            + STREETS_SQL.format(placements="placements", hands="hands", results="results")
        )
        con.register("row_classes", row_classes())
        con.sql(SEAT_RESULTS_VIEW)
        con.sql(FANTASY_VIEW)

    def restore_results(self) -> None:
        """Point ``results`` back at the stored results (after an audit under other rules)."""
        self._parquet_view(Dataset(self.root), "results")

    def _parquet_view(self, dataset: Dataset, name: str) -> None:
        """A view over the table's files, named one by one: no glob, so any folder name works."""
        paths = [str(dataset.table_dir(name) / EMPTY), *dataset.files(name)]
        listed = ", ".join("'" + path.replace("'", "''") + "'" for path in paths)
        if name in DERIVED:
            view = RESULTS_VIEW if name == "results" else VERSUS_VIEW
            self.connection.sql(view.format(files=listed))
            return
        self.connection.sql(
            f"CREATE OR REPLACE VIEW {name} AS "
            f"SELECT * FROM read_parquet([{listed}], union_by_name = true)"
        )

    def sql(self, query: str, params: Params = None) -> duckdb.DuckDBPyRelation:
        """A DuckDB relation; ``params`` are bound, not formatted into ``query``."""
        try:
            return self.connection.sql(query, params=params)
        except duckdb.Error as error:
            raise OfcError(f"SQL error: {error}") from None

    def df(self, query: str, params: Params = None) -> pd.DataFrame:
        frame: pd.DataFrame = self.arrow(query, params).to_pandas()
        return frame

    def arrow(self, query: str, params: Params = None) -> pa.Table:
        relation = self.sql(query, params)
        if relation is None:
            return pa.table({})
        return relation.to_arrow_table()

    def table(self, name: str) -> duckdb.DuckDBPyRelation:
        return self.connection.table(name)

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> OfcData:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def open_dataset(root: str | Path, *, threads: int | None = None) -> OfcData:
    """Open the dataset at ``root`` for queries (``ofc_stats.open``)."""
    return OfcData(root, threads=threads)


def row_classes() -> pa.Table:
    """Every dense row class with its category and a name people read ("pair of Qs")."""
    t = tables()
    rows: dict[str, list[object]] = {
        "cards": [],
        "class": [],
        "category": [],
        "description": [],
        "top_pattern": [],
    }
    for cards, ranks in ((3, t.rank3), (5, t.rank5)):
        for index, rank in enumerate(ranks):
            rows["cards"].append(cards)
            rows["class"].append(index)
            rows["category"].append(rank.category.label)
            rows["description"].append(rank.describe())
            rows["top_pattern"].append(rank.top_pattern if cards == 3 else "")
    return pa.table(
        {
            "cards": pa.array(rows["cards"], pa.int8()),
            "class": pa.array(rows["class"], pa.int16()),
            "category": pa.array(rows["category"], pa.string()),
            "description": pa.array(rows["description"], pa.string()),
            "top_pattern": pa.array(rows["top_pattern"], pa.string()),
        }
    )
