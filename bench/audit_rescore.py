"""The audit's "what if these rules" passes: they copy the stored timeouts, read no hand text.

    .venv/bin/python bench/audit_rescore.py [--hands 200000] [--base 10000] [--repeat 3]
        [--samples ../shared/samples/apps] [--reference b80ca1a]

Every ``audit --rules`` (and each option ``--guess-rules`` tries) scores every
stored hand again.  Until this change each such pass also read every batch's
``format`` and ``raw_text`` (the largest column) and parsed the timeout marks
again, though no rule changes them and recompute stores them per seat
(``results.recorded_timeouts``).  Measured here, this code against
``--reference`` (a commit whose passes read the text; exported with ``git
archive`` and run with this checkout's compiled core), alternating, each run in
a child process, CPU seconds (user + system: the host is shared):

* **simulated**: ``--hands`` open-format 3-seat hands (``--base`` simulated with
  2% of the free streets timed out and marked so, their batches copied under new
  keys), one rescoring of every hand as ``audit --rules PRESET`` makes
  (``book_results``), and the whole ``audit --rules PRESET``;
* **samples**: the real app samples imported (about 2,000 hands), the same
  rescoring, the rules inference of ``audit --guess-rules`` (a rescoring per
  option value and per named ruleset), and the whole ``audit --rules PRESET``
  whose timeout lines are printed for both codes (they must say the same).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported
from child import run_child  # noqa: E402
from record import record  # noqa: E402

REFERENCE = "b80ca1a"  # main before this change: its rescoring read format and raw_text
RULES = "pineapple-progressive"  # the rules of the "what if" pass (any preset would do)
CHILD = r"""
import json, sys, time
mode, root, repeat, rules = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
import ofc_stats
from ofc_stats.audit.points import audit
from ofc_stats.audit.infer import infer_rules
from ofc_stats.audit.rules_book import RulesBook, book_results
cpu, wall, lines = [], [], []
with ofc_stats.open(root) as db:
    book = RulesBook.load(rules)
    book_results(db, book)  # warm: imports, the core's tables, the file cache
    for _ in range(repeat):
        times, start = time.process_time(), time.perf_counter()
        if mode == "rescore":
            book_results(db, book)
        elif mode == "guess":
            infer_rules(db)
        else:
            report = audit(db, book=book)
            lines = [line for e in report.timeouts for line in e.lines()]
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - times)  # every thread of this process
print(json.dumps({"cpu": cpu, "wall": wall, "lines": lines}))
"""


def reference_tree(commit: str, work: Path) -> Path:
    """``commit``'s files in ``work/reference``, with this checkout's compiled core."""
    out = work / "reference"
    out.mkdir()
    archive = work / "reference.tar"
    with archive.open("wb") as sink:
        subprocess.run(["git", "archive", commit], cwd=ROOT, stdout=sink, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(out, filter="data")
    for core in (ROOT / "ofc_stats").glob("_core*.so"):
        shutil.copy2(core, out / "ofc_stats" / core.name)
    return out


def simulated(root: Path, hands: int, base: int) -> None:
    """``base`` simulated open-format hands with marked timeouts, copied up to ``hands``."""
    from ofc_stats.engine.presets import get_ruleset
    from ofc_stats.sim.rooms import write_simulation
    from ofc_stats.store.dataset import Dataset
    from ofc_stats.store.hand_ids import next_hand_id, with_hand_ids
    from ofc_stats.store.importer import import_paths
    from ofc_stats.store.recompute import recompute
    from ofc_stats.store.rows import with_hand_keys

    source = root.parent / "base.jsonl"
    started = time.perf_counter()
    write_simulation(
        source, base, get_ruleset("pineapple-ultimate"), seats=3, seed=7, timeout_rate=0.02
    )
    import_paths([source], root)
    print(f"simulated and imported {base:,} hands in {time.perf_counter() - started:.0f} s")
    dataset = Dataset(root)
    originals = dataset.batches()
    stored = sum(pq.read_metadata(dataset.batch_file("hands", b)).num_rows for b in originals)
    copy = 0
    while stored < hands:  # each original batch again under new hand keys and ids
        for batch in originals:
            if stored >= hands:
                break
            copy += 1
            tables = {}
            for name in ("hands", "seats", "placements", "files", "quarantine"):
                table = pq.read_table(dataset.batch_file(name, batch))
                if name == "placements":  # stored by hand_id: keyed again like the others
                    own = pq.read_table(dataset.batch_file("hands", batch))
                    table = with_hand_keys(table, own).drop_columns(["hand_id"])
                if "hand_key" in table.column_names:
                    keys = pc.binary_join_element_wise(table["hand_key"], pa.scalar(f"#{copy}"), "")
                    index = table.schema.get_field_index("hand_key")
                    table = table.set_column(index, "hand_key", keys)
                tables[name] = table
            dataset.commit(f"{batch}-copy{copy:05d}", with_hand_ids(tables, next_hand_id(dataset)))
            stored += tables["hands"].num_rows
    recompute(root)
    print(f"dataset: {stored:,} hands in {len(dataset.batches())} batches")


def samples(root: Path, folder: Path) -> None:
    from ofc_stats.store.importer import import_paths
    from ofc_stats.store.recompute import recompute

    import_paths([folder], root)
    recompute(root)


def measure(code: Path, mode: str, root: Path, repeat: int) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    return run_child(CHILD, mode, str(root), str(repeat), RULES, env=env, cwd=code)


def compare(
    name: str, mode: str, root: Path, reference: Path, rounds: int, inner: int
) -> tuple[float, float, list[str], list[str]]:
    """Median CPU seconds of ``mode`` with this code and the reference, alternating."""
    here: list[float] = []
    before: list[float] = []
    lines: dict[str, list[str]] = {}
    for _ in range(rounds):
        for label, code, into in (("reference", reference, before), ("this", ROOT, here)):
            out = measure(code, mode, root, inner)
            into.extend(out["cpu"])  # type: ignore[arg-type]
            lines[label] = out["lines"]  # type: ignore[assignment]
    figure, ref = statistics.median(here), statistics.median(before)
    print(
        f"{name:10} {mode:8} this {figure:7.3f} CPU s   reference {ref:7.3f} CPU s   "
        f"{ref / figure:5.2f}× faster  ({len(here)} runs each)"
    )
    return figure, ref, lines.get("this", []), lines.get("reference", [])


def timeout_lines(mine: list[str], theirs: list[str]) -> None:
    print(f"  timeout lines the same as the reference's: {mine == theirs}")
    for line in mine:
        print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--base", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--samples", type=Path, default=ROOT.parent / "shared/samples/apps")
    parser.add_argument("--reference", default=REFERENCE)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-audit-rescore-"))
    try:
        reference = reference_tree(args.reference, work)
        big, real = work / "sim" / "data", work / "samples" / "data"
        big.parent.mkdir()
        simulated(big, args.hands, args.base)
        hands = sum(pq.read_metadata(p).num_rows for p in (big / "hands").glob("*.parquet"))
        if args.samples.is_dir():
            real.parent.mkdir()
            samples(real, args.samples)
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        figure, ref, *_ = compare("simulated", "rescore", big, reference, args.repeat, 1)
        record(
            "audit_rescore",
            "one audit --rules rescoring pass, simulated open-format hands",
            figure=hands / figure,
            unit="hands/CPU-s",
            reference=hands / ref,
            reference_name=f"{args.reference} (read and parsed every hand's text each pass)",
            goal="rescoring reads no hand text: faster than the reference",
            met=figure < ref,
            note=f"{hands:,} hands, 2% of free streets timed out; medians of {args.repeat}",
        )
        figure, ref, mine, theirs = compare("simulated", "audit", big, reference, args.repeat, 1)
        timeout_lines(mine, theirs)
        record(
            "audit_rescore",
            "whole audit --rules PRESET, simulated open-format hands",
            figure=hands / figure,
            unit="hands/CPU-s",
            reference=hands / ref,
            reference_name=f"{args.reference}",
            goal="faster than the reference; timeout lines the same",
            met=mine == theirs and figure < ref,
            note=f"{hands:,} hands; medians of {args.repeat}",
        )
        if args.samples.is_dir():
            real_hands = sum(pq.read_metadata(p).num_rows for p in (real / "hands").glob("*"))
            figure, ref, *_ = compare("samples", "rescore", real, reference, args.repeat, 5)
            record(
                "audit_rescore",
                "one audit --rules rescoring pass, the real app samples",
                figure=real_hands / figure,
                unit="hands/CPU-s",
                reference=real_hands / ref,
                reference_name=f"{args.reference} (read every hand's text each pass)",
                goal="faster than the reference",
                met=figure < ref,
                note=f"{real_hands:,} hands; medians of {args.repeat * 5}",
            )
            figure, ref, *_ = compare("samples", "guess", real, reference, args.repeat, 1)
            record(
                "audit_rescore",
                "audit --guess-rules (every option rescored), the real app samples",
                figure=real_hands / figure,
                unit="hands/CPU-s",
                reference=real_hands / ref,
                reference_name=f"{args.reference}",
                goal="no slower (within 5%): its rescorings are a few % of its time here",
                met=figure <= ref * 1.05,
                note=f"{real_hands:,} hands; medians of {args.repeat}",
            )
            figure, ref, mine, theirs = compare("samples", "audit", real, reference, args.repeat, 1)
            timeout_lines(mine, theirs)
            record(
                "audit_rescore",
                "whole audit --rules PRESET, the real app samples",
                figure=real_hands / figure,
                unit="hands/CPU-s",
                reference=real_hands / ref,
                reference_name=f"{args.reference}",
                goal="no slower; timeout lines the same",
                met=mine == theirs and figure <= ref * 1.05,
                note=f"{real_hands:,} hands; medians of {args.repeat}",
            )
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
