"""What replacing a refused file's earlier rows costs an import of new files.

    .venv/bin/python bench/import_refusals.py [--rows 500000] [--files 20] [--repeat 5]

An import reads the quarantine table's ``source_file`` column once (as a
dictionary: the distinct names per batch) the first time it reads a file the
ledger does not name, to find rows an earlier import that refused the whole
file left (``Superseded.refused_before``).  The dataset here holds ``--rows``
quarantine rows from ``--files`` refused files (junk lines under ``--format
open``); the figure is that lookup's CPU time, the reference the whole import
of a new 15-hand file into the same dataset, measured in the same run
(medians of ``--repeat``), for a new file named past the refused ones (the
footers' ``source_file`` ranges rule every batch out) and one named among
them (the batches whose range holds its name have their column read).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.record import record  # noqa: E402
from ofc_stats.store.dataset import Dataset  # noqa: E402
from ofc_stats.store.importer import import_paths  # noqa: E402
from ofc_stats.store.ledger import Ledger  # noqa: E402
from ofc_stats.store.superseded import Superseded  # noqa: E402
from parsers.open_format import dumps  # noqa: E402
from tests.handgen import random_records  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ofc-refusals-"))
    try:
        data = folder / "data"
        junk = folder / "junk"
        junk.mkdir()
        per_file = args.rows // args.files
        for n in range(args.files):
            (junk / f"refused-{n}.jsonl").write_text(f"not json {n}\n" * per_file, "utf-8")
        started = time.perf_counter()
        refused = import_paths([junk], data, format_name="open")
        built = time.perf_counter() - started
        rows = Dataset(data).read("quarantine", ["source_file"]).num_rows
        batches = len(Dataset(data).files("quarantine"))
        print(f"dataset: {rows:,} quarantine rows in {batches} batches ({built:.1f} s to build)")
        assert refused.stored == 0 and rows == per_file * args.files
        # A new file named past the refused ones (a later export: the footers' ranges rule
        # every batch out) and one named among them (the batches around its name are read).
        for case, folder_of, stem in (
            ("past", folder, "new"),
            ("among", junk, "refused-1a"),
        ):
            lookups, imports = [], []
            for n in range(args.repeat):
                new = folder_of / f"{stem}-{n}.jsonl"
                records = random_records(15, seed=900 + n + (100 if case == "among" else 0))
                new.write_text("".join(dumps(r) + "\n" for r in records), "utf-8")
                dataset = Dataset(data)
                superseded = Superseded(dataset, Ledger(dataset).paths)
                cpu = time.process_time()
                assert superseded.refused_before(str(new.resolve())) == set()
                lookups.append(time.process_time() - cpu)
                cpu = time.process_time()
                summary = import_paths([new], data)
                imports.append(time.process_time() - cpu)
                assert summary.stored == 15 and summary.replaced_refusals == 0
            lookup, whole = statistics.median(lookups), statistics.median(imports)
            print(f"new file named {case} the refused ones:")
            print(f"  refusals lookup: {lookup * 1e3:.2f} ms CPU (median of {args.repeat})")
            print(f"  import of a new 15-hand file: {whole * 1e3:.1f} ms CPU")
            print(f"  ratio: {lookup / whole:.3f}")
            record(
                "import_refusals",
                f"refusals lookup, new file named {case} the refused ones",
                figure=lookup * 1e3,
                unit="ms CPU",
                reference=whole * 1e3,
                reference_name=f"whole import of a new 15-hand file, {rows:,} quarantine rows",
                goal="an import of new files pays (almost) nothing for it",
                note=f"{rows:,} quarantine rows in {batches} batches",
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
