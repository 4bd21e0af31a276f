"""No hidden state in reading a dataset: an audit under other rules and a read-only open
leave the handle and the dataset as they found them (issue 31, item 2)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import ofc_stats
from ofc_stats.audit import points
from ofc_stats.audit.points import audit, ruleset_results
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.store.views import OfcData
from tests.test_cli import small_dataset

NETS = "SELECT hand_key, seat, net FROM seat_results ORDER BY hand_key, seat"


def _flipped(db: OfcData) -> pa.Table:
    """The stored hands' results with every net negated: a table no ruleset gives, so what
    a handle shows is told apart by value alone (Alice +21, Bob -21 in each hand)."""
    table = ruleset_results(db, get_ruleset("pineapple-progressive"))
    return table.set_column(table.schema.get_field_index("net"), "net", pc.negate(table["net"]))


def test_a_rescored_handle_sees_its_results_and_the_first_handle_keeps_the_stored(
    tmp_path: Path,
) -> None:
    data = small_dataset(tmp_path)
    with ofc_stats.open(data) as db:
        stored = db.sql(NETS).fetchall()
        with db.rescored(_flipped(db)) as scored:
            seen = scored.sql(NETS).fetchall()
            during = db.sql(NETS).fetchall()
        after = db.sql(NETS).fetchall()
    assert len(stored) == 4 and any(net for _, _, net in stored)
    assert seen == [(key, seat, -net) for key, seat, net in stored]
    assert during == after == stored


def test_an_audit_under_other_rules_leaves_the_handle_s_results_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the audit's steps (its progress callback) the caller's handle still reads
    the stored results, though the audit reads others (every net negated)."""
    data = small_dataset(tmp_path)
    with ofc_stats.open(data) as db:
        stored = db.sql(NETS).fetchall()
        monkeypatch.setattr(points, "ruleset_results", lambda data, ruleset: _flipped(data))
        seen: list[object] = []
        report = audit(
            db,
            ruleset=get_ruleset("classic"),
            progress=lambda n: seen.append(db.sql(NETS).fetchall()),
        )
        after = db.sql(NETS).fetchall()
    assert report.rules == "ruleset classic"
    assert len(seen) == 4 and all(step == stored for step in seen)
    assert after == stored
