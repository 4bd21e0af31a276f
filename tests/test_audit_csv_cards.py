"""The mismatch CSV writes a card count as the whole number it is: 14, not 14.0.

The values share one float column with points and money (Parquet keeps it float);
a Fantasyland row's unit is cards, which are counted, never fractions.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from ofc_stats.audit.output import write_mismatches
from ofc_stats.audit.points import MISMATCH_COLUMNS, AuditReport


def _report() -> AuditReport:
    rows = [
        ("h1", 0, "fantasy_cards", 16.0, 17.0, "cards"),
        ("h2", 1, "fantasy_entry", 0.0, 14.0, "cards"),
        ("h3", 0, "points", -3.0, 3.0, "points"),
        ("h4", 1, "money", 1.25, 1.5, "USD"),
    ]
    frame = pd.DataFrame(
        [
            {
                "hand_key": key, "seat": seat, "player": "p", "room": "R", "ruleset": "r",
                "class": klass, "cause": "c", "room_value": room, "recomputed_value": ours,
                "unit": unit, "explanation": "e", "basis": "b",
            }
            for key, seat, klass, room, ours, unit in rows
        ],
        columns=MISMATCH_COLUMNS,
    )  # fmt: skip
    return AuditReport(pd.DataFrame(), pd.DataFrame(), frame, (), "each hand's own")


def test_card_counts_are_whole_numbers_in_the_csv(tmp_path: Path) -> None:
    stream = io.StringIO()
    write_mismatches(_report(), "-", stream)
    written = tmp_path / "m.csv"
    write_mismatches(_report(), written)
    for text in (stream.getvalue(), written.read_text("utf-8")):
        lines = text.splitlines()
        assert ",16,17,cards," in lines[1]
        assert ",0,14,cards," in lines[2]
        assert ",-3.0,3.0,points," in lines[3]  # points and money as they were
        assert ",1.25,1.5,USD," in lines[4]


def test_the_parquet_keeps_one_float_column(tmp_path: Path) -> None:
    written = tmp_path / "m.parquet"
    write_mismatches(_report(), written)
    frame = pd.read_parquet(written)
    assert frame["room_value"].dtype == "float64"
    assert frame["recomputed_value"].tolist() == [17.0, 14.0, 3.0, 1.5]
