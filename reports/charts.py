"""Charts as data: one description, drawn by plotly.js on the page or matplotlib in files.

A :class:`Chart` keeps what it shows (labels, values, intervals, series);
:meth:`Chart.plotly` gives the figure plotly.js draws in the HTML report
(vector, hover values, resizes to a phone), :meth:`Chart.figure` the
matplotlib figure ``--format png|svg`` saves (object API, no pyplot state).
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ofc_stats.safe_text import terminal_lines
from reports.stats import interval_text

if TYPE_CHECKING:  # matplotlib loads only when a file is drawn (--format png|svg)
    from matplotlib.figure import Figure

BLUE, RED, GREY, GOLD = "#1f5fa8", "#c0392b", "#8a8f98", "#d4a017"
MAX_POINTS = 2_000  # points drawn per line
MAX_MARKS = 600  # markers drawn per scatter

Floats = npt.NDArray[np.float64]


@dataclass
class Chart:
    """Horizontal bars with 95% whiskers (``bars``) or lines over hands (``line``)."""

    kind: str
    title: str
    xlabel: str
    ylabel: str = ""
    percent: bool = False
    labels: list[str] = field(default_factory=list)
    values: Floats = field(default_factory=lambda: np.zeros(0))
    low: Floats = field(default_factory=lambda: np.zeros(0))
    high: Floats = field(default_factory=lambda: np.zeros(0))
    x: Floats = field(default_factory=lambda: np.zeros(0))
    series: dict[str, Floats] = field(default_factory=dict)
    marks: tuple[Floats, Floats, str] | None = None

    def errors(self) -> Floats:
        """Whisker lengths below and above each bar, never negative."""
        below = np.nan_to_num(self.values - self.low)
        above = np.nan_to_num(self.high - self.values)
        return np.clip(np.vstack([below, above]), 0.0, None)

    def interval(self, low: float, high: float) -> str:
        """A bar's 95% interval in words, or why it has none."""
        return interval_text(low, high, ".1%" if self.percent else ",.2f")

    def figure(self) -> Figure:
        return _bars_figure(self) if self.kind == "bars" else _line_figure(self)

    def plotly(self) -> dict[str, Any]:
        """The figure as plotly.js takes it: ``{"data": [...], "layout": {...}}``.

        Every text is passed through :func:`plotly_text`: names come from hand
        histories, and plotly reads ``<img>``, links and styles in its labels.
        """
        fmt = ".1%" if self.percent else ",.2f"
        axis = {"tickformat": ".0%"} if self.percent else {}
        title = wrap(plotly_text(self.title))
        xlabel, ylabel = plotly_text(self.xlabel), plotly_text(self.ylabel)
        layout: dict[str, Any] = {
            "title": {"text": title, "x": 0, "xanchor": "left", "font": {"size": 15}},
            "margin": {"l": 10, "r": 10, "t": 24 + 20 * (title.count("<br>") + 1), "b": 40},
            "font": {"size": 13},
            "hovermode": "closest",
            "showlegend": self.kind == "line" and (len(self.series) > 1 or bool(self.marks)),
            "legend": {"orientation": "h", "y": -0.25},
            "paper_bgcolor": "rgba(0,0,0,0)",
        }
        if self.kind == "bars":
            err = self.errors()
            colors = [BLUE if self.percent or v >= 0 else RED for v in self.values.tolist()]
            data = [
                {
                    "type": "bar",
                    "orientation": "h",
                    "y": [plotly_text(label) for label in self.labels],
                    "x": _finite(self.values),
                    "error_x": {
                        "type": "data",
                        "symmetric": False,
                        "array": _finite(err[1]),
                        "arrayminus": _finite(err[0]),
                        "color": "#444",
                    },
                    # the interval as text: a bar over too few hands has none, and says so
                    "customdata": [
                        plotly_text(self.interval(low, high))
                        for low, high in zip(self.low.tolist(), self.high.tolist(), strict=True)
                    ],
                    "marker": {"color": colors},
                    "hovertemplate": f"%{{y}}: %{{x:{fmt}}}<br>%{{customdata}}<extra></extra>",
                }
            ]
            layout["xaxis"] = {
                "title": {"text": xlabel},
                "zeroline": True,
                "automargin": True,
                **axis,
            }
            # Labels are names, never dates or numbers: "2026-03-01" on a date axis drew
            # each day's bar a day thick on a two-year axis (invisible, whiskers clipped).
            layout["yaxis"] = {"type": "category", "autorange": "reversed", "automargin": True}
            layout["height"] = max(220, 28 * len(self.labels) + 110)
        else:
            step = max(1, len(self.x) // MAX_POINTS)
            colors = [BLUE, GREY, RED, GOLD]
            data = [
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": plotly_text(name),
                    "x": _finite(self.x[::step]),
                    "y": _finite(np.asarray(values, dtype=np.float64)[::step]),
                    "line": {"color": color, "width": 2},
                    "hovertemplate": f"{xlabel} %{{x:,}}: %{{y:{fmt}}}"
                    f"<extra>{plotly_text(name)}</extra>",
                }
                for (name, values), color in zip(self.series.items(), colors, strict=False)
            ]
            if self.marks is not None:
                mx, my, raw_label = self.marks
                label = plotly_text(raw_label)
                every = max(1, len(mx) // MAX_MARKS)
                data.append(
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "name": label,
                        "x": _finite(mx[::every]),
                        "y": _finite(my[::every]),
                        "marker": {"color": GOLD, "size": 4, "opacity": 0.6},
                        "hovertemplate": f"{label}, {xlabel} %{{x:,}}: %{{y:{fmt}}}<extra></extra>",
                    }
                )
            layout["xaxis"] = {"title": {"text": xlabel}, "automargin": True}
            layout["yaxis"] = {"title": {"text": ylabel}, "automargin": True, **axis}
            layout["height"] = 340
        return {"data": data, "layout": layout}


