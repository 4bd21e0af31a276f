"""What a Fantasyland is worth under the continuation policy: self-play, its chain, and
the room values' fallback to it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest

from ofc_stats import _core
from ofc_stats.core.rules import core_rules
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.grade.fantasy import MIN_HANDS, room_values
from ofc_stats.grade.fantasy_chain import (
    FIGURES,
    ChainWorth,
    Rows,
    SelfPlay,
    bootstrap_se,
    chain,
    chain_worth,
    fingerprint,
    main,
    self_play,
    table_sizes,
    worth_by_cards,
)
from ofc_stats.grade.rollout import streets
from ofc_stats.grade.train import learned_value, weights_id


def _ints(values: list[int]) -> npt.NDArray[np.int64]:
    return np.array(values, dtype=np.int64)


def _rows(hand: list[int], points: list[int], after: list[int]) -> Rows:
    return (_ints(hand), _ints(points), _ints(after))


def test_the_chain_on_a_tiny_made_up_table() -> None:
    # A two-seat table.  Normal hands: two, seats (+5, -5) and (+3, -3): r(0) = 0; one
    # seat enters 14 cards, one 15: P(0 -> 14) = P(0 -> 15) = 1/4.  14 cards: 20 and 10
    # points (r = 15), one repeats: P(14 -> 14) = 1/2.  15 cards: 30 twice, one repeats:
    # P(15 -> 15) = 1/2.  With h(0) = 0:
    #   g = h14 / 4 + h15 / 4;  h14 = 15 - g + h14 / 2, so h14 = 30 - 2g;  h15 = 60 - 2g.
    #   g = (90 - 4g) / 4, so g = 11.25, h14 = 7.5, h15 = 37.5.
    rows = {
        0: _rows([0, 0, 1, 1], [5, -5, 3, -3], [14, 0, 0, 15]),
        14: _rows([0, 1], [20, 10], [0, 14]),
        15: _rows([0, 1], [30, 30], [15, 0]),
    }
    found = chain(rows)
    assert found.value == {14: pytest.approx(7.5), 15: pytest.approx(37.5)}
    assert found.per_hand == pytest.approx(11.25)
    assert found.stay_rate == {14: 0.5, 15: 0.5}


def test_the_bootstrap_resamples_a_normal_hands_seats_together() -> None:
    # Every normal hand is (+5 next 14, -5 next 0); every 14-card hand 12 points, no
    # repeat.  Resampled by hands, each resample is the same chain: SE 0.  Resampled
    # seat by seat, P(0 -> 14) would vary and so would the worth.
    hands = np.repeat(np.arange(50, dtype=np.int64), 2)
    normal = (hands, np.tile(_ints([5, -5]), 50), np.tile(_ints([14, 0]), 50))
    fantasy = _rows(list(range(40)), [12] * 40, [0] * 40)
    se = bootstrap_se({0: normal, 14: fantasy}, reps=20, seed=1)
    assert se == {14: pytest.approx(0.0, abs=1e-12)}
    # A varied state gives a varied worth.
    varied = _rows(list(range(40)), [0, 24] * 20, [0] * 40)
    assert bootstrap_se({0: normal, 14: varied}, reps=20, seed=1)[14] > 0.5


def test_the_sizes_and_tables_a_ruleset_is_played_at() -> None:
    ultimate = get_ruleset("pineapple-ultimate")
    assert ultimate.fantasy.sizes() == [14, 15, 16, 17]  # repeats keep the count
    assert get_ruleset("pineapple-progressive-16").fantasy.sizes() == [14, 15, 16]
    assert get_ruleset("pineapple-tournament").fantasy.sizes() == [13, 14, 15, 16]
    # 17 + 2 x 17 = 51 cards fit a 52-card deck; Pineapple seats at most 3.
    assert table_sizes(ultimate) == [2, 3]
    # Classic: 13 + 3 x 13 = 52, so four seats fit.
    assert table_sizes(get_ruleset("classic")) == [2, 3, 4]
    # A size not listed takes the nearest smaller's; no entry is worth 0; never below 0.
    table = worth_by_cards({14: 10.0, 16: -3.0})
    assert (table[0], table[13], table[14], table[15], table[16], table[31]) == (
        0.0,
        10.0,
        10.0,
        10.0,
        0.0,
        0.0,
    )


def test_self_play_is_the_same_on_one_and_two_threads() -> None:
    ruleset = get_ruleset("pineapple-progressive-16")
    value = learned_value()
    args = (core_rules(ruleset), streets(ruleset), worth_by_cards({14: 10.0, 15: 20.0}))
    for state in (0, 16):
        one, two = (
            _core.fantasy_chain_hands(
                *args, seats=3, fantasy=state, hands=150, seed=4, value=value, threads=n
            )
            for n in (1, 2)
        )
        for a, b in zip(one, two, strict=True):
            np.testing.assert_array_equal(a, b)
        assert len(one[0]) == (450 if state == 0 else 150)
        assert set(one[1].tolist()) == {state}
    settings = SelfPlay(seed=2, hands=120, rounds=1, round_hands=60)
    first = self_play(ruleset, 2, settings, threads=1, value=value)
    assert self_play(ruleset, 2, settings, threads=2, value=value) == first
    assert set(first["worth"]) == {"14", "15", "16"}
    other = self_play(ruleset, 2, SelfPlay(3, 120, 1, 60), threads=2, value=value)
    assert other["worth"] != first["worth"]


def test_hands_that_do_not_fit_are_refused_in_one_line() -> None:
    from ofc_stats.errors import HandError

    ruleset = get_ruleset("pineapple")
    with pytest.raises(HandError, match="4 seats do not fit the ruleset"):
        _core.fantasy_chain_hands(
            core_rules(ruleset), streets(ruleset), [0.0] * 32, seats=4, fantasy=0, hands=1, seed=0
        )


class _Room:
    """A dataset stand-in answering the Fantasyland query with fixed seats."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def df(self, sql: str, params: dict[str, str]) -> pd.DataFrame:
        return self.frame


