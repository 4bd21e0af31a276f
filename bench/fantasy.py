"""Exact Fantasyland sets: median ms per deal, the core's solver against the NumPy solver it
replaced and two published solvers.

    .venv/bin/python bench/fantasy.py [--deals 200] [--joker-deals 40]
        [--numpy-commit c57fcd5] [--peers /tmp/peers] [--peer-deals 5,3,2,1]

For each card count the same random deals (pineapple-ultimate, so every count
repeats with its own count; stay value: the published figure; joker rows:
joker-pineapple with one or two jokers) are solved one at a time by
:func:`ofc_stats.core.fantasy.solve_fantasy` and by the NumPy solver this
replaced, ``ofc_stats/engine/fantasy_solver.py`` as of ``--numpy-commit``
(taken with ``git archive`` into a temporary folder and run in a child
process, so the project keeps no copy of it); both must give the same value,
and sets that differ are counted (the NumPy solver broke ties between equal
sets in its own search order).  One CPU (the process and its children are
pinned where the OS allows); index tables are built before timing starts.
Figures are wall-clock medians.

Peers (optional, run only when built under ``--peers``, outside the project,
never copied into it):

* victorywys/OFC_Solver ``fantasy/fantasy_search.py`` in its exact mode, with
  the standard pineapple royalties and every continuation bonus 0, so its
  objective is royalties alone; the core is timed on the same deals with stay
  value 0.  ``--peers/OFC_Solver`` holds the repository.
* giovinco0807/pineapple ``ai/rust_solver/fl_solver`` (Rust; v1 = exhaustive
  over every split, v2 = its role-based search), one rayon thread; its
  objective is royalties + 100 for a repeat (trips on top or quads or better
  on the bottom: the ultimate ruleset's repeat), so the core is timed with stay
  value 100.  Built with ``cargo build --release -p fl_solver`` in
  ``--peers/pineapple/ai/rust_solver`` and ``CARGO_TARGET_DIR=--peers/pineapple-target``;
  timed per request through its JSON stdin/stdout loop.

A peer's set is scored by this project's scorer too: a deal where a peer's set
is worth more than the core's answer under the same objective is printed
(none is expected; a set our rules call fouled is counted apart).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from record import record

from ofc_stats.core.fantasy import FantasySet, solve_fantasy
from ofc_stats.engine.board import Board
from ofc_stats.engine.fantasy_value import documented_stay_value
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.scoring import score_board

ROOT = Path(__file__).resolve().parents[1]
COUNTS = (14, 15, 16, 17)
GOALS = {14: 0.5, 15: 0.5, 16: 1.0, 17: 5.0}  # ms, median per deal (no jokers)
PEER_COUNTS = (14, 15, 16, 17)

# Run in a child process on the old tree: the NumPy solver, one deal at a time.
NUMPY_CHILD = """
import json, sys, time
from ofc_stats.engine.fantasy_solver import solve_fantasy
from ofc_stats.engine.presets import get_ruleset
jobs = json.load(sys.stdin)
out, warm = [], set()
for name, deal, stay in jobs:
    ruleset = get_ruleset(name)
    if (name, len(deal)) not in warm:
        solve_fantasy(deal, ruleset, stay)
        warm.add((name, len(deal)))
    start = time.perf_counter()
    found = solve_fantasy(deal, ruleset, stay)
    ms = (time.perf_counter() - start) * 1e3
    out.append([ms, found.value, [found.top, found.middle, found.bottom]])
json.dump(out, sys.stdout)
"""

# victorywys/OFC_Solver, exact mode, royalties alone (continuation bonuses 0).
VICTORYWYS_CHILD = """
import json, sys, time
from engine.fantasy import FantasyTier
from engine.royalties import STANDARD_PINEAPPLE
from fantasy.fantasy_search import FantasyConfig, solve
tiers = {14: FantasyTier.F14, 15: FantasyTier.F15, 16: FantasyTier.F16, 17: FantasyTier.F17}
config = FantasyConfig(royalty_cfg=STANDARD_PINEAPPLE, exact=True, continue_f14=0.0,
                       continue_f15=0.0, continue_f16=0.0, continue_f17=0.0)
for line in sys.stdin:
    deal = json.loads(line)
    start = time.perf_counter()
    found = solve(deal, tiers[len(deal)], config)
    ms = (time.perf_counter() - start) * 1e3
    rows = [list(found.top), list(found.middle), list(found.bottom)]
    print(json.dumps([ms, found.ev, rows]), flush=True)
