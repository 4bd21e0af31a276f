"""The report page in headless Chromium: its size and how long it takes to open, against a
reference checkout's page of the same dataset, loaded alternately in the same run.

    .venv/bin/python bench/report_page.py [--reference main] [--runs 7] [--no-record]
                                          [--large DATA] [--large-runs 5]

Two datasets are imported into a temporary folder: the demo's (``data/sim-open.jsonl``
and ``data/sim-app.hh``, the ``make demo`` page) and the real app samples
(``../shared/samples/apps``, skipped where absent); with ``--large DATA``, a dataset
already built (``bench/report.py --keep DIR`` leaves ``DIR/n1000000/data``: a player with
201,960 hands) gives a third page, its hero's, loaded ``--large-runs`` times each.  For
each, ``ofc-stats report`` writes the page twice: with this checkout's ``reports/`` and
with the reference's (``git archive REF reports``, put first on ``PYTHONPATH``; the rest
of the code is this checkout's).  Both pages are then opened in one Chromium (Debian's,
through Playwright, as ``tests/test_browser.py`` does), alternately reference then new,
``--runs`` times each, a fresh browser context for every load, at ``#hand=KEY`` (a hand
both pages carry), and timed from the navigation's start: the first contentful paint;
the end of the page's DOMContentLoaded work (where its script draws the summary and
tables; on main's page the live sections from the filter bar's rows, and the charts,
too); the filter bar usable (its rows in and the live sections drawn from them: the
headline written), every chart drawn and the replayer showing the hand, each noted at
the first frame that shows it; and the load event.  A third page, the new one with
plotly.js taken out (so no chart is drawn), is loaded in the same rotation: the floor
that shows what plotly.js itself costs.  Printed per dataset: page bytes and its parts
(plotly.js, the hand data, the filter bar's data), medians of each time and the median
and quartiles of the paired new/reference ratios, with the load average.  The medians of
the real samples' page (or the demo's where they are absent), and of the large player's
page, are recorded in ``bench/results/report_page.json``.
"""

from __future__ import annotations

import argparse
import gzip
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from record import record

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.shared_samples import APPS  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LARGE = "large player"  # --large: the hero of a dataset bench/report.py built
TIMES = ("paint", "drawn", "filters", "charts", "replayer", "load")
PLOTLY = r"<script[^>]*>/\*\*\s*\* plotly\.js.*?</script>"
# Noted each frame from the navigation's start: when every chart box holds a drawn chart
# and when the replayer shows the hand (what a person sees, so at a frame, not mid-task).
WATCH = """(() => {
    const t = window.__seen = {};
    const tick = () => {
        const hand = document.querySelector('#replayer:not([hidden]) .seat');
        if (!t.replayer && hand) t.replayer = performance.now();
        const headline = document.querySelector('#live-headline');
        if (!t.filters && headline && headline.textContent) t.filters = performance.now();
        const charts = Array.from(document.querySelectorAll('.chart'));
        if (!t.charts && document.readyState !== 'loading' && charts.length
            && charts.every(c => c.querySelector('.main-svg'))) t.charts = performance.now();
        if (!t.replayer || !t.charts || !t.filters) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
})();"""
TIMING = """() => {
    const n = performance.getEntriesByType('navigation')[0];
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    return [n.loadEventEnd, n.domContentLoadedEventEnd, paint ? paint.startTime : null];
}"""


def cli(args: list[str], path: str) -> None:
    """``ofc-stats ARGS`` in a child process, run in ``path`` (first on sys.path) or here."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (path, str(ROOT)) if p)}
    subprocess.run(
        [sys.executable, "-c", "from ofc_stats.cli.main import main; main()", *args],
        cwd=path or ROOT,
        env=env,
        check=True,
        capture_output=True,
    )


def reference_tree(ref: str, folder: Path) -> Path:
    """``reports/`` of ``ref`` in ``folder`` (the rest is this checkout's)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "reports"], check=True, capture_output=True
    ).stdout
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def hand_key(page: Path) -> str:
    """A hand both pages carry: the first the static tables link to the replayer."""
    found = re.search(r'href="#hand=([^"]+)"', page.read_text(encoding="utf-8"))
    if found is None:
        raise SystemExit(f"{page}: no hand linked to the replayer")
    return unquote(found.group(1))


