"""Learning from the players: the continuation policy plus a model of their choices.

    .venv/bin/python bench/imitate_study.py --data out/study-data [--samples ../shared/samples/apps]
        [--l2 0.001 --l2 0.003 ...] [--lam 0.5 --lam 1 ...] [--placed 5 --placed 7]
        [--dreams 8] [--grader] [--out out/imitate]

Fits the conditional-logit model of ``ofc_stats.grade.imitate`` to the players' plays on
the **tuning half** of the seats only (the penalty chosen by the log-likelihood of one
fold of that half fitted on the other), then replays the continuation policy alone
playing by ``V + lam * preference`` for each ``--lam`` (0: the value alone, the
reference) on every seat; ``--grader``: the grader's advice (version 5's race) with its
rollouts played by that policy, and its claims.  The tuning half is *cross-fitted*: each
of its folds is played by the fit on the other fold, so no figure is in-sample for the
model; the holdout half is played by the fit on the whole tuning half.  Printed per half:
the realised gain a seat-hand against the players, fouls and Fantasyland entries, and the
paired difference to ``lam = 0`` seat by seat (the choice rule of docs/grading.md).
Fits are cached in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from race_study import load, study  # noqa: E402
from replay import _rates  # noqa: E402

from ofc_stats import _core  # noqa: E402
from ofc_stats.grade import imitate  # noqa: E402
from ofc_stats.grade.position import Decision  # noqa: E402
from ofc_stats.grade.race import Search  # noqa: E402
from ofc_stats.grade.replay import (  # noqa: E402
    Advice,
    SeatReplay,
    half,
    policy_advice,
    realised,
    replay,
)
from ofc_stats.grade.replay_store import dataset_worth  # noqa: E402
from ofc_stats.grade.tasks import GradeOptions  # noqa: E402
from ofc_stats.grade.train import learned_value  # noqa: E402


def fold(hand_key: str) -> int:
    """A second split of the tuning half (CRC-32 bit 1) for choosing the penalty."""
    return (zlib.crc32(hand_key.encode("utf-8")) >> 1) & 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, default=ROOT.parent / "shared/samples/apps")
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--l2", type=float, action="append", default=[])
    parser.add_argument("--lam", type=float, action="append", default=[])
    parser.add_argument("--grader", action="store_true")
    parser.add_argument(
        "--placed",
        type=int,
        action="append",
        default=[],
        help="add the preference only to these streets' models (cards placed; default all)",
    )
    parser.add_argument("--dreams", type=int, help="the policy alone looks this many deals ahead")
    parser.add_argument(
        "--search",
        type=Search.parse,
        help="the policy alone searches a street ahead so (DEALS[:AMONG[:UNTIL[:FROM]]]; "
        "default: greedily, as the figures of docs/grading.md were measured)",
    )
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--out", type=Path, default=ROOT / "out/imitate")
    args = parser.parse_args()
    decisions, finals = load(args.data, args.samples)
    options = GradeOptions(rollouts=args.rollouts, seed=0).for_dataset(args.data)
    worth = dataset_worth(options)
    value = learned_value()
    tune = [d for d in decisions if half(d.hand_key) == "tune"]
    started = time.process_time()
    offers = imitate.offered(tune, value, worth, args.workers)
    print(f"{len(offers)} tuning decisions described ({time.process_time() - started:.1f} CPU s)")
    opponents = float(np.mean([len(d.opponents) for d in tune]))
    a = [o for o in offers if fold(o.hand_key) == 0]
    b = [o for o in offers if fold(o.hand_key) == 1]
    base = imitate.log_likelihood(b, {})
    print("  a uniform choice, fold B log-likelihood by cards placed:", _fmt(base))
    best_l2, best_ll = None, -np.inf
    folds: dict[float, tuple[dict[int, imitate.Preference], dict[int, imitate.Preference]]] = {}
    for l2 in args.l2 or [0.001]:
        t0 = time.process_time()
        on_a = _cached(args.out, f"a-{l2:g}-{args.steps}", a, l2, args.steps)
        on_b = _cached(args.out, f"b-{l2:g}-{args.steps}", b, l2, args.steps)
        folds[l2] = (on_a, on_b)
        ll_b, ll_a = imitate.log_likelihood(b, on_a), imitate.log_likelihood(a, on_b)
        total = sum(ll_b[p] * sum(o.placed == p for o in b) for p in ll_b) + sum(
            ll_a[p] * sum(o.placed == p for o in a) for p in ll_a
        )
        print(
            f"  l2 {l2:g}: fold B {_fmt(ll_b)}, fold A {_fmt(ll_a)}; agreement on B "
            f"{imitate.agreement(b, on_a, 1.0):.1%} (value alone "
            f"{imitate.agreement(b, {}, 1.0):.1%}) [{time.process_time() - t0:.0f} CPU s]"
        )
        if total > best_ll:
            best_l2, best_ll = l2, total
    assert best_l2 is not None
    prefs = _cached(args.out, f"tune-{best_l2:g}-{args.steps}", offers, best_l2, args.steps)
    print(
        f"fitted on the tuning half, l2 {best_l2:g}: beta by cards placed "
        + ", ".join(f"{p}: {q.beta:.3f}" for p, q in sorted(prefs.items()))
    )
    on_a, on_b = folds[best_l2]
    if args.placed:
        prefs, on_a, on_b = (
            {k: v for k, v in p.items() if k in args.placed} for p in (prefs, on_a, on_b)
        )
    args.out.mkdir(parents=True, exist_ok=True)
    reference: dict[tuple[str, int], float] | None = None
    for lam in [0.0, *(args.lam or [1.0])]:
        note = {"l2": best_l2, "lam": lam, "fitted_on": "tune", "opponents": opponents}

        def played_by(
            prefs: dict[int, imitate.Preference], note: dict[str, object], lam: float = lam
        ) -> _core.ValueFunction:
            return value if not lam else imitate.combined(value, prefs, lam, opponents, note)

        # The tuning half is played by the fit on its other fold (cross-fitted: never
        # in-sample), the holdout half by the fit on the whole tuning half.
        values = {0: played_by(on_b, note), 1: played_by(on_a, note), 2: played_by(prefs, note)}
        t0 = time.process_time()
        if args.grader:
            # The grader's race as version 5 (32 rollouts, tie 2 SE), its rollouts played
            # by each group's policy; claims included.
            rows = []
            for group, played in values.items():
                members = [d for d in decisions if _group(d.hand_key) == group]
                rows += study(members, finals, options, 2.0, 1, 2.0, args.workers, 0, played)
            seats = [SeatGain.of_row(r) for r in rows]
        else:
            advise = crossfit(
                {
                    w: policy_advice(
                        0,
                        args.workers,
                        fantasy_worth=worth,
                        value=v,
                        dreams=args.dreams,
                        search=args.search,
                    )
                    for w, v in values.items()
                }
            )
            seats = [SeatGain.of_seat(s) for s in replay(decisions, finals, advise, worth)]
        if lam:
            (args.out / f"value-lam{lam:g}{_tag(args)}.json").write_text(
                imitate.combined(value, prefs, lam, opponents, note).to_json()
            )
        cpu = time.process_time() - t0
        print(
            f"lam {lam:g} ({'grader' if args.grader else 'policy'}, dreams {args.dreams}, "
            f"search {args.search}, "
            f"{cpu:.0f} CPU s):"
        )
        for which in ("tune", "holdout", "all"):
            part = [s for s in seats if which in ("all", half(s.hand_key))]
            r, p = _rates(part, bot=True), _rates(part, bot=False)
            line = (
                f"  {which:8s} {realised([s.gain for s in part])}; bot fouls {r['fouls']:.1%} "
                f"FL {r['entries']:.1%} (players {p['fouls']:.1%} / {p['entries']:.1%}); "
                f"deviating {sum(s.first_deviation is not None for s in part)}"
            )
            if reference is not None:
                paired = realised([s.gain - reference[(s.hand_key, s.seat)] for s in part])
                line += f"; minus lam 0: {paired}"
            if args.grader:
                claimed = realised([s.claimed for s in part])
                short = realised([s.gain - s.claimed for s in part])
                line += f"; claimed {claimed.mean:.2f}, realised - claimed {short}"
            print(line)
        rows = [
            {
                "hand_key": s.hand_key,
                "seat": s.seat,
                "half": half(s.hand_key),
                "gain": s.gain,
                "claimed": s.claimed,
                "first_deviation": s.first_deviation,
            }
            for s in seats
        ]
        (args.out / f"seats-lam{lam:g}{_tag(args)}.json").write_text(json.dumps(rows))
        if reference is None:
            reference = {(s.hand_key, s.seat): s.gain for s in seats}
        sys.stdout.flush()


@dataclass(frozen=True)
class SeatGain:
    """One seat replayed: its gain, claim (the grader's only) and both boards."""

    hand_key: str
    seat: int
    gain: float
    first_deviation: int | None
    claimed: float
    bot_board: tuple[int, ...]
    player_board: tuple[int, ...]

    @staticmethod
    def of_seat(s: SeatReplay) -> SeatGain:
        return SeatGain(
            s.hand_key, s.seat, s.gain, s.first_deviation, 0.0, s.bot_board, s.player_board
        )

    @staticmethod
    def of_row(r: dict[str, Any]) -> SeatGain:
        return SeatGain(
            str(r["hand_key"]),
            int(r["seat"]),
            float(r["gain"]),
            r["first_deviation"],
            float(r["claimed"]),
            tuple(r["bot_board"]),
            tuple(r["player_board"]),
        )


def _cached(
    out: Path, name: str, offers: Sequence[imitate.Offered], l2: float, steps: int
) -> dict[int, imitate.Preference]:
    """A fit kept in ``out`` (the same data and settings give the same fit)."""
    path = out / f"prefs-{name}.npz"
    if path.exists():
        got = np.load(path)
        return {int(k): imitate.Preference(float(got[k][0]), got[k][1:]) for k in got.files}
    prefs = imitate.fit(offers, l2, steps)
    out.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {str(k): np.append(p.beta, p.u) for k, p in prefs.items()}
    np.savez(path, **arrays)
    return prefs


def crossfit(advisers: dict[int, Advice]) -> Advice:
    """Each decision advised by the adviser of its group (:func:`_group`)."""

    def advise(asked: Sequence[Decision]) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = [()] * len(asked)
        for which, adviser in advisers.items():
            members = [i for i, d in enumerate(asked) if _group(d.hand_key) == which]
            if members:
                plays = adviser([asked[i] for i in members])
                for i, play in zip(members, plays, strict=True):
                    out[i] = tuple(play)
        return out

    return advise


def _tag(args: argparse.Namespace) -> str:
    placed = "-p" + "_".join(map(str, args.placed)) if args.placed else ""
    dreams = f"-d{args.dreams}" if args.dreams else ""
    search = "-s" + "_".join(map(str, args.search.core())) if args.search else ""
    return placed + dreams + search + ("-grader" if args.grader else "")


def _group(hand_key: str) -> int:
    """0/1: the tuning half's folds A/B; 2: the holdout half."""
    return fold(hand_key) if half(hand_key) == "tune" else 2


def _fmt(ll: dict[int, float]) -> str:
    return " ".join(f"{p}:{v:.3f}" for p, v in sorted(ll.items()))


if __name__ == "__main__":
    main()
