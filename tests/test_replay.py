"""The counterfactual replay on imported hands: laws that hold whatever the advice."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.engine.board import DESTINATIONS, Board
from ofc_stats.engine.scoring import score_hand
from ofc_stats.engine.timeout import auto_placement
from ofc_stats.grade.position import (
    HAND_COLUMNS,
    PLACEMENT_COLUMNS,
    SEAT_COLUMNS,
    Decision,
    read_positions,
)
from ofc_stats.grade.replay import (
    FinalSeat,
    by_first_deviation,
    final_seats,
    placeholder_play,
    published_worth,
    replay,
)
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.rulesets import DatasetRulesets

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sim-open.jsonl"


@pytest.fixture(scope="module")
def hands(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    # The first 60 simulated hands: every seat's streets and final boards are known.
    folder = tmp_path_factory.mktemp("replay")
    source = folder / "sample.jsonl"
    source.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:60]))
    root = folder / "data"
    done = CliRunner().invoke(main, ["import", "--quiet", "--data", str(root), str(source)])
    assert done.exit_code == 0, done.output
    dataset = Dataset(root)
    (batch,) = dataset.batches()
    read = {
        name: pq.read_table(dataset.batch_file(name, batch), columns=columns)
        for name, columns in (
            ("hands", HAND_COLUMNS),
            ("seats", [*SEAT_COLUMNS, "stack"]),
            ("placements", PLACEMENT_COLUMNS),
        )
    }
    positions = read_positions(
        read["hands"], read["seats"], read["placements"], DatasetRulesets(root)
    )
    return positions.decisions, final_seats(read["seats"])


def own_play(decisions: Sequence[Decision]) -> list[tuple[int, ...]]:
    return [d.chosen for d in decisions]


def test_the_players_own_play_gains_exactly_nothing(hands) -> None:  # type: ignore[no-untyped-def]
    decisions, finals = hands
    seats = replay(decisions, finals, own_play)
    assert len(seats) > 100
    assert all(s.gain == 0 and s.first_deviation is None for s in seats)
    assert all(s.bot_board == finals[s.hand_key][_position(s, decisions)][0] for s in seats)


def _position(seat, decisions) -> int:  # type: ignore[no-untyped-def]
    return next(d.position for d in decisions if (d.hand_key, d.seat) == (seat.hand_key, seat.seat))


def auto_play(decisions: Sequence[Decision]) -> list[tuple[int, ...]]:
    """The room's timeout placement, whatever the position."""
    return [placeholder_play(d, d.board) for d in decisions]


def test_a_bot_is_scored_against_the_opponents_real_final_boards(hands) -> None:  # type: ignore[no-untyped-def]
    decisions, finals = hands
    seats = replay(decisions, finals, auto_play)
    seat = seats[0]
    position = _position(seat, decisions)
    # Independently: deal the seat's real cards street by street by the auto rule.
    mine = sorted(
        (d for d in decisions if (d.hand_key, d.position) == (seat.hand_key, position)),
        key=lambda d: d.street,
    )
    rows: list[list[int]] = [[], [], []]
    for d in mine:
        filled = [len(r) for r in rows]
        names = auto_placement(d.ruleset.variant, d.street, filled, len(d.dealt))
        for card, name in zip(d.dealt, names, strict=True):
            if name != "discard":
                rows[DESTINATIONS.index(name)].append(card)
    board = Board(*(tuple(r) for r in rows))
    assert seat.bot_board == board.cards
    boards = [Board.from_flat(b) for b, _, _ in finals[seat.hand_key]]
    boards[position] = board
    result = score_hand(boards, mine[0].ruleset)
    entry = result.boards[position].fantasyland.cards or 0
    assert seat.bot_value == result.net[position] + published_worth(mine[0].ruleset, entry)
    groups = by_first_deviation(seats)
    assert sum(g.seats for g in groups.values()) == len(seats)
    assert 0 in groups  # the auto rule differs from every bot somewhere on the first street


def test_the_bots_own_positions_come_with_no_play_made(hands) -> None:  # type: ignore[no-untyped-def]
    # After the bot first plays otherwise its board is not the player's: the player's play
    # may not fit it, and the auto-placement the core needs must not pass for a play made
    # (it would win the race's ties), so the advice is asked with chosen == ().
    decisions, finals = hands
    real = {(d.hand_key, d.seat, d.street): d for d in decisions}
    asked: list[Decision] = []

    def recording(batch: Sequence[Decision]) -> list[tuple[int, ...]]:
        asked.extend(batch)
        return auto_play(batch)

    replay(decisions, finals, recording)
    own = [d for d in asked if d.board != real[(d.hand_key, d.seat, d.street)].board]
    assert own and all(d.chosen == () for d in own)
    same = [d for d in asked if d.board == real[(d.hand_key, d.seat, d.street)].board]
    assert same and all(d.chosen == real[(d.hand_key, d.seat, d.street)].chosen for d in same)


