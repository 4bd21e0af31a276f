"""Reports on a four-hand dataset whose every number is worked out by hand below.

Alice against Bob, heads-up, pineapple-progressive (american royalties):

* H1 Alice QQ / 9-high straight / A-high flush (royalties 7+4+4 = 15, earns a
  14-card Fantasyland); Bob fouls (trips middle over a pair bottom).
  Alice scoops: 6 + 15 = **+21**.
* H2 Alice in Fantasyland (14 cards, one discard): 4-high / straight / flush
  (royalties 8).  Bob K-high / two pair / full house (royalty 6).  Rows: Bob top
  and bottom, Alice middle: -1, royalties +2: **+1**.
* H3 Alice fouls (AA over KK over 66).  Bob J-high / QQ / full house (6): Bob
  scoops 6 + 6: **-12**.
* H4 Alice J-high / 88 / AA, no royalties.  Bob KK (8) / trips (2) / straight (2):
  Bob scoops 6 + 12: **-18**.

Alice: 4 hands, -8 points, -2 per hand; normal hands H1, H3, H4: 1 foul in 3,
1 entry in 3, points -3 per normal hand; Fantasyland: 1 hand, +1, no stay.
Without royalties: 6, -1, -6, -6 (sum -7).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from ofc_stats.engine.cards import parse_card, parse_cards
from ofc_stats.records import HandRecord, Placement
from reports import (
    Filters,
    UnknownPlayer,
    build_all,
    build_sections,
    decisions,
    fantasy,
    fouls,
    prepare,
    resolve_player,
    results,
    royalties,
)
from reports.stats import MIN_HANDS, Z95, interval_text, mean_ci, wilson
from tests.builders import hand_record, seat_record, write_dataset

ROWS = {"t": "top", "m": "middle", "b": "bottom", "x": "discard"}


def placed(seat: int, streets: list[str]) -> tuple[Placement, ...]:
    """Streets written as 'Qs:t Qd:t 5h:m', t/m/b/x = top, middle, bottom, discard."""
    out = []
    for number, street in enumerate(streets):
        for item in street.split():
            card, row = item.split(":")
            out.append(Placement(seat, number, parse_card(card), ROWS[row]))
    return tuple(out)


def alice_hands(alice: str = "Alice") -> list[HandRecord]:
    a1 = seat_record(
        0,
        alice,
        "Qs Qd 2c",
        "5h 6d 7c 8s 9h",
        "2h 7h Th Jh Ah",
        discards=parse_cards("3h 4s 6h 8c"),
    )
    b1 = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    p1 = placed(
        0,
        [
            "Qs:t Qd:t 5h:m 6d:m 7c:m",
            "8s:m 2h:b 3h:x",
            "9h:m 7h:b 4s:x",
            "Th:b Jh:b 6h:x",
            "2c:t Ah:b 8c:x",
        ],
    )
    a2 = seat_record(
        0,
        alice,
        "2s 3d 4h",
        "5h 6d 7c 8s 9h",
        "2h 7h Th Jh Ah",
        in_fantasy=True,
        discards=parse_cards("Kh"),
    )
    b2 = seat_record(1, "Bob", "Kc Qc 3c", "4c 4d 6h 6s Js", "9c 9d 9s Ks Kd")
    a3 = seat_record(
        0,
        alice,
        "As Ad 2c",
        "Kc Kh 3d 4s 5d",
        "6c 6h 7d 8c 9d",
        discards=parse_cards("2h 3h 4h 7c"),
    )
    b3 = seat_record(1, "Bob", "Jc Td 2d", "Qs Qh 3c 4c 8h", "Tc Th Ts 5c 5s")
    p3 = placed(
        0,
        [
            "As:t Ad:t Kc:m Kh:m 6c:b",
            "3d:m 6h:b 2h:x",
            "4s:m 7d:b 3h:x",
            "5d:m 8c:b 4h:x",
            "2c:t 9d:b 7c:x",
        ],
    )
    a4 = seat_record(
        0,
        alice,
        "Jd 5c 2s",
        "8c 8d 3h 4h 9s",
        "Ac As Qd 7s 2h",
        discards=parse_cards("2c 3d 4d 6c"),
    )
    b4 = seat_record(1, "Bob", "Kc Kd 3c", "Qc Qh Qs 4c 5d", "6h 7c 8h 9h Td")
    p4 = placed(
        0,
        [
            "Jd:t 8c:m 8d:m Ac:b As:b",
            "5c:t 3h:m 2c:x",
            "2s:t 4h:m 3d:x",
            "9s:m Qd:b 4d:x",
            "7s:b 2h:b 6c:x",
        ],
    )
    return [
        hand_record(1, (a1, b1), placements=p1),
        hand_record(2, (a2, b2)),
        hand_record(3, (a3, b3), placements=p3),
        hand_record(4, (a4, b4), placements=p4),
    ]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("reports"), alice_hands())


def table(report: object, name: str):  # type: ignore[no-untyped-def]
    return report.tables[name]  # type: ignore[attr-defined]


def test_intervals_match_published_values() -> None:
    """Wilson 95% for 1 of 3 is 0.0615-0.7923; the mean of 1, 2, 3 is 2 ± 1.96 × 1/√3."""
    rate, low, high = wilson(1, 3)
    assert (round(low, 4), round(high, 4)) == (0.0615, 0.7923) and rate == pytest.approx(1 / 3)
    mean, low, high = mean_ci([1, 2, 3], least=3)
    assert mean == 2 and high - mean == pytest.approx(1.959964 / 3**0.5, rel=1e-6)


def test_no_interval_under_the_fewest_hands() -> None:
    """Under MIN_HANDS (30) values a mean has no 95% interval (NaN, and the note says why):
    one hand's "interval" was the point itself, two hands' (+21, -21) spanned ±41.16:
    mean 0, sd 21√2, half-width 1.96 × 21√2 / √2 = 1.96 × 21."""
    assert MIN_HANDS == 30
    one = mean_ci([21.0])
    assert one[0] == 21 and math.isnan(one[1]) and math.isnan(one[2])
    two = mean_ci([21.0, -21.0])
    assert two[0] == 0 and math.isnan(two[1])
    # shown only when asked for with least=2
    assert mean_ci([21.0, -21.0], least=2)[2] == pytest.approx(Z95 * 21)
    thirty = [21.0, -21.0] * 15  # sd 21 × √(30/29); half 1.96 × that / √30
    _, low, high = mean_ci(thirty)
    assert low == -high and high == pytest.approx(Z95 * 21 * (30 / 29) ** 0.5 / 30**0.5)
    assert interval_text(*mean_ci([5.0])[1:]) == (
        "no 95% interval under 30 hands: fewer say nothing"
    )
    means, lows, _ = moments_ci([1, 29, 30], [21, 0, 0], [441, 29 * 441, 30 * 441])
    assert means.tolist() == [21, 0, 0] and [math.isnan(v) for v in lows] == [True, True, False]
    grouped = grouped_mean_ci(pd.DataFrame({"g": [1] * 29 + [2] * 30, "p": 0.0}), "g", "p")
    assert grouped["low"].isna().tolist() == [True, False]


def test_a_bar_without_an_interval_says_why_on_hover() -> None:
    """The hover said "95% interval  to " (two blanks) on a bar over too few hands."""
    from reports.charts import bars_with_ci

    frame = pd.DataFrame(
        {"g": ["few", "many"], "m": [21.0, 1.5], "lo": [None, -0.5], "hi": [None, 3.5]}
    )
    data = bars_with_ci(frame, "g", "m", "lo", "hi", "t", "x").plotly()["data"][0]
    assert data["customdata"] == [
        "no 95% interval under 30 hands: fewer say nothing",
        "95% interval -0.50 to 3.50",
    ]
    assert data["error_x"]["array"] == [0, 2] and data["error_x"]["arrayminus"] == [0, 2]


def test_results_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = results.build(prepare(db, Filters(player="Alice")))
    summary = dict(
        zip(table(report, "summary")["measure"], table(report, "summary")["value"], strict=True)
    )
    assert summary["hands"] == 4 and summary["net points"] == -8
    assert summary["points per hand"] == -2 and summary["Fantasyland hands"] == 1
    assert summary["points per hand without royalties"] == pytest.approx(-7 / 4)
    # The page defines it where it shows it: row points alone (H1 +6 is rows won 3 - 0
    # plus the scoop bonus 3), over every hand, Fantasyland ones included
    caption = report.captions["summary"]
    assert "over all 4 hands, Fantasyland hands included" in caption
    assert "the row points alone, as the ruleset pays them" in caption
    cumulative = table(report, "cumulative")
    assert list(cumulative["points"]) == [21, 22, 10, -8]
    assert list(cumulative["without_royalties"]) == [6, 5, -1, -7]
    assert list(cumulative["fantasyland"]) == [False, True, False, False]
    opponent = table(report, "by_opponent").iloc[0]
    assert (opponent["opponent"], opponent["n"], opponent["total"]) == ("Bob", 4, -8)
    position = table(report, "by_position").iloc[0]
    assert (position["position"], position["n"], position["mean"]) == ("first to act", 4, -2)
    assert set(report.figures) == {"cumulative", "by_position", "by_opponent"}
    # A player's find: the chart of "the opponents you lost most to" drew those you beat
    # too.  Bob won 8 from Alice: his report has no such opponent and no such chart.
    with ofc_stats.open(dataset) as db:
        bob = results.build(prepare(db, Filters(player="Bob")))
    assert table(bob, "by_opponent")["total"].tolist() == [8]
    assert "by_opponent" not in bob.figures


def test_fouls_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = fouls.build(prepare(db, Filters(player="Alice")))
    normal = table(report, "summary").iloc[0]
    assert (normal["count"], normal["fouls"]) == (3, 1) and normal["rate"] == pytest.approx(1 / 3)
    # the rolling window is said where the line is drawn: 20 hands, the least (a player's find)
    assert report.figures["over_time"].title == (
        "Foul rate over time: each point the last 20 normal hands (the first at hand 20)"
    )
    setups = table(report, "by_setup").set_index("setup")
    assert setups.loc["2-2-1", "fouled"] == 1 and setups.loc["2-3-0", "fouled"] == 0
    assert setups.loc["1-2-2", "hands"] == 1 and setups.loc["1-2-2", "points_per_hand"] == -18
    chasing = table(report, "by_chasing").set_index("chasing")
    assert chasing.loc["chasing (Q+ on top by street 2)", "hands"] == 2
    assert chasing.loc["chasing (Q+ on top by street 2)", "fouled"] == 1
    assert chasing.loc["not chasing", "fouled"] == 0
    on_top = table(report, "by_top_card").set_index("on_top")
    assert on_top.loc["a pair on top", "hands"] == 2 and on_top.loc["T or J on top", "hands"] == 1
    locked = table(report, "locked_street")
    # AA on top over KK3 after street 2: the bottom 6-6 can reach two pair 7s and 6s at
    # best with the cards that came, under any two pair the middle needs over the aces (it
    # was "street 5", the street both rows were complete)
    assert locked.to_dict("list") == {
        "unavoidable after": ["street 2"],
        "fouls": [1],
        "share": [1.0],
    }


def test_fantasy_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = fantasy.build(prepare(db, Filters(player="Alice")))
    rates = table(report, "rates").set_index("measure")
    assert rates.loc["entry (of normal hands)", "count"] == 1
    assert rates.loc["entry (of normal hands)", "of"] == 3
    assert rates.loc["stay (of Fantasyland hands)", "count"] == 0
    assert rates.loc["attempts reaching Fantasyland", ["count", "of"]].tolist() == [1, 2]
    assert rates.loc["attempts ending in a foul", ["count", "of"]].tolist() == [1, 2]
    points = table(report, "points").set_index("measure")
    assert points.loc["per Fantasyland hand", "points"] == 1
    assert points.loc["per normal hand", "points"] == -3
    assert points.loc["lost to opponents in Fantasyland", "points"] == 0
    cards = table(report, "card_counts")
    assert cards.to_dict("list") == {"cards": ["14"], "played": [1], "earned": [1]}
    # the note's rates say what they are over and round as the table does (0.0%, not 0%)
    assert report.notes[0].startswith(
        "You reached Fantasyland from 33.3% of 3 normal hands and stayed in 0.0% of "
        "1 Fantasyland hand"
    )


def test_decisions_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = decisions.build(prepare(db, Filters(player="Alice")))
    frame = table(report, "decisions").set_index(["street_name", "decision"])
    first = "street 1"
    assert frame.loc[(first, "Q, K or A to the top"), "count"] == 2
    assert frame.loc[(first, "Q, K or A to the top"), "mean"] == pytest.approx(4.5)
    assert frame.loc[(first, "kept a dealt pair in one row"), "count"] == 3
    assert frame.loc[(first, "first five as 1-2-2"), "mean"] == -18
    assert frame.loc[(first, "first five as 1-2-2"), "vs_baseline"] == -15  # baseline -3
    # Bob's boards carry no streets, so no field to compare: the shortfall is
    # count × (own average - mean), positive when the hands did worse: H4 is 15 below.
    assert frame.loc[(first, "first five as 1-2-2"), "shortfall"] == 15
    assert frame.loc[(first, "Q, K or A to the top"), "shortfall"] == pytest.approx(-2 * 7.5)
    # normal hands H1 +21, H3 -12, H4 -18 (sum -9): without H4 (-9 + 18) / 2 = 4.5; without
    # H1 and H3, Q+ to the top: (-9 - 9) / 1 = -18
    assert frame.loc[(first, "first five as 1-2-2"), "mean_otherwise"] == pytest.approx(4.5)
    assert frame.loc[(first, "Q, K or A to the top"), "mean_otherwise"] == pytest.approx(-18)
    assert "cost" not in frame.columns
    # A player's find: one hand's interval read "19 to 19"; under 30 hands there is none,
    # as in every other table of the page
    assert frame["low"].isna().all() and frame["high"].isna().all()
    assert "95% intervals from 30 hands up" in report.captions["decisions"]
    assert frame.loc[("street 5", "to top + bottom"), "count"] == 2  # H1 and H3
    assert frame.loc[("street 5", "discarded a T or lower"), "count"] == 3
    # H1's fourth street (Th, Jh to the bottom) matches the timeout pattern, but no hand
    # records a timeout (docs/format.md): a decision like any other, none counted apart
    timeouts = table(report, "timeouts")
    assert timeouts.empty or timeouts["count"].sum() == 0
    assert frame.loc[("street 4", "to bottom + bottom"), "count"] == 1
    assert frame.loc[("street 4", "to middle + bottom"), "count"] == 2


def test_royalties_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = royalties.build(prepare(db, Filters(player="Alice")))
    frame = table(report, "by_class").set_index(["row", "hand_class"])
    assert frame.loc[("top", "QQ"), "royalty_total"] == 7
    assert frame.loc[("top", "high card"), "boards"] == 2
    assert frame.loc[("middle", "straight"), ["boards", "royalty_total"]].tolist() == [2, 8]
    assert frame.loc[("bottom", "flush"), "royalty_per_board"] == 4
    assert frame.loc[("bottom", "pair"), "share"] == pytest.approx(1 / 3)


def test_filters_narrow_every_report(dataset: Path) -> None:
    from datetime import datetime

    with ofc_stats.open(dataset) as db:
        late = Filters(player="Alice", since=datetime(2026, 3, 1, 20, 5))  # H3 and H4
        summary = table(results.build(prepare(db, late)), "summary").set_index("measure")["value"]
        assert summary["hands"] == 2 and summary["net points"] == -30
        none = Filters(player="Alice", room="elsewhere")
        assert (
            table(results.build(prepare(db, none)), "summary").set_index("measure")["value"][
                "hands"
            ]
            == 0
        )
        against = Filters(player="Alice", opponent="Bob", seats=2)
        assert table(results.build(prepare(db, against)), "summary").iloc[0]["value"] == 4


def test_unknown_player_lists_the_closest_names(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db, pytest.raises(UnknownPlayer, match="closest: Alice"):
        resolve_player(db, "Alica")


def test_the_default_player_is_the_hero_else_the_most_frequent(tmp_path: Path) -> None:
    """Alice sits in three hands, Bob in two, Carol in one: with no hero, Alice is the default;
    once Carol is marked hero in her one hand, she is, though she played the fewest."""
    alice = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    carol = seat_record(1, "Carol", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    hands = [hand_record(0, (alice, bob)), hand_record(1, (alice, bob))]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with ofc_stats.open(
        write_dataset(tmp_path / "a", [*hands, hand_record(2, (alice, carol))])
    ) as db:
        assert resolve_player(db, None) == ("Alice", "Alice")
    hero = replace(carol, hero=True)
    with ofc_stats.open(
        write_dataset(tmp_path / "b", [*hands, hand_record(2, (alice, hero))])
    ) as db:
        assert resolve_player(db, None) == ("Carol", "Carol")


HOSTILE = "<script>alert(1)</script>"


def hostile_page(tmp_path: Path) -> tuple[Path, str]:
    """A dataset of a player named :data:`HOSTILE`, and its report page written by the CLI
    (``tmp_path / "report.html"``)."""
    data = write_dataset(tmp_path, alice_hands(HOSTILE))
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", HOSTILE, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return data, out.read_text(encoding="utf-8")


def test_html_report_escapes_names_and_has_every_section(tmp_path: Path) -> None:
    data, page = hostile_page(tmp_path)
    out = tmp_path / "report.html"
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert HOSTILE not in page.replace("\\u003c", "<")  # chart and hand JSON escaped too
    sections = ["summary", "results", "sessions", "hands", "fouls", "fantasyland", "decisions"]
    for section in [*sections, "royalties"]:
        assert f'<section id="{section}">' in page
    assert len(re.findall(r'<div class="chart" id="chart-', page)) >= 7  # vector, not PNG
    assert not re.search(r'<script[^>]+src=|<link[^>]+href="http', page)  # nothing fetched

    unknown = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", "Bobb", "--out", str(out)]
    )
    assert unknown.exit_code == 1 and "closest: Bob" in unknown.output
    csvs = CliRunner().invoke(
        main,
        [
            "report",
            "--data",
            str(data),
            "--player",
            "Bob",
            "--format",
            "csv",
            "--out",
            str(tmp_path / "csv"),
        ],
    )
    assert csvs.exit_code == 0 and (tmp_path / "csv" / "fouls-summary.csv").exists()


def test_html_report_shows_a_names_control_characters_as_escapes(tmp_path: Path) -> None:
    """ESC, BEL, NUL and a right-to-left override in a name are shown, not sent raw: the
    page's text carries none of them (the title and heading show the escapes).  The data
    for the page's scripts keeps the name exact (JSON), which the filters match on."""
    name = "\x1b[31mEVIL\x07\u202egnp\x00"
    data = write_dataset(tmp_path, alice_hands(name))
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", name, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    shown = "\\x1b[31mEVIL\\x07\\u202egnp\\x00"
    assert f"<h1>OFC report: {shown}</h1>" in page
    assert f"<title>OFC report: {shown}</title>" in page
    text = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.S)
    assert not re.search("[\x00\x07\x1b\u202e]", text)


