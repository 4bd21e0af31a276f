"""The simulator core: legal play, reproducibility, Fantasyland as the engine grants it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import pairwise, product
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.core.fantasy import solve_fantasy_batch
from ofc_stats.engine.board import Board
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.scoring import score_board, score_hand
from ofc_stats.engine.timeout import Street, forced_street, timeout_streets
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, Quarantined, SeatRecord, builder, validate_hand
from ofc_stats.sim.tables import Player, Style, TableSpec, play_hands
from parsers.open_format import dumps

STYLES = [Style("careful", 16, 10, 0.5), Style("chaser", 8, 60, 0.5), Style("weak", 5, 15, 3.0)]


def play(ruleset: str, seats: int, tables: int, hands: int, seed: int, **options):  # type: ignore[no-untyped-def]
    pool = [Player(f"player {i}", STYLES[i % 3]) for i in range(seats * 2)]
    seating = [[pool[(i + j) % len(pool)] for j in range(seats)] for i in range(tables)]
    spec = TableSpec(get_ruleset(ruleset), seats, **{"rollouts": 3, **options})
    return [played.record for played in play_hands(spec, seating, hands, seed)]


ROWS = ("top", "middle", "bottom")


def legal_candidates(filled: list[int], dealt: int, discards: int) -> set[tuple[str, ...]]:
    """Every way to place ``dealt`` cards with ``discards`` thrown that fits the rows (the rule)."""
    free = [size - n for size, n in zip((3, 5, 5), filled, strict=True)]
    return {
        tuple("discard" if d == 3 else ROWS[d] for d in dest)
        for dest in product(range(4), repeat=dealt)
        if dest.count(3) == discards and all(dest.count(r) <= free[r] for r in range(3))
    }


@settings(max_examples=12, deadline=None)
@given(
    ruleset=st.sampled_from(["pineapple-progressive", "classic", "turbo", "joker-pineapple"]),
    seed=st.integers(0, 2**32),
    rollouts=st.integers(1, 4),
    timeout_rate=st.sampled_from([0.0, 0.3]),
)
def test_every_chosen_placement_is_a_legal_candidate(
    ruleset: str, seed: int, rollouts: int, timeout_rate: float
) -> None:
    rules = get_ruleset(ruleset)
    records = play(ruleset, 2, 3, 2, seed, rollouts=rollouts, timeout_rate=timeout_rate)
    for record in records:
        for seat in record.seats:
            if seat.in_fantasy:
                continue
            filled = [0, 0, 0]
            for number, (dealt, placed) in enumerate(rules.variant.streets):
                street = [
                    p for p in record.placements if p.seat == seat.seat and p.street == number
                ]
                assert len(street) == dealt
                chosen = tuple(p.destination for p in street)
                assert chosen in legal_candidates(filled, dealt, dealt - placed)
                for d in chosen:
                    if d != "discard":
                        filled[ROWS.index(d)] += 1
            assert filled == [3, 5, 5]


@pytest.mark.parametrize(
    ("ruleset", "seats"), [("pineapple-progressive", 3), ("joker-pineapple", 3), ("classic", 4)]
)
def test_the_hands_are_the_same_on_one_or_two_threads(ruleset: str, seats: int) -> None:
    records = play(ruleset, seats, 16, 4, 31, threads=1)
    two = [dumps(r) for r in play(ruleset, seats, 16, 4, 31, threads=2)]
    assert [dumps(r) for r in records] == two
    if ruleset == "pineapple-progressive":  # Fantasyland seats included
        assert any(s.in_fantasy for r in records for s in r.seats)


def test_fantasy_setter_keeps_every_card_and_never_fouls() -> None:
    # The setter is the exact solver (tests/test_fantasy_solver.py); 50 deals a size suffice here.
    rng = np.random.default_rng(5)
    for n in (13, 14, 16, 17):
        cards = np.argsort(rng.random((50, 52)), axis=1)[:, :n].astype(np.int8)
        boards, thrown, _ = solve_fantasy_batch(cards, get_ruleset("pineapple-progressive"), 10.0)
        assert thrown.shape == (50, n - 13)
        for board, rest, dealt in zip(boards, thrown, cards, strict=True):
            assert sorted(board.tolist() + rest.tolist()) == sorted(dealt.tolist())
            assert not score_board(Board.from_flat(board), get_ruleset("pineapple")).fouled


@pytest.mark.parametrize(
    ("ruleset", "seats"), [("pineapple-progressive", 3), ("classic", 4), ("turbo", 2)]
)
def test_every_hand_is_legal(ruleset: str, seats: int) -> None:
    rules = get_ruleset(ruleset)
    records = play(ruleset, seats, tables=12, hands=6, seed=3)
    assert len(records) == 72
    later = [dealt - placed for dealt, placed in rules.variant.streets]
    for record in records:
        validate_hand(record, rules)
        assert record.complete
        assert sum(s.reported_points for s in record.seats) == pytest.approx(0)
        for seat in record.seats:
            mine = [p for p in record.placements if p.seat == seat.seat]
            thrown = sorted(p.card for p in mine if p.destination == "discard")
            assert thrown == sorted(seat.discards or ())
            if not seat.in_fantasy:
                assert len(thrown) == sum(later)
                for street, (dealt, _) in enumerate(rules.variant.streets):
                    assert sum(p.street == street for p in mine) == dealt


def test_the_records_builder_makes_what_the_constructor_makes() -> None:
    # The simulator builds its records without the frozen dataclasses' __init__: the
    # same fields (defaults for those not given), equal, with the same hash and text.
    seat: dict[str, Any] = {
        "seat": 1,
        "player": "ann",
        "top": (1, 2, 3),
        "middle": (),
        "bottom": (4,),
    }
    made, built = SeatRecord(**seat), builder(SeatRecord)(**seat)
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert built.discards is None and built.hero is False
    hand: dict[str, Any] = {"format": "open", "room": "r", "table_id": "T", "room_hand_id": "7"}
    hand |= {"ruleset": "pineapple", "seats": (made, made), "stakes": 2.0}
    made_hand = HandRecord(**hand)
    built_hand = builder(HandRecord)(**hand)
    assert made_hand == built_hand and repr(made_hand) == repr(built_hand)
    assert built_hand.hand_key == "open:r:T:7" and built_hand.placements == ()
    # A frozen record is still frozen.
    with pytest.raises(AttributeError):
        built_hand.room = "other"  # type: ignore[misc]
    # Quarantined has no __post_init__: it builds; a class with one is refused.
    assert builder(Quarantined)(source_file="f", reason="r", raw_text="") == Quarantined(
        "f", "r", ""
    )

    @dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            assert self.x > 0

    with pytest.raises(TypeError):
        builder(Checked)


def test_same_seed_same_hands_other_seed_other_hands() -> None:
    first = [dumps(r) for r in play("pineapple", 3, tables=5, hands=4, seed=9)]
    again = [dumps(r) for r in play("pineapple", 3, tables=5, hands=4, seed=9)]
    other = [dumps(r) for r in play("pineapple", 3, tables=5, hands=4, seed=10)]
    assert first == again and first != other


def test_fantasyland_follows_the_engine() -> None:
    rules = get_ruleset("pineapple-progressive")
    records = play("pineapple-progressive", 3, tables=40, hands=8, seed=21)
    by_table: dict[str, list] = {}  # type: ignore[type-arg]
    for record in records:
        by_table.setdefault(record.table_id, []).append(record)
    checked = 0
    for hands in by_table.values():
        for this, after in pairwise(hands):
            following = {s.player: s for s in after.seats}
            for seat in this.seats:
                board = Board(seat.top, seat.middle, seat.bottom)
                outcome = score_board(board, rules, seat.in_fantasy, seat.fantasy_cards).fantasyland
                granted = outcome.next_cards
                nxt = following[seat.player]
                assert nxt.in_fantasy is bool(granted)
                if granted:
                    assert nxt.fantasy_cards == granted
                    checked += 1
    assert checked > 0  # some Fantasyland hands were actually played


def test_timed_out_streets_follow_the_auto_placement_rule() -> None:
    rules = get_ruleset("pineapple")
    records = play("pineapple", 2, tables=6, hands=2, seed=4, timeout_rate=1.0)
    for record in records:
        for seat in record.seats:
            if seat.in_fantasy:
                continue
            streets = []
            for number in range(5):
                mine = [p for p in record.placements if p.seat == seat.seat and p.street == number]
                streets.append(
                    Street(tuple(p.card for p in mine), tuple(p.destination for p in mine))
                )
            # every street the room placed matches the rule; forced streets are never flagged
            filled = [0, 0, 0]
            expected = []
            for number, street in enumerate(streets):
                expected.append(not forced_street(rules.variant, number, filled, len(street.cards)))
                for d in street.destinations:
                    if d != "discard":
                        filled[("top", "middle", "bottom").index(d)] += 1
            assert timeout_streets(rules.variant, streets) == expected
            assert expected[:4] == [True] * 4


def test_simulate_command_round_trips_and_reproduces(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from ofc_stats.cli.main import main
    from parsers.open_format import OpenFormatParser
    from tests.readers import records_from

    out = tmp_path / "sim.jsonl"
    args = ["simulate", "--hands", "120", "--seed", "5", "--room-errors", "0.2", "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("simulated 120 hands in ")
    first = out.read_bytes()
    CliRunner().invoke(main, args)
    assert out.read_bytes() == first  # same seed, same bytes
    records = records_from(OpenFormatParser, out)
    assert len(records) == 120
    truth = {
        json.loads(line)["hand_key"]: json.loads(line)
        for line in (tmp_path / "sim.jsonl.truth.jsonl").read_text().splitlines()
    }
    assert 5 <= len(truth) <= 50
    rules = get_ruleset("pineapple-progressive")
    previous: dict[str, HandRecord] = {}
    for record in records:
        before, previous[record.table_id] = previous.get(record.table_id), record
        kind = truth.get(record.hand_key, {}).get("kind")
        if kind in ("missed_fantasy", "extra_fantasy"):
            # The points are right; the Fantasyland status contradicts the last hand.
            assert before is not None
            player = truth[record.hand_key]["player"]
            last = next(s for s in before.seats if s.player == player)
            now = next(s for s in record.seats if s.player == player)
            outcome = score_board(
                Board(last.top, last.middle, last.bottom),
                rules,
                last.in_fantasy,
                last.fantasy_cards,
            ).fantasyland
            earned = outcome.qualifies or outcome.stays
            assert now.in_fantasy is (not earned)
            continue
        boards = [Board(s.top, s.middle, s.bottom) for s in record.seats]
        correct = score_hand(
            boards,
            rules,
            in_fantasy=[s.in_fantasy for s in record.seats],
            fantasy_cards=[s.fantasy_cards for s in record.seats],
        ).net_capped
        reported = tuple(s.reported_points for s in record.seats)
        if record.hand_key in truth:
            assert reported != correct
            assert list(correct) == truth[record.hand_key]["correct_points"]
        else:
            assert reported == correct


def test_simulate_app_json_imports_without_loss(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ofc_stats.sim.rooms import write_simulation
    from ofc_stats.store.importer import import_paths

    out = tmp_path / "sim.hh"
    write_simulation(
        out, 60, get_ruleset("pineapple-progressive"), output_format="app-json", seats=3, seed=2
    )
    summary = import_paths([out], tmp_path / "data")
    assert (summary.stored, summary.quarantined) == (60, 0)


def test_a_stack_in_the_apps_json_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The apps' JSON has no stack field: a seat capped at 30 that owes 31 would be written
    as -30 and audited against the uncapped -31, a room error the room never made."""
    from ofc_stats.sim.rooms import write_simulation

    out = tmp_path / "sim.jsonl"
    with pytest.raises(OfcError, match="records none"):
        write_simulation(
            out, 60, get_ruleset("pineapple-progressive"), output_format="app-json", seats=3,
            stack=30.0,
        )  # fmt: skip
    assert not out.exists()


