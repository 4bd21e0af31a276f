"""`ofc-stats audit` stores the ledger batch by batch: each batch's paid seats priced
from the audit's money and written on their own, never the whole ledger at once
(the whole table was the audit's peak memory).  The rows and the files' stamps are
what pricing the table whole gives, so a later run finds the ledger current.

The fixture is test_ledger_report's (Alice against Bob, worked out there): two
import batches, the first of five hands, the second of one.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner

from ofc_stats.audit.money import RoomMoney
from ofc_stats.audit.points import audit
from ofc_stats.cli.main import main
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.views import open_dataset
from tests.test_ledger_batches import PRICED, _import, _ledger_files, _write
from tests.test_ledger_report import WINS, _hand, _records

LEDGER = import_module("ofc_stats.audit.ledger")  # (the package's `ledger` is the function)


def _two_batches(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    _import(data, _write(tmp_path, "first", _records()))
    sixth = replace(_hand(6, WINS, (10.5, -10.5)), stakes=0.5, currency="USD")
    _import(data, _write(tmp_path, "second", [sixth]))
    return data


def _forget_ledger(data: Path) -> None:
    """Every batch's ledger file gone: the next store prices every batch."""
    for path in Dataset(data).files("ledger_seats"):
        Path(path).unlink()


def test_the_audit_stores_the_ledger_a_batch_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _two_batches(tmp_path)
    with open_dataset(data) as db:
        report = audit(db)
        money = RoomMoney(report.money, report.rakes, report.settlements)
        whole = LEDGER.priced_seats(db, money, report.holdouts)
    _forget_ledger(data)
    priced: list[int] = []
    price = LEDGER._priced

    def counted(paid: pa.Table, *args: object) -> pa.Table:
        priced.append(paid.num_rows)
        return price(paid, *args)

    monkeypatch.setattr(LEDGER, "_priced", counted)
    monkeypatch.setattr(LEDGER, "COMMIT_ROWS", 1)  # a commit a batch
    done = CliRunner().invoke(main, ["audit", "--data", str(data), "--quiet"])
    assert done.exit_code == 0, done.output
    # The first batch pays 10 seats (five hands of two), the second 2: never 12 at once.
    assert priced == [10, 2]
    assert sorted(_ledger_files(data)) == Dataset(data).batches()
    with open_dataset(data) as db:
        stored = db.sql(PRICED).fetchall()
        assert LEDGER.ledger_is_current(db)
        # Stamped as the whole table would be: storing it whole finds nothing to write.
        files = _ledger_files(data)
        assert LEDGER.store_ledger(db, whole)
        assert _ledger_files(data) == files
    columns = ("hand_id", "seat", "money_paid", "money_rules")
    assert stored == sorted(zip(*(whole[c].to_pylist() for c in columns), strict=True))


def test_a_ledger_priced_by_older_code_is_priced_again(tmp_path: Path) -> None:
    """The stamp held the rules' words and the results only, so a dataset priced before a
    pricing fix kept its old money under `audit --player` until the rules' words changed;
    a file without today's PRICING_VERSION is stale."""
    import json

    import pyarrow.parquet as pq

    from ofc_stats.store.schema import LEDGER_KEY

    data = _two_batches(tmp_path)
    assert CliRunner().invoke(main, ["audit", "--data", str(data), "--quiet"]).exit_code == 0
    with open_dataset(data) as db:
        assert LEDGER.ledger_is_current(db)
    path = Path(Dataset(data).files("ledger_seats")[0])
    table = pq.read_table(path)
    stamp = json.loads(table.schema.metadata[LEDGER_KEY])
    assert stamp.pop("pricing") == LEDGER.PRICING_VERSION
    pq.write_table(table.replace_schema_metadata({LEDGER_KEY: json.dumps(stamp)}), path)
    with open_dataset(data) as db:
        assert not LEDGER.ledger_is_current(db)


def test_the_audit_runs_while_another_command_holds_the_dataset(tmp_path: Path) -> None:
    """A `grade` holding the lock made `audit` (and `report`, which prices the ledger the
    same way) fail with "pass --wait SECONDS", an option neither has: the ledger is shown
    from memory, not stored, as on a dataset this process cannot write."""
    data = _two_batches(tmp_path)
    _forget_ledger(data)
    with Dataset(data).locked():  # another holder (a second open file: flock refuses it)
        done = CliRunner().invoke(main, ["audit", "--data", str(data), "--player", "Alice"])
        page = CliRunner().invoke(
            main, ["report", "--data", str(data), "--out", str(tmp_path / "r.html")]
        )
    assert done.exit_code == 0, done.output
    assert "Alice" in done.output and "in use" not in done.output
    assert page.exit_code == 0, page.output
    assert _ledger_files(data) == {}  # nothing stored while it was held
