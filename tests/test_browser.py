"""The report page in a real browser: Debian's Chromium driven by Playwright.

At a desktop width (1280 px) and a phone's (390 px): the charts draw, a click
on a column header sorts, a row filter narrows its table, a named hand opens
in the replayer street by street, the page never scrolls sideways, no table
is wider than its box, and the console stays free of errors.  The filter bar
(room, stakes with currency, dates, seats, opponent) changes every live
number, chart and table to what DuckDB computes for the same hands; the hand
browser finds a hand by opponent and opens it; on the real samples the
by-day chart's bars have a height.

``python -m tests.test_browser REPORT.html FOLDER`` saves the README's
screenshots of a report at both widths.
"""

from __future__ import annotations

import html
import http.server
import json
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote

import pandas as pd
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from ofc_stats.records import HandRecord, SeatRecord
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from ofc_stats.wording import fixed
from parsers.app_json import dumps_app
from parsers.open_format import dumps
from reports import Filters, prepare, sessions
from reports.live_figures import percent
from tests.builders import hand_record, seat_record, write_dataset
from tests.shared_samples import APPS
from tests.test_reports import HOSTILE, alice_hands, placed

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WIDTHS = (1280, 390)

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (make browser)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser")
    data = write_dataset(folder, alice_hands(HOSTILE))
    out = folder / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", HOSTILE, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def column(page: Any, table: str, name: str) -> list[str]:
    """The visible cells of one column of a table, top to bottom (none: no such table)."""
    return list(
        page.evaluate(
            """([table, name]) => {
                const t = document.querySelector(table);
                if (!t) return [];  // a section with nothing to show has no table
                const i = Array.from(t.tHead.rows[0].cells).findIndex(c => c.textContent.startsWith(name));
                return Array.from(t.tBodies[0].rows).filter(r => !r.hidden).map(r => r.cells[i].textContent);
            }""",
            [table, name],
        )
    )


def open_page(browser: Any, path: Path, width: int) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: errors.append(f"dialog: {d.message}"))  # a hostile name ran
    page.goto(path.as_uri())
    page.wait_for_selector("#chart-live-cumulative .main-svg")  # plotly drew it
    return page, errors


