"""The continuation policy's learned board value: training by self-play, and the weights.

    python -m ofc_stats.grade.train [--out PATH] [--seed 0] [--hands 40000] [--rounds 3]

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
Fantasyland values.

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
    parser.add_argument("--threads", type=int, help="default: every core")
    args = parser.parse_args(argv)
    training = Training(
        seed=args.seed,
        first_hands=args.first_hands,
        hands=args.hands,
        rounds=args.rounds,
        explore=args.explore,
        ridge=args.ridge,
        keep=args.keep,
        lookahead=args.lookahead,
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
