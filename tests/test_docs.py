"""README.md and docs/ are tested: their examples run and print what they show,
the CLI reference is what ``--help`` prints, and every link leads somewhere.

A ```` ```console ```` block is a session: each ``$ `` line is run by a shell
(``ofc-stats`` is this checkout's command), and the lines under it, when there
are any, are exactly what it must print on standard output.  A file's blocks
run in order in one fresh folder with the repository's ``data/`` beside them,
as a reader following the page would run them; ```` ```python ```` blocks run
the same way.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ofc_stats.cli.reference import reference, with_module_map

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(console|python)\n(.*?)^```$", re.S | re.M)


@dataclass
class Example:
    kind: str  # "console" or "python"
    text: str
    line: int


def examples(page: Path) -> list[Example]:
    text = page.read_text(encoding="utf-8")
    return [
        Example(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
        for m in BLOCK.finditer(text)
    ]


def commands(block: str) -> list[tuple[str, str]]:
    """(command, expected standard output) pairs of a console block."""
    found: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif found:
            found[-1][1].append(line)
    return [(command, "\n".join(out)) for command, out in found]


def test_commands_are_read_from_a_block() -> None:
    block = "$ echo a\na\n$ true\n"
    assert commands(block) == [("echo a", "a"), ("true", "")]


PAGES_WITH_EXAMPLES = [p for p in PAGES if examples(p)]


@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=[p.name for p in PAGES_WITH_EXAMPLES])
def test_examples_run_and_print_what_they_show(page: Path, tmp_path: Path) -> None:
    (tmp_path / "data").symlink_to(ROOT / "data")
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "ofc-stats"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ofc_stats "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "COLUMNS": "200",
        "NO_COLOR": "1",
    }
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        for example in examples(page):
            where = f"{page.name}:{example.line}"
            if example.kind == "python":
                exec(compile(example.text, where, "exec"), {})
                continue
            for command, expected in commands(example.text):
                run = subprocess.run(
                    ["bash", "-o", "pipefail", "-c", command],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=600,
                )
                assert run.returncode == 0, f"{where}: `{command}` failed:\n{run.stderr}"
                if expected:
                    assert run.stdout.rstrip("\n") == expected, f"{where}: `{command}`"
    finally:
        os.chdir(here)


def test_the_readme_is_short_and_shows_the_ten_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 400
    shown = {c.split()[0] for e in examples(ROOT / "README.md") for c, _ in commands(e.text)}
    used = {m.group(1) for m in re.finditer(r"^\$ (?:.*\| )?ofc-stats ([a-z-]+)", text, flags=re.M)}
    assert "ofc-stats" in shown
    assert len(used) >= 10, sorted(used)


def test_the_cli_reference_is_what_help_prints() -> None:
    """Regenerate with ``make docs`` when a command's options change."""
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == reference(), "docs/cli.md is stale: run `make docs`"


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_links_lead_to_files_in_the_repository(page: Path) -> None:
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT), f"{page.name}: {target} leads outside the repository"
        assert path.exists(), f"{page.name}: {target} does not exist"


def test_the_module_map_names_every_module_and_nothing_else() -> None:
    """docs/architecture.md's module tables are made from the modules (``make docs``)."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert page == with_module_map(page, ROOT), "docs/architecture.md is stale: run `make docs`"
    assert "| `replay_store.py` |" in page  # a module of a sub-package is listed under it


def test_the_benchmarks_page_is_made_from_the_recorded_figures() -> None:
    """docs/benchmarks.md is bench/page.py's rendering of bench/results/ (run it after a bench)."""
    spec = importlib.util.spec_from_file_location("bench_page", ROOT / "bench" / "page.py")
    assert spec is not None and spec.loader is not None
    page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page)
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert text == page.render(), "docs/benchmarks.md is stale: run `python bench/page.py`"
