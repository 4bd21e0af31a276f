"""The ``ofc-stats`` command line: the only layer that knows every other one.

:func:`run` is the console script and ``python -m ofc_stats``; the click group itself is
:data:`ofc_stats.cli.main.main` (what tests invoke).  Nothing here loads a command, so
:func:`run` catches a Ctrl-C while they load.
"""

from __future__ import annotations

import sys
from typing import Any

INTERRUPTED_LOADING = "Error: interrupted while ofc-stats was starting: nothing was done\n"


def run() -> Any:
    """The console script: the command group, with Ctrl-C while it loads (pyarrow, DuckDB and
    every command: half a second or more) said in one line, exit 130, as once it runs,
    not as a traceback of the imports."""
    try:
        from ofc_stats.cli.main import main
    except KeyboardInterrupt:
        sys.stderr.write(INTERRUPTED_LOADING)
        raise SystemExit(130) from None
    return main()


__all__ = ["run"]
