"""The memory a share's queries freed is handed back before the next share.

DuckDB's allocator (and Arrow's pool) keep what a finished query freed for the next
ones: an audit that read 100,000 hands a share at a time kept 45 to 75 MB more than one
of 30,000 (bench/audit_memory.py).  ``OfcData.give_back`` returns it, and every pass of
the audit over the shares (``chunks.each_share``) calls it after each share.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ofc_stats.audit import chunks
from ofc_stats.audit.points import audit
from ofc_stats.store import views
from ofc_stats.store.views import FLUSH_SETTING, open_dataset
from tests.test_audit_shares import MANY, simulated  # noqa: F401  (the fixture)

STATM = Path("/proc/self/statm")


def _resident_mb() -> float:
    return int(STATM.read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not STATM.is_file(), reason="resident memory is read from /proc")
def test_give_back_returns_what_duckdb_kept_and_its_setting(simulated: Path) -> None:  # noqa: F811
    with open_dataset(simulated) as db:
        before = db.sql(f"SELECT current_setting('{FLUSH_SETTING}')").fetchall()[0][0]
        # a hash table of 3 million integers: about 170 MB while the query runs, which
        # DuckDB's allocator keeps once it is done
        db.sql("SELECT count(DISTINCT range) FROM range(3000000)").fetchall()
        kept = _resident_mb()
        db.give_back()
        returned = kept - _resident_mb()
        after = db.sql(f"SELECT current_setting('{FLUSH_SETTING}')").fetchall()[0][0]
    assert returned > 60, f"{returned:.0f} MB handed back"
    assert after == before  # the flush is for that one statement, not every query after


def test_every_pass_over_the_shares_gives_back_after_each_share(
    simulated: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chunks, "CHUNK_HANDS", MANY)
    calls = []
    monkeypatch.setattr(views.OfcData, "give_back", lambda self: calls.append(1))
    with open_dataset(simulated) as db:
        shares = len(chunks.table_shares(db))
        audit(db)
    # field verdicts, points, Fantasyland, the money rules (twice), the money out of
    # sample (three times), the money rows, timeouts, the reasons (points, money,
    # Fantasyland) and the summary: 14 passes
    assert shares > 1 and len(calls) == 14 * shares
