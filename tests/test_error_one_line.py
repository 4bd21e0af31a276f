"""Every error is one line: a stored name the error quotes cannot add a line to stderr."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from tests.builders import hand_record, seat_record, write_dataset

# A hostile room stored a player named "@evil<LF>next" (the import keeps names as written).
EVIL = seat_record(0, "@evil\nnext", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
BOB = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")


@pytest.mark.parametrize("command", [["audit"], ["report"], ["grade"]])
def test_the_closest_names_of_an_unknown_player_stay_on_one_line(
    tmp_path: Path, command: list[str]
) -> None:
    """`--player @evil` matches no one; the message suggests the stored "@evil\\nnext",
    shown with its line feed as the two characters \\n, so the error is one line."""
    data = write_dataset(tmp_path, [hand_record(1, (EVIL, replace(BOB)))])
    out = ["--out", str(tmp_path / "r.html")] if command == ["report"] else []
    result = CliRunner().invoke(main, [*command, *out, "--data", str(data), "--player", "@evil"])
    assert result.exit_code == 1, result.output
    assert "closest" in result.output and "@evil\\nnext" in result.output
    assert result.output.count("\n") == 1, result.output  # one line, its own newline