def test_the_graders_advice_plays_legal_boards_on_the_real_cards(hands) -> None:  # type: ignore[no-untyped-def]
    from ofc_stats.grade.replay import grader_advice

    decisions, finals = hands
    few = [d for d in decisions if d.hand_key in sorted(finals)[:6]]
    seats = replay(few, finals, grader_advice(budget=4, seed=1, threads=1))
    assert seats
    for seat in seats:
        position = _position(seat, few)
        dealt = {
            c for d in few if (d.hand_key, d.position) == (seat.hand_key, position) for c in d.dealt
        }
        assert -1 not in seat.bot_board and len(set(seat.bot_board)) == 13
        assert set(seat.bot_board) <= dealt  # only the seat's own cards, each once
    again = replay(few, finals, grader_advice(budget=4, seed=1, threads=2))
    assert [s.bot_board for s in again] == [s.bot_board for s in seats]  # threads change nothing


def test_the_policy_alone_plays_legal_boards_the_same_on_any_threads(hands) -> None:  # type: ignore[no-untyped-def]
    from ofc_stats.grade.replay import policy_advice

    decisions, finals = hands
    few = [d for d in decisions if d.hand_key in sorted(finals)[:10]]
    seats = replay(few, finals, policy_advice(seed=1, threads=1))
    assert seats
    for seat in seats:
        position = _position(seat, few)
        dealt = {
            c for d in few if (d.hand_key, d.position) == (seat.hand_key, position) for c in d.dealt
        }
        assert -1 not in seat.bot_board and len(set(seat.bot_board)) == 13
        assert set(seat.bot_board) <= dealt
    again = replay(few, finals, policy_advice(seed=1, threads=2))
    assert [s.bot_board for s in again] == [s.bot_board for s in seats]
    other = replay(few, finals, policy_advice(seed=2, threads=2))
    assert len(other) == len(seats)  # another seed's imaginations: still every seat
    # Looking ahead street by street: legal boards too, the same on any threads.
    ahead = replay(few, finals, policy_advice(seed=1, threads=1, ahead=1))
    for seat in ahead:
        assert -1 not in seat.bot_board and len(set(seat.bot_board)) == 13
    again = replay(few, finals, policy_advice(seed=1, threads=2, ahead=1))
    assert [s.bot_board for s in again] == [s.bot_board for s in ahead]


def _legal_and_alike_on_any_threads(
    few: Sequence[Decision], finals: dict[str, list[FinalSeat]], **options: Any
) -> list[tuple[int, ...]]:
    """The policy's boards with ``options`` on one thread: legal (13 distinct cards), some
    seats played, and the same boards on two threads."""
    from ofc_stats.grade.replay import policy_advice

    seats = replay(few, finals, policy_advice(seed=1, threads=1, **options))
    assert seats
    for seat in seats:
        assert -1 not in seat.bot_board and len(set(seat.bot_board)) == 13
    again = replay(few, finals, policy_advice(seed=1, threads=2, **options))
    assert [s.bot_board for s in again] == [s.bot_board for s in seats]
    return [s.bot_board for s in seats]


def test_the_policy_searching_a_street_ahead_plays_legal_boards_the_same_on_any_threads(  # type: ignore[no-untyped-def]
    hands,
) -> None:
    from ofc_stats.grade.race import Search
    from ofc_stats.grade.replay import policy_advice

    decisions, finals = hands
    few = [d for d in decisions if d.hand_key in sorted(finals)[:10]]
    search = Search(deals=8, among=4, until=13)
    searched = _legal_and_alike_on_any_threads(few, finals, search=search)
    greedy = replay(few, finals, policy_advice(seed=1, threads=1, search=None))
    assert [s.bot_board for s in greedy] != searched  # it does search


def test_the_chase_is_live_on_the_first_two_streets_with_a_queen_or_better_for_the_top(  # type: ignore[no-untyped-def]
    hands,
) -> None:
    # Cards are rank * 4 + suit: 40-43 queens, 44-47 kings, 48-51 aces; 39 is the Js.
    from dataclasses import replace

    from ofc_stats.grade.replay import chase_live

    decisions, _ = hands
    first = next(d for d in decisions if d.street == 0)
    empty = (-1,) * 13
    deal = replace(first, board=empty)
    assert chase_live(replace(deal, dealt=(0, 5, 9, 13, 40)))  # a Qc dealt, top empty
    assert not chase_live(replace(deal, dealt=(0, 5, 9, 13, 39)))  # Js at best
    second = replace(first, street=1, dealt=(1, 2, 51))
    top_j = (39, -1, -1, *empty[3:])
    top_k = (44, -1, -1, *empty[3:])
    assert chase_live(replace(second, board=top_k))  # a Kc on top already
    # A jack on top: an ace dealt could not make a pair there; not live.
    assert not chase_live(replace(second, board=top_j))
    assert chase_live(replace(second, board=empty))  # the As may still go to the top
    assert not chase_live(replace(second, street=2, board=top_k))  # street 3: too late