def too_wide(page: Any) -> list[str]:
    """The tables and charts wider than their box (each box scrolls nothing sideways)."""
    page.wait_for_timeout(300)  # plotly fits a chart to its card on the next frame
    return list(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('.table-block'))
                .filter(b => b.offsetParent !== null)
                .filter(b => b.querySelector('table').getBoundingClientRect().width
                             > b.querySelector('.scroll').clientWidth + 1)
                .map(b => b.id).concat(Array.from(document.querySelectorAll('.chart'))
                .filter(c => c.offsetParent !== null && c.querySelector('.main-svg'))
                .filter(c => c.querySelector('.main-svg').getBoundingClientRect().width
                             > c.parentNode.clientWidth + 1)
                .map(c => c.id))"""
        )
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_report_sorts_filters_and_opens_a_hand(browser: Any, page_file: Path, width: int) -> None:
    page, errors = open_page(browser, page_file, width)
    assert page.locator(".chart .main-svg").count() >= 7
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll
    assert too_wide(page) == []
    # A phone shows no chart toolbar (it covered the titles); a wide screen has it on hover.
    assert (page.locator(".modebar").count() == 0) == (width <= 600)

    hands = "#table-live-hands table"
    # The headline counts the scored hands and says so: (21 + 1 - 12 - 18) / 4 = -2.
    headline = page.text_content("#live-headline") or ""
    assert headline.startswith("These 4 scored hands: -2.00 points per hand on average"), headline
    # Alice's four hands, newest first: +21, +1 (Fantasyland), -12, -18 (tests/test_reports)
    assert column(page, hands, "points") == ["-18", "-12", "1", "21"]
    page.select_option("#hb-sort", "lowest")
    assert column(page, hands, "points") == ["-18", "-12", "1", "21"]
    page.select_option("#hb-sort", "highest")
    assert column(page, hands, "points") == ["21", "1", "-12", "-18"]
    page.check("#hb-fl")
    assert column(page, hands, "Fantasyland") == ["Fantasyland"]
    page.uncheck("#hb-fl")
    if width > 600:  # a click on a header sorts (a phone shows rows as cards, no header)
        page.locator(f"{hands} th", has_text="points").click()
        assert column(page, hands, "points") == ["-18", "-12", "1", "21"]
    page.fill("#table-live-hands input.filter", "Fantasyland")
    assert page.text_content("#table-live-hands .count") == "1 of 4 rows"
    page.fill("#f-from", "2026-03-02")  # every hand was played on 1 March
    assert column(page, hands, "points") == []
    assert summary_value(page, "hands") == "0"
    page.click("#f-reset")
    assert len(column(page, hands, "points")) == 4

    page.select_option("#hb-sort", "highest")
    page.locator(f"{hands} a.hand").first.click()
    replayer = page.locator("#replayer")
    replayer.wait_for(state="visible")
    assert page.evaluate("location.hash").startswith("#hand=")
    first_seat = replayer.locator(".seat").first
    assert "pair of Qs" in first_seat.text_content()
    assert "royalties 15 (top 7, middle 4, bottom 4)" in first_seat.text_content()
    replayer.get_by_role("button", name="Street 1", exact=True).click()
    top_row = first_seat.locator(".row").first
    assert top_row.locator(".c.new").count() == 2  # Qs Qd went to the top on street 1
    assert top_row.locator(".c.empty").count() == 1
    assert top_row.locator(".c.s-s").first.text_content() == "Q♠"
    replayer.get_by_role("button", name="Close").click()
    replayer.wait_for(state="hidden")
    assert errors == []
    page.close()


# --- The filter bar -------------------------------------------------------------------------

ROOM = "Spartan"


def filter_hands() -> list[HandRecord]:
    """Alice's four hands (room test, 2 USD a point, 1 March, against Bob, 2-handed), two of
    them again at Spartan for 10 INR a point on 5 March against Carol, and the first once
    more at Spartan 3-handed with Dan."""
    base = alice_hands(HOSTILE)
    records = [replace(r, stakes=2.0, currency="USD") for r in base]

    def carol(record: HandRecord) -> tuple[SeatRecord, ...]:
        return tuple(replace(s, player="Carol") if s.player == "Bob" else s for s in record.seats)

    for number, record in ((11, base[0]), (12, base[1])):
        seats = carol(record)
        records.append(
            replace(
                hand_record(number, seats, placements=record.placements),
                room=ROOM,
                stakes=10.0,
                currency="INR",
                played_at=datetime(2026, 3, 5, 21, number),
            )
        )
    dan = seat_record(2, "Dan", "2d 2s 3c", "7d 7s 8h 9d Jc", "Tc Td Ts Jd Qc")
    records.append(
        replace(
            hand_record(13, (*carol(base[0]), dan), placements=base[0].placements),
            room=ROOM,
            stakes=10.0,
            currency="INR",
            played_at=datetime(2026, 3, 5, 22, 0),
        )
    )
    return [paid(r) for r in records]


def paid(record: HandRecord) -> HandRecord:
    """The room paid Alice 5 and took it evenly from the others (the ledger checks it)."""
    others = len(record.seats) - 1
    seats = tuple(
        replace(s, reported_money=5.0 if s.player == HOSTILE else -5.0 / others)
        for s in record.seats
    )
    return replace(record, seats=seats)


@pytest.fixture(scope="module")
def filter_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("filters")
    data = write_dataset(folder, filter_hands())
    out = folder / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", HOSTILE, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return data, out


def expected(data: Path, where: str = "true", opponent: str | None = None) -> dict[str, Any]:
    """What the page must show for Alice's scored hands matching ``where`` (over
    seat_results' columns) and played with ``opponent`` (the Python report's own opponent
    filter, ``Filters.where``: what ``ofc-stats report --opponent`` keeps), from DuckDB."""
    qualified = (
        where.replace("room", "m.room")
        .replace("stakes", "m.stakes")
        .replace("played_at", "m.played_at")
        .replace("seat_count", "m.seat_count")
    )
    params: dict[str, object] = {"p": HOSTILE}
    if opponent is not None:
        met, more = Filters(opponent=opponent).where("m")
        qualified += f" AND {met}"
        params.update(more)
    with ofc_stats.open(data) as db:
        mine = f"FROM seat_results m WHERE m.player = $p AND m.status = 'scored' AND {qualified}"
        hands, net = db.sql(f"SELECT count(*), sum(m.net_capped) {mine}", params).fetchall()[0]
        # The foul rate of normal hands, as the fouls section and the summary count it.
        (fouled,) = db.sql(
            f"SELECT avg(m.fouled::INT) FILTER (WHERE NOT m.in_fantasy) {mine}", params
        ).fetchall()[0]
        days = db.sql(
            f"SELECT CAST(m.played_at AS DATE)::VARCHAR, count(*) {mine} GROUP BY 1 ORDER BY 1",
            params,
        ).fetchall()
        # The fouls and Fantasyland lines: the player's normal hands, fouls and entries, the
        # Fantasyland hands, and the field (the other seats of those hands, scored, normal).
        normal, fouls, entries, fantasy = db.sql(
            "SELECT count(*) FILTER (WHERE NOT m.in_fantasy), "
            "count(*) FILTER (WHERE NOT m.in_fantasy AND m.fouled), "
            "count(*) FILTER (WHERE NOT m.in_fantasy AND m.fantasy_entry > 0), "
            f"count(*) FILTER (WHERE m.in_fantasy) {mine}",
            params,
        ).fetchall()[0]
        field = db.sql(
            "SELECT count(*), count(*) FILTER (WHERE o.fouled) FROM seat_results o "
            "WHERE o.player <> $p AND o.status = 'scored' AND NOT o.in_fantasy "
            f"AND o.hand_id IN (SELECT m.hand_id {mine})",
            params,
        ).fetchall()[0]
        against = db.sql(
            "SELECT o.player, sum(v.points) FROM versus v "
            "JOIN seat_results m ON m.hand_key = v.hand_key AND m.seat = v.seat "
            "JOIN seats o ON o.hand_key = v.hand_key AND o.seat = v.opponent "
            f"WHERE m.player = $p AND m.status = 'scored' AND {qualified} GROUP BY 1 ORDER BY 1",
            params,
        ).fetchall()
    return {
        "hands": int(hands),
        "net": int(net or 0),
        "days": [(d, int(n)) for d, n in days],
        "against": {str(o): int(p) for o, p in against},
        "foul_rate": "–" if fouled is None else f"{100 * fouled:.1f}%",
        "figures": {
            "fouls": (int(fouls), int(normal)) if normal else None,
            "field": (int(field[1]), int(field[0])) if field[0] else None,
            "entries": (int(entries), int(normal)) if normal else None,
            "fantasy": int(fantasy),
        },
    }


def figures_shown(page: Any) -> dict[str, Any]:
    """The counts the fouls and Fantasyland sections' live lines give: (events, of) for the
    player's fouls, the field's and the entries (None: no such hand), Fantasyland hands."""
    fouls = page.text_content("#live-fouls") or ""
    fantasy = page.text_content("#live-fantasy") or ""

    def counted(text: str, lead: str) -> tuple[int, int] | None:
        found = re.search(re.escape(lead) + r"[\d.]+% \(([\d,]+) of ([\d,]+); 95% interval", text)
        return (
            None
            if found is None
            else (int(found[1].replace(",", "")), int(found[2].replace(",", "")))
        )

    played = re.search(r"([\d,]+) Fantasyland hands?:", fantasy)
    return {
        "fouls": counted(fouls, "Your foul rate over these normal hands: "),
        "field": counted(fouls, "The field's, over your opponents' normal hands in these hands: "),
        "entries": counted(fantasy, "Your Fantasyland entry rate over these normal hands: "),
        "fantasy": 0 if played is None else int(played[1].replace(",", "")),
    }


def summary_value(page: Any, measure: str) -> str:
    return str(
        page.evaluate(
            """(m) => Array.from(document.querySelectorAll('#table-live-summary tbody tr'))
                .filter(r => r.cells[0].textContent === m).map(r => r.cells[1].textContent)[0]""",
            measure,
        )
    )


def shown(page: Any) -> dict[str, Any]:
    """What the live page shows now: numbers of every live table and chart."""
    cumulative = page.evaluate(
        "() => { const d = document.getElementById('chart-live-cumulative').data[0].y;"
        " return d.length ? d[d.length - 1] : null; }"
    )
    days = page.evaluate("() => document.getElementById('chart-live-period').data[0].x")
    per_day = column(page, "#table-live-period table", "hands")
    against = dict(
        zip(
            column(page, "#table-live-by-opponent table", "opponent"),
            column(page, "#table-live-by-opponent table", "net points"),
            strict=True,
        )
    )
    return {
        "hands": int(summary_value(page, "hands").replace(",", "")),
        "net": int(summary_value(page, "net points").replace(",", "")),
        "cumulative": cumulative,
        "days": list(zip(days, [int(n) for n in reversed(per_day)], strict=True)),
        "against": {o: int(p.replace(",", "")) for o, p in against.items()},
        "browser": len(column(page, "#table-live-hands table", "points")),
        "sessions": sum(int(n) for n in column(page, "#table-live-session-list table", "hands")),
        "stakes": column(page, "#table-live-stakes table", "stakes"),
        "rooms": column(page, "#table-live-rooms table", "room"),
        "ledger": column(page, "#table-live-ledger-table table", "room"),
        "foul_rate": summary_value(page, "foul rate of normal hands"),
        "figures": figures_shown(page),
    }


def agrees(page: Any, want: dict[str, Any]) -> dict[str, Any]:
    now = shown(page)
    assert now["hands"] == want["hands"] and now["net"] == want["net"]
    assert now["cumulative"] == (want["net"] if want["hands"] else None)
    assert now["days"] == want["days"]
    assert now["against"] == want["against"]
    assert now["browser"] == now["sessions"] == want["hands"]
    assert now["foul_rate"] == want["foul_rate"]
    assert now["figures"] == want["figures"]
    return now


@pytest.mark.parametrize("width", WIDTHS)
def test_each_filter_changes_every_live_number(
    browser: Any, filter_page: tuple[Path, Path], width: int
) -> None:
    data, path = filter_page
    page, errors = open_page(browser, path, width)
    every = agrees(page, expected(data))
    assert every["hands"] == 7
    # Alice fouls H3 only (1 of 5 normal hands: H1, H3, H4, 11, 13); Bob fouls H1 and Carol
    # her two copies of his H1 board (3 of 8 seats: Bob 4, Carol 3, Dan 1)
    assert every["figures"] == {"fouls": (1, 5), "field": (3, 8), "entries": (3, 5), "fantasy": 2}
    # stakes sort as numbers and carry their currency: 2 before 10
    assert every["stakes"] == ["2 USD", "10 INR"]
    assert page.evaluate(
        "() => Array.from(document.querySelectorAll('#f-stakes option')).map(o => o.textContent)"
    ) == ["all", "2 USD", "10 INR"]
    assert sorted(every["ledger"]) == [ROOM, "test"]

    page.select_option("#f-room", ROOM)
    spartan = agrees(page, expected(data, f"room = '{ROOM}'"))
    # Hand-counted: copies of Alice's hands 1 and 2 (+21 and +1 against Carol) and hand 1
    # again 3-handed (+21 against Carol, the same boards): three hands, all on 5 March,
    # against Carol (21 + 1 + 21 = 43) and Dan only.
    assert spartan["hands"] == 3 and spartan["days"] == [("2026-03-05", 3)]
    assert set(spartan["against"]) == {"Carol", "Dan"} and spartan["against"]["Carol"] == 43
    assert spartan["rooms"] == [ROOM] and spartan["stakes"] == ["10 INR"]
    assert spartan["ledger"] == [ROOM]
    # Hands 11 and 13 normal, Alice's H1 boards (no foul, Fantasyland earned); hand 12 her
    # Fantasyland hand. The field: Carol in 11 (Bob's H1 board: fouled), 12 (not) and 13
    # (fouled), Dan in 13 (22 / 77 / trips: not).
    assert spartan["figures"] == {"fouls": (0, 2), "field": (2, 4), "entries": (2, 2), "fantasy": 1}
    page.click("#f-reset")

    page.select_option("#f-stakes", label="2 USD")
    usd = agrees(page, expected(data, "stakes = 2"))
    assert (usd["hands"], usd["net"]) == (4, -8)  # tests/test_reports: 21 + 1 - 12 - 18
    assert usd["ledger"] == ["test"]
    page.click("#f-reset")

    page.fill("#f-from", "2026-03-02")
    agrees(page, expected(data, "played_at >= DATE '2026-03-02'"))
    page.fill("#f-to", "2026-03-04")
    assert shown(page)["hands"] == 0
    page.click("#f-reset")

    page.select_option("#f-seats", "3")
    three = agrees(page, expected(data, "seat_count = 3"))
    assert three["hands"] == 1 and set(three["against"]) == {"Carol", "Dan"}
    page.click("#f-reset")

    page.fill("#f-opponent", "Dan")
    dan = agrees(page, expected(data, opponent="Dan"))
    assert dan["hands"] == 1  # Dan sat only in hand 13: +21 against Carol, his points
    page.fill("#f-opponent", "Carol")
    carol = agrees(page, expected(data, opponent="Carol"))
    assert (carol["hands"], carol["against"]["Carol"]) == (3, 43)  # hands 11-13, as above
    page.fill("#f-opponent", "Bob")
    bob = agrees(page, expected(data, opponent="Bob"))
    assert (bob["hands"], bob["net"], bob["against"]) == (4, -8, {"Bob": -8})
    page.select_option("#f-room", ROOM)  # with another filter: Bob never played at Spartan
    assert agrees(page, expected(data, f"room = '{ROOM}'", opponent="Bob"))["hands"] == 0
    assert too_wide(page) == []
    assert errors == []
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_hand_browser_finds_a_hand_by_opponent_and_opens_it(
    browser: Any, filter_page: tuple[Path, Path], width: int
) -> None:
    _, path = filter_page
    page, errors = open_page(browser, path, width)
    page.fill("#hb-search", "Dan")
    hands = "#table-live-hands table"
    assert column(page, hands, "opponents") == ["Carol, Dan"]
    page.locator(f"{hands} a.hand").first.click()
    replayer = page.locator("#replayer")
    replayer.wait_for(state="visible")
    assert "Seat 2: Dan" in replayer.text_content()
    replayer.get_by_role("button", name="Close").click()
    # the opponent's page: results, hands together, biggest pots
    page.evaluate("location.hash = '#opponent=Carol'")
    page.wait_for_selector("#table-live-opponent-summary")
    together = column(page, "#table-live-opponent-summary table", "value")
    assert together[0] == "3"  # hands 11, 12 and 13
    assert len(column(page, "#table-live-opponent-hands table", "points against them")) == 3
    assert errors == []
    page.close()


# --- Sessions: one definition in the page's script and in DuckDB ----------------------------


@pytest.fixture(scope="module")
def sessions_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Alice's four hands at table T1 of room test (20:02 to 20:08, open format); hand 1 again
    at 20:05:30 at the same table in the apps' JSON (another format: a session of its own);
    hands 3 and 4 again with no time (one "no time" row of the table, no minutes)."""
    folder = tmp_path_factory.mktemp("sessions")
    base = alice_hands()
    (folder / "open.jsonl").write_text(
        "".join(
            dumps(r) + "\n"
            for r in [
                *base,
                replace(base[2], room_hand_id="23", played_at=None),
                replace(base[3], room_hand_id="24", played_at=None),
            ]
        ),
        encoding="utf-8",
    )
    bob = placed(
        1, ["Ac:t Kd:t 3s:t 4c:m 4d:m", "4h:m Js:m", "Ks:m 5c:b", "5d:b 6c:b", "8d:b 9c:b"]
    )
    app = replace(
        base[0],
        format="app-json",
        room_hand_id="21",
        played_at=datetime(2026, 3, 1, 20, 5, 30),
        placements=base[0].placements + bob,
    )
    (folder / "app.json").write_text(dumps_app(app), encoding="utf-8")
    data = folder / "data"
    assert import_paths([folder / "open.jsonl", folder / "app.json"], data).stored == 7
    recompute(data)
    out = folder / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", "Alice", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return data, out


