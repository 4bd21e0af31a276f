"""Recompute on Spark (local[2]) writes what the local recompute writes, file for file.

One SparkSession serves the module (Spark's start costs seconds); the
datasets are a few hundred hands.  Skipped only where Java is missing.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import SparkUnavailable
from ofc_stats.records import HandRecord
from ofc_stats.sim.rooms import simulate
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute as local_recompute
from ofc_stats.store.schema import ENGINE_KEY, ENGINE_VERSION
from parsers.open_format import dumps
from tests.builders import hand_record, seat_record
from tests.handgen import random_records

pytestmark = pytest.mark.skipif(
    shutil.which("java") is None, reason="Spark needs Java (OpenJDK 17): none on this machine"
)


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from ofc_stats.spark import spark_session

    session = spark_session("local[2]", {"spark.driver.memory": "1g"})
    yield session
    session.stop()


def _simulated(
    hands: int, rules: str, seats: int, seed: int, **options: object
) -> list[HandRecord]:
    ruleset = get_ruleset(rules)
    played = simulate(
        hands, ruleset, seats=seats, players=seats + 2, seed=seed, rollouts=2, **options
    )  # type: ignore[arg-type]
    return [record for record, _ in played]


def _import(data: Path, name: str, records: list[HandRecord], extra: str = "") -> None:
    """One source file, imported as its own batch(es); ``extra`` lines are appended raw."""
    source = data.parent / f"{name}.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in records) + extra, encoding="utf-8")
    import_paths([source], data)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six batches: Progressive 3-handed with stacks (caps, Fantasyland entries), Classic 2-
    and 4-handed, Ultimate with random 2-3 seat deals, a Fantasyland seat that stays, and
    Classic under a ruleset the dataset keeps as a file."""
    data = tmp_path_factory.mktemp("mixed") / "data"
    _import(data, "progressive", _simulated(120, "pineapple-progressive", 3, 21, stack=15.0))
    _import(data, "classic2", _simulated(60, "classic", 2, 22))
    _import(data, "classic4", _simulated(40, "classic", 4, 23))
    _import(data, "ultimate", random_records(80, seed=24, ruleset_name="pineapple-ultimate"))
    # A Fantasyland seat that stays: Progressive repeats on trips of deuces on top.
    stays = seat_record(
        0,
        "A",
        "2s 2d 2h",
        "5h 6d 7c 8s 9h",
        "3h 4h Th Jh Ah",
        in_fantasy=True,
        discards=parse_cards("Kh"),
    )  # 13 + 1 discard: a 14-card Fantasyland
    other = seat_record(1, "B", "Ac Kd 3s", "4c 4d 5s Js Ks", "5c 5d 6c 8d 9c")
    _import(data, "fantasy", [hand_record(1, (stays, other))])
    # hands under a ruleset the dataset keeps as a file (import --rules ROOM.toml): Spark's
    # workers must find it as the local recompute does (they knew the presets only)
    rules = data.parent / "my-room.toml"
    rules.write_text('extends = "classic"\nname = "my-room"\n', encoding="utf-8")
    source = data.parent / "my-room.jsonl"
    played = _simulated(30, "classic", 2, 25)
    source.write_text("".join(dumps(r) + "\n" for r in played), encoding="utf-8")
    import_paths([source], data, rules=str(rules))
    local_recompute(data)
    return data


def _copy(data: Path, tmp_path: Path) -> Path:
    target = tmp_path / "spark-data"
    shutil.copytree(data, target, ignore=shutil.ignore_patterns(".lock"))
    for table in ("results", "versus"):  # nothing of the local path's output survives
        for path in (target / table).glob("*.parquet"):
            if path.name != "schema.parquet":
                path.unlink()
    return target


def _assert_same_files(local: Path, spark: Path) -> None:
    """Every results and versus file: equal Arrow tables (types, order, values) and footers."""
    batches = Dataset(local).batches()
    assert batches == Dataset(spark).batches()
    for table in ("results", "versus"):
        for batch in batches:
            ours = pq.read_table(Dataset(local).batch_file(table, batch))
            theirs = pq.read_table(Dataset(spark).batch_file(table, batch))
            assert theirs.schema.equals(ours.schema, check_metadata=True), (table, batch)
            assert theirs.equals(ours), (table, batch)


def _sorted_views(data: Path) -> dict[str, Any]:
    with ofc_stats.open(data) as db:
        return {
            "results": db.df("SELECT * FROM results ORDER BY hand_key, seat"),
            "versus": db.df("SELECT * FROM versus ORDER BY hand_key, seat, opponent"),
        }


