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

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli import main
from ofc_stats.engine.cards import parse_card, parse_cards
from ofc_stats.records import HandRecord, Placement
from reports import (
    Filters,
    UnknownPlayer,
    build_all,
    decisions,
    fantasy,
    fouls,
    resolve_player,
    results,
    royalties,
)
from reports.stats import mean_ci, wilson
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
    mean, low, high = mean_ci([1, 2, 3])
    assert mean == 2 and high - mean == pytest.approx(1.959964 / 3**0.5, rel=1e-6)


def test_results_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = results.build(db, Filters(player="Alice"))
    summary = dict(
        zip(table(report, "summary")["measure"], table(report, "summary")["value"], strict=True)
    )
    assert summary["hands"] == 4 and summary["net points"] == -8
    assert summary["points per hand"] == -2 and summary["Fantasyland hands"] == 1
    assert summary["points per hand without royalties"] == pytest.approx(-7 / 4)
    cumulative = table(report, "cumulative")
    assert list(cumulative["points"]) == [21, 22, 10, -8]
    assert list(cumulative["without_royalties"]) == [6, 5, -1, -7]
    assert list(cumulative["fantasyland"]) == [False, True, False, False]
    opponent = table(report, "by_opponent").iloc[0]
    assert (opponent["opponent"], opponent["n"], opponent["total"]) == ("Bob", 4, -8)
    position = table(report, "by_position").iloc[0]
    assert (position["position"], position["n"], position["mean"]) == ("first to act", 4, -2)
    assert set(report.figures) == {"cumulative", "by_position", "by_opponent"}


def test_fouls_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = fouls.build(db, Filters(player="Alice"))
    normal = table(report, "summary").iloc[0]
    assert (normal["count"], normal["fouls"]) == (3, 1) and normal["rate"] == pytest.approx(1 / 3)
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
    assert locked.to_dict("list") == {"certain after": ["street 5"], "fouls": [1], "share": [1.0]}


def test_fantasy_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = fantasy.build(db, Filters(player="Alice"))
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


def test_decisions_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = decisions.build(db, Filters(player="Alice"))
    frame = table(report, "decisions").set_index(["street_name", "decision"])
    first = "street 1"
    assert frame.loc[(first, "Q, K or A to the top"), "count"] == 2
    assert frame.loc[(first, "Q, K or A to the top"), "mean"] == pytest.approx(4.5)
    assert frame.loc[(first, "kept a dealt pair in one row"), "count"] == 3
    assert frame.loc[(first, "first five as 1-2-2"), "mean"] == -18
    assert frame.loc[(first, "first five as 1-2-2"), "vs_baseline"] == -15  # baseline -3
    # Bob's boards carry no streets, so no field to compare: the cost is count × (mean - own)
    assert frame.loc[(first, "first five as 1-2-2"), "cost"] == -15
    assert frame.loc[(first, "Q, K or A to the top"), "cost"] == pytest.approx(2 * 7.5)
    assert frame.loc[("street 5", "to top + bottom"), "count"] == 2  # H1 and H3
    assert frame.loc[("street 5", "discarded a T or lower"), "count"] == 3
    # H1's fourth street (Th, Jh to the bottom) matches the timeout pattern: counted apart
    timeouts = table(report, "timeouts")
    assert timeouts[["street_name", "count"]].values.tolist() == [["street 4", 1]]
    assert ("street 4", "to bottom + bottom") not in frame.index
    assert frame.loc[("street 4", "to middle + bottom"), "count"] == 2


def test_royalties_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        report = royalties.build(db, Filters(player="Alice"))
    frame = table(report, "by_class").set_index(["row", "hand_class"])
    assert frame.loc[("top", "QQ"), "royalty_total"] == 7
    assert frame.loc[("top", "high_card"), "boards"] == 2
    assert frame.loc[("middle", "straight"), ["boards", "royalty_total"]].tolist() == [2, 8]
    assert frame.loc[("bottom", "flush"), "royalty_per_board"] == 4
    assert frame.loc[("bottom", "pair"), "share"] == pytest.approx(1 / 3)


def test_filters_narrow_every_report(dataset: Path) -> None:
    from datetime import datetime

    with ofc_stats.open(dataset) as db:
        late = Filters(player="Alice", since=datetime(2026, 3, 1, 20, 5))  # H3 and H4
        summary = table(results.build(db, late), "summary").set_index("measure")["value"]
        assert summary["hands"] == 2 and summary["net points"] == -30
        none = Filters(player="Alice", room="elsewhere")
        assert table(results.build(db, none), "summary").set_index("measure")["value"]["hands"] == 0
        against = Filters(player="Alice", opponent="Bob", seats=2)
        assert table(results.build(db, against), "summary").iloc[0]["value"] == 4


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


def test_html_report_escapes_names_and_has_every_section(tmp_path: Path) -> None:
    data = write_dataset(tmp_path, alice_hands(HOSTILE))
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", HOSTILE, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    for section in ("summary", "results", "fouls", "fantasyland", "decisions", "royalties"):
        assert f'<section id="{section}">' in page
    assert len(re.findall(r'src="data:image/png;base64,', page)) >= 5
    assert "http://" not in page and "https://" not in page  # opens offline

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


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_html_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    data = write_dataset(tmp_path, alice_hands(HOSTILE))
    out = tmp_path / "report.html"
    CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", HOSTILE, "--out", str(out)]
    )
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=420,1600",
            f"--screenshot={shot}",
            "--enable-logging=stderr",
            "--v=0",
            out.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.exists() and shot.stat().st_size > 10_000


def test_build_all_runs_every_report(dataset: Path) -> None:
    with ofc_stats.open(dataset) as db:
        key, _ = resolve_player(db, "Alice")
        built = build_all(db, Filters(player=key))
    assert [r.key for r in built] == [
        "results",
        "fouls",
        "fantasyland",
        "decisions",
        "royalties",
        "regret",
    ]
