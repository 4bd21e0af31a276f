"""How long a clean release build of the compiled core takes (issue 25: under 3 minutes).

    .venv/bin/python bench/build.py [--repeat 1]

Builds the extension as ``make install`` does (``maturin build --release``: the
workspace's release profile, fat LTO, one codegen unit) into an empty cargo
target folder, so nothing is reused from an earlier build but the crates the
registry already downloaded (a fresh machine downloads them once, which is
the network's time, not the build's).  Prints the wall time, the CPU time of
the build and the load average; records the median.  The same run also builds
``ofc-core`` alone, the plain-Rust part without PyO3 and the bindings, as the
reference: what the bindings and the wheel add.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import record

ROOT = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 180.0


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], target: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``command`` run in the repository with an empty target."""
    env = {**os.environ, "CARGO_TARGET_DIR": str(target)}
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"{' '.join(command)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return wall, children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    maturin = str(Path(sys.executable).with_name("maturin"))
    whole: list[tuple[float, float]] = []
    core: list[tuple[float, float]] = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as folder:
            wheel = [maturin, "build", "--quiet", "--release", "--out", f"{folder}/wheel"]
            whole.append(timed(wheel, Path(folder) / "target"))
        with tempfile.TemporaryDirectory() as folder:
            alone = ["cargo", "build", "--quiet", "--release", "-p", "ofc-core"]
            core.append(timed(alone, Path(folder) / "target"))
    load = os.getloadavg()[0]
    wall = statistics.median(w for w, _ in whole)
    cpu = statistics.median(c for _, c in whole)
    core_wall = statistics.median(w for w, _ in core)
    print(
        f"clean release build of the extension (maturin build --release): {wall:.0f} s wall, "
        f"{cpu:.0f} CPU s; ofc-core alone {core_wall:.0f} s; goal {GOAL_SECONDS:.0f} s; "
        f"load average {load:.1f} on {os.cpu_count()} cores"
    )
    record(
        "build",
        "clean release build of the extension (maturin build --release)",
        figure=wall,
        unit="s",
        reference=core_wall,
        reference_name="cargo build --release -p ofc-core (the plain-Rust core alone)",
        goal=f"under {GOAL_SECONDS:.0f} s",
        met=wall < GOAL_SECONDS,
        note=f"{cpu:.0f} CPU s; median of {args.repeat}; an empty target folder, crates "
        f"already downloaded; load average {load:.1f}",
    )


if __name__ == "__main__":
    main()
