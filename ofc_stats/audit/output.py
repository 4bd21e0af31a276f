"""The mismatch file: Parquet, CSV, or CSV on stdout, numbers with their unit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import pandas as pd

from ofc_stats.audit.points import MISMATCH_COLUMNS, AuditReport
from ofc_stats.errors import OfcError
from ofc_stats.safe_text import csv_text


def write_mismatches(report: AuditReport, path: str | Path, stream: TextIO | None = None) -> None:
    """Parquet or CSV by the file's extension; ``-`` writes CSV to ``stream`` (stdout).

    ``room_value`` and ``recomputed_value`` are numbers in ``unit`` (points,
    cards or the currency); text cells are neutralised for spreadsheets.
    """
    frame = report.mismatches.astype({"seat": "int64"})
    for column in ("room_value", "recomputed_value"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("float64").round(6)
    text = [c for c in MISMATCH_COLUMNS if c not in ("seat", "room_value", "recomputed_value")]
    frame = frame.astype({c: "string" for c in text})
    if str(path) == "-":
        frame = _csv_cells(frame, text)
        (stream or sys.stdout).write(csv_text(list(frame.columns), frame.itertuples(index=False)))
        return
    target = Path(path)
    if target.suffix.lower() == ".parquet":
        frame.to_parquet(target, index=False)
    elif target.suffix.lower() == ".csv":
        frame = _csv_cells(frame, text)
        target.write_text(csv_text(list(frame.columns), frame.itertuples(index=False)), "utf-8")
    else:
        raise OfcError(f"{target}: write the mismatches as .parquet or .csv (or - for stdout)")


def csv_safe(value: str) -> str:
    """A cell a spreadsheet shows as text: a leading = + - @ tab or CR gets a quote mark."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _csv_cells(frame: pd.DataFrame, text: list[str]) -> pd.DataFrame:
    """The frame as CSV cells: text neutralised for spreadsheets, and a card count a
    whole number (14, not the float column's 14.0; Parquet keeps one float column)."""
    frame = frame.copy()
    for column in text:
        frame[column] = frame[column].map(csv_safe, na_action="ignore")
    cards = (frame["unit"] == "cards").fillna(False).to_numpy(dtype=bool)
    for column in ("room_value", "recomputed_value"):
        values = frame[column].astype(object)
        whole = cards & frame[column].notna().to_numpy() & (frame[column] % 1 == 0).to_numpy()
        values[whole] = [int(v) for v in frame.loc[whole, column]]
        frame[column] = values
    return frame
