"""Small chart helpers on matplotlib's object API (no pyplot state, safe in servers)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

BLUE, RED, GREY, GOLD = "#1f5fa8", "#c0392b", "#8a8f98", "#d4a017"
MAX_POINTS = 2_000  # points drawn per line
MAX_MARKS = 600  # markers drawn per scatter


def figure(width: float = 7.0, height: float = 3.4) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig


def bars_with_ci(
    frame: pd.DataFrame,
    label: str,
    value: str,
    low: str,
    high: str,
    title: str,
    xlabel: str,
    percent: bool = False,
) -> Figure:
    """Horizontal bars with 95% interval whiskers, one per row of ``frame``."""
    fig = figure(7.0, max(2.2, 0.42 * len(frame) + 1.2))
    ax = fig.add_subplot()
    y = np.arange(len(frame))
    values = frame[value].to_numpy(dtype=float)
    err = np.vstack(
        [values - frame[low].to_numpy(dtype=float), frame[high].to_numpy(dtype=float) - values]
    )
    colors = [RED if v < 0 else BLUE for v in values] if not percent else [BLUE] * len(values)
    ax.barh(y, values, xerr=np.nan_to_num(err), color=colors, alpha=0.85, capsize=3)
    ax.set_yticks(y, [str(v) for v in frame[label]])
    ax.invert_yaxis()
    ax.axvline(0, color=GREY, linewidth=0.8)
    ax.set_title(title, loc="left", fontsize=11)
    ax.set_xlabel(xlabel)
    if percent:
        ax.xaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    return fig


def line(
    x: Sequence[float] | np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    xlabel: str,
    ylabel: str,
    marks: tuple[np.ndarray, np.ndarray, str] | None = None,
    percent: bool = False,
) -> Figure:
    fig = figure()
    ax = fig.add_subplot()
    colors = [BLUE, GREY, RED, GOLD]
    x = np.asarray(x)
    step = max(1, len(x) // MAX_POINTS)  # a chart is 700 pixels wide: thin long series
    for (name, values), color in zip(series.items(), colors, strict=False):
        ax.plot(x[::step], np.asarray(values)[::step], label=name, color=color, linewidth=1.4)
    if marks is not None:
        mx, my, label = marks
        every = max(1, len(mx) // MAX_MARKS)
        ax.scatter(mx[::every], my[::every], s=14, color=GOLD, zorder=3, label=label)
    ax.set_title(title, loc="left", fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.25)
    if percent:
        ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    if len(series) > 1 or marks is not None:
        ax.legend(fontsize=8, loc="best")
    return fig