def parts(page: Path) -> dict[str, int]:
    """Bytes of the page and of its biggest pieces: plotly.js, the hand data and the filter
    bar's data (the live data)."""
    text = page.read_text(encoding="utf-8")
    out = {"page": len(text.encode())}
    for name, pattern in (
        ("plotly.js", r"<script[^>]*>(/\*\*\s*\* plotly\.js.*?)</script>"),
        ("hand data", r'<script type="application/[^"]+" id="hand-data">(.*?)</script>'),
        ("live data", r'<script type="application/[^"]+" id="live-data">(.*?)</script>'),
    ):
        found = re.search(pattern, text, re.S)
        out[name] = len(found.group(1).encode()) if found else 0
    return out


def open_once(browser: Any, page: Path, key: str, charts: bool = True) -> dict[str, float]:
    """One load in a fresh context: the times in ms from the navigation's start (``charts``:
    the page draws charts; the floor, less plotly.js, draws none)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(WATCH)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(page.as_uri() + "#hand=" + key, wait_until="load", timeout=120_000)
    wanted = "t.replayer && t.filters" + (" && t.charts" if charts else "")
    tab.wait_for_function(f"() => {{ const t = window.__seen; return {wanted}; }}", timeout=120_000)
    seen = tab.evaluate("window.__seen")
    load, drawn, paint = tab.evaluate(TIMING)
    context.close()
    if errors:
        raise SystemExit(f"{page}: {errors}")
    return {
        "paint": paint,
        "drawn": drawn,
        "filters": seen["filters"],
        "charts": seen.get("charts", math.nan),
        "replayer": seen["replayer"],
        "load": load,
    }


def median(values: Any) -> float:
    """The median of the values measured (a floor has no charts; a paint can go unreported)."""
    kept = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.median(kept) if kept else math.nan


def floor_text(ms: float) -> str:
    return "no chart drawn" if math.isnan(ms) else f"{ms:.0f} ms"


def quartiles(values: list[float]) -> tuple[float, float, float]:
    if not values:
        return math.nan, math.nan, math.nan
    if len(values) < 2:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4)
    return q[0], statistics.median(values), q[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default="main", help="git ref of the reference reports/")
    parser.add_argument("--runs", type=int, default=7, help="loads of each page (paired)")
    parser.add_argument("--no-record", action="store_true", help="print only")
    parser.add_argument(
        "--large", type=Path, help="a dataset already built (bench/report.py --keep): its page too"
    )
    parser.add_argument("--large-runs", type=int, default=5, help="loads of the large page")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="ofc-page-bench-") as tmp:
        work = Path(tmp)
        ref_tree = reference_tree(args.reference, work / "reference")
        datasets = {"demo": [str(ROOT / "data/sim-open.jsonl"), str(ROOT / "data/sim-app.hh")]}
        if APPS.is_dir():
            datasets["real app samples"] = [str(APPS)]
        if args.large:
            datasets[LARGE] = []
        pages: dict[str, tuple[Path, Path, Path, str]] = {}
        for name, sources in datasets.items():
            data = args.large if name == LARGE else work / f"data-{len(pages)}"
            if sources:
                cli(["import", "--quiet", "--data", str(data), *sources], "")
            new, ref = work / f"new-{len(pages)}.html", work / f"ref-{len(pages)}.html"
            cli(["report", "--data", str(data), "--out", str(new)], "")
            cli(["report", "--data", str(data), "--out", str(ref)], str(ref_tree))
            if new.read_bytes() == ref.read_bytes():
                print(f"{name}: the reference's page is this checkout's (same reports/?)")
            floor = work / f"floor-{len(pages)}.html"  # the new page less plotly.js
            floor.write_text(
                re.sub(PLOTLY, "", new.read_text(encoding="utf-8"), count=1, flags=re.S),
                encoding="utf-8",
            )
            pages[name] = (ref, new, floor, hand_key(ref))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            for name, (ref, new, floor, key) in pages.items():
                open_once(browser, ref, key), open_once(browser, new, key)  # warm up
                runs: dict[str, list[dict[str, float]]] = {"ref": [], "new": [], "floor": []}
                for _ in range(args.large_runs if name == LARGE else args.runs):
                    runs["ref"].append(open_once(browser, ref, key))
                    runs["new"].append(open_once(browser, new, key))
                    runs["floor"].append(open_once(browser, floor, key, charts=False))
                results[name] = {"runs": runs, "ref": parts(ref), "new": parts(new)}
                results[name]["gzip"] = len(gzip.compress(new.read_bytes(), 6))
            browser.close()
    load = os.getloadavg()
    print(
        f"reference: reports/ of {args.reference}; {args.runs} paired loads each "
        f"({args.large_runs} of the large page); load {load}"
    )
    for name, result in results.items():
        ref_parts, new_parts = result["ref"], result["new"]
        print(f"\n{name}:")
        for part in ref_parts:
            print(
                f"  bytes, {part:10} {new_parts[part]:>12,} (reference {ref_parts[part]:>12,},"
                f" ratio {new_parts[part] / max(ref_parts[part], 1):.3f})"
            )
        print(f"  (the new page gzipped, as a server would send it: {result['gzip']:,} bytes)")
        runs = result["runs"]
        for time in TIMES:
            ratios = [
                n[time] / r[time]
                for r, n in zip(runs["ref"], runs["new"], strict=True)
                if n[time] and r[time]  # a paint can go unreported
            ]
            low, mid, high = quartiles(ratios)
            new_ms = median(n[time] for n in runs["new"])
            ref_ms = median(r[time] for r in runs["ref"])
            floor_ms = median(f[time] for f in runs["floor"])  # charts: nan
            result[time] = (new_ms, ref_ms, mid)
            print(
                f"  {time:8} new {new_ms:7.0f} ms, reference {ref_ms:7.0f} ms; "
                f"paired ratio median {mid:.3f} (quartiles {low:.3f}-{high:.3f}); "
                f"the new page less plotly.js: {floor_text(floor_ms)}"
            )
            result[f"{time} floor"] = floor_ms
    if args.no_record:
        return 0
    names = ["real app samples" if "real app samples" in results else "demo"]
    names += [LARGE] if LARGE in results else []
    for name in names:
        record_page(name, results[name], args, load)
    return 0


LABELS = {
    "paint": "to the first paint",
    "drawn": "to the page's DOMContentLoaded work done (the summary and tables drawn)",
    "filters": "to the filter bar usable (its rows in, the live sections drawn)",
    "charts": "to every chart drawn",
    "replayer": "to the replayer showing a hand",
    "load": "to the load event",
}


def record_page(name: str, result: dict[str, Any], args: argparse.Namespace, load: Any) -> None:
    """One dataset's sizes and median times in bench/results/report_page.json."""
    reference_name = f"reports/ of {args.reference}, same dataset"
    runs = args.large_runs if name == LARGE else args.runs
    note = f"{runs} paired loads, load average {load[0]:.1f}"
    new, ref = result["new"], result["ref"]
    record(
        "report_page",
        f"page bytes, {name}",
        figure=new["page"],
        unit="bytes",
        reference=ref["page"],
        reference_name=reference_name,
        note=f"plotly.js {new['plotly.js']:,} bytes of it, hand data {new['hand data']:,} "
        f"(reference {ref['hand data']:,}), filter bar's data {new['live data']:,} "
        f"(reference {ref['live data']:,})",
    )
    record(
        "report_page",
        f"filter bar's data bytes, {name}",
        figure=new["live data"],
        unit="bytes",
        reference=ref["live data"],
        reference_name=reference_name,
        note="packed, gzipped (level 6), base64; the reference: plain JSON",
    )
    for time in TIMES:
        new_ms, ref_ms, mid = result[time]
        record(
            "report_page",
            f"ms {LABELS[time]}, {name}",
            figure=new_ms,
            unit="ms",
            reference=ref_ms,
            reference_name=reference_name,
            ratio=mid,
            note=f"{note}; ratio: median of the paired ratios; the new page less plotly.js "
            f"(same run): {floor_text(result[time + ' floor'])}",
        )


if __name__ == "__main__":
    raise SystemExit(main())