def test_build_all_runs_every_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        key, _ = resolve_player(db, "Alice")
        built = build_all(db, Filters(player=key))
    assert [r.key for r in built] == [
        "results",
        "ledger",
        "sessions",
        "hands",
        "fouls",
        "fantasyland",
        "decisions",
        "royalties",
        "regret",
    ]


def test_the_nav_links_every_section_the_page_has(dataset: Path) -> None:
    """The nav is the list of the page's sections: with the live page's opponents section
    after the hands, whichever sections are built (no link hangs on another's markup)."""
    from reports.explore import page_data
    from reports.html import render

    with ofc_stats.open(dataset) as db:
        scope = prepare(db, Filters(player=resolve_player(db, "Alice")[0]))
        built = build_sections(scope)
        live = page_data(scope)
    for kept in (built, [r for r in built if r.key != "fouls"]):
        page = render("Alice", "all hands", kept, [], live=live)
        nav = re.search(r"<nav>(.*?)</nav>", page)
        assert nav is not None
        links = re.findall(r'href="#([a-z]+)"', nav.group(1))
        sections = re.findall(r'<section id="([a-z]+)">', page)
        assert links == [s for s in sections if s != "summary"]
        assert links[links.index("hands") + 1] == "opponents"


# --- intervals: always around their estimate, inside [0, 1] for rates --------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from reports.stats import clamp_interval, grouped_mean_ci, moments_ci  # noqa: E402


