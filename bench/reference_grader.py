"""The real decisions the grading benchmarks use, and the previous grader run on them.

:func:`sample` imports ``../shared/samples/apps`` (about 1,900 real Pineapple
hands) into a temporary dataset and takes the street decisions of the first
``hands`` hands that have any (every street of each, so the mix of streets is
the real one).  :func:`previous_grader` grades the same decisions with the
grader of the main checkout (``/work/main``, or ``$OFC_REFERENCE``) in a child
process, so the reference is measured in the same run as the new code.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # bench/child.py, also when imported

from child import run_child  # noqa: E402

from ofc_stats.engine.presets import get_ruleset  # noqa: E402
from ofc_stats.grade.position import (  # noqa: E402
    HAND_COLUMNS,
    PLACEMENT_COLUMNS,
    SEAT_COLUMNS,
    Decision,
    read_positions,
)
from ofc_stats.store.dataset import Dataset  # noqa: E402
from ofc_stats.store.importer import import_paths  # noqa: E402

SAMPLES = ROOT.parent / "shared" / "samples" / "apps"
REFERENCE = Path(os.environ.get("OFC_REFERENCE", "/work/main"))


def sample(hands: int) -> list[Decision]:
    """The street decisions of the first ``hands`` real hands that have any."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        import_paths([SAMPLES], data)
        dataset = Dataset(data)
        batch = dataset.batches()[0]
        positions = read_positions(
            pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS),
            pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS),
            pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS),
            get_ruleset,
        )
    keys: list[str] = []
    for decision in positions.decisions:
        if decision.hand_key not in keys:
            keys.append(decision.hand_key)
    chosen = set(keys[:hands])
    return [d for d in positions.decisions if d.hand_key in chosen]


# The child: the same sample with the reference checkout's own code, graded in one
# process (its grade_chunk), timed in CPU and wall seconds; the grades written out.
CHILD = """
import json, sys, tempfile, time
from pathlib import Path
import pyarrow.parquet as pq
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.grade.position import HAND_COLUMNS, PLACEMENT_COLUMNS, SEAT_COLUMNS, read_positions
from ofc_stats.grade.run import GradeOptions, grade_chunk
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths

samples, keys_file, out, rollouts, seed, repeat = sys.argv[1:7]
wanted = json.loads(Path(keys_file).read_text())
with tempfile.TemporaryDirectory() as tmp:
    data = Path(tmp) / "data"
    import_paths([Path(samples)], data)
    dataset = Dataset(data)
    batch = dataset.batches()[0]
    positions = read_positions(
        pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS),
        pq.read_table(dataset.batch_file("seats", batch), columns=SEAT_COLUMNS),
        pq.read_table(dataset.batch_file("placements", batch), columns=PLACEMENT_COLUMNS),
        get_ruleset,
    )
decisions = [d for d in positions.decisions if d.hand_key in set(wanted)]
options = GradeOptions(rollouts=int(rollouts), seed=int(seed))
grade_chunk(decisions[:5], options)  # tables and layouts built once, as in a long run
cpu, wall = [], []
for _ in range(int(repeat)):
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    tables = grade_chunk(decisions, options)
    cpu.append(time.process_time() - start_cpu)
    wall.append(time.perf_counter() - start_wall)
for name, table in tables.items():
    pq.write_table(table, Path(out) / f"{name}.parquet")
print(json.dumps({"decisions": len(decisions), "cpu": cpu, "wall": wall}))
"""


def previous_grader(
    decisions: list[Decision], rollouts: int, seed: int, repeat: int
) -> tuple[dict[str, pa.Table], dict[str, Any]]:
    """The reference checkout's grades of ``decisions`` and its CPU and wall seconds."""
    keys = sorted({d.hand_key for d in decisions})
    with tempfile.TemporaryDirectory() as tmp:
        keys_file = Path(tmp) / "keys.json"
        keys_file.write_text(json.dumps(keys))
        env = {**os.environ, "PYTHONPATH": str(REFERENCE)}
        figures = run_child(
            CHILD,
            str(SAMPLES),
            str(keys_file),
            tmp,
            str(rollouts),
            str(seed),
            str(repeat),
            env=env,
            cwd=REFERENCE,
        )
        tables = {
            name: pq.read_table(Path(tmp) / f"{name}.parquet")
            for name in ("grades", "grade_candidates")
        }
    if figures["decisions"] != len(decisions):
        raise SystemExit(
            f"the reference read {figures['decisions']} decisions, this checkout {len(decisions)}"
        )
    return tables, figures
