"""The simulator's file: the core's open-format lines equal Python's.

The core writes a hand's line (``rust/ofc-core/src/open_line.rs``) when Python
does not change the hand; the definition is ``open_line`` (``hand_to_json`` of
the hand's record, with its timeout marks, through ``json.dumps``).  Every line
must be the same bytes, and the written file the same as writing every hand
from its record.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.engine.board import Board
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.scoring import score_hand
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.sim import tables
from ofc_stats.sim.rooms import open_line, player_pool, simulate_timed, write_simulation
from ofc_stats.sim.tables import Player, Style, TableSpec, play_parts

STYLES = [Style("careful", 16, 10, 0.5), Style("chaser", 8, 60, 0.5, top_chase=6)]
# Names json.dumps escapes (quote, backslash, control characters: short forms and
# \u00XX) and keeps as they are with ensure_ascii=False (non-ASCII, DEL, U+2028).
NAMES = [
    'Zoë "Z" <Z>', "back\\slash", "tab\there\n", "ctl\x01\x1f\x08\x0c\r", "line\u2028sep",
    "card 🂡", "del\x7f", "Ana",
]  # fmt: skip
RULESETS = [
    "pineapple-progressive",
    "joker-pineapple",
    "classic",
    "turbo",
    "pineapple-ultimate",
    "pineapple-progressive-16",
]


def lines_and_records(
    ruleset: str,
    seats: int,
    seed: int,
    *,
    timeout_rate: float,
    stack: float | None,
    stakes: float,
    fantasy_errors: float,
    hands: int = 6,
) -> list[tuple[str, str]]:
    """Each table-hand's line as the core wrote it and as ``open_line`` writes its record.

    The room's Fantasyland mistakes (``fantasy_errors``) deal Fantasylands that were
    not earned, so the hands hold Fantasyland seats far more often than 2% of seats.
    """
    rules = get_ruleset(ruleset)
    seats = min(seats, rules.max_seats)
    pool = [Player(name, STYLES[i % 2]) for i, name in enumerate(NAMES)]
    seating = [[pool[(t * seats + a) % len(pool)] for a in range(seats)] for t in range(3)]
    spec = TableSpec(
        rules, seats, rollouts=1, timeout_rate=timeout_rate, stack=stack, stakes=stakes
    )
    pairs = []
    for part in play_parts(spec, seating, hands, seed, fantasy_errors=fantasy_errors, lines=True):
        lines = part.lines
        assert lines is not None and len(lines.ends) == len(part)
        for j in range(len(part)):
            core = bytes(lines.between(j, j + 1)).decode("utf-8")
            pairs.append((core, open_line(part.record(j), part.timed_out(j)) + "\n"))
    return pairs


@settings(max_examples=80, deadline=None)
@given(
    ruleset=st.sampled_from(RULESETS),
    seats=st.integers(2, 4),
    seed=st.integers(0, 2**40),
    timeout_rate=st.sampled_from([0.0, 0.2, 0.7]),
    stack=st.none() | st.floats(0.5, 60.0),
    stakes=st.sampled_from([1.0, 0.25, 0.1, 2.5, 3.0, 0.3, 1, 2]),
    fantasy_errors=st.sampled_from([0.0, 0.5]),
)
def test_the_core_writes_each_line_as_open_line_does(
    ruleset: str,
    seats: int,
    seed: int,
    timeout_rate: float,
    stack: float | None,
    stakes: float,
    fantasy_errors: float,
) -> None:
    pairs = lines_and_records(
        ruleset,
        seats,
        seed,
        timeout_rate=timeout_rate,
        stack=stack,
        stakes=stakes,
        fantasy_errors=fantasy_errors,
    )
    for core, python in pairs:
        assert core == python


def test_the_lines_compared_hold_what_the_twin_must_get_right() -> None:
    """The comparison above means something only if its hands hold Fantasyland
    seats, jokers, timeouts, capped (fractional) points and escaped names."""
    lines = [
        core
        for ruleset, seats in (("joker-pineapple", 2), ("pineapple-progressive", 3), ("classic", 4))
        for core, python in lines_and_records(
            ruleset, seats, 5, timeout_rate=0.3, stack=2.5, stakes=0.3, fantasy_errors=0.5
        )
        if core == python
    ]
    assert len(lines) == 3 * 6 * 3
    text = "".join(lines)
    for shown in (
        '"in_fantasy":true', '"X1"', '"timeout":true', '"stack":2.5',
        'Zo\u00eb \\"Z\\" <Z>', "ctl\\u0001\\u001f\\b\\f\\r", "tab\\there\\n", "del\x7f",
    ):  # fmt: skip
        assert shown in text, shown
    points = [s["result"]["points"] for line in lines for s in json.loads(line)["seats"]]
    assert any(p != int(p) for p in points)


OPTION_SETS: list[dict[str, Any]] = [
    {"seats": 3, "seed": 1},
    {"seats": 3, "seed": 2, "room_errors": 0.2},
    {"seats": 2, "seed": 3, "room_errors": 0.2, "output_format": "app-json"},
    {"seats": 3, "seed": 4, "room": RoomRules(rake_rate=0.05, rake_tick=0.1, money_stack=12.0)},
    {"seats": 2, "seed": 5, "room": RoomRules(result_field="running_total"), "room_errors": 0.1},
    {"seats": 3, "seed": 6, "stack": 7.5, "timeout_rate": 0.3},
    {"seats": 3, "seed": 7, "stack": 8, "tables": 4},  # an int stack: Python's lines
    {"seats": 4, "seed": 8, "ruleset": "classic", "room_errors": 0.3, "stack": 3.0},
    {"seats": 2, "seed": 9, "ruleset": "joker-pineapple", "players": 4, "tables": 3},
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_the_file_is_the_records_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]
) -> None:
    """``write_simulation`` writes what writing every hand from its record writes:
    open_line (or the apps' JSON) per hand, the truth entries in order, and its
    summary counts the fouls and entries the engine scores.  Parts of
    24 table-hands put the room's mistakes and the last trimmed round across parts."""
    from parsers.app_json import dumps_app

    monkeypatch.setattr(tables, "HANDS_A_CALL", 24)
    options = dict(options)
    ruleset = get_ruleset(str(options.pop("ruleset", "pineapple")))
    output_format = str(options.pop("output_format", "open"))
    hands = 61
    out = tmp_path / "sim.jsonl"
    summary = write_simulation(
        out, hands, ruleset, output_format=output_format, threads=1, rollouts=1, **options
    )
    style_of = {p.name: p.style.name for p in player_pool(options.get("players", 9))}
    seated: Counter[str] = Counter()
    fouls: Counter[str] = Counter()
    entries: Counter[str] = Counter()
    expected: list[str] = []
    truths: list[str] = []
    for played in simulate_timed(hands, ruleset, rollouts=1, run=summary.run, **options):
        if len(expected) == hands:
            break
        hand = played.record
        if output_format == "app-json":
            hand = replace(hand, format="app-json", room="Ppp")
            expected.append(dumps_app(hand))
        else:
            expected.append(open_line(hand, played.timed_out) + "\n")
        if played.truth is not None:
            truth = {**played.truth, "hand_key": hand.hand_key}
            truths.append(json.dumps(truth, ensure_ascii=False) + "\n")
        scores = score_hand(
            [Board(s.top, s.middle, s.bottom) for s in hand.seats],
            ruleset,
            in_fantasy=[s.in_fantasy for s in hand.seats],
        )
        for seat, board in zip(hand.seats, scores.boards, strict=True):
            style = style_of[seat.player]
            seated[style] += 1
            fouls[style] += board.fouled
            entries[style] += board.fantasyland.qualifies
    assert summary.hands == hands
    assert (summary.seats, summary.fouls, summary.entries) == (seated, fouls, entries)
    assert out.read_text(encoding="utf-8") == "".join(expected)
    truth_path = tmp_path / "sim.jsonl.truth.jsonl"
    assert summary.corrupted == len(truths)
    if truths:
        assert truth_path.read_text(encoding="utf-8") == "".join(truths)
    else:
        assert not truth_path.exists()


def test_the_file_is_the_same_on_one_or_two_threads(tmp_path: Path) -> None:
    """The core writes the lines on the pool's threads; the bytes depend on the seed only
    (and the tables' names on the file's name and the options, not the threads)."""
    ruleset = get_ruleset("pineapple-progressive")
    texts = []
    for threads in (1, 2):
        out = tmp_path / str(threads) / "sim.jsonl"
        out.parent.mkdir()
        write_simulation(out, 90, ruleset, seats=3, seed=4, rollouts=1, threads=threads)
        texts.append(out.read_bytes())
    assert texts[0] == texts[1]
    assert texts[0].count(b"\n") == 90