def test_wilson_bounds_at_the_edges_are_exact() -> None:
    """0 of 3 and 10 of 10: rounding put the bound a hair past the rate (5.6e-17, 1 - 1e-16)."""
    assert wilson(0, 3)[:2] == (0.0, 0.0)
    assert wilson(10, 10)[0] == 1.0 and wilson(10, 10)[2] == 1.0


@given(st.integers(0, 10_000), st.integers(1, 10_000))
def test_wilson_contains_its_rate_inside_the_unit_interval(successes: int, extra: int) -> None:
    trials = successes + extra - 1 if successes else extra
    rate, low, high = wilson(successes, trials)
    assert 0.0 <= low <= rate <= high <= 1.0


@given(
    st.floats(0, 1),
    st.floats(-1, 2, allow_nan=False),
    st.floats(-1, 2, allow_nan=False),
)
def test_clamped_intervals_contain_the_estimate(estimate: float, a: float, b: float) -> None:
    _, low, high = clamp_interval(estimate, min(a, b), max(a, b))
    assert 0.0 <= low <= estimate <= high <= 1.0


@settings(deadline=None)  # pandas groupby: over 200 ms on a loaded host
@given(st.lists(st.integers(-300, 300), min_size=1, max_size=60))
def test_mean_intervals_agree_and_contain_the_mean(points: list[int]) -> None:
    """mean_ci from values, moments_ci from SQL-style sums, grouped_mean_ci: one interval."""
    import pandas as pd

    n, total, squares = len(points), sum(points), sum(p * p for p in points)
    frame = pd.DataFrame({"g": 1, "p": points})
    # By default none under MIN_HANDS values; all three agree on which.
    none = n < MIN_HANDS
    assert math.isnan(mean_ci(points)[1]) == none
    assert math.isnan(float(moments_ci([n], [total], [squares])[1][0])) == none
    assert bool(grouped_mean_ci(frame, "g", "p")["low"].isna().iloc[0]) == none
    if n < 2:
        return
    mean, low, high = mean_ci(points, least=2)
    assert low <= mean + 1e-9 and mean - 1e-9 <= high
    m2, l2, h2 = (float(v[0]) for v in moments_ci([n], [total], [squares], least=2))
    assert m2 == pytest.approx(mean) and l2 <= m2 + 1e-9 <= h2 + 2e-9
    assert (l2, h2) == (pytest.approx(low, abs=1e-6), pytest.approx(high, abs=1e-6))
    grouped = grouped_mean_ci(frame, "g", "p", least=2).iloc[0]
    assert grouped["low"] == pytest.approx(low, abs=1e-6) and grouped["n"] == n


