"""Recompute: score every stored import batch again and store the results beside it.

Results live in ``<dataset>/results/<batch id>/`` (``results``, ``versus`` and
``streets`` Parquet files plus ``done.json``), one folder per import batch,
written under ``.tmp`` and published with one rename like the batches
themselves.  Import batches never change, so "not yet scored" is simply
"no results folder for this engine version"; ``force`` redoes them all.
Memory is bounded by the import batch size, not by the dataset.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.dataset import Dataset
from ofc_stats.presets import get_ruleset
from ofc_stats.results import RESULTS, RulesetLookup, score_tables
from ofc_stats.streets import rule_tables, street_table

ENGINE_VERSION = 1  # bump when a rule fix changes results: stored results are redone
HAND_COLUMNS = ["hand_key", "ruleset", "seat_count", "complete"]
SEAT_COLUMNS = ["hand_key", "seat", "board", "in_fantasy", "fantasy_cards", "stack"]
RESULT_FILES = ("results", "versus", "streets")
FINAL_RESULTS = pa.schema([*RESULTS, ("timeout_streets", pa.int16()), ("timeouts", pa.int8())])

TIMEOUT_SQL = """
SELECT r.*, coalesce(t.mask, 0)::SMALLINT AS timeout_streets,
       coalesce(t.count, 0)::TINYINT AS timeouts
FROM scored r LEFT JOIN (
  SELECT hand_key, seat,
         sum(CASE WHEN timeout THEN 1 << street ELSE 0 END) AS mask,
         count(*) FILTER (WHERE timeout) AS count
  FROM street_rows GROUP BY hand_key, seat
) t USING (hand_key, seat)
"""


@dataclass
class RecomputeSummary:
    batches: int = 0  # scored now
    up_to_date: int = 0  # already scored, left alone
    hands: int = 0
    seats: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        text = [
            f"recomputed: {self.hands} hands in {self.batches} batch(es), "
            f"{self.up_to_date} batch(es) already up to date"
        ]
        if self.seconds >= 2:  # worth a figure; short runs stay exact for tests
            text[0] += f" ({self.hands / self.seconds:,.0f} hands/s)"
        for status, count in sorted(self.statuses.items()):
            text.append(f"  {status}: {count} seats")
        return text


def results_dir(dataset: Dataset) -> Path:
    return dataset.root / "results"


def _done(folder: Path) -> bool:
    marker = folder / "done.json"
    if not marker.is_file():
        return False
    try:
        return bool(json.loads(marker.read_text()).get("engine") == ENGINE_VERSION)
    except (OSError, ValueError):
        return False


def score_batch_folder(
    batch: Path,
    connection: duckdb.DuckDBPyConnection,
    lookup: RulesetLookup = get_ruleset,
) -> dict[str, pa.Table]:
    """The results, versus and streets tables of one import batch folder."""
    hands = pq.read_table(batch / "hands.parquet", columns=HAND_COLUMNS)
    seats = pq.read_table(batch / "seats.parquet", columns=SEAT_COLUMNS)
    scored = score_tables(hands, seats, lookup)
    placements = batch / "placements.parquet"
    source = f"read_parquet('{_quote(placements)}')" if placements.exists() else "street_empty"
    connection.register("batch_hands", hands)
    connection.register("batch_seats", seats)
    streets = street_table(connection, source, "batch_hands", "batch_seats")
    connection.register("scored", scored.results)
    connection.register("street_rows", streets)
    results = connection.sql(TIMEOUT_SQL).to_arrow_table().cast(FINAL_RESULTS)
    for name in ("scored", "street_rows", "batch_hands", "batch_seats"):
        connection.unregister(name)
    return {"results": results, "versus": scored.versus, "streets": streets}


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")


def connection_for_recompute() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect(config={"threads": 1, "memory_limit": "512MB"})
    rule_tables(connection)
    connection.sql(
        "CREATE TEMP TABLE street_empty (hand_key VARCHAR, seat TINYINT, street TINYINT, "
        "card TINYINT, destination VARCHAR)"
    )
    return connection


def recompute(
    root: str | Path,
    *,
    force: bool = False,
    lookup: RulesetLookup = get_ruleset,
    progress: Callable[[int], None] | None = None,
) -> RecomputeSummary:
    """Score the import batches that have no current results (all with ``force``).

    The caller holds the dataset lock (``import`` does; the CLI takes it).
    ``progress`` is called with the hands of each finished batch.
    """
    started = time.perf_counter()
    dataset = Dataset(root)
    summary = RecomputeSummary()
    out = results_dir(dataset)
    out.mkdir(exist_ok=True)
    staging_root = dataset.root / ".tmp"
    staging_root.mkdir(exist_ok=True)
    connection = connection_for_recompute()
    try:
        for batch in dataset.batches():
            target = out / batch.name
            if not force and _done(target):
                summary.up_to_date += 1
                continue
            if not (batch / "hands.parquet").exists():
                continue
            tables = score_batch_folder(batch, connection, lookup)
            _publish(staging_root / f"results-{batch.name}", target, tables)
            results = tables["results"]
            summary.batches += 1
            summary.seats += results.num_rows
            hands = pq.read_metadata(batch / "hands.parquet").num_rows
            summary.hands += hands
            counts = results.group_by("status").aggregate([("status", "count")]).to_pydict()
            summary.statuses.update(
                dict(zip(counts["status"], counts["status_count"], strict=True))
            )
            if progress is not None:
                progress(hands)
    finally:
        connection.close()
    summary.seconds = time.perf_counter() - started
    return summary


def _publish(staging: Path, target: Path, tables: dict[str, pa.Table]) -> None:
    """Write the tables under ``staging`` and swap the folder in for ``target``."""
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name, table in tables.items():
        pq.write_table(table, staging / f"{name}.parquet", compression="zstd")
    (staging / "done.json").write_text(
        json.dumps({"engine": ENGINE_VERSION, "seats": tables["results"].num_rows}) + "\n"
    )
    old = staging.with_name(staging.name + ".old")
    if target.exists():
        os.rename(target, old)
    os.rename(staging, target)
    shutil.rmtree(old, ignore_errors=True)
