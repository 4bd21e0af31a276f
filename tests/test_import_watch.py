"""`ofc-stats import --watch`: a folder followed while hands are written into it.

A real child process, so Ctrl-C is a real SIGINT: the hands of a new file and
the new hands of a grown file are stored and scored, the report is written
after the first import and rewritten after the second (it then counts four
hands), and SIGINT stops the watch with exit status 0, no ``.part`` file left
behind.  Between its steps the watch leaves the dataset's lock free: another
process takes it while the watch runs, and an import waiting on that process
names it (pid and command line).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import ofc_stats
from parsers.open_format import dumps
from tests.test_reports import alice_hands

ROOT = Path(__file__).resolve().parents[1]


def until(check: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the watch did not get there in time"
        time.sleep(0.2)


def scored(data: Path) -> int:
    """Hands scored so far (0 while the watch is still creating the dataset)."""
    try:
        with ofc_stats.open(data) as db:
            query = "SELECT count(DISTINCT hand_id) FROM results WHERE status = 'scored'"
            return int(db.sql(query).fetchall()[0][0])
    except Exception:
        return 0


def test_watch_imports_new_and_grown_files_and_stops_cleanly(tmp_path: Path) -> None:
    folder, data, page = tmp_path / "app", tmp_path / "data", tmp_path / "report.html"
    folder.mkdir()
    hands = [dumps(r) + "\n" for r in alice_hands()]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ofc_stats", "import", "--watch", str(folder)]
    options = ["--data", str(data), "--interval", "0.2", "--report", str(page)]
    child = subprocess.Popen(
        [*command, *options], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        session = folder / "session.jsonl"
        session.write_text("".join(hands[:2]), encoding="utf-8")  # the app wrote two hands
        until(lambda: scored(data) == 2 and page.exists())
        with session.open("a", encoding="utf-8") as growing:  # ... and two more
            growing.write("".join(hands[2:]))
        until(lambda: scored(data) == 4)
        until(lambda: "Over 4 hands" in page.read_text(encoding="utf-8"))

        waiting = subprocess.run(  # the lock is free between steps: take it from here
            [sys.executable, "-c", HOLD, str(data), str(tmp_path / "empty.jsonl")],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert waiting.returncode == 0, waiting.stderr
    finally:
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert "stopped: 4 hands stored while watching" in out
    assert not list(tmp_path.glob("**/*.part")) and not list(tmp_path.glob("**/.*.part"))
    assert scored(data) == 4


# Hold the dataset's lock in one process while an import waits for it in another: the
# waiting one says whom it waits for (pid and command line).
HOLD = r"""
import subprocess, sys
from ofc_stats.store.dataset import Dataset
data, source = sys.argv[1], sys.argv[2]
open(source, "w").close()
with Dataset(data).locked(wait_seconds=30):
    waiting = subprocess.Popen(
        [sys.executable, "-m", "ofc_stats", "import", source, "--data", data, "--wait", "30"],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = waiting.stderr.readline()
    print(line, file=sys.stderr)
    import os
    assert f"waiting up to 30 s for pid {os.getpid()} (" in line, line
waiting.communicate(timeout=60)
"""


def test_a_round_says_what_it_quarantined_and_skipped(tmp_path: Path) -> None:
    """The watch prints these once a round (it printed only what it stored)."""
    from ofc_stats.cli.watch import round_notes
    from ofc_stats.store.importer import import_paths

    folder = tmp_path / "app"
    folder.mkdir()
    good, bad = (dumps(r) + "\n" for r in alice_hands()[:2])
    (folder / "s.jsonl").write_text(good + bad.replace('"Ah"', '"Xx"', 1), encoding="utf-8")
    (folder / "notes.md").write_text("my session notes\n", encoding="utf-8")
    summary = import_paths([folder], tmp_path / "data")
    notes = round_notes(summary)
    assert summary.stored == 1 and summary.quarantined == 1, notes
    assert notes[0].startswith(f"quarantined 1 hand of {folder / 's.jsonl'}: 1 × "), notes
    assert notes[1:] == [f"skipped {folder / 'notes.md'}: unknown format; known formats: "
                         "app-json, fpdb, open, swc, swc-chat"]  # fmt: skip
