"""CSV files keep every row on its row: a lone CR in a name is quoted, not a row break."""

from __future__ import annotations

import csv
import io

import pandas as pd

from ofc_stats.safe_text import csv_text
from reports.html import frame_csv

HOSTILE = ["a\rb", "c\nd", 'say "hi"', "x,y", "=1+1", "plain"]


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_every_hostile_name_reads_back_as_one_cell_of_its_own_row() -> None:
    text = csv_text(["player", "points"], [[name, 1] for name in HOSTILE])
    rows = _rows(text)
    assert rows[0] == ["player", "points"]
    # One row per name; each reads back as written, the formula with its quote mark.
    assert [row[0] for row in rows[1:]] == [*HOSTILE[:4], "'=1+1", "plain"]
    assert all(row[1] == "1" for row in rows[1:])


def test_the_csv_module_alone_splits_a_row_at_a_lone_cr() -> None:
    """Why csv_text exists: with LF line ends the csv module leaves a CR unquoted."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(["a\rb", 1])
    assert out.getvalue() == "a\rb,1\n"  # unquoted: a reader sees a row break there


def test_a_report_table_with_a_cr_in_a_name_keeps_its_rows() -> None:
    frame = pd.DataFrame({"player": ["a\rb", "c"], "hands": [3, 4], "net": [1.5, None]})
    rows = _rows(frame_csv(frame))
    assert rows == [["player", "hands", "net"], ["a\rb", "3", "1.5"], ["c", "4", ""]]
