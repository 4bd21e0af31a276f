"""The report page's style and script: tables, page filter, charts, hand replayer.

Plain CSS and JavaScript kept as files beside this module (``assets/``) and
inlined in every page with plotly.js (shipped in the plotly wheel), so a
report is one file that works offline.  The script puts every text from the
data in the page with ``textContent``, never as markup.  The replayer's hands
come packed and gzipped (:func:`reports.html.replayer_block`); the script
inflates them with the browser's DecompressionStream once the page is drawn,
then runs plotly.js (carried as text, :func:`reports.html.plotly_block`) and
draws the charts.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def asset(name: str) -> str:
    return files("reports").joinpath("assets", name).read_text(encoding="utf-8")


def css() -> str:
    return asset("report.css")


def script() -> str:
    return asset("report.js")
