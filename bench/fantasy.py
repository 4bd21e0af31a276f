"""Exact Fantasyland sets: median ms per deal, solver against the plain exhaustive search.

    .venv/bin/python bench/fantasy.py [--deals 200] [--exhaustive 40,20,5,2]

For each card count the same random deals (pineapple-ultimate, so every
count repeats with its own count; stay value: the published figure) are
solved by :func:`solve_fantasy` and, on the first few of them, by
:func:`exhaustive_fantasy`, which scores every split; both must agree.  One
process, one core (NumPy's element-wise kernels are single-threaded; the
process is pinned to one CPU where the OS allows).  Index tables are built
before timing starts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from ofc_stats.engine.fantasy_exhaustive import _subsets, exhaustive_fantasy
from ofc_stats.engine.fantasy_solver import solve_fantasy
from ofc_stats.engine.fantasy_value import documented_stay_value
from ofc_stats.engine.presets import get_ruleset

COUNTS = (14, 15, 16, 17)
GOALS = {14: 5.0, 15: 5.0, 16: 5.0, 17: 50.0}


def timed(function, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = function(*args)
    return result, (time.perf_counter() - start) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="solver deals per count")
    parser.add_argument(
        "--exhaustive", default="40,20,5,2", help="exhaustive deals for 14,15,16,17 cards"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sampled = dict(zip(COUNTS, (int(x) for x in args.exhaustive.split(",")), strict=True))
    ruleset = get_ruleset("pineapple-ultimate")
    rng = np.random.default_rng(args.seed)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {ruleset.name}")
    header = (
        "cards",
        "deals",
        "solver ms: median",
        "p90",
        "max",
        "goal",
        "exhaustive ms",
        "deals",
        "ratio",
    )
    print("{:>5} {:>5} {:>17} {:>6} {:>6} {:>5} {:>13} {:>5} {:>6}".format(*header))
    for count in COUNTS:
        stay = documented_stay_value(ruleset, count)
        deals = [rng.permutation(52)[:count].tolist() for _ in range(args.deals)]
        solve_fantasy(deals[0], ruleset, stay)  # build the index tables
        _subsets(count)  # and the exhaustive search's
        ours = []
        for deal in deals:
            _, ms = timed(solve_fantasy, deal, ruleset, stay)
            ours.append(ms)
        peer = []
        for deal in deals[: sampled[count]]:
            found, ms = timed(solve_fantasy, deal, ruleset, stay)
            best, ms_peer = timed(exhaustive_fantasy, deal, ruleset, stay)
            assert best[0] == found.value, (deal, best, found)
            peer.append(ms_peer)
        median, peer_median = statistics.median(ours), statistics.median(peer)
        p90 = float(np.percentile(ours, 90))
        print(
            f"{count:>5} {len(deals):>5} {median:>17.2f} {p90:>6.1f} {max(ours):>6.1f} "
            f"{GOALS[count]:>5g} {peer_median:>13.1f} {len(peer):>5} {peer_median / median:>5.0f}x"
        )


if __name__ == "__main__":
    main()
