"""Royalties: what each row made and what it paid, by hand class.

The classes are the ones the royalty tables pay by (the ``row_classes``
view's ``royalty_class``, from the engine): a royal flush is its own.
"""

from __future__ import annotations

import pandas as pd

from ofc_stats.wording import plural
from reports.base import SEATS, Report, Scope
from reports.charts import bars_with_ci

# Each row's class as the tables name it (``c``: its ``row_classes`` row): the top row by
# its pattern (AA, KKK), the others by their royalty class.  The page's data names live
# boards' rows the same way (:mod:`reports.explore`).
TOP_CLASS = (
    "CASE WHEN c.top_pattern <> '' THEN c.top_pattern ELSE replace(c.royalty_class, '_', ' ') END"
)
ROW_CLASS = "replace(c.royalty_class, '_', ' ')"

ROWS_SQL = f"""
WITH boards AS (
  SELECT s.royalty_top, s.royalty_middle, s.royalty_bottom, s.top_class, s.middle_class,
         s.bottom_class
  FROM {{seats}} s WHERE NOT s.fouled
)
SELECT 'top' AS row, {TOP_CLASS} AS hand_class, b.royalty_top AS royalty
FROM boards b JOIN row_classes c ON c.cards = 3 AND c.class = b.top_class
UNION ALL
SELECT 'middle', {ROW_CLASS}, b.royalty_middle
FROM boards b JOIN row_classes c ON c.cards = 5 AND c.class = b.middle_class
UNION ALL
SELECT 'bottom', {ROW_CLASS}, b.royalty_bottom
FROM boards b JOIN row_classes c ON c.cards = 5 AND c.class = b.bottom_class
"""

ROW_ORDER = {"top": 0, "middle": 1, "bottom": 2}


def build(scope: Scope) -> Report:
    report = Report("royalties", "Royalties")
    data = scope.data
    rows = data.df(ROWS_SQL.format(seats=SEATS))
    if rows.empty:
        report.notes.append("No live boards match these filters.")
        report.tables["by_class"] = pd.DataFrame(
            columns=["row", "hand_class", "boards", "share", "royalty_per_board", "royalty_total"]
        )
        return report
    boards = rows.groupby("row").size().rename("row_boards")
    table = (
        rows.groupby(["row", "hand_class"])
        .agg(
            boards=("royalty", "size"),
            royalty_per_board=("royalty", "mean"),
            royalty_total=("royalty", "sum"),
        )
        .reset_index()
        .merge(boards, on="row")
    )
    table["share"] = table["boards"] / table["row_boards"]
    table = table.drop(columns="row_boards")
    table["order"] = table["row"].map(ROW_ORDER)
    table = table.sort_values(["order", "royalty_total", "boards"], ascending=[True, False, False])
    table = table.drop(columns="order").reset_index(drop=True)
    report.tables["by_class"] = table[
        ["row", "hand_class", "boards", "share", "royalty_per_board", "royalty_total"]
    ]
    per_row = (
        rows.groupby("row")["royalty"]
        .agg(["mean", "sum", "size"])
        .reset_index()
        .assign(order=lambda f: f["row"].map(ROW_ORDER))
        .sort_values("order")
    )
    per_row["low"] = per_row["mean"]
    per_row["high"] = per_row["mean"]
    report.tables["by_row"] = (
        per_row.drop(columns=["order", "low", "high"])
        .rename(columns={"mean": "royalty_per_board", "sum": "royalty_total", "size": "boards"})
        .reset_index(drop=True)
    )
    report.figures["by_row"] = bars_with_ci(
        per_row,
        "row",
        "mean",
        "low",
        "high",
        "Royalty points per live board, by row",
        "royalty points",
    )
    best = biggest(table)
    if best["royalty_total"] <= 0:
        report.notes.append("None of your live boards paid a royalty.")
        return report
    report.notes.append(
        f"Your biggest royalty source is {best['hand_class']} in the {best['row']} row "
        f"({int(best['royalty_total']):,} points from {plural(int(best['boards']), 'board')})."
    )
    return report


def biggest(table: pd.DataFrame) -> pd.Series:
    """The class and row that paid the most royalty points (the by-class table is grouped
    by row, so its first row was the top row's biggest even where the bottom paid more);
    a tie goes to more boards, then the row higher up, then the class's name (as the
    page's script breaks it: ``royaltyFigures``)."""
    order = table.assign(order=table["row"].map(ROW_ORDER))
    ranked = order.sort_values(
        ["royalty_total", "boards", "order", "hand_class"],
        ascending=[False, False, True, True],
        kind="stable",
    )
    return ranked.iloc[0]
