"""The core's grader against the previous one (NumPy, the main checkout) on the same real decisions.

    .venv/bin/python bench/grade_parity.py [--hands 30] [--rollouts 32] [--check 256]

Both graders keep the same policy and race but draw different random numbers,
so they can only agree within their noise.  Per decision: the same best play,
or else the two best plays are worth the same within 2 SE (measured again by
the core on ``--check`` fresh common rollouts of the two, far from the ones
either race used); the positions with nothing left to deal must agree exactly
(1e-9).  Over all decisions: the mean loss differs by less than 2 SE of the
paired per-decision difference.  Prints the figures and PASS / FAIL for each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from record import record  # noqa: E402
from reference_grader import REFERENCE, previous_grader, sample  # noqa: E402

from ofc_stats.grade.position import Decision  # noqa: E402
from ofc_stats.grade.race import decision_seed  # noqa: E402
from ofc_stats.grade.rollout import simulate  # noqa: E402
from ofc_stats.grade.run import GradeOptions, grade_chunk  # noqa: E402

KEY = ["hand_key", "seat", "street"]
FAR = 1_000_000  # the re-measure's first rollout: far from any race's


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def compare(
    a: dict[str, pa.Table],
    b: dict[str, pa.Table],
    decisions: list[Decision],
    args: argparse.Namespace,
    names: tuple[str, str],
) -> None:
    """Print how far two graders' grades of the same decisions agree (see the module doc)."""
    first, second = names
    old = b["grades"].to_pandas().set_index(KEY)
    new = a["grades"].to_pandas().set_index(KEY)
    both = new.add_suffix("_new").join(old.add_suffix("_old"), how="inner")
    graded = both[both["status_new"].isin(["graded", "forced"])]
    print(f"\n{first} against {second}: {len(graded)} decisions graded by both")
    exact = graded[graded["rollouts_new"] == 1]
    if len(exact):
        gap = np.maximum(
            (exact["ev_chosen_new"] - exact["ev_chosen_old"]).abs(),
            (exact["ev_best_new"] - exact["ev_best_old"]).abs(),
        ).max()
        print(
            f"  nothing left to deal, valued exactly: {len(exact)} decisions, "
            f"largest EV difference {gap:.2e}: {verdict(bool(gap < 1e-9))}"
        )
    best_index = {
        name: table["grade_candidates"].to_pandas().query("best").set_index(KEY)["candidate"]
        for name, table in (("new", a), ("old", b))
    }
    by_key = {(d.hand_key, d.seat, d.street): d for d in decisions}
    same = graded["best_play_new"] == graded["best_play_old"]
    close, apart = 0, []
    for key in graded.index[~same.to_numpy()]:
        rows = [int(best_index["new"][key]), int(best_index["old"][key])]
        seed = decision_seed(args.seed, *key)
        values = simulate(by_key[key], rows, args.check, seed, phase=1, first=FAR).total
        diff = values[0] - values[1]
        se = diff.std(ddof=1) / np.sqrt(len(diff))
        if abs(diff.mean()) < 2 * se or (se == 0 and diff.mean() == 0):
            close += 1
        else:
            apart.append((key, float(diff.mean()), float(se)))
    agree = int(same.sum()) + close
    better = sum(gap > 0 for _, gap, _ in apart)
    print(
        f"  best play: the same in {int(same.sum())}; of the {int((~same).sum())} others, "
        f"{close} within 2 SE on {args.check} fresh common rollouts: {agree} of "
        f"{len(graded)} agree ({agree / len(graded):.1%}); {len(apart)} apart, "
        f"{first}'s best the better in {better} of them"
    )
    diff = graded["loss_new"] - graded["loss_old"]
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    # the same losses (a grader against itself) agree though their SE is 0
    within = bool(abs(diff.mean()) < 2 * se or not diff.abs().max() > 0)
    print(
        f"  mean loss a decision: {first} {graded['loss_new'].mean():.3f}, {second} "
        f"{graded['loss_old'].mean():.3f}; difference {diff.mean():+.3f} ± {se:.3f} (SE): "
        f"{verdict(within)} (under 2 SE)"
    )
    record(
        "grade_parity",
        f"{first} against {second}: decisions whose best play agrees (within 2 SE)",
        figure=100 * agree / len(graded),
        unit="%",
        note=f"{agree} of {len(graded)} decisions; {len(apart)} apart",
    )
    record(
        "grade_parity",
        f"{first} against {second}: mean loss a decision",
        figure=float(graded["loss_new"].mean()),
        unit="points",
        reference=float(graded["loss_old"].mean()),
        reference_name=second,
        goal="difference under 2 SE",
        met=within,
        note=f"difference {diff.mean():+.3f} ± {se:.3f} (SE)",
    )
    by_street = graded.groupby(level="street")[["loss_new", "loss_old"]].mean()
    print(
        "  mean loss by street: "
        + ", ".join(f"{s}: {r.loss_new:.2f} / {r.loss_old:.2f}" for s, r in by_street.iterrows())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--rollouts", type=int, default=32)
    parser.add_argument("--check", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="also each grader against itself with the next seed: the noise to expect",
    )
    args = parser.parse_args()
    decisions = sample(args.hands)
    print(
        f"{len(decisions)} street decisions of {args.hands} real hands, "
        f"{args.rollouts} rollouts a candidate; previous grader: {REFERENCE}"
    )
    options = GradeOptions(rollouts=args.rollouts, seed=args.seed)
    previous, _ = previous_grader(decisions, args.rollouts, args.seed, 1)
    core = grade_chunk(decisions, options)
    compare(core, previous, decisions, args, ("core", "previous"))
    if args.baseline:
        again = GradeOptions(rollouts=args.rollouts, seed=args.seed + 1)
        compare(core, grade_chunk(decisions, again), decisions, args, ("core", "core, next seed"))
        previous_again, _ = previous_grader(decisions, args.rollouts, args.seed + 1, 1)
        compare(previous, previous_again, decisions, args, ("previous", "previous, next seed"))


if __name__ == "__main__":
    main()