# --- the real hands: a report for every hero account -----------------------------------

SHARED = next(
    (p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "samples").is_dir()),
    None,
)
APPS = SHARED / "samples" / "apps" if SHARED else None


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if APPS is None or not APPS.is_dir():
        pytest.skip("shared/samples/apps is not here")
    from ofc_stats.store.importer import import_paths
    from ofc_stats.store.recompute import recompute

    data = tmp_path_factory.mktemp("real") / "data"
    import_paths([APPS], data)
    recompute(data)
    return data


def test_a_report_renders_for_every_hero_account_of_the_real_hands(real: Path) -> None:
    from reports.html import render

    with ofc_stats.open(real) as db:
        heroes = [
            str(r[0])
            for r in db.sql(
                "SELECT DISTINCT player_key FROM seat_results WHERE hero AND status = 'scored'"
            ).fetchall()
        ]
        assert len(heroes) >= 40  # 49 accounts in the samples
        for key in heroes:
            built = build_all(db, Filters(player=key))
            assert "OFC report" in render(key, "all hands", built, [])
        everyone = build_all(db, Filters(hero=True))
        hands = table(everyone[0], "summary").set_index("measure")["value"]["hands"]
        total = db.sql(
            "SELECT count(*) FROM seat_results WHERE hero AND status = 'scored'"
        ).fetchall()[0][0]
        assert hands == total > 1_500  # every hero seat, not one account's


