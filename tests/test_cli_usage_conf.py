"""A malformed ``--conf KEY=VALUE`` (recompute, grade) is a usage error: one line, exit 2,
said while the command line is read (before any dataset is opened), as click's own are."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main


@pytest.mark.parametrize("command", ["recompute", "grade"])
@pytest.mark.parametrize("pair", ["spark.sql.shuffle.partitions", "=4", " =4"])
def test_a_conf_without_key_and_value_is_a_usage_line(
    tmp_path: Path, command: str, pair: str
) -> None:
    missing = tmp_path / "no-dataset"  # never read: the command line is refused first
    args = [command, "--data", str(missing), "--engine", "spark", "--conf", "a=b", "--conf", pair]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert done.output.splitlines() == [
        f"Error: Invalid value for '--conf': {pair!r}: expected KEY=VALUE "
        f"(see 'main {command} --help')"
    ]
    assert not missing.exists()
