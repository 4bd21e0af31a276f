"""Import each corpus case into its own dataset and check the import's promises.

Per case: no exception escapes (a traceback), no hang (an alarm), every hand
seen is accounted for (stored + duplicate + quarantined + left for later),
each refused hand has its own quarantine row, every hand the mutation did
not touch is stored, the open format's two readers agree, and importing
again (``--force``) changes nothing.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from tests.fuzz.corpus import Case

CASE_SECONDS = 60  # one small file: far more than any honest import needs


class Hang(Exception):
    pass


@dataclass
class Totals:
    files: int = 0
    hands_seen: int = 0
    tracebacks: list[str] = field(default_factory=list)
    unaccounted: list[str] = field(default_factory=list)  # accounting or quarantine rows off
    lost: list[str] = field(default_factory=list)  # an untouched hand not stored
    changed: list[str] = field(default_factory=list)  # re-import changed the dataset
    disagree: list[str] = field(default_factory=list)  # the open format's readers differ
    unexplained: list[str] = field(default_factory=list)  # a Python error as a quarantine reason
    reasons: Counter[str] = field(default_factory=Counter)

    @property
    def failures(self) -> list[str]:
        return (
            self.tracebacks
            + self.unaccounted
            + self.lost
            + self.changed
            + self.disagree
            + self.unexplained
        )

    def line(self) -> str:
        return (
            f"files tried: {self.files}, hands seen: {self.hands_seen}, "
            f"tracebacks: {len(self.tracebacks)}, unaccounted: {len(self.unaccounted)}, "
            f"untouched hands lost: {len(self.lost)}, re-imports that changed something: "
            f"{len(self.changed)}, reader disagreements: {len(self.disagree)}, "
            f"unexplained refusals: {len(self.unexplained)}"
        )


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang(f"no answer in {CASE_SECONDS} s")


def _stored_keys(data: Path) -> set[str]:
    keys = Dataset(data).read("hands", ["hand_key"])["hand_key"].to_pylist()
    return {key.split("~", 1)[0] for key in keys}


def _counts(data: Path) -> dict[str, int]:
    dataset = Dataset(data)
    return {t: dataset.read(t).num_rows for t in ("hands", "seats", "placements", "quarantine")}


def check_case(case: Case, folder: Path, totals: Totals) -> None:
    path = folder / case.name
    path.write_bytes(case.data)
    data = folder / f"data-{case.name}"
    totals.files += 1
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        first = import_paths([path], data)
        counts = _counts(data)
        again = import_paths([path], data, force=True)
        if case.format == "open":
            slow = import_paths([path], folder / f"slow-{case.name}", columnar=False)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        where = traceback.format_exception(error)[-2].strip().splitlines()[0]
        totals.tracebacks.append(f"{case.name}: {type(error).__name__}: {error} at {where}")
        return
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    totals.hands_seen += first.hands_seen
    for reason, count in first.reasons.items():
        totals.reasons[reason] += count
    # A parser's own words, never a Python error it let through ("unreadable hand (KeyError…").
    totals.unexplained += [
        f"{case.name}: {message}" for message in first.messages if "unreadable hand (" in message
    ]
    for file in first.files + again.files:
        if file.accounted != file.hands_seen:
            totals.unaccounted.append(
                f"{case.name}: {file.hands_seen} seen, {file.accounted} accounted for"
            )
    # a row per refused hand, and per refused capture line (no hand, not counted as one)
    if counts["quarantine"] != first.quarantined + first.lines_quarantined:
        totals.unaccounted.append(
            f"{case.name}: {first.quarantined} quarantined, {first.lines_quarantined} lines, "
            f"{counts['quarantine']} rows"
        )
    missing = case.keep - _stored_keys(data)
    if missing:
        totals.lost.append(f"{case.name}: {len(missing)} untouched hand(s) not stored")
    # The file is unchanged on the forced import: a record cut off at its end is now
    # quarantined (the file stopped growing, ofc_stats.store.ledger); nothing else changes.
    expected = {**counts, "quarantine": counts["quarantine"] + first.partial}
    if again.stored or again.partial or _counts(data) != expected:
        totals.changed.append(f"{case.name}: {again.stored} stored again, {_counts(data)}")
    if case.format == "open" and (
        _stored_keys(folder / f"slow-{case.name}") != _stored_keys(data)
        or slow.quarantined != first.quarantined
    ):
        totals.disagree.append(f"{case.name}: columnar and per-line readers differ")


def run(cases: Iterable[Case], folder: Path | None = None) -> Totals:
    totals = Totals()
    memory = Path("/dev/shm")  # many small datasets: fsync on tmpfs costs nothing
    base = str(memory) if memory.is_dir() else None
    with tempfile.TemporaryDirectory(prefix="ofc-fuzz-", dir=base) as scratch:
        root = folder or Path(scratch)
        for case in cases:
            check_case(case, root, totals)
            for leftover in root.glob(f"*{case.name}*"):  # keep the scratch space small
                if leftover.is_dir():
                    shutil.rmtree(leftover)
                else:
                    leftover.unlink()
    return totals
