"""Suite-wide settings: the engine's table cache goes to a folder of this run, not the user's home."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

if "OFC_STATS_CACHE" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="ofc-stats-test-cache-")
    os.environ["OFC_STATS_CACHE"] = _CACHE
    _OWNER = os.getpid()

    @atexit.register
    def _remove_cache() -> None:
        if os.getpid() == _OWNER:  # not in forked workers
            shutil.rmtree(_CACHE, ignore_errors=True)