"""


def pin_one_cpu() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def timed_core(deal: list[int], ruleset: Ruleset, stay: float) -> tuple[FantasySet, float]:
    start = time.perf_counter()
    found = solve_fantasy(deal, ruleset, stay)
    return found, (time.perf_counter() - start) * 1e3


def numpy_reference(commit: str, jobs: list[tuple[str, list[int], float]]) -> list[Any]:
    """The NumPy solver of ``commit``, run on ``jobs`` in a child process on that tree."""
    with tempfile.TemporaryDirectory(prefix="ofc-numpy-solver-") as tree:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "ofc_stats"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        env = {**os.environ, "PYTHONPATH": tree}
        done = subprocess.run(
            [sys.executable, "-c", NUMPY_CHILD],
            input=json.dumps(jobs),
            capture_output=True,
            text=True,
            env=env,
            cwd=tree,
            check=True,
        )
    result: list[Any] = json.loads(done.stdout)
    return result


def worth(rows: Sequence[Sequence[int]], ruleset: Ruleset, stay: float) -> float | None:
    """A set's value under this project's scorer (None: our rules call it fouled)."""
    board = Board(tuple(rows[0]), tuple(rows[1]), tuple(rows[2]))
    scored = score_board(board, ruleset, in_fantasy=True)
    if scored.fouled:
        return None
    return scored.royalties.total + stay * scored.fantasyland.stays


class Peer:
    """A peer solver answering one deal per request: (ms, its value, rows as card ids)."""

    def __init__(self, name: str, stay: float, ask: Callable[[list[int]], list[Any]]) -> None:
        self.name, self.stay, self.ask = name, stay, ask


def victorywys(root: Path) -> Peer | None:
    if not (root / "fantasy" / "fantasy_search.py").exists():
        return None
    env = {**os.environ, "PYTHONPATH": str(root)}
    child = subprocess.Popen(
        [sys.executable, "-c", VICTORYWYS_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=root,
    )

    def ask(deal: list[int]) -> list[Any]:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(deal) + "\n")
        child.stdin.flush()
        answer: list[Any] = json.loads(child.stdout.readline())
        return answer

    return Peer("victorywys exact", 0.0, ask)


def giovinco(binary: Path, version: int) -> Peer | None:
    if not binary.exists():
        return None
    env = {**os.environ, "RAYON_NUM_THREADS": "1"}
    child = subprocess.Popen(
        [str(binary)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )

    # Its cards: rank 2..14, suits spades, hearts, diamonds, clubs (ours: clubs .. spades).
    def to_peer(card: int) -> dict[str, int]:
        return {"rank": card // 4 + 2, "suit": 3 - card % 4}

    def from_peer(card: dict[str, int]) -> int:
        return (card["rank"] - 2) * 4 + 3 - card["suit"]

    def ask(deal: list[int]) -> list[Any]:
        assert child.stdin is not None and child.stdout is not None
        request = json.dumps({"cards": [to_peer(c) for c in deal], "version": version})
        start = time.perf_counter()
        child.stdin.write(request + "\n")
        child.stdin.flush()
        answer = json.loads(child.stdout.readline())
        ms = (time.perf_counter() - start) * 1e3
        placed = answer["placement"]
        rows = [[from_peer(c) for c in placed[row]] for row in ("top", "middle", "bottom")]
        return [ms, placed["score"], rows]

    return Peer(f"giovinco v{version}", 100.0, ask)


def own_rows(args: argparse.Namespace, rng: np.random.Generator) -> None:
    """The core against the NumPy solver, by card count."""
    ultimate, jokers = get_ruleset("pineapple-ultimate"), get_ruleset("joker-pineapple")
    plan: list[tuple[str, int, Ruleset, list[list[int]]]] = []
    for count in COUNTS:
        deals = [rng.permutation(52)[:count].tolist() for _ in range(args.deals)]
        plan.append((f"{count}", count, ultimate, deals))
    for count in COUNTS:
        deals = []
        for i in range(args.joker_deals):
            held = 1 + i % 2
            deals.append(rng.permutation(52)[: count - held].tolist() + [52, 53][:held])
        plan.append((f"{count}+J", count, jokers, deals))
    jobs = [
        (ruleset.name, deal, documented_stay_value(ruleset, count))
        for _, count, ruleset, deals in plan
        for deal in deals
    ]
    reference = numpy_reference(args.numpy_commit, jobs)
    print(f"core solver against the NumPy solver of {args.numpy_commit} (same deals, one CPU)")
    header = ("cards", "deals", "core ms", "p90", "goal", "numpy ms", "ratio", "sets differ")
    print("{:>6} {:>5} {:>8} {:>6} {:>5} {:>9} {:>6} {:>11}".format(*header))
    at = 0
    for label, count, ruleset, deals in plan:
        stay = documented_stay_value(ruleset, count)
        solve_fantasy(deals[0], ruleset, stay)  # the index tables
        ours, differ = [], 0
        theirs = reference[at : at + len(deals)]
        at += len(deals)
        for deal, (_, value, rows) in zip(deals, theirs, strict=True):
            found, ms = timed_core(deal, ruleset, stay)
            ours.append(ms)
            assert found.value == value, (deal, found, value)
            differ += [list(found.top), list(found.middle), list(found.bottom)] != rows
        core, numpy_ms = median(ours), median([row[0] for row in theirs])
        goal = f"{GOALS[count]:g}" if label.isdigit() else "-"
        print(
            f"{label:>6} {len(deals):>5} {core:>8.3f} {np.percentile(ours, 90):>6.2f} "
            f"{goal:>5} {numpy_ms:>9.2f} {numpy_ms / core:>5.1f}x {differ:>11}"
        )
        record(
            "fantasy",
            f"solve a {label}-card deal",
            figure=core,
            unit="ms",
            reference=numpy_ms,
            reference_name=f"NumPy solver of {args.numpy_commit}",
            ratio=numpy_ms / core,
            goal=f"median ≤ {goal} ms" if label.isdigit() else "",
            met=core <= GOALS[count] if label.isdigit() else None,
            note=f"{len(deals)} deals; the sets differ on {differ} (same value)" if differ else "",
        )


def peer_rows(args: argparse.Namespace, rng: np.random.Generator) -> None:
    root = Path(args.peers)
    binary = root / "pineapple-target" / "release" / "fl_solver"
    peers = [victorywys(root / "OFC_Solver"), giovinco(binary, 1), giovinco(binary, 2)]
    live = [peer for peer in peers if peer is not None]
    if not live:
        print(f"\npeers: none built under {root} (see this script's docstring)")
        return
    ruleset = get_ruleset("pineapple-ultimate")
    per_count = dict(zip(PEER_COUNTS, (int(x) for x in args.peer_deals.split(",")), strict=True))
    print("\npeers on the same deals, each with its own objective (the core timed with it too)")
    header = ("peer", "cards", "deals", "peer ms", "core ms", "ratio", "peer higher", "fouls")
    print("{:>17} {:>5} {:>5} {:>10} {:>8} {:>8} {:>11} {:>5}".format(*header))
    for peer in live:
        for count in PEER_COUNTS:
            if peer.name == "giovinco v1" and count > args.exhaustive_max:
                continue  # every split, in Vecs: minutes a deal
            deals = [rng.permutation(52)[:count].tolist() for _ in range(per_count[count])]
            solve_fantasy(deals[0], ruleset, peer.stay)
            theirs, ours, higher, fouls = [], [], 0, 0
            for deal in deals:
                ms, claimed, rows = peer.ask(deal)
                found, core_ms = timed_core(deal, ruleset, peer.stay)
                theirs.append(ms)
                ours.append(core_ms)
                scored = worth(rows, ruleset, peer.stay)
                if scored is None:
                    fouls += 1
                    continue
                if scored > found.value or claimed > found.value:
                    higher += 1
                    print(f"  {peer.name}: {deal} peer {scored} (claims {claimed}) > core {found}")
            peer_ms, core_ms = median(theirs), median(ours)
            print(
                f"{peer.name:>17} {count:>5} {len(deals):>5} {peer_ms:>10.1f} {core_ms:>8.3f} "
                f"{peer_ms / core_ms:>7.0f}x {higher:>11} {fouls:>5}"
            )
            record(
                "fantasy",
                f"{count} cards against {peer.name}",
                figure=core_ms,
                unit="ms",
                reference=peer_ms,
                reference_name=peer.name,
                ratio=peer_ms / core_ms,
                note=f"{len(deals)} deals; peer higher on {higher}, peer fouled {fouls}",
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="deals per count")
    parser.add_argument("--joker-deals", type=int, default=40, help="joker deals per count")
    parser.add_argument("--numpy-commit", default="c57fcd5", help="the NumPy solver's tree")
    parser.add_argument("--peers", default="/tmp/peers", help="where the peers are built")
    parser.add_argument("--peer-deals", default="5,3,2,1", help="peer deals for 14,15,16,17")
    parser.add_argument("--exhaustive-max", type=int, default=14, help="giovinco v1 up to")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    pin_one_cpu()
    rng = np.random.default_rng(args.seed)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    own_rows(args, rng)
    peer_rows(args, rng)


if __name__ == "__main__":
    main()
