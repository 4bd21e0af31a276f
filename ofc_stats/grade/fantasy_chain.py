"""What a Fantasyland is worth under the continuation policy: self-play and its chain.

    python -m ofc_stats.grade.fantasy_chain [--out PATH] [--seed 0] [--hands 40000]
        [--rounds 2] [--round-hands 10000] [--ruleset NAME ...] [--threads N]

For each ruleset and table size (2 seats to the ruleset's most) the core
(``rust/ofc-core/src/fantasy_chain.rs``) plays hands of every state of the
Markov chain of entry and repeat: "normal hand" (a table of normal seats) and
"Fantasyland of n cards" for each size the rules deal (one seat set by the exact
solver against normal seats).  The normal seats play by the continuation policy
as the grader's rollouts play it (the learned board value, greedy, where it
covers the street; the imagined completions elsewhere: a joker, the streets of
Classic OFC).  Each hand gives a seat's points before caps and the Fantasyland
it is dealt next, and the chain (:func:`ofc_stats.engine.fantasy_value.fantasy_values`,
the same that reads a room's own results) turns them into what a Fantasyland of
n cards is worth over a normal hand, repeats included.

The policy plays by what a Fantasyland is worth, and the solver values a repeat
by it, so the figures are a fixed point: round 0 plays by the published figures,
each later round by the last round's worth (``--rounds``), the last one with
``--hands`` hands a state.  SEs bootstrap the last round's hands within each state.

``--ruleset NAME`` (repeatable) plays only those rulesets and keeps the file's
others.  The figures are versioned data (:data:`FIGURES`), read by
:func:`ofc_stats.grade.fantasy.room_values` for a Fantasyland size a room has too
few hands of; the same command and seed write the same file on any thread count.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.fantasy_value import (
    FantasyValues,
    fantasy_values,
    nearest_size,
    published_value,
)
from ofc_stats.engine.presets import PRESETS, get_ruleset
from ofc_stats.engine.rules import FantasyMode, Ruleset
from ofc_stats.grade.rollout import streets
from ofc_stats.grade.train import WEIGHTS, learned_value, weights_id

FIGURES = Path(__file__).resolve().parent / "data" / "fantasy-chain-v1.json"
VERSION = 1
COMMAND = "python -m ofc_stats.grade.fantasy_chain"
# Bootstrap resamples of the last round's hands, for the SEs.
BOOTSTRAP = 200

Rows = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]


@dataclass(frozen=True)
class SelfPlay:
    """How the versioned figures are played (the file records it too)."""

    seed: int = 0
    hands: int = 40_000  # hands of each state in the last round
    rounds: int = 2  # rounds before the last, each playing by the one before's worth
    round_hands: int = 10_000  # hands of each state in those rounds
    # Every preset with a Fantasyland but the jokers': the imagined completions a joker
    # needs cost about 5 ms a hand, 25 times the learned value (play it apart, with fewer
    # hands: docs/policy.md).
    rulesets: tuple[str, ...] = field(
        default_factory=lambda: tuple(
            name
            for name, r in PRESETS.items()
            if r.fantasy.mode is not FantasyMode.NONE and r.deck.size == 52
        )
    )


def table_sizes(ruleset: Ruleset) -> list[int]:
    """Seats at the tables self-play can deal every state of the chain to."""
    dealt = sum(d for d, _ in streets(ruleset))
    largest = max(ruleset.fantasy.sizes(), default=0)
    return [
        s
        for s in range(2, ruleset.max_seats + 1)
        if largest + (s - 1) * dealt <= ruleset.deck.size and s * dealt <= ruleset.deck.size
    ]


def fingerprint(ruleset: Ruleset) -> str:
    """The ruleset's options (not its name or description), so a room whose rules
    differ from the preset of its name never takes the preset's figures."""
    text = repr(replace(ruleset, name="x", description=""))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def worth_at(worth: Mapping[int, float], cards: int) -> float:
    """A ``cards``-card Fantasyland's worth from a (non-empty) worth by size: a size not
    listed takes the nearest smaller's (the smallest's below them all)."""
    return worth[nearest_size(worth.keys(), cards)]


def worth_by_cards(worth: Mapping[int, float]) -> list[float]:
    """A worth by size as the core's table (0..31 cards, :func:`worth_at`), no entry 0;
    at least 0."""
    if not worth:
        return [0.0] * 32
    return [0.0, *(max(worth_at(worth, n), 0.0) for n in range(1, 32))]


