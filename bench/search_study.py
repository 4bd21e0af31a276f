"""Searching a street ahead with the learned value (issue 26): the policy alone and the grader.

    .venv/bin/python bench/search_study.py --data out/study-data [--samples ../shared/samples/apps]
        [--search 8:0:7 --search 16:0:7 ...] [--grader [--next-only]] [--workers 2]
        [--out out/search]

Replays the continuation policy alone (``policy_advice``, the learned value) on every
gradable real seat, greedily (the reference, the default) and searching a street ahead
with each ``--search DEALS[:AMONG[:UNTIL[:FROM]]]`` (``ofc_core::search``: a play is
worth the mean over DEALS sampled deals of the next street of the best next afterstate's
value, among the AMONG best plays, 0 all, where the play leaves at most UNTIL and at
least FROM cards placed);
``--grader``: the grader's advice (version 5's race, 32 rollouts, tie 2 SE) with its
rollouts searching (``--next-only``: only the graded seat's first street after the
decision), and its claims.  Printed per half (the tuning / holdout rule of
docs/grading.md): the realised gain a seat-hand against the players, fouls and
Fantasyland entries, the paired difference to the reference seat by seat, and the CPU
seconds of each run.  Each run's seats go to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from race_study import load, study  # noqa: E402
from replay import _rates  # noqa: E402

from ofc_stats.grade.race import Search  # noqa: E402
from ofc_stats.grade.replay import half, policy_advice, realised, replay  # noqa: E402
from ofc_stats.grade.replay_store import dataset_worth  # noqa: E402
from ofc_stats.grade.tasks import GradeOptions  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, default=ROOT.parent / "shared/samples/apps")
    parser.add_argument("--data", type=Path, required=True, help="the imported samples (kept)")
    parser.add_argument("--search", type=Search.parse, action="append", default=[])
    parser.add_argument("--grader", action="store_true")
    parser.add_argument("--next-only", action="store_true")
    parser.add_argument(
        "--screen",
        action="store_true",
        help="the grader: each search ranks the race's screen (the rollouts stay greedy)",
    )
    parser.add_argument("--no-reference", action="store_true", help="reuse the reference's seats")
    parser.add_argument(
        "--half", choices=("all", "tune", "holdout"), default="all", help="replay these seats only"
    )
    parser.add_argument("--seed", type=int, default=0, help="the key of the search's deals")
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "out/search")
    args = parser.parse_args()
    decisions, finals = load(args.data, args.samples)
    if args.half != "all":
        decisions = [d for d in decisions if half(d.hand_key) == args.half]
    options = GradeOptions(rollouts=args.rollouts, seed=args.seed).for_dataset(args.data)
    worth = dataset_worth(options)
    args.out.mkdir(parents=True, exist_ok=True)
    kind = "grader" if args.grader else "policy"
    reference: dict[tuple[str, int], float] | None = None
    runs: list[Search | None] = [None, *args.search]
    for search in runs:
        name = "greedy" if search is None else "search-" + "-".join(map(str, search.core()))
        if args.grader and search is not None and args.next_only:
            name += "-next"
        if args.grader and search is not None and args.screen:
            name += "-screen"
        if args.seed and search is not None:
            name += f"-seed{args.seed}"
        if args.half != "all":
            name += f"-{args.half}"
        path = args.out / f"{kind}-{name}.json"
        if search is None and args.no_reference and path.exists():
            rows = json.loads(path.read_text())
            cpu = float("nan")
        else:
            t0 = time.process_time()
            if args.grader:
                rows = study(
                    decisions,
                    finals,
                    options,
                    2.0,
                    1,
                    2.0,
                    args.workers,
                    0,
                    search=None if args.screen else search,
                    search_next_only=args.next_only,
                    screen=search if args.screen else None,
                )
            else:
                advise = policy_advice(args.seed, args.workers, fantasy_worth=worth, search=search)
                rows = [
                    {
                        "hand_key": s.hand_key,
                        "seat": s.seat,
                        "half": half(s.hand_key),
                        "first_deviation": s.first_deviation,
                        "gain": s.gain,
                        "claimed": 0.0,
                        "bot_board": list(s.bot_board),
                        "player_board": list(s.player_board),
                    }
                    for s in replay(decisions, finals, advise, worth)
                ]
            cpu = time.process_time() - t0
            path.write_text(json.dumps(rows))
        print(f"{kind} {name} ({cpu:.1f} CPU s):")
        for which in ("tune", "holdout", "all"):
            part = [r for r in rows if which in ("all", r["half"])]
            seats = [_Seat(r) for r in part]
            b, p = _rates(seats, bot=True), _rates(seats, bot=False)
            line = (
                f"  {which:8s} {realised([r['gain'] for r in part])}; bot fouls {b['fouls']:.1%} "
                f"FL {b['entries']:.1%} (players {p['fouls']:.1%} / {p['entries']:.1%})"
            )
            if reference is not None:
                paired = realised([r["gain"] - reference[(r["hand_key"], r["seat"])] for r in part])
                line += f"; minus greedy: {paired}"
            if args.grader:
                claimed = realised([r["claimed"] for r in part])
                short = realised([r["gain"] - r["claimed"] for r in part])
                deviating = sum(r["first_deviation"] is not None for r in part)
                line += f"; claimed {claimed.mean:.2f}, realised - claimed {short} ({deviating})"
            print(line)
        by_street = []
        for street in range(5):
            part = [r["gain"] for r in rows if r["first_deviation"] == street]
            if part:
                by_street.append(f"s{street + 1} {realised(part).mean:+.2f} ({len(part)})")
        print("  first deviation: " + ", ".join(by_street))
        if reference is None:
            reference = {(r["hand_key"], r["seat"]): r["gain"] for r in rows}
        sys.stdout.flush()


class _Seat:
    """A stored seat row as ``replay._rates`` reads it."""

    def __init__(self, row: dict[str, object]) -> None:
        self.bot_board = row["bot_board"]
        self.player_board = row["player_board"]


if __name__ == "__main__":
    main()
