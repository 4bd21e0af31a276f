"""One error family, one translation: every user error is an OfcError, and the CLI turns
any of them into one message on stderr and exit status 1, its control characters shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.errors import OfcError, UnknownFormat
from parsers.registry import get_parser


def test_an_unknown_format_is_an_ofc_error() -> None:
    with pytest.raises(UnknownFormat, match="unknown format 'nope'; known formats: app-json"):
        get_parser("nope")
    assert issubclass(UnknownFormat, OfcError)


def test_import_with_an_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    source = tmp_path / "x.jsonl"
    source.write_text("{}\n")
    done = CliRunner().invoke(main, ["import", "--format", "nope", str(source)])
    assert done.exit_code == 2
    assert "Invalid value for --format: unknown format 'nope'" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["imprt"],  # no such command
        ["--bogus"],  # no such option of the group
        ["import"],  # a missing argument
        ["import", "--bogus", "x"],  # no such option of a command
        ["report", "--since", "2021-13-01"],  # a value of the wrong shape
        ["players", "alias"],  # a missing argument of a nested command
        ["sql", "SELECT 1", "--limit", "0"],  # out of range
    ],
)
def test_a_mistake_in_the_command_line_is_one_line_and_exit_2(args: list[str]) -> None:
    """Not click's three lines (usage, hint, error): the error, then where help is."""
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.rstrip().endswith("--help')"), done.stderr


def test_a_library_error_becomes_one_message_and_exit_1(tmp_path: Path) -> None:
    missing = tmp_path / "no-dataset"
    done = CliRunner().invoke(main, ["sql", "SELECT 1", "--data", str(missing)])
    assert done.exit_code == 1
    assert (
        done.stderr
        == f"Error: {missing}: no ofc-stats dataset here; create one with `ofc-stats import`\n"
    )
    assert "Traceback" not in done.output


def test_control_characters_in_an_error_never_reach_the_terminal(tmp_path: Path) -> None:
    hostile = tmp_path / "evil\x1b]0;owned\x07"
    done = CliRunner().invoke(main, ["sql", "SELECT 1", "--data", str(hostile)])
    assert done.exit_code == 1
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "evil\\x1b]0;owned\\x07" in done.stderr