def test_the_page_and_duckdb_make_the_same_sessions(
    browser: Any, sessions_page: tuple[Path, Path]
) -> None:
    """The page's sessions (its script, for the hands the filter bar keeps) are the Python
    report's (DuckDB): by hand, the open-format hands 20:02-20:08 (+21 +1 -12 -18 = -8,
    6 minutes first to last plus one: 7), the app's hand at 20:05:30 (+21, 1 minute) and
    the table's two hands with no time in one row (-12 - 18 = -30, no minutes; they were
    a session each): 2 sessions, 8 minutes of play in all."""
    data, path = sessions_page
    with ofc_stats.open(data) as db:
        listed = sessions.build(prepare(db, Filters(player="Alice"))).tables["sessions"]
    python = [
        (
            "no time" if pd.isna(r.start) else r.start.strftime("%Y-%m-%d %H:%M"),
            None if pd.isna(r.minutes) else float(r.minutes),
            r.room,
            r.table,
            int(r.hands),
            int(r.net_points),
        )
        for r in listed.itertuples()
    ]
    assert python == [
        ("2026-03-01 20:02", 7.0, "test", "T1", 4, -8),
        ("2026-03-01 20:05", 1.0, "test", "T1", 1, 21),
        ("no time", None, "test", "T1", 2, -30),
    ]
    page, errors = open_page(browser, path, 1280)
    table = "#table-live-session-list table"
    cells = {name: column(page, table, name) for name in ("start", "minutes", "room", "table")}
    hands, net = column(page, table, "hands"), column(page, table, "net points")
    shown_rows = [
        (start, None if minutes == "–" else float(minutes), room, table_id, int(n), int(p))
        for start, minutes, room, table_id, n, p in zip(*cells.values(), hands, net, strict=True)
    ]
    assert shown_rows[::-1] == python  # the page lists the newest first
    assert summary_value(page, "sessions") == "2"
    assert summary_value(page, "hands without a time (in no session)") == "2"
    assert summary_value(page, "hours of play (table-hours)") == f"{8 / 60:.1f}"
    assert errors == []
    page.close()


