"""docs/audit.md quotes what each command prints: this test runs them and compares.

Every ``<!-- run: ARGS -->`` line in the guide is followed by a ``text`` block
holding what ``ofc-stats ARGS`` prints on the bundled sample (``data/``),
imported into a fresh dataset, with its folder written ``DATA``.
``OFC_WRITE_DOCS=1`` writes the blocks from the commands instead of comparing
(the guide's prose is never touched).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "audit.md"
RUN = re.compile(r"<!-- run: (?P<args>.+?) -->\n```text\n(?P<out>.*?)```\n", re.DOTALL)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample imported as the guide's DATA, in a folder the commands' relative paths
    (rules/) are written under."""
    work = tmp_path_factory.mktemp("guide")
    files = [str(ROOT / "data" / "sim-open.jsonl"), str(ROOT / "data" / "sim-app.hh")]
    done = CliRunner().invoke(main, ["import", "--quiet", "--data", str(work / "DATA"), *files])
    assert done.exit_code == 0, done.output
    return work


def _run(args: str, work: Path) -> str:
    """What ``ofc-stats ARGS`` prints (stdout and stderr, as a terminal shows them)."""
    old = Path.cwd()
    os.chdir(work)  # DATA and rules/ are relative, as the guide writes them
    try:
        done = CliRunner().invoke(main, shlex.split(args))
    finally:
        os.chdir(old)
    assert done.exit_code in (0, 3), done.output
    return done.output.replace(str(work) + os.sep, "")


def test_every_quoted_output_is_what_the_command_prints(workdir: Path) -> None:
    text = GUIDE.read_text(encoding="utf-8")
    runs = list(RUN.finditer(text))
    assert len(runs) >= 4, "the guide quotes the audit, the rules files and the ledger"
    if os.environ.get("OFC_WRITE_DOCS"):

        def fill(match: re.Match[str]) -> str:
            out = _run(match["args"], workdir)
            return f"<!-- run: {match['args']} -->\n```text\n{out}```\n"

        GUIDE.write_text(RUN.sub(fill, text), encoding="utf-8")
        return
    for match in runs:
        assert _run(match["args"], workdir) == match["out"], match["args"]
