"""The continuation policy's learned board value: training by self-play, and the weights.

    python -m ofc_stats.grade.train [--out PATH] [--seed 0] [--hands 40000] [--rounds 3]
        [--target mc|search:DEALS] [--lambda L]

The core (``rust/ofc-core/src/value.rs``) plays simulated three-seat hands of
``pineapple-ultimate`` street by street, each seat seeing its own cards and
discards and the others' boards as they stand; round 0 plays the imagination
policy, each later round plays the highest afterstate value of the last fit
(approximate policy iteration) and fits again on its own hands.  The fit is
linear on a board's features (each row's made hand and open slots, live draws
and outs, the Fantasyland chase, the foul risk between rows) by ridge
regression, so the same command and seed write the same file on any machine
and thread count.  The targets are net points a opponent and the Fantasyland
entered by size, so the one file serves any table size and any room's
Fantasyland values.  ``--target search:DEALS`` bootstraps the targets from the last
fit instead (the search a street ahead's back-up, mixed with the outcome by
``--lambda``): measured worse on the replay than the outcome (docs/policy.md).

The file is versioned data (:data:`WEIGHTS`); :func:`learned_value` loads it
for the rollouts (``grade_many(value=...)``) and the replay
(``policy_advice(value=...)``).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.grade.rollout import streets

WEIGHTS = Path(__file__).resolve().parent / "data" / "value-v1.json"


@dataclass(frozen=True)
class Training:
    """How the versioned weights were trained (the file records it too)."""

    ruleset: str = "pineapple-ultimate"
    seed: int = 0
    seats: int = 3
    first_hands: int = 20_000  # round 0: the imagination policy
    hands: int = 40_000  # each later round: the last fit's greedy policy
    rounds: int = 8
    explore: float = 0.5  # share of seat-hands that explore one street among the best 6
    ridge: float = 1.0
    keep: bool = True  # fit each round on every round's hands so far
    lookahead: int = 0  # deals of the next street the greedy rounds look ahead with
    # Bootstrapped targets (fitted value iteration): an afterstate's target is the mean
    # over this many deals of the next street of the last fit's best next afterstate
    # (0: the hand's outcome, Monte Carlo), mixed with the next street's target by
    # lambda (the lambda-return; 1: the outcome).
    target_deals: int = 0
    lam: float = 1.0
    lam_fantasy: float | None = None  # the Fantasyland entries' lambda (None: lam)
    # What a Fantasyland of 14 / 15 / 16 / 17 cards is worth while the seats play:
    # pineapple-ultimate's room values on the real samples (docs/policy.md).
    fantasy: tuple[float, float, float, float] = (9.93, 21.05, 32.89, 32.89)


def train(training: Training, threads: int | None = None) -> _core.ValueFunction:
    """Train a value function (the same weights for any ``threads``)."""
    ruleset = get_ruleset(training.ruleset)
    values = [0.0] * 14 + list(training.fantasy)
    return _core.train_value(
        core_rules(ruleset),
        streets(ruleset),
        values,
        seed=training.seed,
        seats=training.seats,
        first_hands=training.first_hands,
        hands=training.hands,
        rounds=training.rounds,
        explore=training.explore,
        ridge=training.ridge,
        keep=training.keep,
        lookahead=training.lookahead,
        target_deals=training.target_deals,
        lambda_=training.lam,
        lambda_fantasy=training.lam_fantasy,
        threads=threads,
    )


@lru_cache(maxsize=4)
def weights_id(path: Path = WEIGHTS) -> str:
    """The weights file's SHA-256 (16 hex digits), in the grades' stamp: grades made with
    other weights (a retrained file) are graded again."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@lru_cache(maxsize=4)
def learned_value(path: Path = WEIGHTS) -> _core.ValueFunction:
    """The versioned weights (:data:`WEIGHTS`), or another file of them; read once a
    process (the grader asks for them every chunk of hands)."""
    return _core.ValueFunction(path.read_text())


def _target(text: str) -> int:
    """``mc`` (0 deals) or ``search:DEALS``."""
    if text == "mc":
        return 0
    kind, _, deals = text.partition(":")
    if kind != "search" or not deals.isdigit() or int(deals) < 1:
        raise argparse.ArgumentTypeError(f"not mc or search:DEALS: {text!r}")
    return int(deals)


def main(argv: list[str] | None = None) -> int:
    defaults = Training()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--first-hands", type=int, default=defaults.first_hands)
    parser.add_argument("--hands", type=int, default=defaults.hands)
    parser.add_argument("--rounds", type=int, default=defaults.rounds)
    parser.add_argument("--explore", type=float, default=defaults.explore)
    parser.add_argument("--ridge", type=float, default=defaults.ridge)
    parser.add_argument(
        "--keep",
        action=argparse.BooleanOptionalAction,
        default=defaults.keep,
        help="fit each round on every round's hands so far (--no-keep: its own hands only)",
    )
    parser.add_argument("--lookahead", type=int, default=defaults.lookahead)
    parser.add_argument(
        "--target",
        type=_target,
        default=defaults.target_deals,
        metavar="mc|search:DEALS",
        help="an afterstate's target: the hand's outcome (mc, the default) or the mean "
        "over DEALS deals of the next street of the last fit's best next afterstate",
    )
    parser.add_argument(
        "--lambda",
        dest="lam",
        type=float,
        default=None,
        help="with --target search: the lambda-return's weight of the next street's "
        "target against the back-up (0: the back-up alone, the default; 1: the outcome)",
    )
    parser.add_argument(
        "--lambda-fantasy",
        dest="lam_fantasy",
        type=float,
        default=None,
        help="the same for the Fantasyland entry targets (default: as --lambda)",
    )
    parser.add_argument("--threads", type=int, help="default: every core")
    args = parser.parse_args(argv)
    lam = 0.0 if args.lam is None and args.target else args.lam
    if lam is None:
        lam = defaults.lam
    if not 0.0 <= lam <= 1.0 or not 0.0 <= (args.lam_fantasy or 0.0) <= 1.0:
        parser.error("--lambda must be between 0 and 1")
    training = Training(
        seed=args.seed,
        first_hands=args.first_hands,
        hands=args.hands,
        rounds=args.rounds,
        explore=args.explore,
        ridge=args.ridge,
        keep=args.keep,
        lookahead=args.lookahead,
        target_deals=args.target,
        lam=lam,
        lam_fantasy=args.lam_fantasy,
    )
    try:
        trained = train(training, args.threads)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(trained.to_json())
    print(f"wrote {args.out} ({asdict(training)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
