"""An audit of a dataset whose every hand was quarantined: nothing to check, no error."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.store.importer import import_paths

# One open-format line whose seats are not a list: quarantined, so no hand is stored.
BAD = '{"ofc_format":1,"room":"r","table":"t","hand_id":"1","ruleset":"pineapple","seats":"x"}\n'


@pytest.mark.parametrize("options", [[], ["--guess-rules"]])
def test_an_audit_of_no_stored_hand_ends_cleanly(tmp_path: Path, options: list[str]) -> None:
    """--guess-rules divided the money of no seat by a multiplier of the wrong type and
    ranked no ruleset ("Error: TypeError ...", then "KeyError: 'explained'")."""
    (tmp_path / "bad.jsonl").write_text(BAD)
    data = tmp_path / "data"
    assert import_paths([tmp_path / "bad.jsonl"], data).stored == 0
    result = CliRunner().invoke(main, ["audit", "--data", str(data), "--quiet", *options])
    assert result.exit_code == 0, result.output
    assert "Error" not in result.output
