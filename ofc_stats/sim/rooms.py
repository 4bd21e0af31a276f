"""`ofc-stats simulate`: bots play whole sessions and write hand histories.

The room's reported results come from the engine; ``room_errors`` corrupts a
known share of hands the way a buggy room would and lists each one in a truth
file, so an audit can be checked against ground truth.  A ``RoomRules`` (the
``[room]`` table of a ruleset TOML) makes the room pay like a real one: a
rake, players with a money stack that can run short, a short-stack
settlement kind, and optionally a ``result`` field that is a running total.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ofc_stats.engine.board import Board
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.scoring import score_hand
from ofc_stats.errors import OfcError
from ofc_stats.payouts.mistakes import ROYALTY_MISTAKES
from ofc_stats.payouts.rake import rake_taken
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.payouts.settle import settle_hand
from ofc_stats.records import HandRecord
from ofc_stats.sim.tables import (
    PartPlayed,
    Played,
    Player,
    Style,
    TableSpec,
    play_parts,
    table_id,
)

STYLES = {
    "careful": Style("careful", foul_penalty=9, fantasy_bonus=60, noise=1.5),
    "chaser": Style("chaser", foul_penalty=6, fantasy_bonus=150, noise=0.5, top_chase=8),
    "weak": Style("weak", foul_penalty=4, fantasy_bonus=60, noise=3.0, top_chase=4),
    "strong": Style("strong", foul_penalty=8, fantasy_bonus=80, noise=0.0, top_chase=3),
}
NAMES = (
    "Ana", "Bo", "Chen", "Dara", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jun",
    "Kai", "Lea", "Milo", "Nia", "Omar", 'Zoë "Z" <Z>',
)  # fmt: skip
MAX_TABLES = 1024  # tables played in lockstep: one core call per hand for all of them
ERROR_KINDS = ("royalty_table", "sign_error", "cap_ignored", "points_rounded")


@dataclass
class SimulationSummary:
    hands: int = 0
    seconds: float = 0.0
    seats: Counter[str] = field(default_factory=Counter)  # by style
    fouls: Counter[str] = field(default_factory=Counter)
    entries: Counter[str] = field(default_factory=Counter)
    corrupted: int = 0
    run: str = ""  # the session's name: its tables are <run>-T0000, ...
    tables: int = 0

    def tables_text(self) -> str:
        """The tables' ids, first to last, as the file names them."""
        first, last = table_id(self.run, 0), table_id(self.run, max(self.tables - 1, 0))
        return first if first == last else f"{first} to {last}"

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


def _tally(summary: SimulationSummary, part: PartPlayed, hands: int) -> None:
    """Count the part's first ``hands`` table-hands' seats, fouls and Fantasyland
    entries per style (the core's scores)."""
    names, styles = part.styles()
    styles = styles[:hands]
    fouled = part.part.fouled.reshape(len(part), -1)[:hands]
    entered = part.part.qualifies.reshape(len(part), -1)[:hands]
    for code, style in enumerate(names):
        at = styles == code
        summary.seats[style] += int(at.sum())
        summary.fouls[style] += int((at & fouled).sum())
        summary.entries[style] += int((at & entered).sum())


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
    chips = [s.stack for s in hand.seats]
    stacks = None if any(x is None for x in chips) else [float(x or 0.0) for x in chips]
    if kind == "royalty_table":
        # The first mistake of the catalogue that changes this hand's points.
        for mistake in ROYALTY_MISTAKES.values():
            other = mistake(ruleset.royalties)
            if other == ruleset.royalties:
                continue
            wrong = score_hand(
                boards,
                ruleset.with_options(royalties=other),
                stacks=stacks,
                in_fantasy=flags,
                fantasy_cards=counts,
            ).net_capped
            detail = f"royalties paid from the {other.name}"
            before = [s.reported_points or 0.0 for s in hand.seats]
            if any(abs(a - b) > 1e-9 for a, b in zip(wrong, before, strict=True)):
                break
    elif kind == "sign_error":
        wrong = tuple(-(s.reported_points or 0.0) for s in hand.seats)
        detail = "every seat's points negated"
    elif kind == "cap_ignored":
        if stacks is None:
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


def table_count_for(hands: int) -> int:
    """Tables of a session of ``hands`` hands: about 20 hands each, at most MAX_TABLES."""
    return min(MAX_TABLES, hands // 20 or 1)


def check_options(ruleset: Ruleset, seats: int, players: int) -> None:
    if not ruleset.min_seats <= seats <= ruleset.max_seats:
        raise OfcError(
            f"{ruleset.name} seats {ruleset.min_seats} to {ruleset.max_seats}, not {seats}"
        )
    if players < seats:
        raise OfcError(f"{players} players cannot fill {seats} seats")


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
    rollouts: int = 5,
    stack: float | None = None,
    threads: int = 1,
    room: RoomRules | None = None,
    run: str = "",
) -> Iterator[tuple[HandRecord, dict[str, object] | None]]:
    """Hands and, for each corrupted one, its truth entry, in hand-major order.

    The core plays each hand of every table on ``threads`` threads; the hands
    depend on ``seed`` alone.  ``run`` names the session: its tables are
    ``<run>-T0000``, ... (``T0000``, ... without one).
    """
    for played in simulate_timed(
        hands, ruleset, seats=seats, players=players, seed=seed, tables=tables,
        room_errors=room_errors, timeout_rate=timeout_rate, rollouts=rollouts, stack=stack,
        threads=threads, room=room, run=run,
    ):  # fmt: skip
        yield played.record, played.truth


