"""The grader's advice where the searching policy agrees (issue 26): a second opinion.

    .venv/bin/python bench/search_agree.py --data out/study-data [--half tune]
        [--search 128:0:13] [--from-street 1] [--workers 2]

The grader (version 5: 32 rollouts, tie 2 SE, greedy rollouts) advises otherwise than the
player only beyond 2 SE of its rollouts.  Here the bot also plays otherwise where the
policy searching a street ahead (``--search``, ``policy_advice``) plays otherwise *and*
the grader's rollouts value that play no lower than the player's (point estimates, no margin):
two estimates of different kinds agreeing.  On the bot's own positions (after a first
deviation) it plays the grader's advice as version 5 does.  Printed as
``bench/search_study.py`` prints, with the paired difference to version 5 seat by seat.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from race_study import load  # noqa: E402
from replay import _rates  # noqa: E402

from ofc_stats.errors import UnplayablePosition  # noqa: E402
from ofc_stats.grade.position import Decision  # noqa: E402
from ofc_stats.grade.race import Graded, Search, decision_seed, grade_many  # noqa: E402
from ofc_stats.grade.replay import (  # noqa: E402
    POLICY_SEARCH,
    half,
    placeholder_play,
    policy_advice,
    realised,
    replay,
    with_play,
)
from ofc_stats.grade.replay_store import dataset_worth  # noqa: E402
from ofc_stats.grade.tasks import GradeOptions  # noqa: E402

Key = tuple[str, int, int]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, default=ROOT.parent / "shared/samples/apps")
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--half", choices=("all", "tune", "holdout"), default="tune")
    parser.add_argument("--search", type=Search.parse, default=POLICY_SEARCH)
    parser.add_argument(
        "--from-street", type=int, default=1, help="the second opinion from this street on (1-5)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "out/search")
    args = parser.parse_args()
    decisions, finals = load(args.data, args.samples)
    if args.half != "all":
        decisions = [d for d in decisions if half(d.hand_key) == args.half]
    options = GradeOptions(rollouts=32, seed=0).for_dataset(args.data)
    worth = dataset_worth(options)
    started = time.process_time()

    def grade(asked: Sequence[Decision], stick: bool) -> list[Graded | UnplayablePosition]:
        keys = [decision_seed(0, d.hand_key, d.seat, d.street) for d in asked]
        return grade_many(
            asked, 32, keys, args.workers, options.fantasy_table, "learned", stick=stick
        )

    graded: dict[Key, Graded] = {}
    for d, g in zip(decisions, grade(decisions, True), strict=True):
        if not isinstance(g, UnplayablePosition):
            graded[(d.hand_key, d.seat, d.street)] = g
    searching = policy_advice(0, args.workers, fantasy_worth=worth, search=args.search)
    real = {(d.hand_key, d.seat, d.street): d for d in decisions}

    def advise(asked: Sequence[Decision]) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = [()] * len(asked)
        plays = searching(asked)
        own = []
        for i, d in enumerate(asked):
            key = (d.hand_key, d.seat, d.street)
            mine = real.get(key)
            g = graded.get(key)
            if mine is None or (mine.board, mine.dead) != (d.board, d.dead) or g is None:
                own.append(i)
                continue
            rows = [tuple(int(x) for x in dest) for dest in g.destinations]
            out[i] = rows[g.best]
            wanted = tuple(int(x) for x in plays[i])
            late = d.street + 1 >= args.from_street
            if late and g.best == g.chosen and wanted != rows[g.chosen] and wanted in rows:
                w = rows.index(wanted)
                # Stored values are the best play's minus the paired gap to it, never above
                # it: with the play made the best, equal means no worse on the rollouts.
                if not math.isnan(g.ev[w]) and g.ev[w] >= g.ev[g.chosen]:
                    out[i] = wanted
        fresh = grade([with_play(asked[i]) for i in own], False)
        for i, g in zip(own, fresh, strict=True):
            d = asked[i]
            out[i] = (
                placeholder_play(d, d.board)
                if isinstance(g, UnplayablePosition)
                else tuple(int(x) for x in g.destinations[g.best])
            )
        return out

    seats = replay(decisions, finals, advise, worth)
    cpu = time.process_time() - started
    reference_path = args.out / f"grader-greedy{'' if args.half == 'all' else '-' + args.half}.json"
    reference = {
        (r["hand_key"], r["seat"]): r["gain"] for r in json.loads(reference_path.read_text())
    }
    label = ":".join(map(str, args.search.core()))
    print(f"grader + agreeing search {label} from street {args.from_street} ({cpu:.1f} CPU s):")
    for which in ("tune", "holdout", "all"):
        part = [s for s in seats if which in ("all", half(s.hand_key))]
        if not part:
            continue
        b, p = _rates(part, bot=True), _rates(part, bot=False)
        paired = realised([s.gain - reference[(s.hand_key, s.seat)] for s in part])
        deviating = sum(s.first_deviation is not None for s in part)
        print(
            f"  {which:8s} {realised([s.gain for s in part])}; bot fouls {b['fouls']:.1%} FL "
            f"{b['entries']:.1%} (players {p['fouls']:.1%} / {p['entries']:.1%}); minus v5: "
            f"{paired}; deviating {deviating}"
        )
    by_street = []
    for street in range(5):
        gains = [s.gain for s in seats if s.first_deviation == street]
        if gains:
            by_street.append(f"s{street + 1} {realised(gains).mean:+.2f} ({len(gains)})")
    print("  first deviation: " + ", ".join(by_street))


if __name__ == "__main__":
    main()