# --- filters that name nothing fail, with the closest names ----------------------------

from reports import checked, choose_player  # noqa: E402


def test_filters_check_names_and_match_rooms_in_any_case(dataset: Path) -> None:
    from ofc_stats.errors import UnknownFilter

    with ofc_stats.open(dataset) as db:
        assert prepare(db, checked(db, Filters(player="Alice", room="TEST"))).hand_count() == 4
        with pytest.raises(UnknownFilter, match=r"no room 'tset' in this dataset; rooms: test$"):
            checked(db, Filters(player="Alice", room="tset"))
        rules = checked(db, Filters(player="Alice", ruleset="progressive"))  # an alias
        assert rules.rulesets == ("pineapple-progressive",) and prepare(db, rules).hand_count() == 4
        # every ruleset stored, with the names the rooms' files give it (a player's find:
        # "closest" named a ruleset they never played)
        texts = db.sql("SELECT string_agg(DISTINCT rules_text, ', ') FROM hands").fetchall()
        named = "pineapple-progressive" + (f" ({texts[0][0]})" if texts[0][0] else "")
        with pytest.raises(UnknownFilter) as refused:
            checked(db, Filters(player="Alice", ruleset="ultimate"))
        assert str(refused.value).endswith(
            f"no ruleset 'ultimate' in this dataset; rulesets: {named}"
        )
        with pytest.raises(UnknownPlayer, match=r"no opponent 'Bobby'.*closest: Bob"):
            checked(db, Filters(player="Alice", opponent="Bobby"))


