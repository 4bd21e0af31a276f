"""The batch engine's lookup tables kept on disk, so a recompute starts in milliseconds.

Building the rank tables (every row class through the scalar ``rank_row``)
takes about 0.2 s and compiling a ruleset about 30 ms: a fixed cost every
recompute paid before its first batch.  Here they are saved once as plain
``.npz`` arrays (loaded without pickle) under the user's cache folder, named
by a hash of the engine's source code and NumPy's version, so any change to
the rules code builds them again.  A cache that cannot be read or written
is ignored: the tables are then built in memory as before.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import ofc_stats.engine
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.vector.rank_tables import from_arrays, install, tables, to_arrays
from ofc_stats.engine.vector.rule_arrays import (
    compile_rules,
    install_rules,
    rules_from_arrays,
    rules_to_arrays,
)

Arrays = Mapping[str, npt.NDArray[Any]]


def cache_folder() -> Path:
    """``$OFC_STATS_CACHE``, else ``$XDG_CACHE_HOME/ofc-stats``, else ``~/.cache/ofc-stats``."""
    chosen = os.environ.get("OFC_STATS_CACHE")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ofc-stats"


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """A hash of every engine source file and NumPy's version: what the tables depend on."""
    digest = hashlib.sha256(np.__version__.encode())
    root = Path(ofc_stats.engine.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:24]


def warm(rulesets: Iterable[Ruleset]) -> None:
    """Install the rank tables and these rulesets' compiled arrays, from the cache if there.

    What is not cached yet is built and saved for the next run.
    """
    folder = cache_folder()
    stamp = engine_fingerprint()
    _load_or_build(folder / f"rank-tables-{stamp}.npz", lambda: to_arrays(tables()), _install)
    for ruleset in rulesets:
        key = hashlib.sha256(repr(ruleset).encode()).hexdigest()[:24]
        _load_or_build(
            folder / f"rules-{stamp}-{key}.npz",
            lambda r=ruleset: rules_to_arrays(compile_rules(r)),  # type: ignore[misc]
            lambda arrays, r=ruleset: install_rules(r, rules_from_arrays(arrays)),  # type: ignore[misc]
        )


def _install(arrays: Arrays) -> None:
    install(from_arrays(arrays))


def _load_or_build(path: Path, build: Callable[[], Arrays], use: Callable[[Arrays], None]) -> None:
    try:
        with np.load(path, allow_pickle=False) as saved:
            use({name: saved[name] for name in saved.files})
        return
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        pass  # absent, unreadable or not ours: build it
    arrays = build()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".npz")
        try:
            with os.fdopen(handle, "wb") as out:
                np.savez(out, **arrays)  # type: ignore[arg-type]
            os.replace(name, path)  # whole or not at all, even with runs side by side
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
        _prune(path.parent, engine_fingerprint())
    except OSError:
        pass  # a read-only home: this run built them, the next builds them again


def _prune(folder: Path, stamp: str) -> None:
    """Drop the tables of other engine versions, so the cache holds one version (~5 MB)."""
    for old in folder.glob("*.npz"):
        if old.name.startswith(("rank-tables-", "rules-")) and f"-{stamp}" not in old.name:
            old.unlink(missing_ok=True)
