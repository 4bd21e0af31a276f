"""One benchmark step in a child process, so its time and peak memory are its own.

The child prints its figures as one JSON object on its last line of output;
every script under bench/ reads them the same way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def run_child(
    code: str, *args: str, env: Mapping[str, str] | None = None, cwd: Path | None = ROOT
) -> dict[str, Any]:
    """Run ``python -c code args...``; the JSON object it printed last."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        check=True,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=None if env is None else dict(env),
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result