def test_fantasy_setter_with_jokers_keeps_them_and_never_fouls() -> None:
    rng = np.random.default_rng(8)
    rules = get_ruleset("joker-pineapple")
    deck = np.arange(54)
    for jokers in (1, 2):
        hands = []
        for _ in range(10):  # the exact solver reads joker boards one by one: fewer deals
            real = rng.permutation(52)[: 15 - jokers]
            hands.append(np.concatenate([real, deck[52 : 52 + jokers]]))
        cards = np.array(hands, dtype=np.int8)
        boards, thrown, _ = solve_fantasy_batch(cards, rules, 29.5)
        for board, rest, dealt in zip(boards, thrown, cards, strict=True):
            assert sorted(board.tolist() + rest.tolist()) == sorted(dealt.tolist())
            assert not score_board(Board.from_flat(board), rules, True).fouled


def test_joker_decks_play_legal_hands() -> None:
    rules = get_ruleset("joker-pineapple")
    records = play("joker-pineapple", 3, tables=4, hands=3, seed=12)
    jokers = 0
    for record in records:
        validate_hand(record, rules)
        jokers += sum(c >= 52 for s in record.seats for c in s.top + s.middle + s.bottom)
    assert jokers > 0


def test_the_bundled_sample_imports_cleanly_and_its_truth_matches(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    from ofc_stats.store.dataset import Dataset
    from ofc_stats.store.importer import import_paths

    data = Path(__file__).parent.parent / "data"
    summary = import_paths([data / "sim-open.jsonl", data / "sim-app.hh"], tmp_path)
    assert (summary.stored, summary.quarantined) == (3000, 0)
    keys = set(Dataset(tmp_path).read("hands").column("hand_key").to_pylist())
    for name in ("sim-open.jsonl.truth.jsonl", "sim-app.hh.truth.jsonl"):
        listed = [json.loads(line)["hand_key"] for line in (data / name).read_text().splitlines()]
        assert listed and set(listed) <= keys


def test_simulate_rejects_impossible_tables(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from ofc_stats.cli.main import main

    out = str(tmp_path / "x.jsonl")
    too_many = CliRunner().invoke(main, ["simulate", "--hands", "5", "--seats", "4", "--out", out])
    assert too_many.exit_code == 1
    assert "pineapple-progressive seats 2 to 3, not 4" in too_many.stderr
    too_few = CliRunner().invoke(
        main, ["simulate", "--hands", "5", "--players", "2", "--seats", "3", "--out", out]
    )
    assert too_few.exit_code == 1 and "2 players cannot fill 3 seats" in too_few.stderr
