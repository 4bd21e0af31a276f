"""Simulation speed: hands/s for the default pool and for each style alone.

    .venv/bin/python bench/simulate.py [--hands 20000]

Each figure is one run writing the open format to a temporary file; the
closing line of each run also gives that style's measured foul and
Fantasyland rates.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.sim import rooms as sim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    args = parser.parse_args()
    ruleset = get_ruleset("pineapple-progressive")
    folder = Path(tempfile.mkdtemp(prefix="ofc-sim-"))
    runs = {"default pool": dict(sim.STYLES)}
    runs |= {name: {name: style} for name, style in sim.STYLES.items()}
    original = dict(sim.STYLES)
    for label, styles in runs.items():
        sim.STYLES.clear()
        sim.STYLES.update(styles)
        summary = sim.write_simulation(folder / "hands.jsonl", args.hands, ruleset, seats=3, seed=1)
        print(f"{label:<13} {summary.line()}")
    sim.STYLES.clear()
    sim.STYLES.update(original)


if __name__ == "__main__":
    main()