def test_the_by_day_table_keeps_the_hand_with_no_time(
    browser: Any, sessions_page: tuple[Path, Path]
) -> None:
    """Alice's five timed hands are one day; the two hands with no time (-12, -18) are a row
    of their own, as in the CSV's by_day (a blank day), not dropped: the rows add up to all
    seven hands."""
    data, path = sessions_page
    with ofc_stats.open(data) as db:
        by_day = sessions.build(prepare(db, Filters(player="Alice"))).tables["by_day"]
    python = [
        ("no time" if pd.isna(d) else str(d), int(n))
        for d, n in zip(by_day["day"], by_day["hands"], strict=True)
    ]
    assert python == [("2026-03-01", 5), ("no time", 2)]
    page, errors = open_page(browser, path, 1280)
    table = "#table-live-period table"
    days, hands = column(page, table, "day"), column(page, table, "hands")
    assert list(zip(days, map(int, hands), strict=True)) == python
    assert column(page, table, "hours")[-1] == "–"  # no time, no hours
    assert errors == []
    page.close()


def test_under_thirty_hands_no_interval_and_no_rate_per_hour_and_the_page_says_why(
    browser: Any, sessions_page: tuple[Path, Path]
) -> None:
    """Alice's 7 hands are under the 30 (reports/stats.py MIN_HANDS) an interval or a rate
    per hour needs: the page showed a "95% interval" of one hand (the point) and points
    per hour of a 1-minute session (+21: 1,260 an hour).  Now each is "–", and the
    summary, the headline and each table's caption say why."""
    _, path = sessions_page
    page, errors = open_page(browser, path, 1280)
    for measure in ("95% interval, low", "95% interval, high", "points per hour of play"):
        assert summary_value(page, measure) == "–", measure
    why = "from 30 hands up (fewer say nothing)"
    headline = page.inner_text("#live-headline")
    assert "(no 95% interval under 30 hands: fewer say nothing)." in headline
    sessions_table, period = "#table-live-session-list table", "#table-live-period table"
    assert column(page, sessions_table, "points per hour") == ["–", "–", "–"]
    for name in ("95% low", "95% high", "points per hour"):
        assert set(column(page, period, name)) == {"–"}, name
    for block in ("live-summary", "live-session-list", "live-period", "live-stakes"):
        assert why in page.inner_text(f"#table-{block} .caption"), block
    assert errors == []
    page.close()


@pytest.fixture(scope="module")
def busy_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """90 simulated hands at 4 tables of 3 from 6 players, 90 seconds apart at a table (one
    session a table); the report of the player with the most hands."""
    from tests.builders import sim_records

    folder = tmp_path_factory.mktemp("busy")
    data = write_dataset(folder, sim_records(90, seed=5))
    with ofc_stats.open(data) as db:
        ((player, _),) = db.sql(
            "SELECT player, count(*) AS n FROM seats GROUP BY 1 ORDER BY n DESC, 1 LIMIT 1"
        ).fetchall()
    out = folder / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", player, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return data, out, player


def test_from_thirty_hands_the_interval_and_the_rate_per_hour_are_given(
    browser: Any, busy_page: tuple[Path, Path, str]
) -> None:
    """The busiest player has 30 or more hands on the day, each session under 30: the
    summary and the day give points per hour (net over the sessions' hours, DuckDB's), the
    sessions do not."""
    data, path, player = busy_page
    with ofc_stats.open(data) as db:
        listed = sessions.build(prepare(db, Filters(player=player))).tables["sessions"]
    hands, net = int(listed["hands"].sum()), float(listed["net_points"].sum())
    hours = float(listed["minutes"].sum()) / 60
    assert hands >= 30 and (listed["hands"] < 30).all()
    page, errors = open_page(browser, path, 1280)
    # (a point figure of the summary carries its sign; the by-day table's does not)
    assert summary_value(page, "points per hour of play") == f"{net / hours:+,.1f}"
    assert summary_value(page, "95% interval, low") != "–"
    assert column(page, "#table-live-period table", "points per hour") == [f"{net / hours:,.1f}"]
    assert set(column(page, "#table-live-session-list table", "points per hour")) == {"–"}
    assert errors == []
    page.close()


