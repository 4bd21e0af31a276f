"""File-system oddities in an input folder are named as skipped, never read or waited on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "open" / "three_hands.jsonl"


def test_fifos_and_dangling_links_are_skipped_by_name(tmp_path: Path) -> None:
    # A FIFO named *.zip blocked the import forever (zipfile opened it to look
    # for an archive); FIFOs and dangling links were skipped without a word.
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(DATA, folder / "hands.jsonl")
    os.mkfifo(folder / "trap.zip")
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "gone.jsonl").symlink_to(tmp_path / "nowhere")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "ofc_stats", "import", "--data", str(tmp_path / "d")),
            *(str(folder), str(folder / "trap.zip")),  # the FIFO inside and named directly
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    assert "3 " in out and "stored" in out
    for name, reason in (
        ("trap.zip", "not a regular file (a FIFO)"),
        ("pipe.jsonl", "not a regular file (a FIFO)"),
        ("gone.jsonl", "dangling symbolic link"),
    ):
        assert any(name in line and reason in line for line in out.splitlines()), out