def play_rows(
    ruleset: Ruleset,
    seats: int,
    values: Sequence[float],
    hands: int,
    seed: int,
    value: _core.ValueFunction | None,
    threads: int | None = None,
) -> dict[int, Rows]:
    """Each state's self-play rows (hand, points, next cards), normal (0) first."""
    rules = core_rules(ruleset)
    out = {}
    for state in [0, *ruleset.fantasy.sizes()]:
        hand, _, points, after = _core.fantasy_chain_hands(
            rules,
            streets(ruleset),
            list(values),
            seats=seats,
            fantasy=state,
            hands=hands,
            seed=seed,
            value=value,
            threads=threads,
        )
        out[state] = (hand, points, after)
    return out


def chain(rows: Mapping[int, Rows]) -> FantasyValues:
    """The chain's values from every state's rows (the room estimate's definition)."""
    cards = np.concatenate([np.full(len(r[0]), s, dtype=np.int64) for s, r in rows.items()])
    points = np.concatenate([r[1] for r in rows.values()]).astype(np.float64)
    after = np.concatenate([r[2] for r in rows.values()])
    return fantasy_values(cards, points, after)


def bootstrap_se(rows: Mapping[int, Rows], reps: int, seed: int) -> dict[int, float]:
    """The SE of each size's worth: the chain on resamples of each state's hands (a
    normal hand's seats stay together)."""
    rng = np.random.default_rng(seed)
    draws: dict[int, list[float]] = {}
    for _ in range(reps):
        again = {}
        for state, (hand, points, after) in rows.items():
            per = len(hand) // max(len(np.unique(hand)), 1)  # rows a hand
            count = len(hand) // per
            pick = rng.integers(count, size=count)
            take = (pick[:, None] * per + np.arange(per)).ravel()
            again[state] = (hand[take], points[take], after[take])
        for n, v in chain(again).value.items():
            draws.setdefault(n, []).append(v)
    return {n: float(np.std(v, ddof=1)) for n, v in draws.items()}


def policy_name(ruleset: Ruleset, value: _core.ValueFunction | None) -> str:
    """How the normal seats play, in words (the file and the sources say it)."""
    placed, covered = 0, []
    for _, kept in streets(ruleset):
        placed += kept
        covered.append(value is not None and placed in value.placed)
    if not any(covered):
        return "imagined completions"
    learned = f"learned board value, greedy ({WEIGHTS.name} {weights_id()})"
    if ruleset.deck.size != 52:
        return f"{learned}; imagined completions where a joker is in play"
    if not all(covered):
        return f"{learned} on {sum(covered)} of {len(covered)} streets, imagined completions else"
    return learned


def self_play(
    ruleset: Ruleset,
    seats: int,
    settings: SelfPlay,
    threads: int | None = None,
    value: _core.ValueFunction | None = None,
) -> dict[str, Any]:
    """One ruleset's figures at a table of ``seats``: the fixed point's worth by size,
    its SEs, and what the chain read (points, stays, entries) from the last round."""
    sizes = ruleset.fantasy.sizes()
    worth = {n: published_value(n, ruleset.deck)[0] for n in sizes}
    history = []
    for round_ in range(settings.rounds + 1):
        last = round_ == settings.rounds
        hands = settings.hands if last else settings.round_hands
        rows = play_rows(
            ruleset, seats, worth_by_cards(worth), hands, settings.seed + round_, value, threads
        )
        found = chain(rows)
        history.append({str(n): round(v, 3) for n, v in found.value.items()})
        if not last:
            worth = found.value
    se = bootstrap_se(rows, BOOTSTRAP, settings.seed)
    normal_after = rows[0][2]
    played = {str(n): worth_by_cards(worth)[n] for n in sizes}
    return {
        "worth": {str(n): round(v, 4) for n, v in found.value.items()},
        "se": {str(n): round(v, 4) for n, v in se.items()},
        "points": {str(s): round(float(r[1].mean()), 4) for s, r in rows.items()},
        "stays": {str(n): round(found.stay_rate[n], 4) for n in sizes},
        "repeats_into": {
            str(n): {
                str(int(m)): round(float((rows[n][2] == m).mean()), 4)
                for m in np.unique(rows[n][2])
                if m > 0
            }
            for n in sizes
        },
        "entry": {str(n): round(float((normal_after == n).mean()), 4) for n in sizes},
        "hands": {str(s): len(np.unique(r[0])) for s, r in rows.items()},
        "played_by": {k: round(v, 3) for k, v in played.items()},
        "rounds": history,
    }


