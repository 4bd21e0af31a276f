"""A new user's findings on the report: each test fails on the report as it was.

1. Ungraded, the summary told a correlation as "about 2,188 points lost" (now it names
   no decision until graded); the decisions' ``cost`` was negative when points were lost.
2. Royal flushes were counted as straight flushes in royalties by class.
3. The title of ``decisions-leaks.png`` (now ``decisions-worse_than_the_field.png``) ran off
   the figure.
4. The CSV wrote counts as floats (``hands,1083.0``).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

import ofc_stats
from reports import (
    UNGRADED,
    Filters,
    build_all,
    decisions,
    leak_summary,
    prepare,
    royalties,
)
from reports.base import Report
from reports.charts import Chart, bars_with_ci
from reports.html import render
from tests.builders import hand_record, seat_record, sim_records, write_dataset

PLAYER = "Ana"  # one of the simulated pool: in about half of the 90 three-handed hands


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("findings"), sim_records(90, seed=21))


# --- 1. the summary without grades claims no points lost -------------------------------


def test_ungraded_summary_names_no_observational_leak(sim: Path) -> None:
    """Issue 29: ungraded, the summary led with street decisions whose hands did worst
    ("street 5, discarded a Q, K or A: -10.1 vs -2.4 points"), consequences of bad cards
    more than causes; it now names none and says what grading would add."""
    with ofc_stats.open(sim) as db:
        built = build_all(db, Filters(player=PLAYER))
    by_key = {r.key: r for r in built}
    assert "by_decision" not in by_key["regret"].tables  # nothing graded
    leaks = by_key["decisions"].tables[decisions.WORSE]
    assert len(leaks) >= 3  # seed 21 has street decisions whose hands did worst
    summary = leak_summary(built)
    assert summary[0] == UNGRADED
    assert not any("with this decision averaged" in line for line in summary)
    # the headline numbers follow: results, sessions, fouls, Fantasyland
    assert summary[1] == by_key["results"].notes[-1] and summary[1].startswith("Over ")
    assert summary[3] == by_key["fouls"].notes[0]
    # The observational list describes results, not causes: it stays out of the summary.
    assert not any(line in summary for line in by_key["decisions"].notes)
    for line, row in zip(by_key["decisions"].notes, leaks.head(3).to_dict("records"), strict=True):
        assert "lost" not in line.replace("expected-points loss", "")
        assert line.endswith("(not a cost: run `ofc-stats grade` for expected-points loss).")
        numbers = re.search(
            r"your (\d+) hands with this decision averaged ([-+]\d+\.\d) points "
            r"vs ([-+]\d+\.\d) otherwise",
            line,
        )
        assert numbers is not None, line
        assert int(numbers[1]) == row["count"]
        assert float(numbers[2]) == round(row["mean"], 1)
        assert float(numbers[3]) == round(row["mean_otherwise"], 1)
    page = render(PLAYER, "all hands", built, summary)
    assert "<h2>Summary</h2>" in page and "where you lose" not in page
    assert "points lost in total" not in page  # the old chart axis
    # ... and no table of results is called a leak, nor a row "clear" (a new user's finding:
    # the first "clear" row did better than the player's average).
    assert "<h3>Leaks</h3>" not in page and "<h3>Worse than the field</h3>" in page
    assert "clear" not in leaks.columns and "below_field" in leaks.columns


def test_a_decision_and_the_other_hands_make_up_the_average(sim: Path) -> None:
    """The law behind "vs ... otherwise": count × mean + rest × mean otherwise is the sum
    of every normal hand's points, whatever the decision."""
    with ofc_stats.open(sim) as db:
        table = decisions.build(prepare(db, Filters(player=PLAYER))).tables["decisions"]
        normal, points = db.sql(
            "SELECT count(*), sum(net_capped) FROM seat_results "
            "WHERE player = $p AND status = 'scored' AND NOT in_fantasy",
            params={"p": PLAYER},
        ).fetchall()[0]
    rest = normal - table["count"]
    both = table["count"] * table["mean"] + rest * table["mean_otherwise"].fillna(0.0)
    assert both.to_numpy() == pytest.approx([float(points)] * len(table))
    assert table["mean_otherwise"].notna().all()  # no decision is in every hand here


def test_graded_summary_heading_names_expected_points() -> None:
    graded = Report("regret", "Regret", tables={"by_decision": pd.DataFrame({"x": [1]})})
    assert "<h2>Summary: where you lose expected points</h2>" in render("p", "s", [graded], [])


def test_the_leaks_export_and_chart_show_the_shortfall_as_positive(
    sim: Path, tmp_path: Path
) -> None:
    from reports.html import write_files

    with ofc_stats.open(sim) as db:
        built = [r for r in build_all(db, Filters(player=PLAYER)) if r.key == "decisions"]
    (path,) = [
        p
        for p in write_files(tmp_path, built, "csv")
        if p.name == f"decisions-{decisions.WORSE}.csv"
    ]
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert rows and "cost" not in rows[0] and all(float(r["shortfall"]) > 0 for r in rows)
    chart = built[0].figures[decisions.WORSE]
    assert (chart.values > 0).all() and "lost" not in chart.xlabel


# --- 2. a royal flush is its own royalty class ------------------------------------------


