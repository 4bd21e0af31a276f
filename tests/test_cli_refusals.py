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
        (["report", "--out", "{file}/report.html"], "Not a directory"),
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


def test_import_of_nothing_fails_and_leaves_no_dataset(tmp_path: Path) -> None:
    # An empty folder and a lone unreadable file exited 0 and left an empty dataset.
    (tmp_path / "empty").mkdir()
    picture = tmp_path / "screenshot.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    for given in (tmp_path / "empty", picture):
        data = tmp_path / f"data-{given.name}"
        done = CliRunner().invoke(main, ["import", "--data", str(data), str(given)])
        assert done.exit_code == 1, done.output
        assert "Error: nothing to import" in done.output
        assert not data.exists()


def test_import_whose_every_hand_is_refused_fails_and_keeps_the_reasons(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    line = SAMPLE.read_text().splitlines()[0].replace('"Qs"', '"Zz"').replace('"As"', '"Zz"')
    bad.write_text(line.replace('"cards":["', '"cards":["Zz","', 1) + "\n")
    data = tmp_path / "data"
    done = CliRunner().invoke(main, ["import", "--data", str(data), str(bad)])
    assert done.exit_code == 1, done.output
    assert "Error: nothing stored: the one hand seen was refused" in done.output  # not "1 hands"
    again = CliRunner().invoke(
        main, ["sql", "--data", str(data), "select count(*) from quarantine"]
    )
    assert again.exit_code == 0 and "1" in again.output


def test_report_player_hero_is_the_hero_as_in_the_audit(tmp_path: Path) -> None:
    from dataclasses import replace

    from tests.builders import hand_record, seat_record, write_dataset

    me = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah", hero=True)
    you = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    seats = (replace(me, reported_points=21.0), replace(you, reported_points=-21.0))
    data = write_dataset(tmp_path, [hand_record(1, seats)])
    out = tmp_path / "r.html"
    done = CliRunner().invoke(
        main, ["report", "--data", str(data), "--player", "hero", "--out", str(out)]
    )
    assert done.exit_code == 0, done.output
    assert "the hero" in out.read_text()


def test_a_bare_command_prints_its_help_on_lines_not_an_error() -> None:
    """`ofc-stats` alone, what many type first: click's help, one option or command a
    line on stdout and exit 0 (it was one 1,400-character 'Error:' line with literal \\n)."""
    result = CliRunner().invoke(main, [], prog_name="ofc-stats")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Usage: ofc-stats [OPTIONS] COMMAND [ARGS]...\n")
    assert "\n  import " in result.stdout and "\\n" not in result.stdout
    assert result.stderr == ""
