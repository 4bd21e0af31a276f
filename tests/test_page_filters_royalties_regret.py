"""The royalties and regret sections' first lines, which follow the filter bar.

The page carries each live board's rows as [class, royalty] kinds (``rk_top``, ``rk_mid``,
``rk_bot`` and ``royalty_kinds`` in :func:`reports.explore.page_data`), each hand's graded
street-decision loss (``sloss``) and the named leaks' decisions (``leaks``); Python draws
the lines over every hand (:mod:`reports.live_figures`) and the page's script redraws them
for the hands the bar keeps (the Chromium tests below check the two say the same
unfiltered, and SQL's counts under a filter).  Here: the figures worked out by hand,
the same figures as the royalties and regret sections count, and on the real samples, graded,
the lines as SQL counts them for every hand and for one room.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from reports import Filters, checked, choose_player, prepare, regret, resolve_player, royalties
from reports.explore import page_data
from reports.live_figures import (
    regret_figures,
    regret_text,
    royalties_text,
    royalty_figures,
)
from tests.builders import write_dataset
from tests.shared_samples import APPS
from tests.test_browser import filter_page  # noqa: F401  (the fixture)
from tests.test_reports import alice_hands


@pytest.fixture(scope="module")
def alice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("alice"), alice_hands())


def test_alices_royalties_worked_out_by_hand(alice: Path) -> None:
    """Alice's live boards are H1, H2 and H4 (she fouls H3).  H1: QQ 7, straight 4, flush 4;
    H2: 4-high 0, straight 4, flush 4; H4: nothing.  23 points from 3 boards, 7.67 a board:
    top 7 / 3 = 2.33, middle 8 / 3 = 2.67, bottom 8 / 3 = 2.67.  The biggest source: the
    middle's straight and the bottom's flush paid 8 each from 2 boards; the row higher up
    wins the tie (the section's note named QQ, the top row's biggest, at 7)."""
    with ofc_stats.open(alice) as db:
        scope = prepare(db, Filters(player=resolve_player(db, "Alice")[0]))
        live = page_data(scope)
        section = royalties.build(scope)
    assert list(live["hands"]["rk_top"] >= 0) == [True, True, False, True]  # H3 fouled
    counted = royalty_figures(live)
    assert counted.boards == 3 and counted.rows == [(3, 7.0), (3, 8.0), (3, 8.0)]
    assert counted.best == ("straight", "middle", 8.0, 2)
    assert royalties_text(counted) == (
        "Your royalties over these hands' 3 live boards: 23 points, 7.67 a board (top 2.33, "
        "middle 2.67, bottom 2.67). The biggest source: straight in the middle row, 8 points "
        "from 2 boards."
    )
    assert section.notes == [
        "Your biggest royalty source is straight in the middle row (8 points from 2 boards)."
    ]
    # kept: H3 and H4 (positions 2 and 3): H4 is the one live board, and it paid nothing
    kept = royalty_figures(live, [2, 3])
    assert kept.boards == 1 and royalties_text(kept).endswith(" None of them paid a royalty.")
    assert royalties_text(royalty_figures(live, [2])) == (
        "Your royalties: no live (unfouled) board among these hands."
    )


def test_a_section_with_no_royalty_paid_says_so(alice: Path) -> None:
    """H4 alone (J-high, 88, AA: no royalty): the note said "biggest royalty source is
    J-high ... (0 points)"; now that no board paid one."""
    with ofc_stats.open(alice) as db:
        keys = [k for (k,) in db.sql("SELECT hand_key FROM hands ORDER BY played_at").fetchall()]
        scope = prepare(db, Filters(player="Alice"))
        db.sql("DELETE FROM report_seats WHERE hand_key <> $h", {"h": keys[3]})  # H4 alone
        notes = royalties.build(scope).notes
    assert notes == ["None of your live boards paid a royalty."]


