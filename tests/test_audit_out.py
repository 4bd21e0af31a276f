"""`audit --out`: a path the mismatches cannot be written to is refused before the audit runs,
in one line with a non-zero exit (it used to run the whole audit first)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats.audit.points
from ofc_stats.cli.main import main
from tests.test_audit_cli_rules import _data


@pytest.fixture
def no_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit itself fails the test: a refused --out must not reach it."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the audit ran before --out was checked")

    monkeypatch.setattr(ofc_stats.audit.points, "audit", refuse)


@pytest.mark.usefixtures("no_audit")
@pytest.mark.parametrize(
    ("out", "code", "said"),
    [
        ("mm.txt", 2, "mm.txt: write the mismatches as .csv or .parquet"),
        ("mm", 2, "mm: write the mismatches as .csv or .parquet"),
        ("newdir/", 1, "that is a folder; give a file name ending .csv or .parquet"),
        ("existing", 1, "that is a folder; give a file name ending .csv or .parquet"),
        ("existing.csv", 1, "that is a folder; give a file name ending .csv or .parquet"),
    ],
)
def test_a_bad_out_is_one_line_before_any_work(
    tmp_path: Path, out: str, code: int, said: str
) -> None:
    data = _data(tmp_path)
    (tmp_path / "existing").mkdir()
    (tmp_path / "existing.csv").mkdir()
    target = str(tmp_path / out) + ("/" if out.endswith("/") else "")
    result = CliRunner().invoke(main, ["audit", "--data", str(data), "--quiet", "--out", target])
    assert result.exit_code == code, result.output
    assert said in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "newdir").exists()  # nothing made for a refused path


@pytest.mark.parametrize("out", ["mm.csv", "mm.CSV", "mm.parquet"])
def test_csv_and_parquet_are_written(tmp_path: Path, out: str) -> None:
    data = _data(tmp_path)
    target = tmp_path / "sub" / out
    argv = ["audit", "--data", str(data), "--quiet", "--out", str(target)]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    assert target.is_file()
