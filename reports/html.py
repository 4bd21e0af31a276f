"""One self-contained HTML file: charts embedded as PNG, every text escaped.

The page works offline and on a phone (a viewport meta tag, fluid images,
tables that scroll sideways).  Player names and every table cell go through
:func:`html.escape`; nothing from the data reaches the page unescaped.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from ofc_stats.safe_text import csv_safe
from reports.base import Report

PERCENT_COLUMNS = {"rate", "share", "explained_rate"}
CHART_DATA = {"cumulative", "over_time"}  # one row per hand: CSV export only

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2430;
background:#f6f7f9;line-height:1.45}
main{max-width:980px;margin:0 auto;padding:12px 16px 48px}
h1{font-size:1.5rem;margin:.6rem 0 .2rem}h2{font-size:1.2rem;margin:2rem 0 .5rem;
border-bottom:2px solid #1f5fa8;padding-bottom:.2rem}h3{font-size:1rem;margin:1.2rem 0 .3rem}
.meta{color:#5b6473;font-size:.9rem}.card{background:#fff;border-radius:8px;padding:10px 14px;
box-shadow:0 1px 3px rgba(0,0,0,.08);margin:.6rem 0}
.leaks li{margin:.3rem 0}img{max-width:100%;height:auto;display:block;margin:.4rem 0}
.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:.85rem;min-width:50%}
th,td{padding:4px 8px;border-bottom:1px solid #e3e6ea;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#eef2f7;position:sticky;top:0}
nav a{margin-right:.8rem;font-size:.9rem}.caption{color:#5b6473;font-size:.8rem}
"""


def figure_png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def _cell(column: str, value: object, percent_ci: bool) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if column in PERCENT_COLUMNS or (percent_ci and column in ("low", "high")):
            return f"{value:.1%}"
        if value.is_integer() and abs(value) < 1e12:
            return f"{int(value):,}"
        return f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)


def table_html(frame: pd.DataFrame, limit: int = 40) -> str:
    """An escaped HTML table of at most ``limit`` rows."""
    percent_ci = "rate" in frame.columns
    head = "".join(f"<th>{html.escape(str(c).replace('_', ' '))}</th>" for c in frame.columns)
    rows = []
    for record in frame.head(limit).itertuples(index=False):
        cells = "".join(
            f"<td>{html.escape(_cell(str(c), v, percent_ci))}</td>"
            for c, v in zip(frame.columns, record, strict=True)
        )
        rows.append(f"<tr>{cells}</tr>")
    more = ""
    if len(frame) > limit:
        more = f'<p class="caption">{len(frame) - limit:,} more rows in the CSV export</p>'
    return f'<div class="scroll"><table><tr>{head}</tr>{"".join(rows)}</table></div>{more}'


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
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>OFC report: {name}</title><style>{CSS}</style></head><body><main>",
        f"<h1>OFC report: {name}</h1>",
        f'<p class="meta">{html.escape(scope)} · made {when} by ofc-stats</p>',
        f"<nav>{nav}</nav>",
        '<section id="summary"><h2>Summary: where you lose points</h2><div class="card">',
        '<ul class="leaks">',
        *(f"<li>{html.escape(line)}</li>" for line in summary),
        "</ul></div></section>",
    ]
    for report in reports:
        parts.append(f'<section id="{report.key}"><h2>{html.escape(report.title)}</h2>')
        for note in report.notes:
            parts.append(f'<p class="card">{html.escape(note)}</p>')
        for key, fig in report.figures.items():
            data = base64.b64encode(figure_png(fig)).decode("ascii")
            alt = html.escape(f"{report.title}: {key.replace('_', ' ')}")
            parts.append(f'<img alt="{alt}" src="data:image/png;base64,{data}">')
        for key, frame in report.tables.items():
            if key in CHART_DATA or frame.empty:
                continue
            parts.append(f"<h3>{html.escape(key.replace('_', ' ').capitalize())}</h3>")
            if key in report.captions:
                parts.append(f'<p class="caption">{html.escape(report.captions[key])}</p>')
            parts.append(table_html(frame))
        parts.append("</section>")
    parts.append("</main></body></html>")
    return "\n".join(parts)


def write_files(folder: Path, reports: Sequence[Report], kind: str) -> list[Path]:
    """Each chart (png/svg) or table (csv) as its own file; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for report in reports:
        if kind == "csv":
            for key, frame in report.tables.items():
                path = folder / f"{report.key}-{key}.csv"
                csv_safe(frame).to_csv(path, index=False)
                written.append(path)
        else:
            for key, fig in report.figures.items():
                path = folder / f"{report.key}-{key}.{kind}"
                fig.savefig(path, format=kind, dpi=110)
                written.append(path)
    return written
