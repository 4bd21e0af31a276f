"""Rules-engine speed: rows ranked and hands scored per second, scalar vs the compiled core.

    .venv/bin/python bench/engine.py [--hands 1000000] [--repeats 5] [--reference CHECKOUT]

Prints medians over repeats.  The machine is shared and noisy, so the figure
to trust is the ratio against the scalar baseline measured in the same run.
The core runs on all cores (rayon); ``RAYON_NUM_THREADS=1`` gives one.
``--reference`` times another checkout's ``score_batch`` (e.g. one that still
has the NumPy batch engine, ``engine/vector/scoring.py``) in a child process
on the same boards, interleaved with the core's runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402
from record import record  # noqa: E402

from ofc_stats.core.scoring import score_batch  # noqa: E402
from ofc_stats.core.tables import classify_five  # noqa: E402
from ofc_stats.engine.board import Board  # noqa: E402
from ofc_stats.engine.presets import get_ruleset  # noqa: E402
from ofc_stats.engine.rank import rank_row  # noqa: E402
from ofc_stats.engine.scoring import score_hand  # noqa: E402

# One timed score_batch of the saved boards in another checkout (its own ofc_stats).
REFERENCE = r"""
import json, sys, time
import numpy as np
path, name, stacked = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
try:
    from ofc_stats.engine.vector.scoring import score_batch
except ImportError:
    from ofc_stats.core.scoring import score_batch
from ofc_stats.engine.presets import get_ruleset
boards = np.load(path)
ruleset = get_ruleset(name)
stacks = np.full(boards.shape[:2], 30.0) if stacked else None
score_batch(boards[:1000], ruleset)
start = time.perf_counter()
score_batch(boards, ruleset, stacks=stacks, check=False)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def deal(hands: int, seats: int, deck: int, seed: int) -> np.ndarray:
    """Uniformly random finished boards, (hands, seats, 13) int8."""
    rng = np.random.default_rng(seed)
    decks = rng.permuted(np.tile(np.arange(deck, dtype=np.int8), (hands, 1)), axis=1)
    return decks[:, : seats * 13].reshape(hands, seats, 13).copy()


def median_seconds(action: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def reference_seconds(
    checkout: Path, boards: np.ndarray, name: str, stacked: bool, repeats: int
) -> float:
    """Median seconds of ``checkout``'s score_batch on ``boards``, one child per repeat."""
    with tempfile.TemporaryDirectory(prefix="ofc-bench-engine-") as work:
        path = Path(work) / "boards.npy"
        np.save(path, boards)
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        runs = [
            run_child(REFERENCE, str(path), name, "1" if stacked else "0", env=env, cwd=checkout)
            for _ in range(repeats)
        ]
    return statistics.median(r["seconds"] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--scalar-hands", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reference", type=Path, help="another checkout to time alike")
    args = parser.parse_args()
    pineapple = get_ruleset("pineapple")
    boards = deal(args.hands, 3, 52, seed=1)
    rows5 = boards.reshape(-1, 13)[:, 8:13]
    print(
        f"ofc-stats engine benchmark: {args.hands:,} random 3-seat hands, median of "
        f"{args.repeats} runs"
    )

    # 1. rows ranked per second
    sample = rows5[: args.scalar_hands * 3].tolist()
    scalar_rows = median_seconds(lambda: [rank_row(r) for r in sample], args.repeats)
    scalar_rate = len(sample) / scalar_rows
    core_rows = median_seconds(lambda: classify_five(rows5), args.repeats)
    core_rate = len(rows5) / core_rows
    print("\n5-card rows ranked per second")
    print(f"  scalar rank_row loop          {scalar_rate:>14,.0f}")
    print(f"  core classify_five            {core_rate:>14,.0f}   {core_rate / scalar_rate:7.0f}x")
    record(
        "engine",
        "5-card rows ranked per second (core classify_five)",
        figure=core_rate,
        unit="rows/s",
        reference=scalar_rate,
        reference_name="the scalar rank_row loop",
    )

    # 2. hands fully scored per second
    score_batch(boards[:1000], pineapple)  # the ruleset handed to the core outside the timings
    loop_hands = [
        [Board.from_flat(boards[h, s]) for s in range(3)] for h in range(args.scalar_hands)
    ]
    loop = median_seconds(
        lambda: [score_hand(hand, pineapple) for hand in loop_hands], max(1, args.repeats // 2)
    )
    loop_rate = args.scalar_hands / loop
    unchecked = median_seconds(lambda: score_batch(boards, pineapple, check=False), args.repeats)
    stacks = np.full((args.hands, 3), 30.0)
    capped = median_seconds(
        lambda: score_batch(boards, pineapple, stacks=stacks, check=False), args.repeats
    )
    print("\n3-seat hands fully scored per second (pineapple)")
    print(f"  scalar score_hand loop        {loop_rate:>14,.0f}")
    rows = [("core score_batch", unchecked), ("core, with stack caps", capped)]
    if args.reference is not None:
        rows += [
            (
                "reference score_batch",
                reference_seconds(args.reference, boards, "pineapple", False, args.repeats),
            ),
            (
                "reference, with stack caps",
                reference_seconds(args.reference, boards, "pineapple", True, args.repeats),
            ),
        ]
    for label, seconds in rows:
        rate = args.hands / seconds
        boards_rate = rate * 3
        print(
            f"  {label:<29} {rate:>14,.0f}   {rate / loop_rate:7.0f}x   "
            f"({seconds:.3f} s, {boards_rate:,.0f} boards/s)"
        )
    record(
        "engine",
        "3-seat pineapple hands scored per second (core score_batch)",
        figure=args.hands / unchecked,
        unit="hands/s",
        reference=loop_rate,
        reference_name="the scalar score_hand loop",
    )
    if args.reference is not None:
        print(f"  core / reference: {rows[2][1] / unchecked:.2f}x the reference's speed")
        record(
            "engine",
            "3-seat hands scored per second against another checkout",
            figure=args.hands / unchecked,
            unit="hands/s",
            reference=args.hands / rows[2][1],
            reference_name=f"score_batch of {args.reference.name}",
        )

    # 3. jokers: the expensive reading search
    joker = get_ruleset("joker-pineapple")
    joker_boards = deal(args.hands // 10, 3, 54, seed=2)
    score_batch(joker_boards[:100], joker)
    joker_seconds = median_seconds(
        lambda: score_batch(joker_boards, joker, check=False), max(1, args.repeats // 2)
    )
    print(f"\njoker-pineapple hands per second (core)  {len(joker_boards) / joker_seconds:>10,.0f}")
    joker_reference = None
    if args.reference is not None:
        seconds = reference_seconds(args.reference, joker_boards, "joker-pineapple", False, 1)
        print(f"joker-pineapple hands per second (reference)  {len(joker_boards) / seconds:>5,.0f}")
        joker_reference = len(joker_boards) / seconds
    record(
        "engine",
        "joker-pineapple hands scored per second (core)",
        figure=len(joker_boards) / joker_seconds,
        unit="hands/s",
        reference=joker_reference,
        reference_name=f"score_batch of {args.reference.name}" if args.reference else "",
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident memory: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
