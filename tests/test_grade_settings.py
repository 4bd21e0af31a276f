"""`grade --player X` with other settings: the others' grades kept, X's own settings kept
when none are given, no replay left quoting grades that are gone, an up-to-date summary."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.grade.run import GradeOptions, grade_dataset, settings_of, with_player
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.views import open_dataset
from tests.test_replay_store import OPTIONS, replayed_heads_up


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return replayed_heads_up(tmp_path_factory.mktemp("settings"), 6, seed=4)


def _copy(data: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    return copy


def _rows(data: Path, table: str) -> pd.DataFrame:
    with open_dataset(data) as db:
        return db.df(f"SELECT * FROM {table} ORDER BY ALL")


def _stamp(data: Path, table: str, key: bytes) -> dict[str, object]:
    metadata = pq.read_schema(Dataset(data).files(table)[0]).metadata
    assert metadata is not None
    found = json.loads(metadata[key])
    assert isinstance(found, dict)
    return found


def _grade(data: Path, *args: str) -> str:
    result = CliRunner().invoke(
        main, ["grade", "--data", str(data), "--quiet", "--workers", "1", *args]
    )
    assert result.exit_code == 0, result.output
    return result.output


def _two_players(data: Path) -> tuple[str, str]:
    counts = _rows(data, "grades")["player"].value_counts()
    return str(counts.index[0]), str(counts.index[1])


def test_one_player_with_another_seed_keeps_the_others_grades(
    replayed: Path, tmp_path: Path
) -> None:
    """Defect: the other settings made the stored grades "not this grader's", so the merge
    dropped them: the file held the one player only."""
    copy = _copy(replayed, tmp_path)
    me, other = _two_players(copy)
    before = _rows(copy, "grades")
    _grade(copy, "--player", me, "--seed", "1")
    after = _rows(copy, "grades")
    assert set(after["player"]) == set(before["player"])
    pd.testing.assert_frame_equal(
        after[after["player"] != me].reset_index(drop=True),
        before[before["player"] != me].reset_index(drop=True),
    )
    candidates = _rows(copy, "grade_candidates")
    assert len(candidates) == len(_rows(replayed, "grade_candidates"))
    stamp = _stamp(copy, "grades", b"ofc_stats.grader")
    assert (settings_of(stamp, me) or {})["seed"] == 1
    assert (settings_of(stamp, other) or {})["seed"] == 0
    assert settings_of(stamp, None) is None  # the batch no longer has one set of settings
    # Each player reads as up to date with its own settings, and only with them.
    assert grade_dataset(copy, GradeOptions(rollouts=8, player=me, seed=1)).batches == 0
    assert grade_dataset(copy, GradeOptions(rollouts=8, player=other)).batches == 0
    # The other's replays stay (their grades did not change); mine are gone with my grades.
    replays = _rows(copy, "replays")
    assert me not in set(replays["player"])
    old = _rows(replayed, "replays")
    pd.testing.assert_frame_equal(
        replays.reset_index(drop=True), old[old["player"] != me].reset_index(drop=True)
    )
    # A whole-dataset grade at the first settings makes the batch one again.
    assert grade_dataset(copy, OPTIONS, workers=1).batches == 1
    pd.testing.assert_frame_equal(_rows(copy, "grades"), before)
    assert settings_of(_stamp(copy, "grades", b"ofc_stats.grader"), None) is not None


def test_a_player_regraded_without_settings_keeps_its_own(replayed: Path, tmp_path: Path) -> None:
    """Defect: `grade --player X --replay` after `--rollouts 12` graded X again at the
    default rollouts (32) and replaced the 12-rollout grades; the replay now replays them."""
    copy = _copy(replayed, tmp_path)
    me, _ = _two_players(copy)
    _grade(copy, "--player", me, "--rollouts", "12")
    graded = _rows(copy, "grades")
    output = _grade(copy, "--player", me, "--replay")
    pd.testing.assert_frame_equal(_rows(copy, "grades"), graded)
    assert f"{me}'s grades are current" in output and "(12 rollouts, seed 0)" in output
    stamp = _stamp(copy, "grades", b"ofc_stats.grader")
    assert (settings_of(stamp, me) or {})["rollouts"] == 12
    replays = _rows(copy, "replays")
    mine = replays[replays["player"] == me]
    assert len(mine) == len(_rows(replayed, "replays").query("player == @me"))
    claimed = graded[(graded["player"] == me) & (graded["kind"] == "street")]
    claims = claimed.groupby(["hand_key", "seat"])["loss"].sum()
    both = mine.set_index(["hand_key", "seat"])["claimed"]
    assert ((both - claims.reindex(both.index)).abs() < 1e-9).all()
    replay_stamp = _stamp(copy, "replays", b"ofc_stats.replay")
    assert (settings_of(replay_stamp, me) or {})["rollouts"] == 12
    assert (settings_of(replay_stamp, _two_players(copy)[1]) or {})["rollouts"] == 8
    # Given explicitly, a setting is taken: the default seed, the stored rollouts.
    _grade(copy, "--player", me, "--seed", "2")
    stamp = _stamp(copy, "grades", b"ofc_stats.grader")
    assert {k: (settings_of(stamp, me) or {})[k] for k in ("rollouts", "seed")} == {
        "rollouts": 12,
        "seed": 2,
    }


def test_a_whole_dataset_grade_keeps_the_stored_settings(replayed: Path, tmp_path: Path) -> None:
    """`grade --replay` after `grade --rollouts 8` (the fixture) replays those grades: a
    batch added later would be graded at 8 too, not at the default 32."""
    copy = _copy(replayed, tmp_path)
    output = _grade(copy, "--replay")
    assert "graded: 0 street decisions" in output and "replayed: 0 seats" in output
    explicit = _grade(copy, "--rollouts", "32")
    assert "1 batch; 0 batches already up to date" in explicit
    assert len(_rows(copy, "replays")) == 0  # the replays quoted the 8-rollout grades


def test_an_up_to_date_player_gets_its_summary(replayed: Path) -> None:
    """Defect: re-running printed only "graded: 0 street decisions ... already up to date"."""
    me, _ = _two_players(replayed)
    output = _grade(replayed, "--player", me, "--rollouts", "8")
    grades = _rows(replayed, "grades")
    mine = grades[grades["player"] == me]
    streets = int((mine["kind"] == "street").sum())
    sets = int((mine["kind"] == "fantasy").sum())
    hands = mine["hand_key"].nunique()
    first = output.splitlines()[0]
    assert first.startswith(f"{me}'s grades are current: {streets} street decisions"), output
    assert f"{sets} Fantasyland set" in first and f"in {hands} hands (8 rollouts, seed 0)" in first
    assert f"`ofc-stats report --player {me}` shows them" in first
    seat_hands = len(mine[mine["kind"] == "street"][["hand_key", "seat"]].drop_duplicates())
    assert f"over {seat_hands} graded seat-hands" in output


def test_the_stamp_keeps_only_what_differs_per_player() -> None:
    """Whole grades at 8 rollouts, then a at 16: a's entry holds the rollouts alone; a back at
    8 drops it; a stamp listing players adds the new one."""
    whole = with_player(None, {"version": 3, "rollouts": 8, "seed": 0}, None)
    assert whole == {"version": 3, "rollouts": 8, "seed": 0, "players": None}
    a16 = with_player(whole, {"version": 3, "rollouts": 16, "seed": 0}, "a")
    assert a16["player_settings"] == {"a": {"rollouts": 16}}
    assert settings_of(a16, "a") == {"version": 3, "rollouts": 16, "seed": 0}
    assert settings_of(a16, "b") == {"version": 3, "rollouts": 8, "seed": 0}
    assert with_player(a16, {"version": 3, "rollouts": 8, "seed": 0}, "a") == whole
    listed = with_player(None, {"rollouts": 8}, "a")
    assert settings_of(listed, "b") is None
    assert with_player(listed, {"rollouts": 4}, "b")["players"] == ["a", "b"]


def test_grading_one_player_keeps_grades_an_older_grader_made(
    replayed: Path, tmp_path: Path
) -> None:
    """Every dataset graded before version 7 holds files without the newer columns (the
    candidates' gaps, the decisions' rivals): keeping the others' rows beside one player's
    new grades failed with "Schema at index 1 was different".  They are kept, null in the
    columns their grader did not write, and read as that grader's (graded again when
    asked for)."""
    copy = _copy(replayed, tmp_path)
    me, other = _two_players(copy)
    newer = {
        "grades": [
            c
            for c in pq.read_schema(Dataset(copy).files("grades")[0]).names
            if c.startswith("rival_")
        ],
        "grade_candidates": ["gap", "gap_se", "within_noise"],
    }
    for table, columns in newer.items():
        for path in Dataset(copy).files(table):
            stored = pq.read_table(path)
            metadata = dict(stored.schema.metadata or {})
            if b"ofc_stats.grader" in metadata:
                stamp = json.loads(metadata[b"ofc_stats.grader"])
                stamp["version"] -= 1
                metadata[b"ofc_stats.grader"] = json.dumps(stamp).encode()
            pq.write_table(stored.drop_columns(columns).replace_schema_metadata(metadata), path)
    _grade(copy, "--player", me)
    grades = _rows(copy, "grades")
    assert set(grades["player"]) == set(_rows(replayed, "grades")["player"])
    assert grades.loc[grades["player"] == other, "rival_play"].isna().all()
    assert grades.loc[grades["player"] == me, "rival_play"].notna().any()
    assert grade_dataset(copy, GradeOptions(rollouts=8, player=other)).batches == 1  # older


def test_an_up_to_date_players_replay_says_what_it_won(replayed: Path, tmp_path: Path) -> None:
    """A player's find: a second `grade --replay` printed "replayed: 0 seats" and nothing of
    what the advice won: the stored replays of the player's seats say it, marked stored."""
    copy = _copy(replayed, tmp_path)
    me, _ = _two_players(copy)
    output = _grade(copy, "--player", me, "--rollouts", "8", "--replay")
    assert "replayed: 0 seats" in output, output
    replays = _rows(copy, "replays")
    mine = replays[replays["player"] == me]
    line = output.splitlines()[-1]
    assert line.endswith(f"({len(mine)} hands) (stored)") or line.endswith(
        f"on these {len(mine)} hands: nothing to realise (stored)"
    ), output
