"""Rules-engine speed: rows ranked and hands scored per second, scalar vs batch.

    .venv/bin/python bench/engine.py [--hands 1000000] [--repeats 5]

Prints medians over repeats.  The machine is shared and noisy, so the figure
to trust is the ratio against the scalar baseline measured in the same run.
Single-threaded: NumPy's element-wise kernels used here run on one core.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from collections.abc import Callable

import numpy as np

from ofc_stats.core.scoring import repeated_cards, score_batch
from ofc_stats.engine.board import Board
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rank import rank_row
from ofc_stats.engine.scoring import score_hand
from ofc_stats.engine.vector.rank_tables import (
    classify_five,
    classify_five_columns,
    columns,
    tables,
)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--scalar-hands", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    tables()  # build once, outside the timings
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
    cols = columns(rows5)
    vector_rows = median_seconds(lambda: classify_five_columns(cols), args.repeats)
    vector_rate = len(rows5) / vector_rows
    with_layout = median_seconds(lambda: classify_five(rows5), args.repeats)
    print("\n5-card rows ranked per second")
    print(f"  scalar rank_row loop          {scalar_rate:>14,.0f}")
    print(
        f"  vectorised, column layout     {vector_rate:>14,.0f}   {vector_rate / scalar_rate:7.0f}x"
    )
    print(
        f"  vectorised, incl. transpose   {len(rows5) / with_layout:>14,.0f}   "
        f"{len(rows5) / with_layout / scalar_rate:7.0f}x"
    )

    # 2. hands fully scored per second
    score_batch(boards[:1000], pineapple)  # compile the ruleset outside the timings
    loop_hands = [
        [Board.from_flat(boards[h, s]) for s in range(3)] for h in range(args.scalar_hands)
    ]
    loop = median_seconds(
        lambda: [score_hand(hand, pineapple) for hand in loop_hands], max(1, args.repeats // 2)
    )
    loop_rate = args.scalar_hands / loop
    unchecked = median_seconds(lambda: score_batch(boards, pineapple, check=False), args.repeats)
    checked = median_seconds(lambda: score_batch(boards, pineapple), args.repeats)
    check_only = median_seconds(lambda: repeated_cards(boards), args.repeats)
    stacks = np.full((args.hands, 3), 30.0)
    capped = median_seconds(
        lambda: score_batch(boards, pineapple, stacks=stacks, check=False), args.repeats
    )
    print("\n3-seat hands fully scored per second (pineapple)")
    print(f"  scalar score_hand loop        {loop_rate:>14,.0f}")
    for label, seconds in (
        ("batch, validated data", unchecked),
        ("batch, with duplicate check", checked),
        ("batch, with stack caps", capped),
    ):
        rate = args.hands / seconds
        print(f"  {label:<29} {rate:>14,.0f}   {rate / loop_rate:7.0f}x   ({seconds:.3f} s)")
    print(
        f"  duplicate-card check alone: {check_only:.3f} s = "
        f"{check_only / unchecked:.2f} of the scoring it guards"
    )

    # 3. jokers: the expensive reading search
    joker = get_ruleset("joker-pineapple")
    joker_boards = deal(args.hands // 10, 3, 54, seed=2)
    score_batch(joker_boards[:100], joker)
    joker_seconds = median_seconds(
        lambda: score_batch(joker_boards, joker, check=False), max(1, args.repeats // 2)
    )
    print(
        f"\njoker-pineapple hands per second (batch)  {len(joker_boards) / joker_seconds:>10,.0f}"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident memory: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