PLAYED = ChainWorth(
    "test policy",
    worth={
        2: {14: 8.0, 15: 20.0, 16: 30.0, 17: 50.0},
        3: {14: 16.0, 15: 40.0, 16: 60.0, 17: 100.0},
    },
    se={2: {}, 3: {}},
)


def test_a_size_with_too_few_hands_takes_the_self_play_figure_and_says_so() -> None:
    # 120 seats, 90 at two-seat tables and 30 at three: self-play's worth weighs 3:1.
    # 55 normal hands (0 points), 30 more entering 14 cards; 30 hands of 14 cards at 10
    # points; 5 of 15 cards (fewer than 30) at 40.  15, 16 and 17 take self-play's:
    # 0.75 x 20 + 0.25 x 40 = 25, 37.5 and 62.5.  The room's chain on its own hands, 15
    # given (its 5 rows not read): P(0 -> 14) = 30/85 = 6/17, r(14) = 10, no repeat.
    # g = 6/17 h14 and h14 = 10 - g: g = 60/23, h14 = 170/23.
    frame = pd.DataFrame(
        [(0, 0.0, 0)] * 55 + [(0, 0.0, 14)] * 30 + [(14, 10.0, 0)] * 30 + [(15, 40.0, 0)] * 5,
        columns=["cards", "points", "next_cards"],
    )
    frame["seats"] = [2] * 90 + [3] * 30
    assert (frame["cards"] == 15).sum() < MIN_HANDS <= (frame["cards"] == 14).sum()
    ruleset = get_ruleset("pineapple-ultimate")
    room = room_values(_Room(frame), ruleset, PLAYED)  # type: ignore[arg-type]
    assert room.worth(14) == pytest.approx(170 / 23)
    assert (room.worth(15), room.worth(16), room.worth(17)) == pytest.approx((25, 37.5, 62.5))
    assert room.source[14].startswith("room chain, 30 hands")
    assert "self-play (test policy; 2 seats 75%, 3 seats 25%): 5 hands" in room.source[15]
    assert "0 hands in the room" in room.source[17]
    # With 30 hands of 15 cards the room's own chain values 15 too.
    more = pd.concat([frame, frame[frame["cards"] == 15].iloc[[0] * 25]], ignore_index=True)
    assert room_values(_Room(more), ruleset, PLAYED).source[15].startswith("room chain")  # type: ignore[arg-type]
    # A room without Fantasyland hands (or without hands): self-play's for every size,
    # here at tables of two and three seats alike.
    normal = pd.DataFrame({"cards": 0, "points": 0.0, "next_cards": 0, "seats": [2, 3] * 20})
    bare = room_values(_Room(normal), ruleset, PLAYED)  # type: ignore[arg-type]
    assert bare.worth(14) == pytest.approx(0.5 * 8 + 0.5 * 16)
    assert "2 seats 50%, 3 seats 50%" in bare.source[14]
    unknown = room_values(_Room(normal.assign(seats=None)), ruleset, PLAYED)  # type: ignore[arg-type]
    assert unknown.worth(14) == pytest.approx(12.0)  # no table size known: each alike
    empty = room_values(_Room(frame.iloc[:0]), ruleset, PLAYED)  # type: ignore[arg-type]
    assert empty.worth(17) == pytest.approx(75.0)  # no tables seen: each size alike
    # Without self-play figures the thin size is pooled, and the source says why.
    pooled = room_values(_Room(frame), ruleset, None)  # type: ignore[arg-type]
    assert pooled.worth(15) == pooled.worth(14)
    assert "no self-play figures for pineapple-ultimate" in pooled.source[15]


def test_the_versioned_figures_fit_the_presets_and_the_weights() -> None:
    doc = json.loads(FIGURES.read_text())
    assert set(doc["rulesets"]) >= set(SelfPlay().rulesets)
    for name, entry in doc["rulesets"].items():
        ruleset = get_ruleset(name)
        # Played under the versioned weights: a retrained value needs these again.
        assert (entry["fingerprint"], entry["weights"]) == (fingerprint(ruleset), weights_id())
        assert set(entry["tables"]) == {str(s) for s in table_sizes(ruleset)}
        played = chain_worth(ruleset)
        assert played is not None and set(played.mixed()[0]) == set(ruleset.fantasy.sizes())
    # Another room's rules under a preset's name never take the preset's figures.
    assert chain_worth(get_ruleset("pineapple-ultimate").with_options(max_loss=30)) is None


def test_the_command_writes_the_figures_and_keeps_the_other_rulesets(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    small = ["--hands", "40", "--round-hands", "20", "--rounds", "1", "--out", str(out)]
    assert main(["--ruleset", "pineapple", *small]) == 0
    assert main(["--ruleset", "turbo", *small]) == 0
    doc = json.loads(out.read_text())
    assert set(doc["rulesets"]) == {"pineapple", "turbo"}
    assert set(doc["rulesets"]["turbo"]["tables"]) == {"2", "3", "4"}
    assert chain_worth(get_ruleset("pineapple"), out) is not None


def test_the_command_refuses_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--ruleset", "no-such-rules", "--out", str(tmp_path / "x.json")]) == 2
    assert capsys.readouterr().err.startswith("error: unknown ruleset 'no-such-rules'")
    with pytest.raises(SystemExit) as exit_:
        main(["--hands", "0"])
    assert exit_.value.code == 2