def regret_live(sloss: list[float], fl: list[int], leaks: dict[str, Any]) -> dict[str, Any]:
    n = len(sloss)
    return {
        "leaks": leaks,
        "hands": {
            "key": [str(i) for i in range(n)],
            "scored": np.ones(n, np.int8),
            "fl": np.asarray(fl, np.int8),
            "sloss": np.asarray(sloss, np.float64),
        },
    }


def test_the_regret_line_worked_out_by_hand() -> None:
    """Five hands, the second in Fantasyland (not graded), the fifth normal and not graded:
    graded street losses 0.5, 0 and 2.5 (hands 0, 2 and 3).  Per hand: mean 1.0, 100 per 100
    hands; squares 6.5, variance (6.5 - 3 * 1) / 2 = 1.75, SE sqrt(1.75 / 3) = 0.764: 76.4.
    Leak A lost 0.5 in hand 0, and 1.0 in hand 3; leak B 1.5 in hand 3: each 1.5 over three
    hands, 50.0 per 100; A's per-hand losses 0.5, 0, 1.0: variance (1.25 - 0.75) / 2 = 0.25,
    SE 28.9; B's 0, 0, 1.5: variance (2.25 - 0.75) / 2 = 0.75, SE 50.0.  The tie goes to the
    leak with more decisions, A (2 to 1).  A's two decisions in hand 3, 0.25 each, sum to
    its hand's 0.5 before they are squared."""
    leaks = {
        "names": ["street 2: A", "street 3: B"],
        "at": np.array([0, 3, 3, 3]),
        "leak": np.array([0, 0, 0, 1]),
        "loss": np.array([0.5, 0.25, 0.75, 1.5]),
    }
    nan = float("nan")
    live = regret_live([0.5, nan, 0.0, 2.5, nan], [0, 1, 0, 0, 0], leaks)
    counted = regret_figures(live)
    assert (counted.normal, counted.graded, counted.total, counted.squares) == (4, 3, 3.0, 6.5)
    assert counted.leak == ("street 2: A", 1.5, 1.25, 3)
    assert regret_text(counted) == (
        "Street decisions over these 3 graded hands of 4 normal hands: 100.0 ± 76.4 expected "
        "points lost per 100 hands against the best legal play. The costliest named leak "
        "among them: street 2: A, 50.0 ± 28.9 per 100 hands (3 decisions)."
    )
    # kept: hands 0 and 1: one graded hand, no SE; A alone
    assert regret_text(regret_figures(live, [0, 1])) == (
        "Street decisions over these 1 graded hand of 1 normal hand: 50.0 (no SE from one "
        "hand) expected points lost per 100 hands against the best legal play. The costliest "
        "named leak among them: street 2: A, 50.0 (no SE from one hand) per 100 hands "
        "(1 decision)."
    )
    # kept: hand 2 only: graded, nothing charged
    assert regret_text(regret_figures(live, [2])) == (
        "Street decisions over these 1 graded hand of 1 normal hand: no decision lost "
        "expected points beyond 2 SE of the grader's noise (0 per 100 hands)."
    )
    assert regret_text(regret_figures(live, [1, 4])) == (
        "Street decisions: no graded hand among these hands."
    )
    # B costs more once hand 0 is left out: 1.5 against A's 1.0
    assert regret_figures(live, [2, 3]).leak == ("street 3: B", 1.5, 2.25, 1)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ofc_stats.grade.run import GradeOptions, grade_dataset
    from tests.test_grade_store import heads_up

    data = heads_up(tmp_path_factory.mktemp("graded"), 12, seed=3)
    grade_dataset(data, GradeOptions(rollouts=8), workers=1)
    return data


