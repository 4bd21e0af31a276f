"""An error line repeats a long value (a path, a name, an option's value) by its ends around
an ellipsis, never whole: a 10,000-character path pasted by mistake is one short line,
control characters still shown as escapes, the exit status the error's own."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.cli.text import ECHOED_WORD, ERROR_LINE, error_text
from tests.test_cli_refusals import dataset  # noqa: F401  (the fixture: three hands imported)

LONG = 10_000


def _error(args: list[str], status: int) -> str:
    done = CliRunner().invoke(main, args)
    assert done.exit_code == status, done.output[:300]
    assert "Traceback" not in done.output
    (line,) = done.output.splitlines()
    assert line.startswith("Error: ")
    return line


def test_a_long_path_is_shown_by_its_ends(tmp_path: Path) -> None:
    folder = tmp_path / ("d" * LONG)
    line = _error(["audit", "--data", str(folder)], 1)
    # the start (where it is), an ellipsis, the end (the file and the system's reason)
    word = line.split()[1]
    assert len(word) == ECHOED_WORD and "…" in word
    assert word.startswith(str(tmp_path)) and line.endswith("/dataset.json: File name too long")


def test_a_long_name_keeps_the_sentence_around_it(dataset: Path) -> None:  # noqa: F811
    line = _error(["audit", "--data", str(dataset), "--player", "p" * LONG], 1)
    assert line.startswith("Error: no player 'ppp") and "' in this dataset; " in line
    assert len(line) < 400 and line.count("…") == 1


def test_a_long_option_value_is_a_short_usage_line() -> None:
    line = _error(["audit", "--max-gap", "9" * LONG], 2)
    assert "' is not a finite number (see 'main audit --help')" in line and len(line) < 300


def test_a_long_value_with_control_characters_is_escaped_and_short(dataset: Path) -> None:  # noqa: F811
    name = "\x1b]0;pwned\x07" + "\u202e" + "q" * LONG
    line = _error(["audit", "--data", str(dataset), "--player", name], 1)
    assert "\x1b" not in line and "\x07" not in line and "\u202e" not in line
    assert "'\\x1b]0;pwned\\x07\\u202eqqq" in line and len(line) < 400


def test_a_long_value_of_many_words_is_cut_at_the_line(dataset: Path) -> None:  # noqa: F811
    line = _error(["audit", "--data", str(dataset), "--player", "ab " * LONG], 1)
    assert len(line) == len("Error: ") + ERROR_LINE
    # its start and end kept: what it was, and the end of the sentence
    assert line.startswith("Error: no player 'ab ab") and line.endswith("lists them)")


def test_short_lines_are_unchanged() -> None:
    text = "no player 'Ana' in this dataset\n  Anna\n  Ann"
    assert error_text(text) == text
