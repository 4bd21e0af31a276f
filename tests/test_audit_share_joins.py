"""A share of the tables is read as a share, joins included.

The audit reads the tables a share at a time (``ofc_stats.audit.chunks``) so its
memory follows the share.  A share's filter that DuckDB cannot push below the
``seat_results`` view's LEFT JOIN of the results (a remainder of the hash was one:
arithmetic is not pushed there) leaves the join to build its hash table from every
seat of the dataset, once per share: at 100,000 hands that was the audit's growth.
So is a join inside the view that no share filter reaches: ``seat_results`` joined the
keyed ``results`` view, which joins every hand for its key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ofc_stats.audit import chunks, fields, timeouts
from ofc_stats.store.views import open_dataset
from tests.test_audit_shares import MANY, simulated  # noqa: F401  (the fixture)


def _builds(node: dict[str, Any]) -> list[int]:
    """The rows of every hash join's build side (its second child) in a profiled plan."""
    found = []
    children = node.get("children", node.get("operator", []))
    if "HASH_JOIN" in str(node.get("name", "")) and len(children) == 2:
        found.append(int(children[1]["intermediate_rows"]))
    for child in children:
        found += _builds(child)
    return found


def test_a_share_of_the_seat_results_joins_its_own_seats_only(
    simulated: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chunks, "CHUNK_HANDS", MANY)
    with open_dataset(simulated) as db:
        every = int(db.sql("SELECT count(*) FROM seat_results").fetchall()[0][0])
        counted = {
            share: int(db.sql(f"SELECT count(*) FROM seat_results WHERE {share}").fetchall()[0][0])
            for share in chunks.table_shares(db)
        }
        share = max(counted, key=lambda s: counted[s])
        mine = counted[share]
        plan = db.connection.sql(
            f"EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM seat_results WHERE {share}"
        ).fetchall()[0][1]
    # 600 hands in 15 shares: a share holds a few dozen hands' seats of the 1,800
    assert 0 < mine < every / 5
    builds = _builds(json.loads(plan))
    # Every join builds on the share's rows: the results' LEFT JOIN on the share's seats
    # (it built on all 1,800), and no join of every hand is left (the keyed results view
    # joined all 600 hands for their key, a join no share filter reached).
    assert builds and max(builds) <= mine


def test_a_share_of_the_timeouts_joins_its_own_hands_only(
    simulated: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The timeouts' streets of a share key its placements and results by its own hands:
    the keyed ``placements`` and ``results`` views joined all 600 hands for their key."""
    monkeypatch.setattr(chunks, "CHUNK_HANDS", MANY)
    with open_dataset(simulated) as db:
        hands = int(db.sql("SELECT count(*) FROM hands").fetchall()[0][0])
        share, of_hands = chunks.table_shares(db, "h.")[0], chunks.table_shares(db)[0]
        mine = int(db.sql(f"SELECT count(*) FROM hands WHERE {of_hands}").fetchall()[0][0])
        query = timeouts._share_sql(share, of_hands)
        plan = db.connection.sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {query}").fetchall()[0][1]
    builds = _builds(json.loads(plan))
    # 600 hands in 15 shares; the share's hands' rows are built on (a few hundred at most:
    # its streets), never the 600 hands of the dataset
    assert 0 < mine < hands / 5
    assert builds and max(builds) < hands, builds


def test_a_share_of_the_field_verdicts_builds_on_its_own_seats_only(
    simulated: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The field verdicts read the scored seats of a share: a WHERE on the results' status
    makes the view's LEFT JOIN of the results an inner join, which DuckDB built on every
    result of the dataset (all 1,800 seats) before the share's filter; the share's
    seat_results (chunks.share_seat_results) cuts each relation to the share first."""
    monkeypatch.setattr(chunks, "CHUNK_HANDS", MANY)
    with open_dataset(simulated) as db:
        every = int(db.sql("SELECT count(*) FROM seats").fetchall()[0][0])
        share = chunks.table_shares(db)[0]
        mine = int(db.sql(f"SELECT count(*) FROM seat_results WHERE {share}").fetchall()[0][0])
        query = fields.FIELDS_SHARE_SQL.format(
            share=share, seat_results=chunks.share_seat_results(share)
        )
        plan = db.connection.sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {query}").fetchall()[0][1]
    builds = _builds(json.loads(plan))
    assert 0 < mine < every / 5
    assert builds and max(builds) <= mine, builds
