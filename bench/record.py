"""Where each benchmark leaves its figures: ``bench/results/<bench>.json``.

A bench script prints its figures for the person running it and calls
:func:`record` for each headline figure: the figure, the reference or floor
measured in the same run, their ratio, the goal, the date and the machine.
``bench/page.py`` turns the files into ``docs/benchmarks.md``, so the page
never says more than the last run measured.  The files are committed: they are
the project's measurements, made on the machine named in each.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> str:
    """CPU model and core count: enough to tell one machine from another."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.system()}"


def record(
    bench: str,
    measure: str,
    *,
    figure: float,
    unit: str,
    reference: float | None = None,
    reference_name: str = "",
    ratio: float | None = None,
    goal: str = "",
    met: bool | None = None,
    note: str = "",
) -> None:
    """Keep one headline figure of ``bench`` (the script's name) under ``measure``.

    ``ratio`` defaults to figure / reference.  Later runs replace a measure's
    entry; other measures of the file are kept.
    """
    if ratio is None and reference:
        ratio = figure / reference
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{bench}.json"
    entries: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    entries[measure] = {
        "figure": figure,
        "unit": unit,
        "reference": reference,
        "reference_name": reference_name,
        "ratio": ratio,
        "goal": goal,
        "met": met,
        "note": note,
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": machine(),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
    }
    path.write_text(json.dumps(entries, indent=2, sort_keys=True) + "\n", encoding="utf-8")
