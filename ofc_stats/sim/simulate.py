"""`ofc-stats simulate`: bots play whole sessions and write hand histories.

The room's reported results come from the engine; ``room_errors`` corrupts a
known share of hands the way a buggy room would and lists each one in a truth
file, so an audit can be checked against ground truth.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ofc_stats.batch import score_batch
from ofc_stats.board import Board
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord
from ofc_stats.rules import AMERICAN_ROYALTIES, CLASSIC_ROYALTIES, Ruleset
from ofc_stats.scoring import score_hand
from ofc_stats.sim.choose import Style
from ofc_stats.sim.match import Player, TableSpec, play_hands

STYLES = {
    "careful": Style("careful", foul_penalty=16, fantasy_bonus=10, noise=0.5),
    "chaser": Style("chaser", foul_penalty=8, fantasy_bonus=60, noise=0.5, top_chase=6),
    "weak": Style("weak", foul_penalty=5, fantasy_bonus=15, noise=3.0, top_chase=1),
    "strong": Style("strong", foul_penalty=10, fantasy_bonus=30, noise=0.0, top_chase=2),
}
NAMES = (
    "Ana", "Bo", "Chen", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jun",
    "Kai", "Lea", "Milo", "Nia", "Omar", 'Zoë "Z" <Z>',
)  # fmt: skip
ERROR_KINDS = ("royalty_table", "sign_error", "cap_ignored", "points_rounded")


@dataclass
class SimulationSummary:
    hands: int = 0
    seconds: float = 0.0
    seats: Counter[str] = field(default_factory=Counter)  # by style
    fouls: Counter[str] = field(default_factory=Counter)
    entries: Counter[str] = field(default_factory=Counter)
    corrupted: int = 0

    def line(self) -> str:
        rate = self.hands / self.seconds if self.seconds else 0.0
        total = sum(self.seats.values()) or 1
        per_style = ", ".join(
            f"{style} {self.fouls[style] / n:.0%} foul / {self.entries[style] / n:.0%} FL"
            for style, n in sorted(self.seats.items())
        )
        return (
            f"simulated {self.hands} hands in {self.seconds:.1f} s ({rate:,.0f} hands/s); "
            f"fouls {sum(self.fouls.values()) / total:.1%}, Fantasyland entries "
            f"{sum(self.entries.values()) / total:.1%} ({per_style}); "
            f"{self.corrupted} hands with room errors"
        )


def _tally(
    summary: SimulationSummary, hands: list[HandRecord], ruleset: Ruleset, style_of: dict[str, str]
) -> None:
    """Count fouls and Fantasyland entries per style with the batch engine; empties ``hands``."""
    if not hands:
        return
    seats = max(len(h.seats) for h in hands)
    boards = np.zeros((len(hands), seats, 13), dtype=np.int8)
    seated = np.zeros((len(hands), seats), dtype=bool)
    in_fantasy = np.zeros((len(hands), seats), dtype=bool)
    for i, hand in enumerate(hands):
        for seat in hand.seats:
            boards[i, seat.seat] = seat.top + seat.middle + seat.bottom
            seated[i, seat.seat] = True
            in_fantasy[i, seat.seat] = seat.in_fantasy
    result = score_batch(boards, ruleset, seated=seated, in_fantasy=in_fantasy, check=False)
    for i, hand in enumerate(hands):
        for seat in hand.seats:
            style = style_of.get(seat.player, "?")
            summary.seats[style] += 1
            summary.fouls[style] += bool(result.fouled[i, seat.seat])
            summary.entries[style] += bool(result.fantasy_qualifies[i, seat.seat])
    hands.clear()


def player_pool(count: int) -> list[Player]:
    """``count`` named players, styles in turn: careful, chaser, weak, strong."""
    styles = list(STYLES.values())
    names = [
        NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else f" {i // len(NAMES) + 1}")
        for i in range(count)
    ]
    return [Player(name, styles[i % len(styles)]) for i, name in enumerate(names)]


def corrupt(hand: HandRecord, ruleset: Ruleset, kind: str) -> tuple[HandRecord, str] | None:
    """The hand as a buggy room would report it, and what changed; None if no change shows."""
    boards = [Board(s.top, s.middle, s.bottom) for s in hand.seats]
    flags = [s.in_fantasy for s in hand.seats]
    counts = [s.fantasy_cards for s in hand.seats]
    if kind == "royalty_table":
        other = CLASSIC_ROYALTIES if ruleset.royalties == AMERICAN_ROYALTIES else AMERICAN_ROYALTIES
        wrong = score_hand(
            boards, ruleset.with_options(royalties=other), in_fantasy=flags, fantasy_cards=counts
        ).net_capped
        detail = f"royalties paid from the {other.name} table"
    elif kind == "sign_error":
        wrong = tuple(-(s.reported_points or 0.0) for s in hand.seats)
        detail = "every seat's points negated"
    elif kind == "cap_ignored":
        stacks = [s.stack for s in hand.seats]
        if any(x is None for x in stacks):
            return None
        wrong = tuple(
            float(x)
            for x in score_hand(boards, ruleset, in_fantasy=flags, fantasy_cards=counts).net
        )
        detail = "stack caps not applied"
    else:
        wrong = tuple(float(round((s.reported_points or 0.0) / 2) * 2) for s in hand.seats)
        detail = "points rounded to even numbers"
    current = tuple(s.reported_points for s in hand.seats)
    if all(abs((a or 0.0) - b) < 1e-9 for a, b in zip(current, wrong, strict=True)):
        return None
    seats = tuple(
        replace(s, reported_points=float(w), reported_money=round(float(w) * (hand.stakes or 1), 2))
        for s, w in zip(hand.seats, wrong, strict=True)
    )
    return replace(hand, seats=seats), detail


def simulate(
    hands: int,
    ruleset: Ruleset,
    *,
    seats: int,
    players: int = 9,
    seed: int = 0,
    tables: int | None = None,
    room_errors: float = 0.0,
    timeout_rate: float = 0.02,
    rollouts: int = 6,
    stack: float | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[HandRecord, dict[str, object] | None]]:
    """Hands and, for each corrupted one, its truth entry."""
    if not ruleset.min_seats <= seats <= ruleset.max_seats:
        raise OfcError(
            f"{ruleset.name} seats {ruleset.min_seats} to {ruleset.max_seats}, not {seats}"
        )
    if players < seats:
        raise OfcError(f"{players} players cannot fill {seats} seats")
    rng = np.random.default_rng(seed)
    pool = player_pool(players)
    table_count = tables or max(1, min(256, hands // 20 or 1))
    seating = [
        [pool[int(i)] for i in rng.choice(players, size=seats, replace=False)]
        for _ in range(table_count)
    ]
    spec = TableSpec(ruleset, seats, rollouts=rollouts, timeout_rate=timeout_rate, stack=stack)
    rounds = -(-hands // table_count)
    error_rng = np.random.default_rng(seed + 1)
    played = play_hands(
        spec, seating, rounds, rng, fantasy_errors=room_errors / 5, error_rng=error_rng
    )
    for emitted, (hand, fantasy_truth) in enumerate(played):
        if emitted == hands:
            break
        truth: dict[str, object] | None = fantasy_truth
        if truth is None and room_errors and error_rng.random() < room_errors:
            kinds = list(ERROR_KINDS)
            error_rng.shuffle(kinds)
            for kind in kinds:
                changed = corrupt(hand, ruleset, kind)
                if changed is not None:
                    before = [s.reported_points for s in hand.seats]
                    hand, detail = changed
                    truth = {
                        "hand_key": hand.hand_key,
                        "kind": kind,
                        "detail": detail,
                        "correct_points": before,
                        "reported_points": [s.reported_points for s in hand.seats],
                    }
                    break
        if progress:
            progress(1)
        yield hand, truth


def write_simulation(
    out: str | Path,
    hands: int,
    ruleset: Ruleset,
    *,
    output_format: str = "open",
    **options: object,
) -> SimulationSummary:
    """Write hands to ``out`` (and ``out`` + ``.truth.jsonl`` when errors are injected)."""
    import time

    from parsers.app_json import dumps_app
    from parsers.open_format import dumps

    out = Path(out)
    summary = SimulationSummary()
    style_of = {p.name: p.style.name for p in player_pool(int(options.get("players", 9)))}  # type: ignore[call-overload]
    start = time.perf_counter()
    truth_path = out.with_name(out.name + ".truth.jsonl")
    pending: list[HandRecord] = []
    with (
        out.open("w", encoding="utf-8") as stream,
        truth_path.open("w", encoding="utf-8") as truth_out,
    ):
        for hand, truth in simulate(hands, ruleset, **options):  # type: ignore[arg-type]
            if output_format == "app-json":
                stream.write(dumps_app(replace(hand, format="app-json", room="Ppp")))
            else:
                stream.write(dumps(hand) + "\n")
            if truth is not None:
                if output_format == "app-json":
                    truth["hand_key"] = replace(hand, format="app-json", room="Ppp").hand_key
                truth_out.write(json.dumps(truth, ensure_ascii=False) + "\n")
                summary.corrupted += 1
            summary.hands += 1
            pending.append(hand)
            if len(pending) >= 5_000:
                _tally(summary, pending, ruleset, style_of)
        _tally(summary, pending, ruleset, style_of)
    if not summary.corrupted:
        truth_path.unlink()
    summary.seconds = time.perf_counter() - start
    return summary
