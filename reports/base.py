"""What every report returns: tidy tables, figures and a few sentences."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

from ofc_stats.db import OfcData
from reports.filters import Filters


@dataclass
class Report:
    """One report: ``tables`` and ``figures`` by name, ``notes`` for people."""

    key: str
    title: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    captions: dict[str, str] = field(default_factory=dict)


def player_seats(data: OfcData, filters: Filters, columns: str) -> pd.DataFrame:
    """The player's scored seats under the filters, oldest first."""
    where, params = filters.player_where("s")
    return data.df(
        f"SELECT {columns} FROM seat_results s WHERE {where} ORDER BY s.played_at, s.hand_key",
        params,
    )
