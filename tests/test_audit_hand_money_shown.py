"""A hand's money on the page's ledger is shown as the ledger view shows it.

``LEDGER_HAND_MONEY_SQL`` (the page's per-hand money) summed a person's seats of a hand
as floats: two aliases' seats paid 0.1 and 0.2 summed to 0.30000000000000004 where
``LEDGER_HANDS_SQL`` (``audit --player``) shows 0.3, through ``money_shown`` (rounded to
1e-6, no -0).  Here both read one priced table.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ofc_stats.store.dataset import Dataset
from ofc_stats.store.views import ledger_hands_of, ledger_of, open_dataset


def test_a_hands_money_is_rounded_as_the_ledger_shows_it(tmp_path: Path) -> None:
    Dataset(tmp_path / "data").create()
    priced = pa.table(
        {
            "hand_key": ["h7", "h7", "h8"],
            "hand_id": pa.array([7, 7, 8], pa.int64()),
            "seat": pa.array([0, 1, 0], pa.int8()),
            "played_at": pa.array([None, None, None], pa.timestamp("us")),
            "room": ["R", "R", "R"],
            "currency": ["USD", "USD", "USD"],
            "money_paid": [0.1, 0.2, -0.0],
            "money_rules": [0.1, 0.2, -0.0],
            "difference": [0.0, 0.0, 0.0],
            "rules": ["r", "r", "r"],
            "rules_source": ["s", "s", "s"],
            "out_of_sample": ["o", "o", "o"],
        }
    )
    who = pa.table(
        {"who": ["me", "me", "me"], "hand_id": pa.array([7, 7, 8]), "seat": pa.array([0, 1, 0])}
    )
    with open_dataset(tmp_path / "data") as db:
        db.connection.register("priced", priced)
        money = ledger_hands_of(db, who, "priced")
        _, hands = ledger_of(db, who, "priced")
    # 0.1 + 0.2 as floats is 0.30000000000000004; -0.0 shown as 0.0
    assert money["money_paid"].tolist() == [0.3, 0.0]
    assert money["money_rules"].tolist() == [0.3, 0.0]
    assert str(money["money_paid"].iloc[1]) == "0.0"
    shown = hands.set_index("hand_id")[["money_rules", "money_paid"]]
    assert money.set_index("hand_id")[["money_rules", "money_paid"]].equals(shown.sort_index())
