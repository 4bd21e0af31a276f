"""`report --since/--until` take days as YYYY-MM-DD and name what is wrong with one: a day
the calendar lacks said "does not match the format '%Y-%m-%d'", and --since after --until
ran the whole report to say "no scored hand ... matches" (widen the filters)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_cli import run, small_dataset


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--since", "2026-02-30"], "'2026-02-30' is not a day: February 2026 has 28 days"),
        (["--until", "2024-02-30"], "'2024-02-30' is not a day: February 2024 has 29 days"),
        (["--since", "2026-13-01"], "'2026-13-01' is not a day: there is no month 13"),
        (["--since", "0000-01-01"], "'0000-01-01' is not a day: there is no year 0"),
        (["--since", "2026/01/01"], "'2026/01/01' is not a day: write it as YYYY-MM-DD"),
        (
            ["--since", "2026-03-02", "--until", "2026-03-01"],
            "--since 2026-03-02 is after --until 2026-03-01: no day is both",
        ),
    ],
)
def test_a_day_that_is_not_one_is_named(tmp_path: Path, args: list[str], said: str) -> None:
    data = small_dataset(tmp_path)
    result = run("report", "--data", str(data), "--out", str(tmp_path / "r.html"), *args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0]
    assert not (tmp_path / "r.html").exists()


def test_one_day_is_since_and_until_at_once(tmp_path: Path) -> None:
    """--since D --until D is that day (the hands of tests.builders are played 2026-03-01)."""
    data = small_dataset(tmp_path)
    out = tmp_path / "r.html"
    day = ["--since", "2026-03-01", "--until", "2026-03-01", "--player", "Alice"]
    result = run("report", "--data", str(data), "--out", str(out), *day)
    assert result.exit_code == 0, result.output
    assert out.is_file()
