"""A dataset a newer ofc-stats wrote (schema version above this one's) is said to be so,
with what helps (upgrade), by every command and by `check`; it was "which no ofc-stats
wrote ... import the files again", and `check` then said "--repair repairs them" after
"--repair cannot help"."""

from __future__ import annotations

import json
from pathlib import Path

from ofc_stats.store.schema import SCHEMA_VERSION
from tests.test_cli import run, small_dataset


def _stamped(tmp_path: Path, version: object) -> Path:
    data = small_dataset(tmp_path)
    (data / "dataset.json").write_text(json.dumps({"schema_version": version}))
    return data


def test_a_newer_dataset_asks_for_a_newer_ofc_stats(tmp_path: Path) -> None:
    data = _stamped(tmp_path, SCHEMA_VERSION + 1)
    shown = run("players", "--data", str(data))
    assert shown.exit_code == 1
    assert shown.stderr.strip() == (
        f"Error: {data}: dataset schema version {SCHEMA_VERSION + 1}, newer than this "
        f"ofc-stats reads ({SCHEMA_VERSION}): a newer ofc-stats wrote it; upgrade ofc-stats"
    )
    checked = run("check", "--data", str(data))
    assert checked.exit_code == 1
    assert checked.stdout.splitlines() == [
        f"dataset.json: names schema version {SCHEMA_VERSION + 1}, newer than this ofc-stats "
        f"reads ({SCHEMA_VERSION}): a newer ofc-stats wrote it; --repair cannot help: "
        "upgrade ofc-stats to read it",
        "1 problem; --repair cannot help (said above)",
    ]


def test_a_version_no_ofc_stats_wrote_is_still_named_so(tmp_path: Path) -> None:
    data = _stamped(tmp_path, "banana")
    checked = run("check", "--data", str(data))
    assert checked.exit_code == 1
    assert "names schema version 'banana', which no ofc-stats wrote" in checked.stdout
    assert checked.stdout.splitlines()[-1] == "1 problem; --repair cannot help (said above)"
