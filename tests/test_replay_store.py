"""`ofc-stats grade --replay`: the advice replayed on each seat's own cards, stored."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.grade.position import HAND_COLUMNS, PLACEMENT_COLUMNS, SEAT_COLUMNS, read_positions
from ofc_stats.grade.replay import final_seats, grader_advice, replay
from ofc_stats.grade.replay_store import dataset_worth, replay_dataset
from ofc_stats.grade.run import GradeOptions, grade_dataset
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.rulesets import DatasetRulesets
from ofc_stats.store.views import open_dataset
from tests.test_grade_store import heads_up

OPTIONS = GradeOptions(rollouts=8)


def replayed_heads_up(folder: Path, hands: int, seed: int) -> Path:
    """A heads-up dataset of ``hands`` simulated hands, graded and replayed with OPTIONS."""
    data = heads_up(folder, hands, seed=seed)
    grade_dataset(data, OPTIONS, workers=1)
    replay_dataset(data, OPTIONS, workers=1)
    return data


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return replayed_heads_up(tmp_path_factory.mktemp("replayed"), 8, seed=3)


def test_one_row_per_normal_seat_and_the_gain_is_the_difference(replayed: Path) -> None:
    with open_dataset(replayed) as db:
        rows = db.df("SELECT * FROM replays")
        normal = db.sql("SELECT count(*) FROM seats WHERE NOT in_fantasy").fetchall()[0][0]
        claimed = db.df(
            "SELECT hand_key, seat, sum(loss) AS loss FROM grades WHERE kind = 'street' "
            "GROUP BY ALL"
        )
    assert len(rows) == normal
    assert ((rows["bot_value"] - rows["player_value"] - rows["gain"]).abs() < 1e-9).all()
    # Never deviating, the bot built the player's board: it gains exactly nothing.
    same = rows[rows["first_deviation"].isna()]
    assert (same["gain"] == 0).all()
    both = rows.merge(claimed, on=["hand_key", "seat"])
    assert len(both) == len(rows)
    assert ((both["claimed"] - both["loss"]).abs() < 1e-9).all()


def test_the_stored_advice_is_the_advice_the_grader_gives(replayed: Path) -> None:
    """Where the bot's position is the player's own, the stored best play is taken: the
    replay must come out as if every street had been graded anew."""
    dataset = Dataset(replayed)
    (batch,) = dataset.batches()
    seats = pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS)
    positions = read_positions(
        pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS),
        seats,
        pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS),
        DatasetRulesets(replayed),
    )
    options = OPTIONS.for_dataset(replayed)  # the rooms' Fantasyland values, as grade takes
    worth = dataset_worth(options)
    fresh = replay(
        positions.decisions,
        final_seats(seats),
        grader_advice(options.rollouts, options.seed, 1, fantasy_worth=worth),
        worth,
    )
    stored = pq.read_table(dataset.batch_file("replays", batch)).to_pylist()
    by_seat = {(r["hand_key"], r["seat"]): r for r in stored}
    assert len(fresh) == len(stored)
    for seat in fresh:
        row = by_seat[(seat.hand_key, seat.seat)]
        assert tuple(row["bot_board"]) == seat.bot_board
        assert row["first_deviation"] == seat.first_deviation


def test_replays_are_incremental_and_the_command_prints_them(
    replayed: Path, tmp_path: Path
) -> None:
    again = replay_dataset(replayed, OPTIONS, workers=1)
    assert again.up_to_date == 1 and again.batches == 0
    copy = tmp_path / "copy"
    shutil.copytree(replayed, copy)
    result = CliRunner().invoke(
        main, ["grade", "--data", str(copy), "--rollouts", "8", "--replay", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "already up to date" in result.output
    assert "replayed: 0 seats" in result.output


def test_the_regret_report_puts_the_realised_gain_beside_the_claim(replayed: Path) -> None:
    from reports import prepare, regret
    from reports.filters import Filters

    with open_dataset(replayed) as db:
        player = db.sql("SELECT player FROM replays LIMIT 1").fetchall()[0][0]
        report = regret.build(prepare(db, Filters(player=player)))
    table = report.tables["replay"]
    assert table.iloc[0]["first_deviation"] == "all seats"
    assert table.iloc[0]["seats"] == table.iloc[1:]["seats"].sum()
    leaks = report.tables["leaks"]
    assert leaks["leak"].str.match(r"street \d: ").all()
    # Clear needs the claim beyond 2 SE and the replay confirming it.
    assert (~leaks["clear"] | (leaks["claim_clear"] & (leaks["realised_per_seat"] > 0))).all()
    # The first notes name the three costliest leaks whatever their SEs, each clear or not
    # clear yet; a leak with no expected loss is a tie, left out.
    assert (leaks["per_100_hands"] > 0).all()
    assert leaks["per_100_hands"].is_monotonic_decreasing
    named = [n for n in report.notes if n.startswith("Street ") and ": claimed " in n]
    assert named == report.notes[: len(named)]
    assert [n.split(": claimed ")[0] for n in named] == [
        leak[0].upper() + leak[1:] for leak in leaks["leak"].head(3)
    ]
    for note, clear in zip(named, leaks["clear"].head(3), strict=True):
        assert note.endswith(": clear (beyond 2 SE and confirmed by the replay).") == clear
        assert clear or ": not clear yet (" in note
    assert "clear: the claim exceeds 2 SE and the replay confirms it" in report.captions["leaks"]


def test_a_claim_is_confirmed_only_by_a_gain_beyond_two_se() -> None:
    import pandas as pd

    from reports.regret import replay_by_street

    # Street 1: gains 1, 3 (mean 2, SE 1: 2 > 2 x 1 is false); street 2: gains 4, 6, 8
    # (mean 6, SD 2, SE 2/sqrt(3) = 1.155: 6 > 2.31, confirmed).
    replays = pd.DataFrame(
        {
            "first_deviation": [0, 0, 1, 1, 1, None],
            "gain": [1.0, 3.0, 4.0, 6.0, 8.0, 0.0],
            "claimed": [1.0, 1.0, 2.0, 2.0, 2.0, 0.5],
        }
    )
    table = replay_by_street(replays).set_index("first_deviation")
    # Per seat, not scaled to 100 hands (a street of one seat read "-4,381 per 100").
    assert table.loc["street 1", "realised_per_seat"] == pytest.approx(2.0)
    assert table.loc["street 1", "realised_se"] == pytest.approx(1.0)
    assert not table.loc["street 1", "confirmed"]
    assert table.loc["street 2", "realised_se"] == pytest.approx(2 / 3**0.5)
    assert table.loc["street 2", "confirmed"]
    assert table.loc["never deviated", "seats"] == 1
    assert table.loc["all seats", "claimed_per_seat"] == pytest.approx(8.5 / 6)
