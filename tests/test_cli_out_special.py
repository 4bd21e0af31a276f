"""`report --out` writes a page whole (beside its target, renamed over it) but never replaces
what is not a regular file: run as root, `--out /dev/full` turned the device into a 5.6 MB
page, and `--out FIFO` or a symbolic link was swapped for a plain file."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import click
import pytest

from ofc_stats.cli.options import replace_text


def _through_fifo(fifo: Path, target: Path, text: str) -> list[str]:
    """``replace_text(target, text)`` while a reader reads ``fifo`` (a FIFO opened for
    writing waits for its reader): what the reader got."""
    read: list[str] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    replace_text(target, text)
    reader.join(10)
    return read


def test_a_fifo_is_written_into_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "page.html"
    os.mkfifo(fifo)
    assert _through_fifo(fifo, fifo, "<p>page</p>") == ["<p>page</p>"]
    assert fifo.is_fifo()  # still the FIFO
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]  # nothing left beside


def test_a_link_to_a_fifo_is_followed(tmp_path: Path) -> None:
    """As ``--out /dev/stdout`` (a link to the process's own output) is."""
    fifo, link = tmp_path / "pipe", tmp_path / "out.html"
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    assert _through_fifo(fifo, link, "page") == ["page"]
    assert link.is_symlink() and fifo.is_fifo()


def test_a_link_to_a_file_keeps_the_link_and_replaces_the_file(tmp_path: Path) -> None:
    real, link = tmp_path / "real.html", tmp_path / "out.html"
    real.write_text("old", encoding="utf-8")
    link.symlink_to(real.name)
    replace_text(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.html", "real.html"]


def test_a_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("old", encoding="utf-8")
    before = page.stat().st_ino
    replace_text(page, "new")
    assert page.read_text(encoding="utf-8") == "new"
    assert page.stat().st_ino != before  # renamed over it: a reader never sees half of it


def test_a_place_that_cannot_be_written_is_named_as_asked(tmp_path: Path) -> None:
    """Not by the temporary file beside it (it said "/proc/.x.16503.part")."""
    target = tmp_path / "missing" / "page.html"
    with pytest.raises(click.FileError) as error:
        replace_text(target, "page")
    assert error.value.filename == str(target) and ".part" not in error.value.format_message()
