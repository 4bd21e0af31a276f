"""The report page in a real browser: Debian's Chromium driven by Playwright.

At a desktop width (1280 px) and a phone's (390 px): the charts draw, a click
on a column header sorts, the row filter and the page's date filter narrow
the rows, a named hand opens in the replayer street by street, the page
never scrolls sideways, and the console stays free of errors.

``python -m tests.test_browser REPORT.html FOLDER`` saves the README's
screenshots of a report at both widths.
"""

from __future__ import annotations

import http.server
import shutil
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from ofc_stats.cli import main
from tests.builders import write_dataset
from tests.test_reports import HOSTILE, alice_hands

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
    """The visible cells of one column of a table, top to bottom."""
    return list(
        page.evaluate(
            """([table, name]) => {
                const t = document.querySelector(table);
                const i = Array.from(t.tHead.rows[0].cells).findIndex(c => c.textContent.startsWith(name));
                return Array.from(t.tBodies[0].rows).filter(r => !r.hidden).map(r => r.cells[i].textContent);
            }""",
            [table, name],
        )
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_report_sorts_filters_and_opens_a_hand(browser: Any, page_file: Path, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: errors.append(f"dialog: {d.message}"))  # the hostile name ran
    page.goto(page_file.as_uri())
    page.wait_for_selector("#chart-results-cumulative .main-svg")  # plotly drew it
    assert page.locator(".chart .main-svg").count() >= 7
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll

    hands = "#table-hands-hands table"
    points = column(page, hands, "points")
    assert points == ["21", "1", "-18", "-12", "-12", "1"]  # wins, losses, fouls, Fantasyland
    page.locator(f"{hands} th", has_text="points").click()
    assert column(page, hands, "points") == ["-18", "-12", "-12", "1", "1", "21"]
    page.locator(f"{hands} th", has_text="points").click()
    assert column(page, hands, "points") == ["21", "1", "1", "-12", "-12", "-18"]

    page.fill("#table-hands-hands input.filter", "losses")
    assert column(page, hands, "kind") == ["biggest losses", "biggest losses"]
    assert page.text_content("#table-hands-hands .count") == "2 of 6 rows"
    page.fill("#table-hands-hands input.filter", "")
    page.fill("#f-from", "2026-03-02")  # every hand was played on 1 March
    assert column(page, hands, "kind") == []
    page.click("#f-reset")
    assert len(column(page, hands, "kind")) == 6

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
        page.wait_for_selector("#chart-results-cumulative .main-svg")
        for chart in page.locator(".chart").all():  # every chart drawn (some draw when seen)
            chart.scroll_into_view_if_needed()
        page.wait_for_selector("#chart-results-by_opponent .main-svg")
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
            page.locator("a.hand").first.click()
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