def test_an_unknown_room_lists_every_room_with_the_name_people_know_it_by(
    tmp_path: Path,
) -> None:
    """Pokerrrr 2 writes its hands as appName "Ppp": a user asking for Pokerrrr learns so."""
    from ofc_stats.errors import UnknownFilter
    from ofc_stats.store.importer import import_paths
    from tests.shared_samples import APPS

    files = sorted((APPS / "hh_nojokers").glob("*.hh"))[:1]
    if not files:
        pytest.skip("../shared/samples absent")
    import_paths(files, tmp_path)
    with ofc_stats.open(tmp_path) as db, pytest.raises(UnknownFilter) as refused:
        checked(db, Filters(room="Pokerrrr"))
    assert str(refused.value) == "no room 'Pokerrrr' in this dataset; rooms: Ppp (Pokerrrr 2)"


def test_cli_filters_fail_on_unknown_names_and_on_empty_matches(
    dataset: Path, tmp_path: Path
) -> None:
    out = str(tmp_path / "r.html")
    base = ["report", "--data", str(dataset), "--player", "Alice", "--out", out]
    for extra, message in (
        (["--room", "ppp"], "no room 'ppp'"),
        (["--rules", "ultimate"], "no ruleset 'ultimate'"),
        (["--opponent", "nobody"], "no opponent 'nobody'"),
        (["--since", "2030-01-01"], "no scored hand of Alice matches since 2030-01-01"),
    ):
        result = CliRunner().invoke(main, [*base, *extra])
        assert result.exit_code == 1 and message in result.output, result.output
    allowed = CliRunner().invoke(main, [*base, "--since", "2030-01-01", "--allow-empty"])
    assert allowed.exit_code == 0, allowed.output