@pytest.mark.skipif(not APPS.is_dir(), reason="the shared samples are not here")
@pytest.mark.parametrize("width", WIDTHS)
def test_by_day_bars_are_visible_on_the_real_samples(
    browser: Any, samples_page: Path, width: int
) -> None:
    page, errors = open_page(browser, samples_page, width)
    heights = page.evaluate(
        """() => Array.from(document.querySelectorAll('#chart-live-period .bars .point path'))
            .map(p => p.getBoundingClientRect().height)"""
    )
    assert len(heights) == 5 and min(heights) > 2  # five days of play, every bar drawn
    page.select_option("#period-by", "week")
    # 29 and 30 March 2021 are a Monday and a Tuesday: one week
    weeks = page.evaluate("document.getElementById('chart-live-period').data[0].x")
    assert weeks == ["2020-05-25", "2021-03-29", "2022-04-11", "2022-06-20"]
    assert too_wide(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert errors == []
    page.close()


def outside_their_box(page: Any) -> list[str]:
    """Axis titles drawn past their chart's box (plotly cuts them off there)."""
    return list(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('.chart')).flatMap(c => {
                const svg = c.querySelector('.main-svg');
                if (!svg || c.offsetParent === null) return [];
                const box = svg.getBoundingClientRect();
                return Array.from(c.querySelectorAll('.g-xtitle text, .g-ytitle text')).filter(t => {
                    const r = t.getBoundingClientRect();
                    return r.left < box.left - 0.5 || r.right > box.right + 0.5
                        || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5;
                }).map(t => c.id + ': ' + t.textContent);
            })"""
        )
    )


def summary_overflows(page: Any) -> list[str]:
    """What in the summary reaches past its card (a phone scrolled the summary sideways)."""
    return list(
        page.evaluate(
            """() => { const card = document.querySelector('#summary .card'), edge = card.getBoundingClientRect().right;
                const wide = card.scrollWidth > card.clientWidth ? ['the card scrolls'] : [];
                return wide.concat(Array.from(card.querySelectorAll('*'))
                    .filter(e => e.getBoundingClientRect().right > edge + 0.5).map(e => e.tagName + ' ' + e.textContent.slice(0, 40))); }"""
        )
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_the_real_samples_fouls_and_fantasyland_lines_axis_titles_and_summary(
    browser: Any, samples_page: Path, width: int
) -> None:
    """Unfiltered, the script's fouls and Fantasyland lines are the ones ofc-stats report
    drew (reports/live_figures.py, shown before the rows are in and without a script);
    filtered, they change.  No axis title runs past its chart (at 390 px "points per hand
    against them (before caps)" did), nothing in the summary past its card (a word longer
    than a phone is wide wraps), and every point figure of the summary carries its sign."""
    drawn = samples_page.read_text(encoding="utf-8")
    python = {
        key: html.unescape(found[1])
        for key in ("live-fouls", "live-fantasy")
        if (found := re.search(f'<p class="card live-figure" id="{key}">(.*?)</p>', drawn))
    }
    assert python["live-fouls"].startswith(
        "Your foul rate over these normal hands: 30.4% (427 of 1,403;"
    )  # tests/test_page_live_fouls.py counts it in SQL
    page, errors = open_page(browser, samples_page, width)
    page.wait_for_function("document.body.dataset.charts === '1'")
    assert {key: page.text_content(f"#{key}") for key in python} == python
    assert outside_their_box(page) == []
    assert summary_overflows(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    summary = page.inner_text("#summary")
    # (+1.19 and +0.30 to +2.07 in the live line and the results' line alike: the live line
    # wrote 0.30 to 2.07 beside the other's +0.30 to +2.07)
    figures = re.findall(r"(\S+) points per hand|95% interval (\S+) to ([^\s)]+)", summary)
    numbers = [n for found in figures for n in found if n and not n.endswith("%")]
    assert len(numbers) >= 6 and all(n[0] in "+-" for n in numbers), numbers
    # A word longer than the phone is wide (an account, a hand key) wraps in the summary.
    page.evaluate(
        "document.querySelector('#summary .leaks').appendChild(document.createElement('li'))"
        ".textContent = 'x'.repeat(120)"
    )
    assert summary_overflows(page) == []
    # Python writes numbers as Intl.NumberFormat and toFixed do (both halves away from 0).
    values = [1.125, -1.125, 2.5, 1.005, 0.004, -0.004, 1234567.891, 17.255]
    intl = page.evaluate(
        "vs => vs.map(v => new Intl.NumberFormat('en', {minimumFractionDigits: 2,"
        " maximumFractionDigits: 2}).format(v))",
        values,
    )
    assert [fixed(v, 2) for v in values] == intl
    shares = [3 / 2000, 427 / 1403, 1 / 3, 0.0005, 1.0]
    to_fixed = page.evaluate("vs => vs.map(v => (100 * v).toFixed(1) + '%')", shares)
    assert [percent(v) for v in shares] == to_fixed
    page.select_option("#f-room", index=1)
    assert page.text_content("#live-fouls") != python["live-fouls"]
    assert errors == []
    page.close()


@pytest.fixture(scope="module")
def samples_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("samples")
    data, out = folder / "data", folder / "report.html"
    imported = CliRunner().invoke(main, ["import", str(APPS), "--data", str(data), "--quiet"])
    assert imported.exit_code == 0, imported.output
    made = CliRunner().invoke(main, ["report", "--data", str(data), "--out", str(out)])
    assert made.exit_code == 0, made.output
    return out


class _Watch(http.server.BaseHTTPRequestHandler):
    """A server named in player names: every request it gets is a fetch the page must not make."""

    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()
        self.wfile.write(b"\x89PNG\r\n\x1a\n")

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _markup_names(port: int) -> tuple[str, str]:
    """A hero and an opponent whose names are markup fetching from the local server."""
    at = f"http://127.0.0.1:{port}"
    hero = f"<img src={at}/pixel.png?who=Ana>Ana"
    opponent = (
        f'<a href="{at}/link">Bob</a><span style="background:url({at}/fill.svg)">$x$</span>'
        f"<svg><image href={at}/image.svg /></svg><link rel=stylesheet href={at}/style.css>"
    )
    return hero, opponent


def test_markup_in_names_fetches_nothing(browser: Any, tmp_path: Path) -> None:
    """Issue 30 item 7: plotly reads its labels as markup; names reach tick labels, legends,
    titles and hover text.  The page, opened and its charts hovered, asks the local
    server for nothing, and the names show as text."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Watch)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        hero, opponent = _markup_names(server.server_address[1])
        records = [
            replace(
                record,
                seats=tuple(
                    replace(seat, player=opponent) if seat.player == "Bob" else seat
                    for seat in record.seats
                ),
            )
            for record in alice_hands(hero)
        ]
        data = write_dataset(tmp_path, records)
        out = tmp_path / "report.html"
        result = CliRunner().invoke(
            main, ["report", "--data", str(data), "--player", hero, "--out", str(out)]
        )
        assert result.exit_code == 0, result.output
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(out.as_uri())
        page.wait_for_selector("#chart-live-cumulative .main-svg")
        for chart in page.locator(".chart").all():  # every chart drawn (some draw when seen)
            chart.scroll_into_view_if_needed()
        page.wait_for_selector("#chart-live-opponents .main-svg")
        for label in page.locator(".chart .main-svg text").all()[:120]:  # hover text too
            if label.is_visible():
                label.hover(force=True)
        page.wait_for_timeout(300)
        texts = " ".join(page.locator(".chart .main-svg").all_text_contents())
        page.close()
    finally:
        server.shutdown()
        server.server_close()
    assert _Watch.hits == []
    assert [url for url in requests if not url.startswith(("file:", "data:", "blob:"))] == []
    assert "Bob</a><span style=" in texts  # the opponent's name, as text in a tick label


# --- The replayer's data: packed, gzipped, inflated after the page is drawn ----------------


def carried_hands(page: Any) -> dict[str, Any]:
    """The hands the page's script unpacked, once they are in."""
    page.wait_for_selector("body[data-replayer=ready]", state="attached")
    hands: dict[str, Any] = page.evaluate("window.ofcHands()")
    return hands


def odd_hand(key: str, name: str) -> dict[str, Any]:
    """A hand as hand_details writes one, with what packing must keep: a row out of street
    order, discards that are not the streets', jokers, graded streets, missing values,
    a seat with no streets, markup and a control character in names."""
    grade = {"kind": "street", "status": "ok", "played": "<b>Qs top</b>", "best": "Qs mid",
             "loss": 1.25, "loss_se": None,
             "candidates": [
                 {"play": "Qs 2c", "ev": 2.75, "se": 0.5, "chosen": False, "best": False,
                  "above_best": True},
                 {"play": "Qs mid", "ev": 2.5, "se": 0.125, "chosen": False, "best": True,
                  "above_best": False},
                 {"play": "<b>Qs top</b>", "ev": 1.25, "se": None, "chosen": True, "best": False,
                  "above_best": False},
                 {"play": "Qs bottom", "ev": None, "se": 0.5, "chosen": False, "best": False,
                  "above_best": False},
             ]}  # fmt: skip
    streets = [
        {"street": 1, "top": ["Qs"], "middle": ["X1", "2c"], "bottom": ["Ah", "Kh"],
         "discards": [], "grade": grade},
        {"street": 2, "top": ["Qd"], "middle": [], "bottom": ["3h"], "discards": ["9c"],
         "grade": None},
    ]  # fmt: skip
    seat = {
        "seat": 0, "player": name, "account": "acct\u202e", "hero": True, "in_fantasy": False,
        "fantasy_cards": None,
        "rows": {"top": ["Qd", "Qs"], "middle": ["X1", "2c"], "bottom": ["Ah", "Kh", "3h"]},
        "names": {"top": "pair of Qs", "middle": None, "bottom": "A-high"},
        "streets": streets, "discards": ["9c", "4d"], "status": "incomplete", "fouled": None,
        "royalties": {"top": 7, "middle": None, "bottom": 0, "total": 7},
        "net": None, "net_capped": None, "reported_points": -3.5, "reported_money": None,
        "fantasy_entry": 0, "fantasy_stays": None, "versus": {"1": -3.5, "10": 2.0},
    }  # fmt: skip
    other = {
        **seat, "seat": 1, "player": "Bob", "account": "Bob", "hero": False, "in_fantasy": True,
        "fantasy_cards": 14, "streets": [], "discards": ["2d"], "status": "scored",
        "fouled": False, "versus": {},
        "rows": {"top": ["Kc", "Kd", "Ks"], "middle": [], "bottom": ["X2"]},
    }  # fmt: skip
    return {
        "key": key, "room": "r<o>om", "table": None, "room_hand_id": "7", "played_at": None,
        "ruleset": "joker-pineapple", "stakes": 0.25, "currency": None, "seats": [seat, other],
    }  # fmt: skip


def test_the_replayer_unpacks_every_field_as_hand_details_wrote_it(
    browser: Any, tmp_path: Path
) -> None:
    """The packed layout (reports/replay.py pack) comes back exactly in the page, gzipped
    (a report) or as JSON (a single hand's page)."""
    from reports.html import hand_page, head, replayer_block

    hands = {k: odd_hand(k, name) for k, name in (("a~1", HOSTILE), ('b"2', "Ann\x1b[31m"))}
    report = tmp_path / "report.html"
    report.write_text(head("t") + replayer_block(hands) + "</body></html>")
    single = tmp_path / "hand.html"
    single.write_text(hand_page(hands["a~1"]))
    for path, want in ((report, hands), (single, {"a~1": hands["a~1"]})):
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.goto(path.as_uri())
        assert carried_hands(page) == want
        assert errors == []
        page.close()


def test_a_page_opened_at_a_hand_shows_it_once_its_data_is_in(
    browser: Any, page_file: Path
) -> None:
    page, errors = open_page(browser, page_file, 1280)
    key = page.evaluate("document.querySelector('#live-browser a.hand').textContent")
    page.close()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(page_file.as_uri() + "#hand=" + quote(key, safe=""))
    page.locator("#replayer .seat").first.wait_for()
    assert "Seat 0: " + HOSTILE in page.locator("#replayer").text_content()  # as text
    assert page.evaluate("document.body.dataset.ready") == "1"
    # plotly.js ran after the rest was drawn (its text is gone once run) and drew every chart.
    page.wait_for_selector("body[data-charts]", state="attached")
    assert page.locator("#plotly-js").count() == 0
    assert page.evaluate(
        "Array.from(document.querySelectorAll('.chart')).every(c => c.querySelector('.main-svg'))"
    )
    assert errors == []
    page.close()


def test_without_decompression_the_page_draws_and_the_replayer_says_why(
    browser: Any, page_file: Path
) -> None:
    """A browser without DecompressionStream draws the whole page as the server wrote it
    (summary, tables and charts: every hand of the report), links the carried hands, shows
    one line in the replayer, not a broken one, and the filter bar says in one line why it
    cannot filter (its controls disabled)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("delete window.DecompressionStream")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(page_file.as_uri())
    page.wait_for_selector("body[data-charts]", state="attached")
    assert page.locator(".chart .main-svg").count() >= 7
    assert page.locator("#chart-live-cumulative").count() == 0  # the server's sections
    assert page.evaluate("document.body.dataset.filters") == "unavailable"
    status = page.text_content("#f-status") or ""
    assert "cannot filter" in status and "DecompressionStream" in status
    assert page.locator("#f-room").is_disabled() and page.locator("#f-reset").is_disabled()
    page.wait_for_selector("body[data-replayer=unavailable]", state="attached")
    links = page.locator("#hands a.hand")
    assert links.count() >= 1
    key = links.first.text_content() or ""
    links.first.click()
    replayer = page.locator("#replayer")
    replayer.wait_for(state="visible")
    line = replayer.locator(".panel p").text_content() or ""
    assert "DecompressionStream" in line and f"ofc-stats hand {key}" in line
    assert replayer.locator(".seat").count() == 0
    replayer.get_by_role("button", name="Close").click()
    replayer.wait_for(state="hidden")
    assert errors == []
    context.close()


@pytest.fixture(scope="module")
def graded_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, pd.DataFrame]:
    """Eight simulated heads-up hands, graded, and a report of the player whose street
    lost the most (a heads-up hand carries both seats, so every hand of the page)."""
    from ofc_stats.grade.run import GradeOptions, grade_dataset
    from tests.test_grade_store import heads_up

    folder = tmp_path_factory.mktemp("graded")
    data = heads_up(folder, 8, seed=1)
    grade_dataset(data, GradeOptions(rollouts=8), workers=1)
    with ofc_stats.open(data) as db:
        streets = db.df(
            "SELECT g.hand_key, g.seat, g.street, g.loss, g.loss_se, g.best_play,"
            " g.chosen_play, s.player FROM grades g JOIN seats s USING (hand_key, seat)"
            " WHERE g.kind = 'street' AND g.status = 'graded' ORDER BY g.loss DESC"
        )
    out = folder / "report.html"
    player = str(streets.iloc[0]["player"])
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", player, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return data, out, streets


def street_view(browser: Any, report: Path, row: Any) -> tuple[Any, Any, list[str]]:
    """The report opened at ``row``'s hand and street: the page and that seat's box."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(report.as_uri() + "#hand=" + quote(str(row["hand_key"]), safe=""))
    replayer = page.locator("#replayer")
    replayer.locator(".seat").first.wait_for()
    street = f"Street {int(row['street']) + 1}"
    replayer.get_by_role("button", name=street, exact=True).click()
    seat = replayer.locator(".seat").filter(has_text=f"Seat {int(row['seat'])}: {row['player']}")
    return page, seat, errors


def test_the_replayer_shows_a_streets_grade_as_ofc_stats_hand_does(
    browser: Any, graded_page: tuple[Path, Path, pd.DataFrame]
) -> None:
    """A graded street shows the play made, the best play, the expected loss ± SE in the
    words of ``ofc-stats hand``, and the best candidates' values; a street without loss
    says so in the same words, not "0.00 ± 0.00"."""
    data, report, streets = graded_page
    worst = streets.iloc[0]
    assert worst["loss"] > 0
    said = CliRunner().invoke(main, ["hand", str(worst["hand_key"]), "--data", str(data)])
    assert said.exit_code == 0, said.output
    line = f"expected loss {worst['loss']:.2f} ± {worst['loss_se']:.2f}; best: {worst['best_play']}"
    assert line in said.stdout  # what `ofc-stats hand` prints for this street
    page, seat, errors = street_view(browser, report, worst)
    grade = seat.locator(".grade")
    grade.wait_for()
    text = grade.text_content() or ""
    assert line in text
    assert f"played: {worst['chosen_play']}" in text
    with ofc_stats.open(data) as db:
        values = db.df(
            "SELECT play, ev, se, chosen, best FROM grade_candidates"
            " WHERE hand_key = $k AND seat = $s AND street = $t ORDER BY ev DESC, candidate",
            {"k": worst["hand_key"], "s": int(worst["seat"]), "t": int(worst["street"])},
        )
    rows = grade.locator("table.candidates tbody tr")
    cells = [[c.strip() for c in r.split("\t")] for r in rows.evaluate_all(
        "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent).join('\t'))"
    )]  # fmt: skip
    top = values.head(3)
    assert [c[0] for c in cells[:3]] == list(top["play"])
    assert [c[1] for c in cells[:3]] == [f"{v:.2f}" for v in top["ev"]]
    best = values[values["best"]].iloc[0]
    chosen = values[values["chosen"]].iloc[0]
    assert [best["play"], f"{best['ev']:.2f}"] in [c[:2] for c in cells if "best" in c[3]]
    assert [chosen["play"], f"{chosen['ev']:.2f}"] in [c[:2] for c in cells if "played" in c[3]]
    assert errors == []
    page.close()

    calm = streets[streets["loss"] <= 0].iloc[0]
    page, seat, errors = street_view(browser, report, calm)
    text = seat.locator(".grade").text_content() or ""
    assert "no expected loss: the best play, or within 2 SE of it" in text
    assert "expected loss 0.00" not in text
    assert errors == []
    page.close()


@pytest.mark.skipif(not APPS.is_dir(), reason="the shared samples are not here")
def test_the_real_samples_hands_come_back_as_hand_details_gives_them(
    browser: Any, samples_page: Path
) -> None:
    from reports.replay import hand_details

    page, errors = open_page(browser, samples_page, 1280)
    got = carried_hands(page)
    assert len(got) > 1000
    with ofc_stats.open(samples_page.parent / "data") as db:
        want = hand_details(db, list(got))
    assert json.loads(json.dumps(want)) == got
    assert errors == []
    page.close()


# --- The filter bar's data: packed, gzipped, inflated after the page is drawn -------------


def unpacked_live(page: Any, ident: str = "live-data") -> dict[str, Any]:
    """The filter bar's data as the page's script unpacks it (before startLive reshapes it)."""
    live: dict[str, Any] = page.evaluate(f"window.ofcReadLive({json.dumps(ident)})")
    return live


def plain_live(live: dict[str, Any]) -> dict[str, Any]:
    """page_data as the page carried it before it was packed: plain JSON, hand_ids left out."""
    from reports.html import script_json

    shown = {k: v for k, v in live.items() if k != "hand_ids"}
    plain: dict[str, Any] = json.loads(script_json(shown, plain=True))
    return plain


@pytest.mark.skipif(not APPS.is_dir(), reason="the shared samples are not here")
def test_the_real_samples_filter_data_comes_back_as_page_data_gives_it(
    browser: Any, samples_page: Path
) -> None:
    from reports import Filters, checked, choose_player
    from reports.explore import page_data

    page, errors = open_page(browser, samples_page, 1280)
    got = unpacked_live(page)
    with ofc_stats.open(samples_page.parent / "data") as db:
        scope = prepare(db, checked(db, choose_player(db, None).scope(Filters())))
        want = plain_live(page_data(scope))
    assert len(got["hands"]["key"]) > 1800
    assert got == want
    assert errors == []
    page.close()


def odd_live() -> dict[str, Any]:
    """page_data's shape with what packing must keep: a key of another shape (its room
    missing), a key whose table holds a colon, markup and a control character in names,
    hands without a time (first, between and last), with no opponent, times that go back."""
    import numpy as np

    keys = ["open:r<o>om:T:1", "app-json::T:2", "open:r<o>om:a:b:3~f1", "x", "open:r<o>om:T:1#2"]
    return {
        "formats": ["app-json", "open"],
        "rooms": ["", "r<o>om"],
        "currencies": ["", "U\x1bSD"],
        "accounts": ["Ann</script>"],
        "tables": ["T", "a:b"],
        "opponents": ["B&b", "C\u202eol"],
        "session_gap": 30,
        "shared": {},
        "hand_ids": [5, 4, 3, 2, 1],
        "hands": {
            "key": keys,
            "t": [None, 1_700_000_000, None, 1_699_999_000, None],
            "fmt": np.array([1, 0, 1, 1, 1]),
            "room": np.array([1, 1, 1, 0, 1]),
            "table": np.array([0, 0, 1, 0, 0]),
            "stakes": np.array([0.25, np.nan, 2.0, -0.0, 1e-4]),
            "cur": np.array([1, 0, 1, 0, 1]),
            "seats": [2, None, 3, 2, 2],
            "acct": np.array([0, 0, 0, 0, 0]),
            "scored": np.array([1, 0, 1, 1, 1], np.int8),
            "points": np.array([-4.0, np.nan, 0.29, -0.0, 1e6]),
            "money": np.array([np.nan, np.nan, 0.1234, -12.5, 3.0]),
            "foul": np.array([0, 0, 1, 0, 0], np.int8),
            "fl": np.array([1, 0, 0, 0, 0], np.int8),
            "earns": np.array([0, 0, 0, 1, 0], np.int8),
            "roy": np.array([7.0, np.nan, 0.0, 2.5, 0.0]),
            "opp_at": np.array([0, 2, 2, 3, 3, 5]),
            "opp": np.array([0, 1, 1, 0, 1]),
            "vs": np.array([-4.0, 2.5, 0.29, -1.0, np.nan]),
            "rules": np.array([np.nan, np.nan, 0.1234, -12.5, 3.0]),
            "paid": np.array([np.nan, 1.0, 0.1234, -12.5, 3.0]),
            "loss": np.array([np.nan, np.nan, 1.25, np.nan, 0.001]),
        },
    }


def test_the_filter_data_unpacks_exactly_on_odd_hands(browser: Any, tmp_path: Path) -> None:
    """reports.explore.pack and the script's unpackLive give back page_data's JSON exactly:
    odd keys, missing and unordered times, hands with no opponent, every time present (an
    array) or none, no hand at all."""
    import numpy as np

    from reports.explore import pack
    from reports.html import gzip_script, head, script_json

    odd = odd_live()
    timed = {**odd, "hands": {**odd["hands"], "t": np.array([3, 1, 2, 2, 10**10])}}
    untimed = {**odd, "hands": {**odd["hands"], "t": [None] * 5}}
    empty = {**odd, "hand_ids": [], "hands": {c: np.zeros(0, np.int64) for c in odd["hands"]}}
    empty["hands"]["opp_at"] = np.zeros(1, np.int64)
    empty["hands"]["key"] = []
    cases = {"odd": odd, "timed": timed, "untimed": untimed, "empty": empty}
    scripts = "".join(
        gzip_script(f"case-{name}", script_json(pack(live), plain=True), 6)
        for name, live in cases.items()
    )
    path = tmp_path / "page.html"
    path.write_text(head("t") + scripts + "</body></html>", encoding="utf-8")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    for name, live in cases.items():
        assert unpacked_live(page, f"case-{name}") == plain_live(live), name
    assert pack(odd)["hands"]["key_whole"] == [1, 3]  # no room; not a key's shape
    assert errors == []
    page.close()


def test_filters_touched_before_their_data_is_in_say_so_then_apply(
    browser: Any, filter_page: tuple[Path, Path]
) -> None:
    """Until the filter bar's rows are in, the server's sections show and a filter touched
    says it is reading them; once in, the filter chosen meanwhile is applied."""
    data, path = filter_page
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(  # the inflated bytes held back until the test lets them through
        """(() => {
            const Real = window.DecompressionStream;
            window.__hold = new Promise(r => { window.__release = r; });
            window.DecompressionStream = function (format) {
                const real = new Real(format);
                const wait = new TransformStream({start() { return window.__hold; }});
                return {writable: real.writable, readable: real.readable.pipeThrough(wait)};
            };
        })();"""
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]", state="attached")
    assert page.evaluate("document.body.dataset.filters") == "loading"
    assert page.locator("#results .static .table-block").count() >= 1  # the server's tables
    assert (page.text_content("#f-status") or "") == ""
    page.select_option("#f-room", ROOM)
    assert page.text_content("#f-status") == "Reading the hands for the filters…"
    page.evaluate("window.__release()")
    page.wait_for_selector("body[data-filters=ready]", state="attached")
    page.wait_for_selector("#chart-live-cumulative .main-svg")
    assert page.locator(".static").count() == 0
    agrees(page, expected(data, f"room = '{ROOM}'"))
    assert page.text_content("#f-status") == "3 of 7 hands"
    assert errors == []
    context.close()


def screenshots(report: Path, folder: Path) -> list[Path]:
    """The report at both widths, the top of the page and a replayed hand."""
    written = []
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for width in WIDTHS:
            page = launched.new_page(
                viewport={"width": width, "height": 900 if width > 500 else 844}
            )
            page.goto(report.resolve().as_uri())
            page.wait_for_selector(".chart .main-svg")
            page.wait_for_timeout(500)
            path = folder / f"report-{width}.png"
            page.screenshot(path=str(path))
            page.locator("#hands a.hand").first.click()
            page.locator("#replayer").wait_for(state="visible")
            hand = folder / f"report-hand-{width}.png"
            page.screenshot(path=str(hand))
            written += [path, hand]
            page.close()
        launched.close()
    return written


if __name__ == "__main__":
    for shot in screenshots(Path(sys.argv[1]), Path(sys.argv[2])):
        print(shot)


def test_money_won_on_the_page_counts_a_hand_paid_but_not_scored(
    browser: Any, tmp_path: Path
) -> None:
    """The report's summary counts what the room paid on every hand, scored or not
    (tests/test_audit_ledger_unscored.py: 10.5 + 10.5 + 9.5 + 7 = 37.5 USD, the fourth hand
    unscorable); the page's live summary left the 7 out (30.50) and its headline said the
    unscored hand had "no result to count"."""
    from tests.test_audit_ledger_unscored import BOB_SHORT, _hand

    records = [_hand(1, 10.5), _hand(2, 10.5), _hand(3, 9.5), _hand(4, 7.0, BOB_SHORT)]
    data = write_dataset(tmp_path, records)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", "Alice", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    page, errors = open_page(browser, out, 1280)
    assert summary_value(page, "hands") == "3"  # points: the scored hands
    assert summary_value(page, "money won (USD)") == "+37.50"  # signed, cents kept
    headline = page.inner_text("#live-headline")
    assert (
        "(1 more not scored: no points to count; money won counts what the room paid on it)"
        in headline
    )
    assert errors == []
    page.close()


def test_the_cumulative_chart_has_the_line_without_royalties_and_marks_fantasyland(
    browser: Any, tmp_path: Path
) -> None:
    """docs/player.md promised what only the exported chart had: the page's cumulative
    points now end where the results' table does, with a second line of the row points
    alone ending at the table's "without_royalties" and a mark on each Fantasyland hand
    (Alice's hands of tests/test_reports.py, one in Fantasyland)."""
    from reports import results

    data = write_dataset(tmp_path, alice_hands(HOSTILE))
    with ofc_stats.open(data) as db:
        table = results.build(prepare(db, Filters(player=HOSTILE))).tables["cumulative"]
    path = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", HOSTILE, "--out", str(path)]
    )
    assert result.exit_code == 0, result.output
    page, errors = open_page(browser, path, 1280)
    traces = page.evaluate(
        "() => document.getElementById('chart-live-cumulative').data"
        ".map(d => [d.name, d.y[d.y.length - 1], d.y.length])"
    )
    (points, last, _), (rows, last_rows, _), (marks, _, marked) = traces
    assert (points, rows, marks) == ("points", "without royalties", "Fantasyland hand")
    assert last == pytest.approx(float(table["points"].iloc[-1]))
    assert last_rows == pytest.approx(float(table["without_royalties"].iloc[-1]))
    assert last != pytest.approx(last_rows)  # the premise: royalties were won or paid
    assert marked == int(table["fantasyland"].sum()) > 0
    assert errors == []
    page.close()


