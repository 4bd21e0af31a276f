"""When each foul became unavoidable: the core's twin against the engine's definition.

    .venv/bin/python bench/fouls_unavoidable.py [--tile 100] [--repeat 5]

The fouled normal boards of the apps' real samples (``../shared``; 1,058
boards), imported and recomputed into a temporary dataset.  Times, in this
run, the engine's definition (``ofc_stats.engine.certain``, one board at a
time in Python) over every board once, and the core
(``ofc_stats.core.certain``, what the fouls report calls) over the boards
tiled ``--tile`` times, median of ``--repeat``; prints boards a second,
CPU seconds and the ratio.  The fouls report used to cap the column at the
latest 2,000 fouls (a NumPy search, about 0.1 ms a board); it now asks the
core about every foul.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from record import record  # noqa: E402

from ofc_stats.core.certain import foul_unavoidable_after as core  # noqa: E402
from ofc_stats.engine.certain import foul_unavoidable_after  # noqa: E402
from ofc_stats.store.importer import import_paths  # noqa: E402
from ofc_stats.store.recompute import recompute  # noqa: E402
from reports import streetwise  # noqa: E402

APPS = ROOT.parent / "shared" / "samples" / "apps"


def fouled_boards(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = folder / "data"
    import_paths([APPS], data)
    recompute(data)
    cards = streetwise.fouled_boards(data)
    return cards.cards, cards.streets, cards.discards


def definition(cards: np.ndarray, streets: np.ndarray, discards: np.ndarray) -> list[int]:
    found = []
    rows = zip(cards.tolist(), streets.tolist(), discards.tolist(), strict=True)
    for board, placed, dropped in rows:
        thrown = {
            at: (card if card >= 0 else None)
            for at, card in enumerate(dropped, start=1)
            if placed.count(at) == 2 or card >= 0
        }
        street = foul_unavoidable_after(board, placed, thrown)
        found.append(-1 if street is None else street)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tile", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not APPS.is_dir():
        sys.exit(f"the real samples are not at {APPS}")
    with tempfile.TemporaryDirectory() as folder:
        cards, streets, discards = fouled_boards(Path(folder))
    start = time.process_time()
    expected = definition(cards, streets, discards)
    python_cpu = time.process_time() - start
    if core(cards, streets, discards).tolist() != expected:
        sys.exit("the core and the definition disagree on the real samples")
    tiled = [np.tile(array, (args.tile, 1)) for array in (cards, streets, discards)]
    walls, cpus = [], []
    for _ in range(args.repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        core(*tiled)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    boards = len(tiled[0])
    core_rate = boards / statistics.median(cpus)
    python_rate = len(cards) / python_cpu
    load = os.getloadavg()[0]
    print(
        f"{len(cards):,} fouled boards of the real samples; the definition "
        f"{python_rate:,.0f} boards a CPU-second; the core {core_rate:,.0f} boards a "
        f"CPU-second over {boards:,} ({boards / statistics.median(walls):,.0f} a second on "
        f"{os.cpu_count()} cores): {core_rate / python_rate:,.0f}x; load average {load:.1f}"
    )
    record(
        "fouls_unavoidable",
        "when each foul became unavoidable, boards a CPU-second (the core)",
        figure=core_rate,
        unit="boards/CPU-s",
        reference=python_rate,
        reference_name="the engine's definition (Python), same boards, same run",
        note=f"{len(cards):,} fouled boards of the real samples tiled {args.tile}x; "
        f"median of {args.repeat}; wall {boards / statistics.median(walls):,.0f} boards/s "
        f"on {os.cpu_count()} cores; load average {load:.1f}",
    )


if __name__ == "__main__":
    main()