# --- one hero across accounts, aliases --------------------------------------------------


def two_account_hero(tmp_path: Path) -> Path:
    """Me as 'me-ppp' in two hands and 'me-upoker' in one, both marked hero; Bob everywhere."""
    me_a = seat_record(0, "me-ppp", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah", hero=True)
    me_b = replace(me_a, player="me-upoker")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    hands = [hand_record(0, (me_a, bob)), hand_record(1, (me_a, bob)), hand_record(2, (me_b, bob))]
    return write_dataset(tmp_path, hands)


def test_the_hero_is_every_hero_seat_across_accounts(tmp_path: Path) -> None:
    """Each hand: me QQ/straight/flush (7+4+4 = 15) against Bob's foul: 6 + 15 = +21."""
    data = two_account_hero(tmp_path)
    with ofc_stats.open(data) as db:
        me = choose_player(db, None)
        assert me.hero and me.name == "you (the hero, 2 accounts)"
        report = results.build(prepare(db, me.scope(Filters())))
        summary = table(report, "summary").set_index("measure")["value"]
        assert summary["hands"] == 3 and summary["net points"] == 63
        # not every hero seat: the one account with the most of them
        assert choose_player(db, None, hero=False).accounts == ("me-ppp",)
        with pytest.raises(UnknownPlayer):
            choose_player(db, "nobody")


def test_an_alias_joins_accounts_and_can_be_undone(tmp_path: Path) -> None:
    data = two_account_hero(tmp_path)
    runner = CliRunner()
    joined = runner.invoke(
        main, ["players", "alias", "Me", "me-ppp", "me-upoker", "--data", str(data)]
    )
    assert joined.exit_code == 0 and "2 accounts joined" in joined.output, joined.output
    assert list((data / "aliases").glob("0*.parquet"))  # its own table folder
    with ofc_stats.open(data) as db:
        me = choose_player(db, "Me")
        assert me.accounts == ("me-ppp", "me-upoker")
        assert prepare(db, me.scope(Filters())).hand_count() == 3
    listing = runner.invoke(main, ["players", "--data", str(data)])
    lines = listing.output.splitlines()
    assert lines[0].split()[:4] == ["person", "accounts", "names", "hands"]
    assert lines[1].split()[:2] == ["Bob", "1"] and lines[2].split()[:2] == ["Me", "2"]
    undone = runner.invoke(main, ["players", "unalias", "Me", "me-upoker", "--data", str(data)])
    assert undone.exit_code == 0, undone.output
    assert "Me: 1 account taken out (me-upoker); 1 account still joined" in undone.output
    with ofc_stats.open(data) as db:
        assert choose_player(db, "Me").accounts == ("me-ppp",)
    unknown = runner.invoke(main, ["players", "alias", "Me", "me-pp", "--data", str(data)])
    assert unknown.exit_code == 1 and "closest: me-ppp" in unknown.output


# --- sessions, days, stakes -------------------------------------------------------------

from reports import hands as hands_report  # noqa: E402
from reports import sessions  # noqa: E402


def test_sessions_days_and_stakes(dataset: Path) -> None:
    """Alice's four hands are 2 minutes apart at table T1: one session at a 30-minute gap,
    lasting 6 minutes from the first hand to the last plus one for the last (7), four at
    a 1-minute gap.  Points +21, +1, -12, -18: net -8, mean -2; four hands are under the
    30 an interval needs (it was -2 ± 1.96 × √298 / 2 = ±16.9), so none, and the caption
    says why."""
    with ofc_stats.open(dataset) as db:
        report = sessions.build(prepare(db, Filters(player="Alice")))
        listed = table(report, "sessions")
        assert listed[["minutes", "hands", "net_points"]].values.tolist() == [[7, 4, -8]]
        day = table(report, "by_day").iloc[0]
        assert (str(day["day"]), day["hands"], day["net_points"]) == ("2026-03-01", 4, -8)
        assert day["points_per_hand"] == -2
        assert pd.isna(day["low"]) and pd.isna(day["high"])
        assert report.captions["by_day"] == (
            "per-hand means; 95% intervals from 30 hands up (fewer say nothing)"
        )
        assert table(report, "by_room")["room"].tolist() == ["test"]
        assert report.notes[0] == "1 session: -8 points."
        short = sessions.build(prepare(db, Filters(player="Alice", session_gap=1)))
        assert table(short, "sessions")["net_points"].tolist() == [21, 1, -12, -18]
        assert (
            short.notes[0] == "4 sessions, 2 of them winning; the best +21 points, the worst -18."
        )


def test_a_tables_hands_without_a_time_are_one_row_not_a_session_each(tmp_path: Path) -> None:
    """Alice's four timed hands (+21 +1 -12 -18) plus hands 3 and 4 again with no time
    (an SwC capture has none), as hands 23 and 24: one session of the four, then one row of
    the two without a time (-12 - 18 = -30, no start, no minutes), not two sessions; the
    note counts 1 session and says what the other row is."""
    base = alice_hands()
    untimed = [
        replace(base[2], room_hand_id="23", played_at=None),
        replace(base[3], room_hand_id="24", played_at=None),
    ]
    data = write_dataset(tmp_path, [*base, *untimed])
    with ofc_stats.open(data) as db:
        report = sessions.build(prepare(db, Filters(player="Alice")))
    listed = table(report, "sessions")
    rows = [
        (None if pd.isna(r.start) else str(r.start), None if pd.isna(r.minutes) else r.minutes,
         r.hands, r.net_points)
        for r in listed.itertuples()
    ]  # fmt: skip
    assert rows == [("2026-03-01 20:02:00", 7, 4, -8), (None, None, 2, -30)]
    assert report.notes[:2] == [
        "1 session: -8 points.",
        "2 hands without a time, -30 points: one row a table (1 table), not sessions, since "
        "when they were played cannot be told.",
    ]
    assert "a table's hands without a time are one row" in report.captions["sessions"]


def test_hands_to_look_at_carry_their_replays(dataset: Path) -> None:
    """Wins H1 (+21) and H2 (+1); losses H4 (-18) and H3 (-12); the foul H3; Fantasyland H2."""
    with ofc_stats.open(dataset) as db:
        report = hands_report.build(prepare(db, Filters(player="Alice")))
    listed = table(report, "hands")
    by_kind = listed.groupby("kind", sort=False)["points"].apply(list).to_dict()
    assert by_kind == {
        "biggest wins": [21, 1],
        "biggest losses": [-18, -12],
        "fouls": [-12],
        "Fantasyland hands": [1],
    }
    assert set(report.replays) == set(listed["hand_key"])
    first = report.replays[listed["hand_key"][0]]["seats"][0]
    assert first["streets"][0] == {
        "street": 1,
        "top": ["Qs", "Qd"],
        "middle": ["5h", "6d", "7c"],
        "bottom": [],
        "discards": [],
        "grade": None,  # not graded
    }
    assert first["streets"][1]["discards"] == ["3h"] and len(first["streets"]) == 5
    assert first["names"]["top"] == "pair of Qs" and first["royalties"]["total"] == 15
    assert first["versus"] == {"1": 21.0}  # seat 1, as stored


def test_dealt_pairs_match_a_seat_by_seat_reading(tmp_path: Path) -> None:
    """streetwise's column-wise pair test against the plain rule, seat by seat: of the
    cards a street dealt, two of one rank with one discarded broke a pair, two placed
    in different rows split one, else two in one row kept it."""
    import numpy as np

    from reports.streetwise import PAIR_LABELS, ROW_OF, seat_cards, street_decisions
    from tests.builders import sim_records

    data = write_dataset(tmp_path, sim_records(150, seed=3))
    with ofc_stats.open(data) as db:
        seats = seat_cards(db.arrow("SELECT board, board_streets, discards FROM seats"))
    checked_any = 0
    for street in range(5):
        codes, _ = street_decisions(seats, street)["pair"]
        for n in range(len(seats.cards)):
            if (seats.streets[n] < 0).any() or not (seats.streets[n] == street).any():
                continue
            placed = [
                (int(seats.ranks[n, p]), int(ROW_OF[p]))
                for p in np.flatnonzero(seats.streets[n] == street)
            ]
            discard = int(seats.discards[n, street - 1]) if 1 <= street <= 4 else -1
            dealt = [r for r, _ in placed] + ([discard >> 2] if discard >= 0 else [])
            pairs = {r for r in dealt if dealt.count(r) >= 2}
            if discard >= 0 and (discard >> 2) in pairs:
                expected = 2
            elif any(len({row for r, row in placed if r == rank}) > 1 for rank in pairs):
                expected = 1
            else:
                expected = 0 if pairs else -1
            assert codes[n] == expected, (street, n, PAIR_LABELS)
            checked_any += expected >= 0
    assert checked_any > 50  # the simulated hands hold pairs of every kind
