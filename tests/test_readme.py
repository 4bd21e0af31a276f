"""README.md is tested: its Python examples run, its command reference matches every --help."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click
import pytest

from ofc_stats.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands(group: click.Group, prefix: str = "ofc-stats") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        found.append((path, command))
        if isinstance(command, click.Group):
            found += commands(command, path)
    return found


COMMANDS = commands(main)


def test_every_command_is_in_the_readme() -> None:
    missing = [path for path, _ in COMMANDS if path not in README]
    assert not missing, f"README.md does not mention {missing}"


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_option_of_a_command_is_in_the_readme(path: str, command: click.Command) -> None:
    """Each long option appears in README on a line that names the command, or in its section."""
    lines = [line for line in README.splitlines() if path in line or line.startswith(" ")]
    text = "\n".join(lines)
    for param in command.params:
        if not isinstance(param, click.Option) or param.hidden:
            continue
        flags = [f for f in param.opts if f.startswith("--") and f != "--help"]
        if flags:
            assert any(re.search(re.escape(f) + r"\b", text) for f in flags), (
                f"README.md does not mention {path} {flags[0]}"
            )


def python_examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_the_readme_has_python_examples() -> None:
    assert len(python_examples()) >= 2


def test_readme_python_examples_run_in_order(tmp_path: Path) -> None:
    """As a reader would: one fresh folder with the repository's data/ beside it, block by block."""
    (tmp_path / "data").symlink_to(ROOT / "data")
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        for number, code in enumerate(python_examples(), start=1):
            exec(compile(code, f"README.md python example {number}", "exec"), {})
    finally:
        os.chdir(here)