def test_a_hand_page_of_its_own_writes_money_as_the_cli_and_has_no_close(
    browser: Any, tmp_path: Path
) -> None:
    """`ofc-stats hand KEY --format html` is a page of one hand: its replayer wrote "money
    +10.5" (the CLI and the report write "+10.50 USD") and offered a Close that closed
    nothing.  Alice's hand of tests/test_audit_ledger_unscored.py: paid 10.5 USD."""
    from tests.test_audit_ledger_unscored import _hand

    data = write_dataset(tmp_path, [_hand(1, 10.5)])
    key = "open:test:T1:1"
    text = CliRunner().invoke(main, ["hand", key, "--data", str(data)])
    assert "  money +10.50 USD (room)\n" in text.output
    assert "  money -10.50 USD (room)\n" in text.output
    out = tmp_path / "hand.html"
    result = CliRunner().invoke(
        main, ["hand", key, "--data", str(data), "--format", "html", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(out.as_uri())
    page.wait_for_selector("#replayer .facts")
    facts = page.locator("#replayer .facts").all_inner_texts()
    assert "money +10.50 USD" in facts and "money -10.50 USD" in facts
    assert page.locator("#replayer button.close").count() == 0
    assert errors == []
    page.close()


def test_the_live_ledger_says_how_the_rules_price_the_money(
    browser: Any, filter_page: tuple[Path, Path]
) -> None:
    """A player's find: the ledger's caption named each room's money rule (its rake, its
    short stacks) until the page's script drew the live ledger without it, so money won
    below points × stakes had nothing to explain it.  The live caption names each rule
    the section's own caption names, and only for the rooms the filter bar keeps."""
    from ofc_stats.store.views import open_dataset
    from reports import Filters, prepare
    from reports.explore import _money_rules

    data, path = filter_page
    with open_dataset(data) as db:
        rules = _money_rules(prepare(db, Filters(player=HOSTILE)))
    assert rules, "the fixture's money is priced"
    page, errors = open_page(browser, path, 1280)
    caption = page.locator("#table-live-ledger-table .caption").text_content()
    shown = {
        f"{room} {'' if currency == '–' else currency}".strip()
        for room, currency in zip(
            column(page, "#table-live-ledger-table table", "room"),
            column(page, "#table-live-ledger-table table", "currency"),
            strict=True,
        )
    }
    assert shown & set(rules)
    for key in shown & set(rules):
        assert f"{key}: {rules[key]}" in caption
    assert errors == []
    page.close()
