"""Names from hand histories reach chart labels as plain text, never as markup or math."""

from __future__ import annotations

import io
import json

import numpy as np

from reports.charts import Chart

EVIL = '<img src="http://127.0.0.1:9/pixel.png?who=Ana"> <a href="x">$Ana_$</a> %{y}'


def chart(kind: str) -> Chart:
    if kind == "bars":
        return Chart(
            "bars",
            f"Points against {EVIL}",
            EVIL,
            labels=[EVIL, "Bo $5"],
            values=np.array([1.0, -2.0]),
            low=np.array([0.0, -3.0]),
            high=np.array([2.0, -1.0]),
        )
    return Chart(
        "line",
        EVIL,
        "hands",
        EVIL,
        x=np.arange(3.0),
        series={EVIL: np.array([0.0, 1.0, 2.0]), "Bo $5": np.array([0.0, -1.0, 0.0])},
        marks=(np.array([1.0]), np.array([1.0]), EVIL),
    )


def test_plotly_gets_no_markup_and_no_placeholder_from_a_name() -> None:
    # plotly.js reads <img>, <a> and styles in labels: opening the page fetched
    # /pixel.png from a server named in a player's name.  Escaped, nothing is fetched.
    for kind in ("bars", "line"):
        text = json.dumps(chart(kind).plotly())
        assert "<img" not in text and "<a " not in text
        assert "&lt;img" in text
        assert "%{y}" not in text.replace("%{y:", "").replace("%{y}:", "")  # only our own


def test_matplotlib_draws_a_dollar_sign_in_a_name() -> None:
    # `report --format png` raised on "$x^2$" (matplotlib math text) and on a lone "$".
    for kind in ("bars", "line"):
        out = io.BytesIO()
        chart(kind).figure().savefig(out, format="png")
        assert out.getvalue().startswith(b"\x89PNG")
