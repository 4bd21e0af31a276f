"""`score` and `solve-fantasy` report a line they cannot read and go on with the next; a
closed stdin or a query that is not UTF-8 is a command-line mistake in one line (exit 2).

Found by a robustness probe: a line nested 100,000 deep or holding a 5,000-digit number
stopped the whole run with "Error: RecursionError" / "ValueError: Exceeds the limit (4300
digits)", and the good lines after it were never scored; `<&-` gave click's RuntimeError
and `sql -` an AttributeError; a query with byte 0xff, DuckDB's TypeError."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import HAND, run, small_dataset

DEEP = '{"boards": ' + "[" * 100_000 + "]" * 100_000 + "}"
LONG = '{"boards": ' + "1" * 5_000 + "}"
DEAL = '{"cards": "As Ah Ad Kc Kd Qs Qh Jc Jd Tc 9h 8s 7d 6c"}'


def test_score_reports_each_unreadable_line_and_scores_the_rest() -> None:
    result = run("score", "-", stdin="\n".join([DEEP, LONG, HAND]) + "\n")
    assert result.exit_code == 1  # some lines could not be scored
    assert result.stderr.splitlines() == [
        "-:1: not JSON we can read: nested too deep",
        "-:2: not JSON we can read: a number too long",
        "2 lines could not be scored",
    ]
    assert result.stdout.count('"net"') == 1  # line 3 scored


def test_solve_fantasy_reports_a_deep_line_and_solves_the_next() -> None:
    deep = DEEP.replace('"boards"', '"cards"')
    result = run("solve-fantasy", "-", stdin=deep + "\n" + DEAL + "\n")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == "-:1: not JSON we can read: nested too deep"
    assert '"royalties": 18' in result.stdout


def _closed_stdin(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI run as `ofc-stats ARGS <&-` (file descriptor 0 closed)."""
    code = "import sys; from ofc_stats.cli.main import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.close(0),  # only closes stdin
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(
    "args", [("score", "-"), ("solve-fantasy",), ("sql", "--data", "DATA", "-")]
)
def test_a_closed_stdin_is_said_in_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    given = [str(tmp_path) if a == "DATA" else a for a in args]
    done = _closed_stdin(*given)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "stdin is closed" in lines[0], done.stderr


def test_a_query_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    """Python keeps a byte that is not UTF-8 in argv (and stdin) as a surrogate: 0xe9."""
    data = small_dataset(tmp_path)
    result = run("sql", "--data", str(data), "select 1 -- caf\udce9")
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().endswith(
        "the query is not UTF-8: save it as UTF-8 (see 'main sql --help')"
    )
    assert run("sql", "--data", str(data), "select 1 -- café").exit_code == 0
