"""Write ``docs/benchmarks.md`` from the figures the bench scripts recorded.

    .venv/bin/python bench/page.py          # or: make benchmarks-page

Each script's docstring says what it measures and how; ``bench/results/*.json``
(written by :func:`record.record`) holds what its last run measured.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
PAGE = BENCH.parent / "docs" / "benchmarks.md"

HEADER = """\
# Benchmarks

Each table below was written by a script in `bench/` into `bench/results/`, and
this page is generated from those files (`python bench/page.py`), so it says
what the last run measured, on the machine and date it names; the last section
lists runs made before their script recorded its figures. Ratios compare two
things measured **in the same run** (a
reference such as the previous implementation or a peer, or a floor such as
decoding alone); figures are medians of the runs each script states. The
development machine has 2 cores shared with other work, so wall-clock figures
are noisy: CPU-time figures and same-run ratios are the ones to trust.
"""


def number(value: float | None) -> str:
    if value is None:
        return ""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:,.3g}"


def summary(script: Path) -> str:
    """The first paragraph of a bench script's docstring."""
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    return doc.split("\n\n", 1)[0].replace("\n", " ")


def render() -> str:
    parts = [HEADER]
    for path in sorted((BENCH / "results").glob("*.json")):
        entries: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        script = BENCH / f"{path.stem}.py"
        parts.append(f"## `bench/{script.name}`\n\n{summary(script) if script.exists() else ''}")
        rows = ["| measure | figure | reference (same run) | ratio | goal | date, machine |"]
        rows.append("|---|---|---|---|---|---|")
        for measure, e in entries.items():
            goal = e["goal"]
            if e["met"] is not None:
                goal = f"{goal} ({'met' if e['met'] else '**not met**'})"
            reference = (
                f"{number(e['reference'])} {e['unit']} ({e['reference_name']})"
                if e["reference"] is not None
                else ""
            )
            ratio = f"{e['ratio']:.2f}×" if e["ratio"] is not None else ""
            rows.append(
                f"| {measure} | {number(e['figure'])} {e['unit']} | {reference} | {ratio} "
                f"| {goal} | {e['date']}, {e['machine']} |"
            )
        notes = [f"* {m}: {e['note']}" for m, e in entries.items() if e["note"]]
        commands = sorted({e["command"] for e in entries.values()})
        parts.append("\n".join(rows))
        parts.append("Run: " + "; ".join(f"`python bench/{c}`" for c in commands))
        if notes:
            parts.append("\n".join(notes))
    unrecorded = BENCH / "results" / "unrecorded.md"
    if unrecorded.exists():  # figures of runs made before their script recorded them
        parts.append(unrecorded.read_text(encoding="utf-8").strip())
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}")