def test_the_regret_figures_are_the_regret_sections(graded: Path) -> None:
    """From the page's rows, for every player of twelve graded heads-up hands: the graded
    hands, the street decisions' loss per 100 hands and its SE, and the costliest named
    leak, as :mod:`reports.regret` counts them from the grades."""
    leaks_seen = 0
    with ofc_stats.open(graded) as db:
        players = [p for (p,) in db.sql("SELECT DISTINCT player FROM seats ORDER BY 1").fetchall()]
        for player in players:
            scope = prepare(db, Filters(player=resolve_player(db, player)[0]))
            live = page_data(scope)
            counted = regret_figures(live)
            frame = regret._grades(db)
            streets = frame[
                frame["status"].isin(["graded", "forced"]) & (frame["kind"] == "street")
            ]
            streets = streets.assign(
                hand=streets["hand_key"] + "#" + streets["seat"].astype(str),
                loss=streets["loss"].astype(np.float64),
            )
            hands = streets["hand"].unique()
            assert counted.graded == len(hands), player
            assert counted.normal == regret._normal_hands(db)
            if not len(hands):
                continue
            total = regret.per_100(streets.assign(all="all"), hands, ["all"]).iloc[0]
            # (the page carries each hand's loss to 4 decimals: 0.005 per 100 hands at most)
            per_100 = 100 * counted.total / counted.graded
            assert per_100 == pytest.approx(total["per_100_hands"], abs=0.005)
            line = regret_text(counted)
            if counted.total > 0 and counted.graded > 1:
                said = re.search(r": ([\d.]+) ± ([\d.]+) expected", line)
                assert said is not None, line
                assert float(said[2]) == pytest.approx(total["se"], abs=0.051)
            named = regret.named_leaks(streets, hands, None)
            if counted.leak is None:
                assert named.empty
                continue
            leaks_seen += 1
            top = named.iloc[0]
            assert counted.leak[0] == top["leak"]
            leak_100 = 100 * counted.leak[1] / counted.graded
            assert leak_100 == pytest.approx(top["per_100_hands"], abs=0.005)
            assert counted.leak[3] == top["decisions"]
    assert leaks_seen  # not an empty check


def sql_one(data: Path, query: str, params: dict[str, object] | None = None) -> Any:
    with ofc_stats.open(data) as db:
        return db.sql(query, params or {}).fetchall()


HERO = "FROM seat_results m WHERE m.hero AND m.status = 'scored' AND m.room LIKE $room"


def expected_royalties(data: Path, room: str) -> dict[str, Any]:
    """The hero's live boards at ``room`` (% for all), counted by SQL: boards, each row's
    points, and the class and row that paid most (ties: more boards, the row higher up)."""
    params: dict[str, object] = {"room": room}
    ((boards, top, middle, bottom),) = sql_one(
        data,
        "SELECT count(*), sum(m.royalty_top), sum(m.royalty_middle), sum(m.royalty_bottom) "
        f"{HERO} AND NOT m.fouled",
        params,
    )
    best = sql_one(
        data,
        "WITH live AS (SELECT * " + HERO + " AND NOT m.fouled), rows AS ("
        " SELECT 0 AS r, CASE WHEN c.top_pattern <> '' THEN c.top_pattern"
        "  ELSE replace(c.royalty_class, '_', ' ') END AS label, l.royalty_top AS paid"
        " FROM live l JOIN row_classes c ON c.cards = 3 AND c.class = l.top_class"
        " UNION ALL SELECT 1, replace(c.royalty_class, '_', ' '), l.royalty_middle"
        " FROM live l JOIN row_classes c ON c.cards = 5 AND c.class = l.middle_class"
        " UNION ALL SELECT 2, replace(c.royalty_class, '_', ' '), l.royalty_bottom"
        " FROM live l JOIN row_classes c ON c.cards = 5 AND c.class = l.bottom_class)"
        " SELECT label, r, sum(paid), count(*) FROM rows GROUP BY ALL"
        " ORDER BY 3 DESC, 4 DESC, 2, 1 LIMIT 1",
        params,
    )[0]
    return {"boards": boards, "rows": (top, middle, bottom), "best": best}