def simulate_timed(
    hands: int,
    ruleset: Ruleset,
    *,
    seats: int,
    players: int = 9,
    seed: int = 0,
    tables: int | None = None,
    room_errors: float = 0.0,
    timeout_rate: float = 0.02,
    rollouts: int = 5,
    stack: float | None = None,
    threads: int = 1,
    room: RoomRules | None = None,
    run: str = "",
) -> Iterator[Played]:
    """:func:`simulate`'s hands with, per seat, the streets the room timed out (bit s)."""
    for part, changed in simulate_parts(
        hands, ruleset, seats=seats, players=players, seed=seed, tables=tables,
        room_errors=room_errors, timeout_rate=timeout_rate, rollouts=rollouts, stack=stack,
        threads=threads, room=room, run=run,
    ):  # fmt: skip
        for j in range(len(part)):
            yield changed.get(j) or part.played(j)


def simulate_parts(
    hands: int,
    ruleset: Ruleset,
    *,
    seats: int,
    players: int = 9,
    seed: int = 0,
    tables: int | None = None,
    room_errors: float = 0.0,
    timeout_rate: float = 0.02,
    rollouts: int = 5,
    stack: float | None = None,
    threads: int = 1,
    room: RoomRules | None = None,
    lines: bool = False,
    run: str = "",
) -> Iterator[tuple[PartPlayed, dict[int, Played]]]:
    """The session's hands as the core plays them (with their open-format lines if
    ``lines``), a part at a time, and each hand the room changes (a corrupted one,
    or every hand with ``room``) as a :class:`Played` by its index in the part.

    Every other hand is as the core played it, so it needs no record to be written.
    """
    check_options(ruleset, seats, players)
    pool = player_pool(players)
    table_count = tables or table_count_for(hands)
    seat_rng = np.random.default_rng(seed)
    seating = [
        [pool[int(i)] for i in seat_rng.choice(players, size=seats, replace=False)]
        for _ in range(table_count)
    ]
    spec = TableSpec(
        ruleset,
        seats,
        rollouts=rollouts,
        timeout_rate=timeout_rate,
        stack=stack,
        threads=threads,
        run=run,
    )
    rounds = -(-hands // table_count)
    error_rng = np.random.default_rng([seed, 1])
    totals: dict[tuple[str, str], float] = {}
    parts = play_parts(spec, seating, rounds, seed, fantasy_errors=room_errors / 5, lines=lines)
    for part in parts:
        changed: dict[int, Played] = {}
        for j in range(len(part) if room_errors or room is not None else 0):
            truth = part.truths.get(j)
            hand = None
            if truth is None and room_errors and error_rng.random() < room_errors:
                kinds = list(ERROR_KINDS)
                error_rng.shuffle(kinds)
                record = part.record(j)
                for kind in kinds:
                    corrupted = corrupt(record, ruleset, kind)
                    if corrupted is not None:
                        hand, detail = corrupted
                        truth = {
                            "hand_key": hand.hand_key,
                            "kind": kind,
                            "detail": detail,
                            "correct_points": [s.reported_points for s in record.seats],
                            "reported_points": [s.reported_points for s in hand.seats],
                        }
                        break
            if room is not None:
                hand = room_pays(part.record(j) if hand is None else hand, ruleset, room, totals)
            if hand is not None:
                changed[j] = part.played(j)._replace(record=hand, truth=truth)
        yield part, changed


def room_pays(
    hand: HandRecord, ruleset: Ruleset, room: RoomRules, totals: dict[tuple[str, str], float]
) -> HandRecord:
    """The hand's money as ``room`` pays it, and its ``result`` as the room writes it.

    Losers pay what they owe up to ``money_stack``; winners share that by the
    room's settlement kind, less the rake (at most its cap).  ``totals`` carries each player's
    running total at the table from hand to hand.
    """
    stakes = hand.stakes or 1.0
    points = [s.reported_points or 0.0 for s in hand.seats]
    owed = np.array(points, dtype=np.float64) * stakes
    stack = np.inf if room.money_stack is None else room.money_stack
    paid = np.where(owed < 0, np.minimum(-owed, stack), 0.0)
    boards = [Board(s.top, s.middle, s.bottom) for s in hand.seats]
    flags = [s.in_fantasy for s in hand.seats]
    counts = [s.fantasy_cards for s in hand.seats]
    pairs = np.array(
        score_hand(boards, ruleset, in_fantasy=flags, fantasy_cards=counts).points, dtype=float
    )
    gross = settle_hand(owed, paid, room.settlement, pairs * stakes)
    winning = gross > 0
    rate, tick, mode = room.rake_for(hand.currency or "")
    cap = room.cap_for(hand.currency or "")
    gross[winning] -= rake_taken(gross[winning], rate, tick, mode, cap)
    seats = []
    for seat, money, point in zip(hand.seats, gross.tolist(), points, strict=True):
        result = point
        if room.result_field == "running_total":
            key = (hand.table_id or "", seat.player)
            result = totals[key] = totals.get(key, 0.0) + point
        seats.append(replace(seat, reported_points=float(result), reported_money=round(money, 2)))
    return replace(hand, seats=tuple(seats))


def open_line(hand: HandRecord, timed_out: tuple[int, ...]) -> str:
    """The hand as one open-format line, each street the room placed on a timeout marked
    ``"timeout": true`` (docs/format.md), so an audit can tell a timeout from a free choice
    that happens to look like one."""
    from parsers.open_format import hand_to_json

    data = hand_to_json(hand)
    for seat, bits in zip(data["seats"], timed_out, strict=True):
        for street, step in enumerate(seat.get("streets", [])):
            if bits >> street & 1:
                step["timeout"] = True
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def run_name(
    out: str | Path, hands: int, ruleset: Ruleset, output_format: str, **options: object
) -> str:
    """The name :func:`write_simulation` gives a session by default: 8 hex digits of
    a hash of the output file's name and every option that shapes the hands.

    Two runs into other files, or with other options, name their tables apart (their
    hands never share a key in one dataset); the same command again, from any folder,
    gives the same name and so the same bytes.
    """
    shaping = {"file": Path(out).name, "hands": hands, "ruleset": repr(ruleset)}
    shaping |= {"format": output_format} | {k: repr(v) for k, v in options.items()}
    text = json.dumps(shaping, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def write_simulation(
    out: str | Path,
    hands: int,
    ruleset: Ruleset,
    *,
    output_format: str = "open",
    threads: int = 2,
    progress: Callable[[int], None] | None = None,
    run: str | None = None,
    **options: object,
) -> SimulationSummary:
    """Write hands to ``out`` (and ``out`` + ``.truth.jsonl`` when errors are injected).

    The core plays on ``threads`` threads; the output depends on the seed only.
    In the open format, a hand the room does not change is written as the core
    wrote its line (the twin of :func:`open_line`, proven equal by
    ``tests/test_sim_lines.py``); the others, and the apps' JSON, from records.
    The tables are ``<run>-T0000``, ...; by default ``run`` is :func:`run_name`'s.
    """
    import time

    from parsers.app_json import dumps_app

    players = options.get("players", 9)
    check_options(ruleset, int(options.get("seats", 0)), int(players))  # type: ignore[call-overload]
    if output_format == "app-json" and options.get("stack") is not None:
        # The apps' JSON has no stack field: points capped by a stack the file does not
        # show would read as the room's errors in every audit of it.
        raise OfcError(
            "a stack cannot be simulated in the apps' JSON: it records none, so points capped"
            " by one would read as the room's errors; give the room's money stack (money_stack"
            " in the ruleset's [room] table) or write the open format"
        )
    if run is None:
        run = run_name(out, hands, ruleset, output_format, **options)
    out = Path(out)
    tables = options.get("tables")
    summary = SimulationSummary(run=run, tables=int(tables or table_count_for(hands)))  # type: ignore[call-overload]
    start = time.perf_counter()
    truth_path = out.with_name(out.name + ".truth.jsonl")
    stack = options.get("stack")
    # The core writes a stack as a float: an int one (from the API) keeps Python's lines.
    core_lines = output_format == "open" and (stack is None or isinstance(stack, float))
    parts = simulate_parts(
        hands,
        ruleset,
        threads=threads,
        lines=core_lines,
        run=run,
        **options,  # type: ignore[arg-type]
    )
    with (
        out.open("wb") as stream,
        truth_path.open("w", encoding="utf-8") as truth_out,
    ):
        for part, changed in parts:
            count = min(len(part), hands - summary.hands)
            lines = part.lines
            # The hands written from records: those the room changed and those with a
            # truth entry (it needs the record's hand key), or all without the core's lines.
            redo: Sequence[int] = range(count)
            if lines is not None:
                redo = sorted(j for j in {*changed, *part.truths} if j < count)
            done = 0  # hands before this one are written
            for j in redo:
                each = changed.get(j) or part.played(j)
                hand, truth = each.record, each.truth
                if output_format == "app-json":  # the apps' JSON has no field for a timeout
                    hand = replace(hand, format="app-json", room="Ppp")
                    text = dumps_app(hand)
                else:
                    text = open_line(hand, each.timed_out) + "\n"
                if lines is not None:
                    stream.write(lines.between(done, j))
                stream.write(text.encode("utf-8"))
                done = j + 1
                if truth is not None:
                    truth["hand_key"] = hand.hand_key
                    truth_out.write(json.dumps(truth, ensure_ascii=False) + "\n")
                    summary.corrupted += 1
            if lines is not None:
                stream.write(lines.between(done, count))
            _tally(summary, part, count)
            summary.hands += count
            if progress:
                progress(count)
            if summary.hands == hands:
                break
    if not summary.corrupted:
        truth_path.unlink()
    summary.seconds = time.perf_counter() - start
    return summary
