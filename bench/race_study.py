"""Where the advice's gain is left: the replay under other race settings, tuned on one half.

    .venv/bin/python bench/race_study.py --data out/study-data [--samples ../shared/samples/apps]
        [--config 32:2:1 --config 32:0:1 ...] [--half all|tune|holdout] [--first-street 1]
        [--seed 0] [--workers 2] [--out out/study]

Each ``--config BUDGET:TIE:EXTRA[:OWN]`` grades every street decision of the real samples with
that race (at most BUDGET rollouts a candidate, finalists within TIE SEs tied, EXTRA times
the budget where the advice hinges; OWN: the tie margin on the bot's own positions after
it first played otherwise, where there is no play made to prefer; default TIE), then replays
the advice on every graded seat's own cards as ``ofc-stats grade --replay`` does (the stored
advice where the bot's position is the player's own, graded anew after the first deviation;
Fantasyland valued from the data).  ``--first-street N``: the player's own play before
street N, the advice from it on (a bound on what the later streets' mistakes can give).

**No tuning on the figures reported**: the seats are split in two halves by a hash of the
hand key (CRC-32 of the key, even: the *tuning* half, odd: the *holdout* half).  A setting
is chosen on the tuning half only; the holdout half (and all seats) is where it is
reported.  Printed for each half: the realised gain a seat-hand (mean ± SE), the claimed
loss, realised − claimed, by street of first deviation, the seats that deviate, and the CPU
seconds of the run, and each later config's paired difference to the first (seat by seat,
on the same cards: the test of the choice rule).  Each config's seats are written to
``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ofc_stats import _core  # noqa: E402
from ofc_stats.errors import UnplayablePosition  # noqa: E402
from ofc_stats.grade.position import (  # noqa: E402
    HAND_COLUMNS,
    PLACEMENT_COLUMNS,
    SEAT_COLUMNS,
    Decision,
    read_positions,
)
from ofc_stats.grade.race import Search, decision_seed, grade_many  # noqa: E402
from ofc_stats.grade.replay import (  # noqa: E402
    FinalSeat,
    final_seats,
    half,
    placeholder_play,
    realised,
    replay,
    with_play,
)
from ofc_stats.grade.replay_store import dataset_worth  # noqa: E402
from ofc_stats.grade.tasks import GradeOptions  # noqa: E402
from ofc_stats.store.dataset import Dataset  # noqa: E402
from ofc_stats.store.importer import import_paths  # noqa: E402
from ofc_stats.store.recompute import recompute  # noqa: E402
from ofc_stats.store.rulesets import DatasetRulesets  # noqa: E402


def load(data: Path, samples: Path) -> tuple[list[Decision], dict[str, list[FinalSeat]]]:
    if not data.exists():
        import_paths([samples], data)
        recompute(data)
    dataset = Dataset(data)
    decisions: list[Decision] = []
    finals: dict[str, list[FinalSeat]] = {}
    for batch in dataset.batches():
        hands = pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS)
        seats = pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS)
        placements = pq.read_table(
            dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS
        )
        decisions += read_positions(hands, seats, placements, DatasetRulesets(data)).decisions
        finals.update(final_seats(seats))
    return decisions, finals


def study(
    decisions: Sequence[Decision],
    finals: dict[str, list[FinalSeat]],
    options: GradeOptions,
    tie: float,
    extra: int,
    own_tie: float,
    workers: int,
    first_street: int = 0,
    value: _core.ValueFunction | Literal["learned"] = "learned",
    search: Search | None = None,
    search_next_only: bool = False,
    screen: Search | None = None,
) -> list[dict[str, object]]:
    """Grade the real decisions with this race (the claims), replay its advice; per seat.
    Before ``first_street`` (0 = the first street) the advice is the player's own play;
    ``value``: the board value the rollouts play by (default: the versioned weights),
    searching a street ahead as ``search`` says, the screen ranking by ``screen``
    (``grade_many``; None: greedily, imagined completions)."""
    worth = dataset_worth(options)

    def grade(asked: Sequence[Decision], stick: bool = True) -> list[object]:
        keys = [decision_seed(options.seed, d.hand_key, d.seat, d.street) for d in asked]
        return list(
            grade_many(
                asked,
                options.rollouts,
                keys,
                workers,
                options.fantasy_table,
                value,
                tie=tie if stick else own_tie,
                extra=extra,
                stick=stick,
                search=search,
                search_next_only=search_next_only,
                screen=screen,
            )
        )

    claimed: dict[tuple[str, int], float] = defaultdict(float)
    known: dict[tuple[str, int, int], tuple[int, ...]] = {}
    graded = [d for d in decisions if d.street >= first_street]
    for d, g in zip(graded, grade(graded), strict=True):
        if isinstance(g, UnplayablePosition):
            continue
        claimed[(d.hand_key, d.seat)] += g.loss  # type: ignore[attr-defined]
        known[(d.hand_key, d.seat, d.street)] = tuple(
            int(x)
            for x in g.destinations[g.best]  # type: ignore[attr-defined]
        )
    real = {(d.hand_key, d.seat, d.street): d for d in decisions}

    def advise(asked: Sequence[Decision]) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...] | None] = []
        todo = []
        for i, d in enumerate(asked):
            key = (d.hand_key, d.seat, d.street)
            mine = real.get(key)
            same = mine is not None and (mine.board, mine.dead) == (d.board, d.dead)
            out.append(
                d.chosen if same and d.street < first_street else known.get(key) if same else None
            )
            if out[-1] is None:
                todo.append(i)
        for stick in (True, False):
            members = [i for i in todo if bool(asked[i].chosen) == stick]
            fresh = grade([with_play(asked[i]) for i in members], stick)
            for i, g in zip(members, fresh, strict=True):
                d = asked[i]
                out[i] = (
                    placeholder_play(d, d.board)
                    if isinstance(g, UnplayablePosition)
                    else tuple(int(x) for x in g.destinations[g.best])  # type: ignore[attr-defined]
                )
        return [p for p in out if p is not None]

    seats = replay(decisions, finals, advise, worth)
    return [
        {
            "hand_key": s.hand_key,
            "seat": s.seat,
            "half": half(s.hand_key),
            "first_deviation": s.first_deviation,
            "gain": s.gain,
            "claimed": claimed.get((s.hand_key, s.seat), 0.0),
            "bot_board": list(s.bot_board),
            "player_board": list(s.player_board),
        }
        for s in seats
    ]


def summary(rows: Sequence[dict[str, object]]) -> str:
    gain = realised([float(r["gain"]) for r in rows])  # type: ignore[arg-type]
    claimed = realised([float(r["claimed"]) for r in rows])  # type: ignore[arg-type]
    short = realised([float(r["gain"]) - float(r["claimed"]) for r in rows])  # type: ignore[arg-type]
    streets = []
    for street in range(5):
        part = [r for r in rows if r["first_deviation"] == street]
        if part:
            g = realised([float(r["gain"]) for r in part])  # type: ignore[arg-type]
            c = realised([float(r["claimed"]) for r in part])  # type: ignore[arg-type]
            streets.append(f"s{street + 1} {g.mean:+.2f}±{g.se:.2f}/{c.mean:.2f} ({g.seats})")
    deviating = sum(r["first_deviation"] is not None for r in rows)
    return (
        f"realised {gain.mean:+.3f} ± {gain.se:.3f}, claimed {claimed.mean:.3f} ± "
        f"{claimed.se:.3f}, realised-claimed {short.mean:+.3f} ± {short.se:.3f}; "
        f"{deviating} of {gain.seats} seats deviate: " + ", ".join(streets)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, default=ROOT.parent / "shared/samples/apps")
    parser.add_argument("--data", type=Path, required=True, help="the imported samples (kept)")
    parser.add_argument("--config", action="append", default=[], help="BUDGET:TIE:EXTRA")
    parser.add_argument("--half", choices=("all", "tune", "holdout"), default="all")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--first-street", type=int, default=1, help="the advice plays the player's play before"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "out/study")
    args = parser.parse_args()
    decisions, finals = load(args.data, args.samples)
    if args.half != "all":
        decisions = [d for d in decisions if half(d.hand_key) == args.half]
    args.out.mkdir(parents=True, exist_ok=True)
    reference: dict[tuple[str, int], float] | None = None
    for config in args.config or ["32:2:1"]:
        budget, tie, extra, *own = config.split(":")
        options = GradeOptions(rollouts=int(budget), seed=args.seed).for_dataset(args.data)
        started = time.process_time()
        own_tie = float(own[0]) if own else float(tie)
        rows = study(
            decisions,
            finals,
            options,
            float(tie),
            int(extra),
            own_tie,
            args.workers,
            args.first_street - 1,
        )
        cpu = time.process_time() - started
        name = f"{budget}-{tie}-{extra}-{own_tie}-s{args.seed}-{args.half}-f{args.first_street}"
        (args.out / f"{name}.json").write_text(json.dumps(rows))
        print(
            f"{config} seed {args.seed} from street {args.first_street} "
            f"({args.half}, {cpu:.0f} CPU s, {len(decisions)} decisions)"
        )
        for which in ("tune", "holdout", "all"):
            part = [r for r in rows if which in ("all", r["half"])]
            if part:
                print(f"  {which:8s} {summary(part)}")
            if part and reference is not None:
                paired = realised([float(r["gain"]) - reference[key(r)] for r in part])  # type: ignore[arg-type]
                print(f"  {'':8s} minus the first config, seat by seat: {paired}")
        if reference is None:
            reference = {key(r): float(r["gain"]) for r in rows}  # type: ignore[arg-type]
        sys.stdout.flush()


def key(row: dict[str, object]) -> tuple[str, int]:
    return (str(row["hand_key"]), int(row["seat"]))  # type: ignore[call-overload]


if __name__ == "__main__":
    main()
