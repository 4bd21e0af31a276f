"""What a Fantasyland is worth: self-play's chain against the rooms' own results.

    .venv/bin/python bench/fantasy_chain.py [--samples ../shared/samples/apps] [--reps 200]

Imports the samples into a temporary dataset and, for each room (ruleset) and
Fantasyland size, prints the room's own chain (``grade.fantasy.room_values``
without self-play: a thin size pooled), its SE (the same estimate on resamples of
the room's seats within each state), the self-play figure of the versioned file
(``ofc_stats/grade/data/fantasy-chain-v1.json``: each table size's worth weighted
by the room's share of seats at it, SEs from the file combined), both table sizes
alone, and the published figure the grader used before.  Records each size's
self-play worth against the room's.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from record import record

import ofc_stats
from ofc_stats.engine.fantasy_value import published_value
from ofc_stats.grade.fantasy import room_values
from ofc_stats.grade.fantasy_chain import chain_worth
from ofc_stats.store.fantasy import SEATS_SQL
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from ofc_stats.store.rulesets import DatasetRulesets

ROOT = Path(__file__).resolve().parent.parent


class _Frame:
    """A room's seats as room_values reads them."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def df(self, sql: str, params: dict[str, str]) -> pd.DataFrame:
        return self.frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, default=ROOT.parent / "shared/samples/apps")
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        import_paths([args.samples], data)
        recompute(data)
        lookup = DatasetRulesets(data)
        with ofc_stats.open(data) as db:
            names = sorted(str(n) for n in db.df("SELECT DISTINCT ruleset FROM hands")["ruleset"])
            frames = {n: db.df(SEATS_SQL, {"ruleset": n}) for n in names}
    rng = np.random.default_rng(0)
    for name in names:
        ruleset, frame = lookup(name), frames[name]
        room = room_values(_Frame(frame), ruleset, None)  # type: ignore[arg-type]
        said = {n: text.split(";")[0] for n, text in room.source.items()}
        draws: dict[int, list[float]] = {}
        groups = [g for _, g in frame.groupby("cards")]
        for _ in range(args.reps):
            again = pd.concat([g.iloc[rng.integers(len(g), size=len(g))] for g in groups])
            for n, v in room_values(_Frame(again), ruleset, None).value.items():  # type: ignore[arg-type]
                draws.setdefault(n, []).append(v)
        played = chain_worth(ruleset)
        tables = frame["seats"].value_counts(normalize=True).to_dict()
        shares = {int(s): float(w) for s, w in tables.items()}
        print(f"{name}: {len(frame)} seats, tables {shares}; {played.policy if played else ''}")
        print(
            "  size | room chain ± SE (source) | self-play at the room's tables ± SE | "
            "2 seats | 3 seats | published"
        )
        for n in ruleset.fantasy.sizes():
            data_se = float(np.std(draws.get(n, [math.nan]), ddof=1)) if n in draws else math.nan
            line = f"  {n} | {room.worth(n):.2f} ± {data_se:.2f} ({said.get(n, '')})"
            if played is not None:
                mixed, _ = played.mixed(shares)
                weights = {s: w for s, w in shares.items() if s in played.worth}
                total = sum(weights.values())
                se = math.sqrt(sum((w / total * played.se[s][n]) ** 2 for s, w in weights.items()))
                line += f" | {mixed[n]:.2f} ± {se:.2f}"
                line += "".join(
                    f" | {played.worth[s][n]:.2f} ± {played.se[s][n]:.2f}" for s in (2, 3)
                )
                record(
                    "fantasy_chain",
                    f"{name}: {n}-card Fantasyland, self-play worth against the room's own",
                    figure=round(mixed[n], 2),
                    unit="points",
                    reference=round(room.worth(n), 2),
                    reference_name=f"the room's chain ({said.get(n, '')})",
                    note=f"SE {se:.2f} self-play, {data_se:.2f} room",
                )
            print(f"{line} | {published_value(n, ruleset.deck)[0]:.2f}")


if __name__ == "__main__":
    main()