@pytest.mark.parametrize("read", ["workers", "spark"])
def test_spark_results_equal_the_local_path(
    spark: Any, mixed: Path, tmp_path: Path, read: str
) -> None:
    from ofc_stats.spark import recompute

    copy = _copy(mixed, tmp_path)
    summary = recompute(spark, copy, read=read)  # type: ignore[arg-type]
    assert summary.batches == len(Dataset(mixed).batches()) >= 6
    assert summary.hands == 120 + 60 + 40 + 80 + 1 + 30
    _assert_same_files(mixed, copy)
    local, distributed = _sorted_views(mixed), _sorted_views(copy)
    for name in ("results", "versus"):
        assert distributed[name].equals(local[name]), name
    results = local["results"]
    # the dataset covers what the test claims: caps, Fantasyland, 2-4 seats, several rulesets
    assert (results["net_capped"] != results["net"]).sum() >= 5
    assert (results["fantasy_entry"] > 0).sum() >= 3 and results["fantasy_stays"].sum() >= 1
    assert set(results.groupby("hand_key").size()) == {2, 3, 4}
    assert set(results["ruleset"]) == {
        "pineapple-progressive",
        "classic",
        "pineapple-ultimate",
        "my-room",
    }
    assert set(results["status"]) == {"scored"}  # my-room's hands too, not "unknown ruleset"


def test_spark_stamps_the_engine_version_so_either_path_skips_the_others_work(
    spark: Any, mixed: Path, tmp_path: Path
) -> None:
    from ofc_stats.spark import recompute

    copy = _copy(mixed, tmp_path)
    shown: list[float] = []
    first = recompute(spark, copy, progress=shown.append)
    assert shown == sorted(shown) and shown[-1] == 1.0  # Spark's task counts, only growing
    batches = len(Dataset(copy).batches())
    path = Dataset(copy).batch_file("results", Dataset(copy).batches()[0])
    assert pq.read_schema(path).metadata[ENGINE_KEY] == str(ENGINE_VERSION).encode()
    assert (first.batches, first.up_to_date) == (batches, 0)
    again = recompute(spark, copy)
    assert (again.batches, again.up_to_date, again.hands) == (0, batches, 0)
    local = local_recompute(copy)  # the local path reads Spark's stamp as its own
    assert (local.batches, local.up_to_date) == (0, batches)


def test_a_file_uri_goes_through_the_pyarrow_filesystem(
    spark: Any, mixed: Path, tmp_path: Path
) -> None:
    """``file://`` takes the URI layout (the one s3:// and hdfs:// take): same files."""
    from ofc_stats.spark import recompute

    copy = _copy(mixed, tmp_path)
    summary = recompute(spark, copy.as_uri())
    assert summary.batches == len(Dataset(mixed).batches())
    _assert_same_files(mixed, copy)
    assert not list((copy / ".tmp").iterdir())  # staging folders are gone