def figures(settings: SelfPlay, threads: int | None = None, log: bool = False) -> dict[str, object]:
    """The versioned file's content: every ruleset's figures at every table size."""
    value = learned_value()
    rulesets: dict[str, object] = {}
    for name in settings.rulesets:
        ruleset = get_ruleset(name)
        sizes = table_sizes(ruleset)
        if not ruleset.fantasy.sizes() or not sizes:
            continue
        started = time.process_time()
        tables = {str(s): self_play(ruleset, s, settings, threads, value) for s in sizes}
        rulesets[ruleset.name] = {
            "fingerprint": fingerprint(ruleset),
            "policy": policy_name(ruleset, value),
            "settings": {k: v for k, v in asdict(settings).items() if k != "rulesets"},
            "weights": weights_id(),
            "tables": tables,
        }
        if log:
            cpu = time.process_time() - started
            worth = {s: t["worth"] for s, t in tables.items()}
            print(f"{ruleset.name}: {worth} ({cpu:.0f} CPU s)", flush=True)
    return {"version": VERSION, "command": COMMAND, "rulesets": rulesets}


@dataclass(frozen=True)
class ChainWorth:
    """Self-play's worth of each Fantasyland size in one ruleset, by table size."""

    policy: str
    worth: dict[int, dict[int, float]]  # seats -> cards -> points
    se: dict[int, dict[int, float]]

    def mixed(self, shares: Mapping[int, float] | None = None) -> tuple[dict[int, float], str]:
        """The worth by size at the room's tables: each table size's worth weighted by
        its share of the room's seats (``shares``, seats -> share); sizes self-play has
        no table for are left out, and without shares every table size counts alike."""
        weights = {s: w for s, w in (shares or {}).items() if s in self.worth and w > 0}
        if not weights:
            weights = dict.fromkeys(self.worth, 1.0)
        total = sum(weights.values())
        sizes = set.intersection(*(set(self.worth[s]) for s in weights))
        mixed = {n: sum(w * self.worth[s][n] for s, w in weights.items()) / total for n in sizes}
        tables = ", ".join(f"{s} seats {w / total:.0%}" for s, w in sorted(weights.items()))
        return mixed, f"self-play ({self.policy}; {tables})"


@lru_cache(maxsize=4)
def _read(path: Path) -> dict[str, object]:
    """The figures file, read once a process (the grader asks for every room)."""
    return _load(path)


def _load(path: Path) -> dict[str, object]:
    """The figures file's content; {} for a missing file or another version."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) and doc.get("version") == VERSION else {}


def chain_worth(ruleset: Ruleset, path: Path = FIGURES) -> ChainWorth | None:
    """The versioned self-play figures of ``ruleset``, None where it has none (not
    self-played, or its options differ from the ruleset of that name there)."""
    entry = _read(path).get("rulesets", {}).get(ruleset.name)  # type: ignore[attr-defined]
    if not isinstance(entry, dict) or entry.get("fingerprint") != fingerprint(ruleset):
        return None
    tables = entry.get("tables", {})
    worth = {int(s): {int(n): float(v) for n, v in t["worth"].items()} for s, t in tables.items()}
    se = {int(s): {int(n): float(v) for n, v in t["se"].items()} for s, t in tables.items()}
    return ChainWorth(str(entry.get("policy", "")), worth, se) if worth else None


def main(argv: list[str] | None = None) -> int:
    defaults = SelfPlay()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=FIGURES)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--hands", type=int, default=defaults.hands)
    parser.add_argument("--rounds", type=int, default=defaults.rounds)
    parser.add_argument("--round-hands", type=int, default=defaults.round_hands)
    parser.add_argument(
        "--ruleset", action="append", help="a ruleset to play (default: every preset)"
    )
    parser.add_argument("--threads", type=int, help="default: every core")
    args = parser.parse_args(argv)
    if min(args.hands, args.round_hands) < 1 or args.rounds < 0:
        parser.error("--hands and --round-hands must be at least 1, --rounds at least 0")
    settings = SelfPlay(args.seed, args.hands, args.rounds, args.round_hands)
    try:
        if args.ruleset:
            settings = replace(settings, rulesets=tuple(get_ruleset(n).name for n in args.ruleset))
        doc = figures(settings, args.threads, log=True)
    except (ValueError, LookupError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.ruleset:  # the other rulesets' figures stay as the file has them
        kept = _load(args.out).get("rulesets", {})
        doc["rulesets"] = {**kept, **doc["rulesets"]}  # type: ignore[dict-item]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
