"""What a search a street ahead costs the grader's rollouts (issue 26), on real decisions.

    .venv/bin/python bench/search_speed.py [--hands 40] [--rollouts 32] [--repeat 3]
        [--search 8:4:13 ...] [--next-only]

Grades the street decisions of the first ``--hands`` real hands (every street of each:
the real mix) on one thread with the rollouts played greedily by the learned value (the
reference, grader version 5) and with each ``--search`` (``DEALS[:AMONG[:UNTIL[:FROM]]]``,
``ofc_core::search``; ``--next-only``: only the graded seat's first street after the
decision searches), in interleaved rounds so every run sees the same load; medians of
CPU seconds.  Printed: decisions a CPU-second, the ratio to the reference, and what one
player's 50,000 decisions would take on two free cores (goal: two minutes), from the
reference's measured figure on two cores in docs/grading.md scaled by the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from record import record  # noqa: E402
from reference_grader import sample  # noqa: E402

from ofc_stats.grade.race import Search, decision_seed, grade_many  # noqa: E402
from ofc_stats.grade.train import learned_value  # noqa: E402

# One player's 50,000 decisions on two free cores with version 5's rollouts, as measured
# in docs/grading.md (replay version 2 run): the speed goal is two minutes.
REFERENCE_SECONDS, GOAL_SECONDS = 98.0, 120.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--search", type=Search.parse, action="append", default=[])
    parser.add_argument("--next-only", action="store_true")
    args = parser.parse_args()
    decisions = sample(args.hands)
    keys = [decision_seed(0, d.hand_key, d.seat, d.street) for d in decisions]
    value = learned_value()
    runs: list[Search | None] = [None, *(args.search or [Search(8, 4, 13)])]
    cpu: dict[int, list[float]] = {i: [] for i in range(len(runs))}
    grade_many(decisions[:5], args.rollouts, keys[:5], 1, value=value)  # tables built once
    for _ in range(args.repeat):
        for i, search in enumerate(runs):
            start = time.process_time()
            grade_many(
                decisions,
                args.rollouts,
                keys,
                1,
                value=value,
                search=search,
                search_next_only=args.next_only,
            )
            cpu[i].append(time.process_time() - start)
    base = statistics.median(cpu[0])
    print(
        f"{len(decisions)} street decisions of {args.hands} real hands, {args.rollouts} "
        f"rollouts, 1 thread, medians of {args.repeat} interleaved runs"
    )
    print(f"  greedy rollouts (version 5): {len(decisions) / base:,.0f} decisions a CPU-second")
    scope = "the seat's next street only" if args.next_only else "every street it covers"
    for i, search in enumerate(runs[1:], start=1):
        assert search is not None
        spent = statistics.median(cpu[i])
        ratio = spent / base
        player = REFERENCE_SECONDS * ratio
        label = ":".join(map(str, search.core()))
        print(
            f"  search {label} ({scope}): {len(decisions) / spent:,.0f} decisions a CPU-second, "
            f"{ratio:.2f}x the greedy rollouts' CPU; 50,000 decisions about {player:.0f} s "
            f"on two cores (goal {GOAL_SECONDS:.0f})"
        )
        record(
            "search_speed",
            f"grader with rollouts searching {label}"
            + (" (next street only)" if args.next_only else "")
            + ": decisions a CPU-second",
            figure=len(decisions) / spent,
            unit="decisions/CPU-s",
            reference=len(decisions) / base,
            reference_name="greedy rollouts (grader version 5), same run",
            goal=f"50,000 decisions ≤ {GOAL_SECONDS:.0f} s on 2 cores",
            met=player <= GOAL_SECONDS,
            note=(
                f"{ratio:.2f}x the greedy rollouts' CPU on {len(decisions)} decisions; about "
                f"{player:.0f} s for 50,000 decisions on two cores (98 s greedy, docs/grading.md)"
            ),
        )


if __name__ == "__main__":
    main()