def test_quarantined_and_incomplete_hands_get_the_same_statuses(spark: Any, tmp_path: Path) -> None:
    """Hand 1 is whole (2 seats scored); hand 2's second seat has 3 bottom cards (both seats
    incomplete); the third line is not JSON (quarantined at import, never scored)."""
    from ofc_stats.spark import recompute

    whole = hand_record(
        1,
        (
            seat_record(0, "A", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah"),
            seat_record(1, "B", "Ac Kd 3s", "4c 4d 5s Js Ks", "5c 5d 6c 8d 9c"),
        ),
    )
    short = replace(
        whole,
        room_hand_id="2",
        seats=(whole.seats[0], replace(whole.seats[1], bottom=whole.seats[1].bottom[:3])),
    )
    data = tmp_path / "local" / "data"
    data.parent.mkdir()
    _import(data, "hands", [whole, short], extra="{not a hand\n")
    local_recompute(data)
    copy = _copy(data, tmp_path)
    summary = recompute(spark, copy)
    assert dict(summary.statuses) == {"scored": 2, "incomplete": 2}
    _assert_same_files(data, copy)
    query = "SELECT room_hand_id, status, count(*) n FROM seat_results GROUP BY ALL ORDER BY 1"
    expected = {"room_hand_id": ["1", "2"], "status": ["scored", "incomplete"], "n": [2, 2]}
    for folder in (data, copy):
        with ofc_stats.open(folder) as db:
            assert db.df(query).to_dict("list") == expected
            assert db.sql("SELECT count(*) FROM quarantine").fetchall() == [(1,)]


def test_cli_recompute_on_spark(spark: Any, mixed: Path, tmp_path: Path) -> None:
    copy = _copy(mixed, tmp_path)
    runner = CliRunner()
    args = ["recompute", "--data", str(copy), "--engine", "spark", "--master", "local[2]"]
    done = runner.invoke(main, [*args, "--conf", "spark.sql.shuffle.partitions=4"])
    assert done.exit_code == 0, done.output
    assert "recomputed: 331 hands in" in done.output
    assert "engine: spark (local[2])" in done.output
    _assert_same_files(mixed, copy)
    bad = runner.invoke(main, [*args, "--conf", "spark.sql.shuffle.partitions"])
    assert bad.exit_code == 2 and "expected KEY=VALUE" in bad.output
    local_only = runner.invoke(main, ["recompute", "--data", str(copy), "--master", "local[2]"])
    assert local_only.exit_code == 2 and "add --engine spark" in local_only.output


def test_conf_pairs() -> None:
    from ofc_stats.spark import parse_conf

    assert parse_conf(["a.b=1", " c = x=y"]) == {"a.b": "1", "c": " x=y"}
    with pytest.raises(SparkUnavailable, match="expected KEY=VALUE"):
        parse_conf(["=1"])


def test_a_failed_task_is_one_message_and_the_good_batches_stay(
    spark: Any, mixed: Path, tmp_path: Path
) -> None:
    """One batch's seats file is not Parquet: the command says so in one line (exit 1); every
    batch that was committed is whole and equal to the local path's."""
    copy = _copy(mixed, tmp_path)
    broken = Dataset(copy).batches()[1]
    Dataset(copy).batch_file("seats", broken).write_bytes(b"not parquet at all")
    args = ["recompute", "--data", str(copy), "--engine", "spark", "--master", "local[2]"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 1, done.output
    assert done.stderr.startswith("Error: Spark job failed: ") and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "ArrowInvalid" in done.stderr
    assert f"seats/{broken}.parquet" in done.stderr
    for batch in Dataset(copy).batches():
        path = Dataset(copy).batch_file("results", batch)
        if path.exists():
            assert batch != broken
            assert pq.read_table(path).equals(
                pq.read_table(Dataset(mixed).batch_file("results", batch))
            )


def test_progress_is_read_from_sparks_status_tracker(spark: Any) -> None:
    """A job group's fraction of finished tasks: 3 of 3 after a 3-partition count; nothing for a
    group that never ran."""
    from ofc_stats.spark.session import _fraction

    spark.sparkContext.setJobGroup("ofc-test-group", "test")
    try:
        assert spark.range(0, 30, 1, 3).rdd.map(lambda x: x).count() == 30
    finally:
        spark.sparkContext.setJobGroup("", "")
    assert _fraction(spark, "ofc-test-group") == 1.0
    assert _fraction(spark, "no-such-group") == 0.0


def test_without_java_the_command_says_so(mixed: Path, tmp_path: Path) -> None:
    """A JAVA_HOME with no java in it: one message naming Java, exit 1, no stack trace."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "JAVA_HOME": str(tmp_path / "no-java")}
    done = subprocess.run(
        [sys.executable, "-m", "ofc_stats", "recompute", "--engine", "spark", "--data", str(mixed)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: Spark did not start") and "is Java installed" in last
    assert "Traceback" not in done.stderr


def test_spark_grades_equal_the_local_grader(spark: Any, tmp_path: Path) -> None:
    """Two batches of heads-up Pineapple, 4 rollouts, seed 3: Spark's grades and candidates
    files equal ``grade_dataset``'s (types, order, values, the grader stamp)."""
    from ofc_stats.grade.run import GradeOptions, grade_dataset
    from ofc_stats.spark import grade

    data = tmp_path / "local" / "data"
    data.parent.mkdir()
    for number in range(2):
        played = _simulated(5, "pineapple", 2, 30 + number, timeout_rate=0.0)
        _import(data, f"heads-up-{number}", played)
    local_recompute(data)
    options = GradeOptions(rollouts=4, seed=3)
    local = grade_dataset(data, options, workers=1)
    copy = tmp_path / "spark-data"
    shutil.copytree(data, copy, ignore=shutil.ignore_patterns(".lock"))
    for table in ("grades", "grade_candidates"):
        for path in (copy / table).glob("*.parquet"):
            if path.name != "schema.parquet":
                path.unlink()
    summary = grade(spark, copy, options)
    assert (summary.batches, summary.hands, summary.decisions) == (
        2,
        local.hands,
        local.decisions,
    )
    assert summary.decisions > 0 and summary.loss == pytest.approx(local.loss)
    for table in ("grades", "grade_candidates"):
        for batch in Dataset(data).batches():
            ours = pq.read_table(Dataset(data).batch_file(table, batch))
            theirs = pq.read_table(Dataset(copy).batch_file(table, batch))
            assert theirs.schema.equals(ours.schema, check_metadata=True), (table, batch)
            assert theirs.equals(ours), (table, batch)
    args = ["grade", "--data", str(copy), "--rollouts", "4", "--seed", "3", "--engine", "spark"]
    again = CliRunner().invoke(main, [*args, "--master", "local[2]"])  # the stamp says done
    assert again.exit_code == 0, again.output
    assert "in 0 hands, 0 batches; 2 batches already up to date" in again.output
    local_only = CliRunner().invoke(main, ["grade", "--data", str(copy), "--conf", "a=b"])
    assert local_only.exit_code == 2 and "add --engine spark" in local_only.output