def test_royal_flushes_are_their_own_royalty_class(tmp_path: Path) -> None:
    """American royalties (RULES.md §5), Alice against Bob, Bob fouling both hands:

    * R1 Alice QQ2 / 9-high straight flush in clubs / royal flush in hearts:
      top 7, middle straight flush 30, bottom royal flush 25.
    * R2 Alice 2-3-4 high card / A-high flush in hearts (8) / 9-high straight flush
      in spades: bottom straight flush 15.

    Bottom: one royal flush (25) and one straight flush (15), not two straight flushes
    (40, 20 a board); middle: one straight flush (30)."""
    r1 = seat_record(0, "Alice", "Qs Qd 2d", "9c 8c 7c 6c 5c", "Ah Kh Qh Jh Th")
    b1 = seat_record(1, "Bob", "As Ad 3s", "4d 4s 7d 8d Js", "2s 3h 5d 9d Ks")
    r2 = seat_record(0, "Alice", "2c 3d 4c", "Ah Kh 9h 4h 2h", "9s 8s 7s 6s 5s")
    b2 = seat_record(1, "Bob", "Ac Ad 3s", "Kc Kd 7d 8d Js", "2s 3h 5d 9d Ks")
    data = write_dataset(tmp_path, [hand_record(1, (r1, b1)), hand_record(2, (r2, b2))])
    with ofc_stats.open(data) as db:
        frame = royalties.build(prepare(db, Filters(player="Alice"))).tables["by_class"]
    by_class = frame.set_index(["row", "hand_class"])
    assert by_class.loc[("bottom", "royal flush"), ["boards", "royalty_total"]].tolist() == [1, 25]
    assert by_class.loc[("bottom", "straight flush"), ["boards", "royalty_total"]].tolist() == [
        1,
        15,
    ]
    assert by_class.loc[("middle", "straight flush"), "royalty_total"] == 30
    assert by_class.loc[("top", "QQ"), "royalty_total"] == 7
    assert ("middle", "royal flush") not in by_class.index


# --- 3. every text of a saved chart lies inside the figure ------------------------------


def outside(chart: Chart) -> list[str]:
    """The titles and axis labels of ``chart``'s saved figure that reach past its edges.

    Measured after drawing, at the resolution ``write_files`` saves with.  (Tick labels
    are left out: matplotlib keeps undrawn ones past the axis limits.)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = chart.figure()
    canvas = FigureCanvasAgg(figure)
    figure.set_dpi(110)  # as write_files saves it
    canvas.draw()
    renderer = canvas.get_renderer()
    box = figure.bbox
    slack = 0.5  # pixels: antialiasing rounds an edge
    out = []
    texts = list(figure.texts)
    for ax in figure.axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
    for text in texts:
        if not text.get_visible() or not text.get_text().strip():
            continue
        extent = text.get_window_extent(renderer)
        if (
            extent.x0 < box.x0 - slack
            or extent.y0 < box.y0 - slack
            or extent.x1 > box.x1 + slack
            or extent.y1 > box.y1 + slack
        ):
            out.append(text.get_text())
    return out


def test_every_chart_title_and_label_fits_its_figure(sim: Path) -> None:
    with ofc_stats.open(sim) as db:
        built = build_all(db, Filters(player=PLAYER))
    charts = {f"{r.key}-{k}": c for r in built for k, c in r.figures.items()}
    assert f"decisions-{decisions.WORSE}" in charts and len(charts) >= 8
    long = bars_with_ci(
        pd.DataFrame({"l": ["street 4: split a dealt pair across rows"] * 3, "v": [1.0, 2, 3]}),
        "l",
        "v",
        "v",
        "v",
        "A title far longer than any the report writes, " * 4,
        "an axis label",
    )
    charts["long"] = long
    assert {name: outside(chart) for name, chart in charts.items() if outside(chart)} == {}


def test_the_check_sees_a_title_that_runs_off() -> None:
    """The check itself: an axes title set past the width is caught (the old layout)."""
    chart = bars_with_ci(
        pd.DataFrame({"l": ["a long label for a bar"], "v": [1.0]}), "l", "v", "v", "v", "t", "x"
    )
    figure = chart.figure()
    figure.axes[0].set_title("Costliest decisions (against your average, " * 2, loc="left")

    class Drawn(Chart):
        def figure(self) -> Figure:
            return figure

    assert outside(Drawn("bars", "t", "x")) != []


# --- 4. counts are integers in the CSV, HTML and JSON -----------------------------------

COUNTS = {"hands", "count", "others_count", "n", "fouls", "fouled", "boards", "of", "played"}
COUNTS |= {"earned", "decisions", "sets", "missed_repeats", "hands_that_differ", "hand"}
COUNT_MEASURES = {"hands", "Fantasyland hands"}  # rows of results-summary's value column


def test_counts_are_integers_in_every_export(sim: Path, tmp_path: Path) -> None:
    from reports.html import write_files

    with ofc_stats.open(sim) as db:
        built = build_all(db, Filters(player=PLAYER))
    checked = 0
    for path in write_files(tmp_path, built, "csv"):
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
        for row in rows:
            cells = [v for k, v in row.items() if k in COUNTS]
            if path.name == "results-summary.csv" and row["measure"] in COUNT_MEASURES:
                cells.append(row["value"])
            for value in cells:
                if re.fullmatch(r"-?\d+(\.\d*)?(e[-+]?\d+)?", value):  # a number, not a label
                    assert re.fullmatch(r"-?\d+", value), (path.name, row)
                    checked += 1
    assert checked > 100
    summary = next(r for r in built if r.key == "results").tables["summary"]
    hands = summary.set_index("measure")["value"]["hands"]
    page = render(PLAYER, "all hands", built, [])
    cell = rf'<td data-v="{float(hands)!r}"[^>]*>{hands:,}</td>'
    assert re.search(cell, page)  # e.g. 45, not 45.00
    cumulative = next(r for r in built if r.key == "results").figures["cumulative"].plotly()
    assert cumulative["data"][0]["x"][:3] == [1, 2, 3]
    assert all(isinstance(x, int) for x in cumulative["data"][0]["x"])
