"""The ledger's stamp (the rooms and currencies of the seats the room paid) is read a
batch at a time.

``store_priced`` compares the stored ledger files by the words of the rules of every
room and currency the room paid in.  Those were one DISTINCT over the join of every
paid seat to its hand: a hash of the whole dataset, where the audit's standard is memory
bounded by the batch.  Each batch's own files give its rooms; together, the same set.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ofc_stats.audit.ledger import _label, _paid_words
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.views import OfcData, open_dataset

WHOLE_SQL = """
SELECT DISTINCT h.room, coalesce(h.currency, '') AS currency
FROM (SELECT hand_id FROM seats WHERE reported_money IS NOT NULL) s
JOIN (SELECT hand_id, room, currency FROM hands) h USING (hand_id)
"""  # the dataset's paid rooms in one query, as the stamp was read


@pytest.fixture(scope="module")
def two_batches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("paid")
    data = folder / "data"
    for seed in (3, 4):  # two imports: two batches
        out = folder / f"sim{seed}.hh"
        write_simulation(
            out, 40, get_ruleset("pineapple-progressive"), output_format="app-json",
            seats=3, players=6, seed=seed, room=RoomRules(money_stack=14.0),
        )  # fmt: skip
        import_paths([out], data)
    return data


def test_the_paid_rooms_are_read_a_batch_at_a_time(
    two_batches: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = Dataset(two_batches)
    batches = dataset.batches()
    hands_files = [str(dataset.batch_file("hands", batch)) for batch in batches]
    queries: list[str] = []
    arrow = OfcData.arrow

    def spy(self: OfcData, query: str, params: object = None) -> object:
        queries.append(query)
        return arrow(self, query, params)  # type: ignore[arg-type]

    with open_dataset(two_batches) as db:
        whole = db.arrow(WHOLE_SQL).to_pylist()
        monkeypatch.setattr(OfcData, "arrow", spy)
        words = _paid_words(db, {})
    assert len(batches) == 2 and whole
    expected = {_label(str(r["room"]), str(r["currency"])) for r in whole}
    assert set(words) == expected  # the same rooms, each with no rule's words here
    assert len(queries) == len(batches)
    for query in queries:  # each reads one batch's files, no view of every hand
        assert sum(path in query for path in hands_files) == 1
        assert "FROM hands" not in query and "FROM seats" not in query