def expected_regret(data: Path, room: str) -> dict[str, Any]:
    """The hero's graded street decisions at ``room`` by SQL: normal and graded hands, the
    loss per 100 hands and its SE, and the named leak that lost most per 100 hands."""
    params: dict[str, object] = {"room": room}
    ((normal,),) = sql_one(data, f"SELECT count(*) {HERO} AND NOT m.in_fantasy", params)
    graded = (
        "FROM grades g JOIN (SELECT m.hand_key, m.seat " + HERO + ") s USING (hand_key, seat) "
        "WHERE g.kind = 'street' AND g.status IN ('graded', 'forced')"
    )
    ((hands, mean, sd),) = sql_one(
        data,
        "SELECT count(*), avg(l), stddev_samp(l) FROM (SELECT hand_key, seat, "
        f"coalesce(sum(g.loss), 0) AS l {graded} GROUP BY ALL)",
        params,
    )
    leak = sql_one(
        data,
        "SELECT 'street ' || (g.street + 1) || ': ' || g.mistake AS leak, sum(g.loss), count(*) "
        f"{graded} AND g.mistake IS NOT NULL AND g.loss > 0 GROUP BY 1 ORDER BY 2 DESC, 3 DESC, "
        "1 LIMIT 1",
        params,
    )[0]
    return {
        "normal": normal,
        "graded": hands,
        "per_100": 100 * mean,
        "se": 100 * sd / hands**0.5,
        "leak": (leak[0], 100 * leak[1] / hands, leak[2]),
    }


def royalties_said(text: str) -> dict[str, Any]:
    """The counts a royalties line gives."""
    found = re.fullmatch(
        r"Your royalties over these hands' ([\d,]+) live boards: ([\d,]+) points, ([\d.]+) a "
        r"board \(top ([\d.]+), middle ([\d.]+), bottom ([\d.]+)\)\. The biggest source: "
        r"(.+) in the (top|middle|bottom) row, ([\d,]+) points from ([\d,]+) boards\.",
        text,
    )
    assert found is not None, text
    n = [int(found[k].replace(",", "")) for k in (1, 2, 9, 10)]
    return {
        "boards": n[0],
        "total": n[1],
        "each": tuple(float(found[k]) for k in (3, 4, 5, 6)),
        "best": (found[7], ("top", "middle", "bottom").index(found[8]), n[2], n[3]),
    }


def regret_said(text: str) -> dict[str, Any]:
    """The counts a regret line gives."""
    found = re.fullmatch(
        r"Street decisions over these ([\d,]+) graded hands of ([\d,]+) normal hands: ([\d.]+)"
        r" ± ([\d.]+) expected points lost per 100 hands against the best legal play\. The "
        r"costliest named leak among them: (.+), ([\d.]+) ± ([\d.]+) per 100 hands \(([\d,]+) "
        r"decisions?\)\.",
        text,
    )
    assert found is not None, text
    return {
        "graded": int(found[1].replace(",", "")),
        "normal": int(found[2].replace(",", "")),
        "per_100": float(found[3]),
        "se": float(found[4]),
        "leak": (found[5], float(found[6]), int(found[8].replace(",", ""))),
    }


def agrees_with_sql(royalty_line: str, regret_line: str, data: Path, room: str) -> None:
    """The lines say what SQL counts for the hero's hands at ``room`` (% for all)."""
    want = expected_royalties(data, room)
    said = royalties_said(royalty_line)
    assert said["boards"] == want["boards"] and said["total"] == sum(want["rows"])
    each = [sum(want["rows"]) / want["boards"]] + [r / want["boards"] for r in want["rows"]]
    assert said["each"] == pytest.approx(each, abs=0.0051)
    assert said["best"] == want["best"]
    wanted = expected_regret(data, room)
    told = regret_said(regret_line)
    assert (told["graded"], told["normal"]) == (wanted["graded"], wanted["normal"])
    assert told["per_100"] == pytest.approx(wanted["per_100"], abs=0.051)
    assert told["se"] == pytest.approx(wanted["se"], abs=0.051)
    assert told["leak"][0] == wanted["leak"][0] and told["leak"][2] == wanted["leak"][2]
    assert told["leak"][1] == pytest.approx(wanted["leak"][1], abs=0.051)