def test_the_policy_searching_two_streets_deep_where_the_chase_is_live_plays_alike_on_any_threads(  # type: ignore[no-untyped-def]
    hands,
) -> None:
    from ofc_stats.grade.race import Search
    from ofc_stats.grade.replay import chase_live, policy_advice

    decisions, finals = hands
    few = [d for d in decisions if d.hand_key in sorted(finals)[:10]]
    search = Search(deals=8, among=4, until=13)
    assert any(chase_live(d) for d in few)
    deep = _legal_and_alike_on_any_threads(few, finals, search=search, chase_deep=(3, 8, 2, 4))
    shallow = replay(few, finals, policy_advice(seed=1, threads=1, search=search))
    assert [s.bot_board for s in shallow] != deep  # it goes deeper


def test_a_chase_where_it_is_live_changes_plays_only_by_its_values(hands) -> None:  # type: ignore[no-untyped-def]
    # A Fantasyland worth nothing where the chase is live changes some play (the values
    # otherwise make a QQ+ top worth keeping); the same values there as elsewhere play
    # exactly the same boards (splitting the decisions into groups changes nothing).
    from ofc_stats.grade.race import Search
    from ofc_stats.grade.replay import policy_advice, published_worth

    decisions, finals = hands
    few = [d for d in decisions if d.hand_key in sorted(finals)[:20]]
    search = Search(deals=4, among=4, until=13)

    def boards(chase_worth):  # type: ignore[no-untyped-def]
        advice = policy_advice(
            seed=1,
            threads=1,
            search=search,
            fantasy_worth=published_worth,
            chase_worth=chase_worth,
        )
        return [s.bot_board for s in replay(few, finals, advice)]

    plain = boards(None)
    assert boards(published_worth) == plain
    assert boards(lambda r, n: 0.0) != plain


def test_a_search_is_read_from_the_command_line_or_refused() -> None:
    from ofc_stats.grade.race import Search

    assert Search.parse("32") == Search(32, 0, 7, 0)
    assert Search.parse("32:16:13").core() == (32, 16, 13, 0)
    for bad in ("", "a:1", "1:2:3:4:5", "-1"):
        with pytest.raises(ValueError, match="DEALS"):
            Search.parse(bad)


class _Room:
    """A dataset stand-in answering the Fantasyland query with fixed seats."""

    def __init__(self, rows: list[tuple[int, float, int]]) -> None:
        self.rows = rows

    def df(self, sql: str, params: dict[str, str]) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=["cards", "points", "next_cards"])


def test_a_rooms_fantasyland_values_pool_thin_sizes_with_the_nearest_smaller() -> None:
    """Without self-play figures for the ruleset (tests/test_fantasy_chain.py: with them)."""
    from ofc_stats.engine.presets import get_ruleset
    from ofc_stats.grade.fantasy import room_values

    # 90 normal hands worth 0 (a third earn a 14-card Fantasyland), 30 hands of 14
    # cards worth 10 and 5 of 15 cards worth 40, none repeating.  15 has fewer than 30
    # hands: pooled with 14, whose mean is (300 + 200) / 35 = 100/7.  The chain:
    # g = h14 / 3 and h14 = 100/7 - g, so g = 25/7 and h14 = 75/7 for both sizes.
    rows = [(0, 0.0, 0)] * 60 + [(0, 0.0, 14)] * 30 + [(14, 10.0, 0)] * 30 + [(15, 40.0, 0)] * 5
    room = room_values(_Room(rows), get_ruleset("pineapple-ultimate"), None)  # type: ignore[arg-type]
    assert room.worth(14) == pytest.approx(75 / 7)
    assert room.worth(15) == pytest.approx(75 / 7)
    assert room.worth(17) == pytest.approx(75 / 7)  # never seen: the nearest smaller size
    assert room.worth(0) == 0.0
    assert "pooled with 14" in room.source[15]
    # Too few Fantasyland hands for any size: each size its published figure (12.4 at 16,
    # not the 14-card 10.23), as the replay values a room it has no data for.
    thin = room_values(_Room(rows[:95]), get_ruleset("pineapple-ultimate"), None)  # type: ignore[arg-type]
    assert thin.worth(16) == published_worth(get_ruleset("pineapple-ultimate"), 16)
