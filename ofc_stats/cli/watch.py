"""`ofc-stats import --watch DIR…`: follow folders while the apps write hand histories.

Every ``interval`` seconds the folders are listed; a file that is new, or
whose size or time changed, is imported (a grown file adds only its new
hands, as any import does), the new hands are scored, and the report is
written again when ``--report FILE`` asks for it; what a look quarantined or
skipped is said once, when it happens.  Ctrl-C (SIGINT) or
SIGTERM asks the loop to stop: a step under way finishes first (an import
commits whole batches, the report is written beside its target and renamed
over it), so nothing is left half-written.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import FrameType

from ofc_stats.cli.text import say
from ofc_stats.errors import DatasetLocked, OfcError
from ofc_stats.store.import_summary import ALREADY_IMPORTED, ImportSummary
from ofc_stats.store.wrong_format import wrong_format_lines

Seen = dict[Path, tuple[int, int]]  # file -> (size, modification time in ns)


def listed(paths: Iterable[str]) -> Seen:
    """Every file under ``paths`` (hidden ones and partial downloads left out), by state."""
    found: Seen = {}
    for root in map(Path, paths):
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            if any(part.startswith(".") for part in path.relative_to(root).parts):
                continue
            try:
                stat = path.stat()
            except OSError:  # removed while listed
                continue
            found[path] = (stat.st_size, stat.st_mtime_ns)
    return found


class Stop:
    """SIGINT and SIGTERM ask to stop; the loop looks between steps."""

    def __init__(self) -> None:
        self.asked = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if not self.asked:
            say("stopping after the step under way", err=True)
        self.asked = True


def watch(
    paths: tuple[str, ...],
    data: str,
    *,
    interval: float,
    report: str | None,
    format_name: str,
    rules: str | None,
    wait: float,
    say: Callable[[str], None],
) -> int:
    """Follow ``paths`` until asked to stop; how many hands were stored."""
    from ofc_stats.cli.recompute import run_recompute
    from ofc_stats.store.importer import import_paths

    for path in map(Path, paths):
        if not path.exists():
            raise OfcError(f"{path}: no such folder to watch")
    stop = Stop()
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    seen: Seen = {}
    stored = 0
    say(f"watching {', '.join(paths)} every {interval:g} s; Ctrl-C stops")
    try:
        while not stop.asked:
            now = listed(paths)
            changed = [path for path, state in now.items() if seen.get(path) != state]
            if changed:
                try:
                    summary = import_paths(
                        [str(p) for p in changed],
                        data,
                        format_name=format_name,
                        rules=rules,
                        wait_seconds=wait,
                    )
                except DatasetLocked as busy:  # another import or recompute: next round
                    say(f"{time.strftime('%H:%M:%S')} {busy}")
                    changed = []
                    summary = None
                except (OfcError, OSError) as error:  # said once; tried again when it changes
                    say(f"{time.strftime('%H:%M:%S')} not imported: {error}")
                    summary = None
                seen.update({p: now[p] for p in changed})
                for note in [] if summary is None else round_notes(summary):
                    say(f"{time.strftime('%H:%M:%S')} {note}")
                if summary is not None and summary.stored:
                    stored += summary.stored
                    line = f"{time.strftime('%H:%M:%S')} stored {summary.stored:,} new hands"
                    try:
                        run_recompute(data, force=False, quiet=True, wait=max(wait, 60.0))
                        if report is not None:
                            from ofc_stats.cli.report import write_report

                            write_report(data, report, allow_empty=True)
                            line += f"; report written: {report}"
                    except (OfcError, OSError) as error:  # the hands are stored; the next round
                        line += f"; {error}"
                    say(line)
            slept = 0.0
            while slept < interval and not stop.asked:
                time.sleep(min(0.1, interval))
                slept += 0.1
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    say(f"stopped: {stored:,} hands stored while watching; dataset: {data}")
    return stored


def round_notes(summary: ImportSummary) -> list[str]:
    """What a round refused or skipped, said once when it happens (a watch that only
    counted what it stored would leave a quarantined hand or a wrong --format unseen).

    >>> from ofc_stats.store.import_summary import FileSummary
    >>> summary = ImportSummary([FileSummary("s.jsonl", "open", quarantined=2),
    ...     FileSummary("notes.md", "auto", skipped="unknown format")])
    >>> summary.reasons["bad card 'Xx'"] = 2
    >>> print("\\n".join(round_notes(summary)))
    quarantined 2 hands of s.jsonl: 2 × bad card 'Xx' (the quarantine view lists them)
    skipped notes.md: unknown format
    >>> summary.files.append(FileSummary("t.jsonl", "open", quarantined=1))
    >>> summary.reasons["bad card 'Xx'"] += 1
    >>> round_notes(summary)[0]
    "quarantined 3 hands of 2 files: 3 × bad card 'Xx' (the quarantine view lists them)"
    """
    notes = []
    refused = [f for f in summary.files if f.quarantined or f.lines_quarantined]
    if refused:
        n = sum(f.quarantined for f in refused)
        what = f"{n:,} hand{'s' * (n != 1)}" if n else "no hand"
        extra = sum(f.lines_quarantined for f in refused)
        if extra:
            what += f", {extra:,} more that hold none"
        where = refused[0].path if len(refused) == 1 else f"{len(refused)} files"
        reasons = "; ".join(f"{k:,} × {r}" for r, k in summary.reasons.most_common(2))
        notes.append(f"quarantined {what} of {where}: {reasons} (the quarantine view lists them)")
    notes += [
        line.strip() for line in wrong_format_lines([f for f in summary.files if f.not_format])
    ]
    notes += [
        f"skipped {f.path}: {f.skipped}"
        for f in summary.files
        if f.skipped and not f.not_format and f.skipped != ALREADY_IMPORTED
    ]
    return notes


def echo(line: str) -> None:
    say(line)