@pytest.fixture(scope="module")
def graded_samples(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The real samples imported, graded and reported (the hero's page)."""
    if not APPS.is_dir():
        pytest.skip("the shared real samples are not here")
    folder = tmp_path_factory.mktemp("graded-samples")
    data, out = folder / "data", folder / "report.html"
    runner = CliRunner()
    for args in (
        ["import", "--quiet", "--data", str(data), str(APPS)],
        ["grade", "--data", str(data), "--quiet"],
        ["report", "--data", str(data), "--out", str(out)],
    ):
        done = runner.invoke(main, args)
        assert done.exit_code == 0, done.output
    return data, out


def drawn(page: str, ident: str) -> str:
    """A live line as ofc-stats report drew it in the page."""
    import html

    found = re.search(f'<p class="card live-figure" id="{ident}">(.*?)</p>', page)
    assert found is not None, ident
    return html.unescape(found[1])


def test_the_samples_lines_are_sql_counts_for_every_hand_and_a_room(
    graded_samples: tuple[Path, Path],
) -> None:
    """On the real samples, graded: the hero's 1,437 live boards paid 14,652 royalty points
    (SQL over ``seat_results``), AA in the top row the most (2,286 from 254 boards); the page
    says those, and every other figure of the two lines as SQL counts it, for every hand and
    for the hands at Spartan (the filter bar's room, by page_data's rows)."""
    data, out = graded_samples
    page = out.read_text(encoding="utf-8")
    royalty_line, regret_line = drawn(page, "live-royalties"), drawn(page, "live-regret")
    assert royalty_line.startswith(
        "Your royalties over these hands' 1,437 live boards: 14,652 points, 10.20 a board"
    )
    assert "The biggest source: AA in the top row, 2,286 points from 254 boards." in royalty_line
    agrees_with_sql(royalty_line, regret_line, data, "%")
    with ofc_stats.open(data) as db:
        scope = prepare(db, checked(db, choose_player(db, None).scope(Filters())))
        live = page_data(scope)
    room = live["rooms"].index("Spartan")
    kept = np.flatnonzero(np.asarray(live["hands"]["room"]) == room).tolist()
    assert 0 < len(kept) < len(live["hands"]["key"])
    spartan = royalties_text(royalty_figures(live, kept)), regret_text(regret_figures(live, kept))
    assert spartan != (royalty_line, regret_line)
    agrees_with_sql(*spartan, data, "Spartan")


# --- In Chromium: the script's lines are Python's unfiltered, and follow the filter bar -----

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def opened(browser: Any, path: Path) -> tuple[Any, list[str]]:
    """The page once the filter bar's rows are in (the script has drawn the live lines)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_function("document.body.dataset.filters === 'ready'")
    return page, errors


def lines(page: Any) -> dict[str, str]:
    """The live lines the page shows now."""
    found: dict[str, str] = page.evaluate(
        "() => Object.fromEntries(Array.from(document.querySelectorAll('.live-figure'))"
        ".map(p => [p.id, p.textContent]))"
    )
    return found


def all_hands_notes(page: Any) -> list[str]:
    """What the visible notes that a part covers every hand say beside the filter bar."""
    said: list[str] = page.evaluate(
        "() => Array.from(document.querySelectorAll('.fixed')).filter(p => p.offsetParent)"
        ".map(p => p.textContent)"
    )
    return said


def test_the_samples_lines_in_the_browser_are_pythons_then_sql_counts_for_a_room(
    browser: Any, graded_samples: tuple[Path, Path]
) -> None:
    """Unfiltered, the script draws the four live lines ofc-stats report drew, character for
    character; at Spartan, the royalties and regret lines say what SQL counts there and what
    Python draws from the same rows, and every part the bar does not change says so, with
    how many hands the bar keeps; cleared, the lines are the first ones again."""
    data, out = graded_samples
    page_text = out.read_text(encoding="utf-8")
    python = {
        key: drawn(page_text, key)
        for key in ("live-fouls", "live-fantasy", "live-royalties", "live-regret")
    }
    page, errors = opened(browser, out)
    assert lines(page) == python
    assert not [n for n in all_hands_notes(page) if "Now filtered" in n]
    page.select_option("#f-room", "Spartan")
    now = lines(page)
    agrees_with_sql(now["live-royalties"], now["live-regret"], data, "Spartan")
    with ofc_stats.open(data) as db:
        live = page_data(prepare(db, checked(db, choose_player(db, None).scope(Filters()))))
    room = live["rooms"].index("Spartan")
    kept = np.flatnonzero(np.asarray(live["hands"]["room"]) == room).tolist()
    assert now["live-royalties"] == royalties_text(royalty_figures(live, kept))
    assert now["live-regret"] == regret_text(regret_figures(live, kept))
    total = len(live["hands"]["key"])
    notes = all_hands_notes(page)
    # the summary's, then fouls, Fantasyland, decisions, royalties and regret
    assert len(notes) == 6 and notes[0].startswith(
        "The filter bar changes the line above only: the lines below cover all the hands"
    )
    kept_note = (
        f" Now filtered to {len(kept):,} of {total:,} hands: this still covers all {total:,}."
    )
    assert all(n.endswith(kept_note) for n in notes[1:]), notes
    assert all(n.startswith("All hands.") for n in notes[1:])
    page.click("#f-reset")
    assert lines(page) == python
    assert all_hands_notes(page) == [n.removesuffix(kept_note) for n in notes[1:]]
    assert errors == []
    page.close()


@pytest.fixture(scope="module")
def rooms_page(filter_page: tuple[Path, Path]) -> Path:  # noqa: F811
    """tests/test_browser.py's page of seven hands: Alice's four at room test, and her H1,
    H2 and H1 again (3-handed) at Spartan; not graded."""
    return filter_page[1]


def test_the_royalties_line_follows_the_room_worked_out_by_hand(
    browser: Any, rooms_page: Path
) -> None:
    """Every hand: six live boards (H3 fouled): top QQ 7 three times (H1 and its two
    copies), middle straights and bottom flushes 4 each on five boards (H1, H2 and the
    copies): 21 + 20 + 20 = 61 points, 10.17 a board (3.50, 3.33, 3.33); QQ in the top row
    paid most, 21 from 3 boards.  At Spartan: H1, H2, H1: 14 + 12 + 12 = 38, 12.67 a board
    (4.67, 4.00, 4.00); QQ 14 from 2 boards beats the straights' 12 from 3.  Nothing is
    graded: the regret section has no live line and says it covers every hand."""
    page, errors = opened(browser, rooms_page)
    every = (
        "Your royalties over these hands' 6 live boards: 61 points, 10.17 a board (top 3.50, "
        "middle 3.33, bottom 3.33). The biggest source: QQ in the top row, 21 points from 3 "
        "boards."
    )
    assert drawn(rooms_page.read_text(encoding="utf-8"), "live-royalties") == every
    assert lines(page)["live-royalties"] == every
    assert "live-regret" not in lines(page)
    regret_note = page.text_content("#regret .fixed") or ""
    assert regret_note.startswith("All hands. The filter bar does not change this section")
    page.select_option("#f-room", "Spartan")
    assert lines(page)["live-royalties"] == (
        "Your royalties over these hands' 3 live boards: 38 points, 12.67 a board (top 4.67, "
        "middle 4.00, bottom 4.00). The biggest source: QQ in the top row, 14 points from 2 "
        "boards."
    )
    assert (page.text_content("#regret .fixed") or "").endswith(
        "Now filtered to 3 of 7 hands: this still covers all 7."
    )
    assert errors == []
    page.close()
