"""One self-contained, interactive HTML file: every text escaped, nothing fetched.

Tables sort by a click on a header and narrow by the box above them and by
the page filter (room, stakes, days); charts are drawn by plotly.js, inlined
from the plotly wheel (vector, hover values, resized to a phone); every hand
a table names opens the replayer.  Player names, table cells and chart text
go through :func:`html.escape` or JSON escaped for a script element.  CSV
exports (here and ``--format csv``) neutralise cells a spreadsheet would run
as a formula.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd

from ofc_stats.safe_text import csv_text
from reports.base import Report
from reports.page import css, script

PERCENT_COLUMNS = {"rate", "share", "explained_rate", "optimal"}  # shares of 1, shown as %
CHART_DATA = {"cumulative", "over_time"}  # one row per hand: CSV export only
MAX_ROWS = 500  # rows put in the page per table; the export link has them all
HEADERS = {
    "low": "95% low",
    "high": "95% high",
    "money_low": "money 95% low",
    "money_high": "money 95% high",
    "n": "hands",
    "hand_key": "hand",
    "street_name": "street",
    "vs_baseline": "vs your average",
    "vs_others": "vs others",
    "mean_otherwise": "mean otherwise",
    "others_otherwise": "others' mean otherwise",
}
DAY_COLUMNS = ("day", "start", "played_at")


@cache
def plotly_js() -> str:
    """plotly.js as the plotly wheel ships it (no network, ever)."""
    from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]

    script: str = get_plotlyjs()
    return script


def _plain(value: object) -> object:
    """JSON-ready: NaN and infinities as null, NumPy scalars as Python numbers."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def script_json(value: object) -> str:
    """JSON that cannot end its <script> element or start markup."""
    text = json.dumps(_plain(value), ensure_ascii=False, allow_nan=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def frame_csv(frame: pd.DataFrame) -> str:
    """A report table as CSV (:func:`ofc_stats.safe_text.csv_text`: formulas and a lone CR safe)."""
    return csv_text([str(c) for c in frame.columns], frame.itertuples(index=False))


def _missing(value: object) -> bool:
    if value is None or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def header(column: str) -> str:
    return HEADERS.get(column, column.replace("_", " "))


def cell(column: str, value: object, percent_ci: bool) -> str:
    """One number style: thousands separators, 2 decimals, rates as percents."""
    if _missing(value):
        return "–"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, float | np.floating):
        number = float(value)
        if column in PERCENT_COLUMNS or (percent_ci and column in ("low", "high")):
            return f"{number:.1%}"
        if "money" in column:
            return f"{number:,.2f}"  # money always in cents, so a column lines up
        if number.is_integer() and abs(number) < 1e12 and column != "stakes":
            return f"{int(number):,}"
        return f"{number:,.2f}"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if isinstance(value, pd.Timestamp | datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _sort_value(value: object) -> str | None:
    if _missing(value):
        return ""
    if isinstance(value, bool | np.bool_):
        return "1" if value else "0"
    if isinstance(value, int | float | np.integer | np.floating):
        return repr(float(value))
    if isinstance(value, pd.Timestamp | datetime | date):
        return value.isoformat()
    return None


def _day(value: object) -> str | None:
    if _missing(value):
        return None
    if isinstance(value, pd.Timestamp | datetime | date):
        return value.isoformat()[:10]
    return None


def table_html(
    frame: pd.DataFrame, name: str, title: str, caption: str = "", replays: Iterable[str] = ()
) -> str:
    """A sortable, filterable table with an export link; hands link to the replayer."""
    linked = set(replays)
    if "street_name" in frame.columns and "street" in frame.columns:
        frame = frame.drop(columns="street")  # SQL's 0-4; people read "street 1" to "street 5"
    percent_ci = "rate" in frame.columns
    numeric = [
        pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
        for c in frame.columns
    ]
    heads = "".join(
        f'<th data-type="{"num" if num else "text"}" class="{"num" if num else "text"}">'
        f"{html.escape(header(str(c)))}</th>"
        for c, num in zip(frame.columns, numeric, strict=True)
    )
    columns = [str(c) for c in frame.columns]
    rows = []
    for record in frame.head(MAX_ROWS).itertuples(index=False):
        values = dict(zip(columns, record, strict=True))
        attrs = ""
        if "room" in values and not _missing(values["room"]):
            attrs += f' data-room="{html.escape(str(values["room"]))}"'
        if "stakes" in values and not _missing(values["stakes"]):
            attrs += f' data-stakes="{html.escape(cell("stakes", values["stakes"], False))}"'
        for column in DAY_COLUMNS:
            day = _day(values.get(column))
            if day:
                attrs += f' data-day="{day}"'
                break
        cells = []
        for column, value, num in zip(columns, record, numeric, strict=True):
            shown = html.escape(cell(column, value, percent_ci))
            sort = _sort_value(value)
            data = f' data-v="{html.escape(sort)}"' if sort is not None else ""
            css = "" if num else ' class="text"'
            if column == "hand_key" and str(value) in linked:
                target = html.escape("#hand=" + quote(str(value), safe=""))
                shown = f'<a class="hand" href="{target}">{shown}</a>'
            cells.append(f"<td{data}{css}>{shown}</td>")
        rows.append(f"<tr{attrs}>{''.join(cells)}</tr>")
    notes = f'<p class="caption">{html.escape(caption)}</p>' if caption else ""
    if len(frame) > MAX_ROWS:
        notes += (
            f'<p class="caption">The first {MAX_ROWS:,} of {len(frame):,} rows are shown; '
            "the export has them all.</p>"
        )
    export = "data:text/csv;charset=utf-8," + quote(frame_csv(frame))
    filename = html.escape(f"{name}.csv")
    return (
        f'<div class="table-block card" id="table-{html.escape(name)}">'
        f"<h3>{html.escape(title)}</h3>{notes}"
        '<div class="table-tools"><input class="filter" type="search" placeholder="filter rows"'
        f' aria-label="filter {html.escape(title)}"><span class="count"></span>'
        f'<a download="{filename}" href="{export}">export CSV</a></div>'
        f'<div class="scroll"><table class="data"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></div>"
    )


def _options(values: set[str], label: str, ident: str) -> str:
    if not values:
        return ""
    options = "".join(
        f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in sorted(values)
    )
    return (
        f'<label>{label} <select id="{ident}"><option value="">all</option>{options}'
        "</select></label>"
    )


def page_filter(reports: Sequence[Report]) -> str:
    """The bar of room, stakes and day filters, from the values the tables hold."""
    rooms: set[str] = set()
    stakes: set[str] = set()
    for report in reports:
        for key, frame in report.tables.items():
            if key in CHART_DATA:
                continue
            if "room" in frame.columns:
                rooms |= {str(v) for v in frame["room"].dropna().head(MAX_ROWS)}
            if "stakes" in frame.columns:
                stakes |= {cell("stakes", v, False) for v in frame["stakes"].dropna()}
    return (
        '<form class="filters" onsubmit="return false" aria-label="page filter">'
        "<strong>Filter the tables:</strong>"
        + _options(rooms, "room", "f-room")
        + _options(stakes, "stakes", "f-stakes")
        + '<label>from <input type="date" id="f-from"></label>'
        '<label>to <input type="date" id="f-to"></label>'
        '<button type="button" id="f-reset">clear</button></form>'
    )


def replayer_block(hands: dict[str, dict[str, Any]], standalone: str | None = None) -> str:
    attr = f' data-standalone="{html.escape(standalone)}"' if standalone else ""
    return (
        f'<div id="replayer"{attr} hidden><div class="panel" role="dialog" '
        'aria-label="hand replayer"></div></div>'
        f'<script type="application/json" id="hand-data">{script_json(hands)}</script>'
    )


def head(title: str, charts: bool) -> str:
    scripts = f"<script>{plotly_js()}</script>" if charts else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{css()}</style>{scripts}"
        f"<script>{script()}</script></head><body>"
    )


