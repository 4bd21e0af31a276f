"""Issue 30, item 18: an open handle follows the dataset; ``sql --read-only`` reads only.

``sql`` runs DuckDB's whole language as the user (COPY writes files, ATTACH
and read_text read any file they may read): a tool on one's own machine.
``--read-only`` is for a query someone else wrote: SELECT and EXPLAIN only,
and only the dataset's files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from ofc_stats.errors import OfcError
from ofc_stats.store.forget import forget
from ofc_stats.store.importer import import_paths
from parsers.open_format import dumps
from tests.builders import sim_records


@pytest.fixture
def two_files(tmp_path: Path) -> Path:
    records = sim_records(6, seed=9)
    for name, part in (("a", records[:3]), ("b", records[3:])):
        (tmp_path / f"{name}.jsonl").write_text("".join(dumps(r) + "\n" for r in part))
        import_paths([tmp_path / f"{name}.jsonl"], tmp_path / "data")
    return tmp_path


def test_an_open_handle_sees_a_forget_and_an_import(two_files: Path) -> None:
    """The views named the files present when opened: "No files found" after a forget."""
    data = two_files / "data"
    with ofc_stats.open(data) as db:
        assert db.sql("SELECT count(*) FROM hands").fetchall() == [(6,)]
        forget(data, str(two_files / "b.jsonl"))
        assert db.sql("SELECT count(*) FROM hands").fetchall() == [(3,)]
        assert db.sql("SELECT count(DISTINCT hand_key) FROM seats").fetchall() == [(3,)]
        import_paths([two_files / "b.jsonl"], data)
        assert db.sql("SELECT count(*) FROM hands").fetchall() == [(6,)]


@pytest.mark.parametrize(
    ("query", "refusal"),
    [
        ("COPY (SELECT 1) TO '{out}/copied.csv'", "COPY refused"),
        ("SELECT * FROM read_text('{out}/secret.txt')", "Permission Error"),
        ("ATTACH '{out}/other.db'", "ATTACH refused"),
        ("SET enable_external_access = true", "SET refused"),
        ("CREATE TABLE t AS SELECT 1", "CREATE refused"),
    ],
)
def test_read_only_sql_reads_the_dataset_and_nothing_else(
    two_files: Path, tmp_path: Path, query: str, refusal: str
) -> None:
    (tmp_path / "secret.txt").write_text("not for the query")
    data = str(two_files / "data")
    done = CliRunner().invoke(
        main, ["sql", "--read-only", "--data", data, query.format(out=tmp_path)]
    )
    assert done.exit_code == 1 and refusal in done.output, done.output
    assert not (tmp_path / "copied.csv").exists()
    assert "not for the query" not in done.output
    counted = CliRunner().invoke(
        main, ["sql", "--read-only", "--data", data, "SELECT count(*) AS n FROM boards"]
    )
    assert counted.exit_code == 0 and counted.output.split() == ["n", "18"], counted.output


def test_without_read_only_sql_is_duckdb_as_the_user(two_files: Path, tmp_path: Path) -> None:
    """The documented default: COPY writes where the user asks."""
    target = tmp_path / "export.csv"
    done = CliRunner().invoke(
        main,
        ["sql", "--data", str(two_files / "data"), f"COPY (SELECT 1 AS a) TO '{target}'"],
    )
    assert done.exit_code == 0, done.output
    assert target.read_text().split() == ["a", "1"]


def test_a_copy_hidden_after_a_first_statement_is_refused(two_files: Path, tmp_path: Path) -> None:
    """The CLI runs one statement a run; the read-only connection itself refuses a COPY
    hidden after a harmless first statement (for Python callers)."""
    query = f"SELECT 1; COPY (SELECT 1) TO '{tmp_path}/copied.csv'"
    data = str(two_files / "data")
    done = CliRunner().invoke(main, ["sql", "--read-only", "--data", data, query])
    assert done.exit_code == 2 and "one statement at a time: this query holds 2" in done.output
    with ofc_stats.open(data) as db:
        db.read_only()
        with pytest.raises(OfcError, match="COPY refused"):
            db.sql(query)
    assert not (tmp_path / "copied.csv").exists()


def test_a_query_from_stdin_may_start_with_a_comment(two_files: Path) -> None:
    """An analyst's find: "-- fouls\nselect ..." as QUERY reads as an option; `-` reads the
    query from stdin.  An empty query and a name bound twice are refused, not ignored."""
    data = str(two_files / "data")
    piped = CliRunner().invoke(
        main, ["sql", "--data", data, "-"], input="-- boards\nSELECT count(*) AS n FROM boards"
    )
    assert piped.exit_code == 0 and piped.output.split() == ["n", "18"], piped.output
    empty = CliRunner().invoke(main, ["sql", "--data", data, "  -- nothing\n"])
    assert empty.exit_code == 2 and "the query is empty" in empty.output
    twice = CliRunner().invoke(main, ["sql", "--data", data, "SELECT $x", "-p", "x=1", "-p", "x=2"])
    assert twice.exit_code == 2 and "$x is bound twice" in twice.output


def test_boards_carry_the_hand_an_analyst_filters_by(two_files: Path) -> None:
    """An analyst's find: `boards` had no hand_id, room or time to filter or join by."""
    with ofc_stats.open(two_files / "data") as db:
        mismatched = db.sql(
            "SELECT count(*) FROM boards b JOIN hands h USING (hand_key) "
            "WHERE b.hand_id <> h.hand_id OR b.room <> h.room "
            "OR b.played_at IS DISTINCT FROM h.played_at"
        ).fetchall()[0][0]
        rows = db.sql("SELECT count(*) FROM boards WHERE room IS NOT NULL").fetchall()[0][0]
    assert (mismatched, rows) == (0, 18)


def test_a_read_only_handle_refuses_the_write_explain_analyze_would_run(two_files: Path) -> None:
    """EXPLAIN ANALYZE runs what it explains: under a Python caller's read-only handle a
    COPY onto the dataset's own ``dataset.json`` (the one folder DuckDB may still write) is
    refused as the CLI refuses it, and the file is untouched."""
    data = two_files / "data"
    before = (data / "dataset.json").read_bytes()
    query = f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{data}/dataset.json'"
    with ofc_stats.open(data) as db:
        db.read_only()
        with pytest.raises(OfcError, match=r"COPY refused.*EXPLAIN ANALYZE would run it"):
            db.sql(query)
    assert (data / "dataset.json").read_bytes() == before
