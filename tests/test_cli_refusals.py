"""A file the system refuses is one error line and exit 1 from every command, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main

SAMPLE = Path(__file__).resolve().parent / "data" / "open" / "three_hands.jsonl"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("refusals") / "data"
    done = CliRunner().invoke(main, ["import", "--quiet", "--data", str(root), str(SAMPLE)])
    assert done.exit_code == 0, done.output
    return root


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (["report", "--out", "{folder}"], "Is a directory"),
        (["report", "--out", "{file}/report.html"], "File exists"),
        (["audit", "--out", "{file}/audit.csv"], "Not a directory"),
    ],
)
def test_an_output_the_system_refuses_is_one_line(
    dataset: Path, tmp_path: Path, command: list[str], reason: str
) -> None:
    a_file = tmp_path / "plain"
    a_file.write_text("x")
    args = [part.format(folder=tmp_path, file=a_file) for part in command]
    done = CliRunner().invoke(main, [args[0], "--data", str(dataset), *args[1:]])
    assert done.exit_code == 1
    assert "Traceback" not in done.output and isinstance(done.exception, SystemExit)
    errors = [line for line in done.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and reason in errors[0], done.output