def plotly_text(text: str) -> str:
    """``text`` shown as itself by plotly: its HTML-like markup and ``%{…}`` placeholders escaped.

    >>> plotly_text('<img src="/pixel.png?who=Ana"> %{x} & co')
    '&lt;img src="/pixel.png?who=Ana"&gt; %&#123;x} &amp; co'
    """
    return html.escape(terminal_lines(text), quote=False).replace("%{", "%&#123;")


def matplotlib_text(text: str) -> str:
    """``text`` shown as itself by matplotlib: a ``$`` would start math text.

    >>> print(matplotlib_text("$5 Ana$"))
    \\$5 Ana\\$
    """
    return text.replace("$", r"\$")


def wrap(title: str, width: int = 40) -> str:
    """A title in lines of about ``width`` characters: plotly never wraps, phones are narrow."""
    lines: list[str] = []
    for word in title.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def _finite(values: npt.ArrayLike) -> list[float | int | None]:
    """JSON-safe numbers: NaN and infinities become gaps (null), whole numbers integers.

    Hand numbers and counts then read ``12``, not ``12.0``, in the page's chart data.
    """
    array = np.asarray(values, dtype=np.float64)
    return [
        (int(v) if v.is_integer() and abs(v) < 2**53 else v) if math.isfinite(v) else None
        for v in array.tolist()
    ]


def bars_with_ci(
    frame: pd.DataFrame,
    label: str,
    value: str,
    low: str,
    high: str,
    title: str,
    xlabel: str,
    percent: bool = False,
) -> Chart:
    """Horizontal bars with 95% interval whiskers, one per row of ``frame``."""
    return Chart(
        "bars",
        title,
        xlabel,
        percent=percent,
        labels=[str(v) for v in frame[label]],
        values=frame[value].to_numpy(dtype=np.float64),
        low=frame[low].to_numpy(dtype=np.float64),
        high=frame[high].to_numpy(dtype=np.float64),
    )


def line(
    x: Sequence[float] | npt.NDArray[np.generic],
    series: dict[str, npt.NDArray[np.generic]],
    title: str,
    xlabel: str,
    ylabel: str,
    marks: tuple[npt.NDArray[np.generic], npt.NDArray[np.generic], str] | None = None,
    percent: bool = False,
) -> Chart:
    return Chart(
        "line",
        title,
        xlabel,
        ylabel,
        percent=percent,
        x=np.asarray(x, dtype=np.float64),
        series={k: np.asarray(v, dtype=np.float64) for k, v in series.items()},
        marks=None
        if marks is None
        else (
            np.asarray(marks[0], dtype=np.float64),
            np.asarray(marks[1], dtype=np.float64),
            marks[2],
        ),
    )


TITLE_SIZE = 11.0  # points
XLABEL_SIZE = 10.0  # matplotlib's default label size
CHAR_WIDTH = 0.56  # an average character of DejaVu Sans, in ems, a little wide: errs short


def _wrapped(text: str, fig: Figure, size: float) -> str:
    """``text`` in lines that fit the figure's width (matplotlib never wraps to a width)."""
    width = int(fig.get_figwidth() * 72 * 0.96 / (CHAR_WIDTH * size))
    return textwrap.fill(text, width=max(width, 10), break_on_hyphens=False)


def _title(fig: Figure, text: str) -> None:
    """The title over the whole figure, from its left edge, wrapped to its width.

    An axes title starts at the axes, after the longest bar label, so a long
    one ran off the right of the figure; a figure title has the whole width
    and constrained layout makes room for every line of it.
    """
    fig.suptitle(
        matplotlib_text(_wrapped(text, fig, TITLE_SIZE)), x=0.01, ha="left", fontsize=TITLE_SIZE
    )


def _bars_figure(chart: Chart) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, max(2.2, 0.42 * len(chart.labels) + 1.2)), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(chart.labels))
    colors = [BLUE if chart.percent or v >= 0 else RED for v in chart.values.tolist()]
    ax.barh(y, np.nan_to_num(chart.values), xerr=chart.errors(), color=colors, capsize=3)
    ax.set_yticks(y, [matplotlib_text(label) for label in chart.labels])
    ax.invert_yaxis()
    ax.axvline(0, color=GREY, linewidth=0.8)
    _title(fig, chart.title)
    ax.set_xlabel(matplotlib_text(_wrapped(chart.xlabel, fig, XLABEL_SIZE)))
    if chart.percent:
        ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    return fig


def _line_figure(chart: Chart) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, 3.4), layout="constrained")
    ax = fig.add_subplot()
    step = max(1, len(chart.x) // MAX_POINTS)  # a chart is 700 pixels wide: thin long series
    for (name, values), color in zip(chart.series.items(), [BLUE, GREY, RED, GOLD], strict=False):
        ax.plot(
            chart.x[::step], values[::step], label=matplotlib_text(name), color=color, linewidth=1.4
        )
    if chart.marks is not None:
        mx, my, label = chart.marks
        every = max(1, len(mx) // MAX_MARKS)
        ax.scatter(
            mx[::every], my[::every], s=14, color=GOLD, zorder=3, label=matplotlib_text(label)
        )
    _title(fig, chart.title)
    ax.set_xlabel(matplotlib_text(_wrapped(chart.xlabel, fig, XLABEL_SIZE)))
    ax.set_ylabel(matplotlib_text(chart.ylabel))
    ax.grid(alpha=0.25)
    if chart.percent:
        ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    if len(chart.series) > 1 or chart.marks is not None:
        ax.legend(fontsize=8, loc="best")
    return fig