def render(
    player: str,
    scope: str,
    reports: Sequence[Report],
    summary: Sequence[str],
    generated: datetime | None = None,
) -> str:
    """The whole page as a string."""
    when = (generated or datetime.now()).strftime("%Y-%m-%d %H:%M")
    name = html.escape(player)
    nav = "".join(f'<a href="#{r.key}">{html.escape(r.title)}</a>' for r in reports)
    replays: dict[str, dict[str, Any]] = {}
    for report in reports:
        replays.update(report.replays)
    charts: dict[str, Any] = {}
    graded = any(r.key == "regret" and "by_decision" in r.tables for r in reports)
    # Only graded decisions measure points lost; the street-decision table describes results.
    heading = "Summary: where you lose expected points" if graded else "Summary"
    parts = [
        head(f"OFC report: {player}", charts=True),
        page_filter(reports),
        "<main>",
        f"<h1>OFC report: {name}</h1>",
        f'<p class="meta">{html.escape(scope)} · made {when} by ofc-stats</p>',
        f"<nav>{nav}</nav>",
        f'<section id="summary"><h2>{heading}</h2><div class="card">',
        '<ul class="leaks">',
        *(f"<li>{html.escape(line)}</li>" for line in summary),
        "</ul></div></section>",
    ]
    for report in reports:
        parts.append(f'<section id="{report.key}"><h2>{html.escape(report.title)}</h2>')
        for note in report.notes:
            parts.append(f'<p class="card">{html.escape(note)}</p>')
        parts.append('<div class="grid">')
        for key, chart in report.figures.items():
            ident = f"chart-{report.key}-{key}"
            charts[ident] = chart.plotly()
            label = html.escape(f"{chart.title} (chart)")
            parts.append(
                f'<div class="card"><div class="chart" id="{ident}" '
                f'aria-label="{label}"></div></div>'
            )
        for key, frame in report.tables.items():
            if key in CHART_DATA or frame.empty:
                continue
            parts.append(
                table_html(
                    frame,
                    f"{report.key}-{key}",
                    key.replace("_", " ").capitalize(),
                    report.captions.get(key, ""),
                    replays if key in report.hands else (),
                )
            )
        parts.append("</div></section>")
    parts.append("</main>")
    parts.append(f'<script type="application/json" id="chart-data">{script_json(charts)}</script>')
    parts.append(replayer_block(replays))
    parts.append("</body></html>")
    return "\n".join(parts)


def hand_page(hand: dict[str, Any]) -> str:
    """One hand's replayer as its own page (``ofc-stats hand KEY --format html``)."""
    title = f"OFC hand {hand.get('room_hand_id') or hand['key']}"
    return "\n".join(
        [
            head(title, charts=False),
            replayer_block({hand["key"]: hand}, standalone=hand["key"]),
            "</body></html>",
        ]
    )


def write_files(folder: Path, reports: Sequence[Report], kind: str) -> list[Path]:
    """Each chart (png/svg) or table (csv) as its own file; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for report in reports:
        if kind == "csv":
            for key, frame in report.tables.items():
                path = folder / f"{report.key}-{key}.csv"
                path.write_text(frame_csv(frame), encoding="utf-8")
                written.append(path)
        else:
            for key, chart in report.figures.items():
                path = folder / f"{report.key}-{key}.{kind}"
                chart.figure().savefig(path, format=kind, dpi=110)
                written.append(path)
    return written
