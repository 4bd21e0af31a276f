"""A number option outside its range, or not a number at all (``nan``, ``inf``), is a
command-line mistake: one line, exit 2, before any work.  click's FloatRange let ``nan``
through: ``import --watch --interval nan`` looked at the folder without ever sleeping (56%
of a core), ``simulate --room-errors nan`` ran, ``grade --wait -1`` was taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_cli import run


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["import", "--watch", "--interval", "nan", "DIR"], "--interval"),
        (["import", "--watch", "--interval", "0.05", "DIR"], "--interval"),
        (["simulate", "--hands", "5", "--out", "OUT", "--room-errors", "nan"], "--room-errors"),
        (["simulate", "--hands", "5", "--out", "OUT", "--timeouts", "1.5"], "--timeouts"),
        (["grade", "--data", "DIR", "--wait", "nan"], "--wait"),
        (["grade", "--data", "DIR", "--wait", "-1"], "--wait"),
        (["recompute", "--data", "DIR", "--wait", "inf"], "--wait"),
        (["check", "--data", "DIR", "--wait", "nan"], "--wait"),
        (["forget", "--data", "DIR", "--wait", "nan", "x.hh"], "--wait"),
    ],
)
def test_a_number_out_of_range_is_refused_in_one_line(
    tmp_path: Path, args: list[str], option: str
) -> None:
    given = [str(tmp_path / "x") if a in ("DIR", "OUT") else a for a in args]
    result = run(*given)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"'{option}'" in lines[0]
    assert ("finite number" in lines[0]) == any(a in ("nan", "inf") for a in args)
    assert not (tmp_path / "x").exists()  # refused before any work


def test_a_number_in_range_is_taken(tmp_path: Path) -> None:
    out = tmp_path / "sim.jsonl"
    result = run("simulate", "--hands", "3", "--out", str(out), "--room-errors", "0.5")
    assert result.exit_code == 0, result.output
    assert out.is_file()
