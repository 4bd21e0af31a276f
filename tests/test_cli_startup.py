"""Ctrl-C while `ofc-stats` is still loading (pyarrow, DuckDB, every command: half a second
or more on a busy machine) is one line and exit 130, as once it runs; it printed ~45 lines
of traceback through the imports.  ``import ofc_stats`` itself loads nothing heavy, so the
console script's handler is in place before anything slow starts."""

from __future__ import annotations

import subprocess
import sys

from ofc_stats.cli import INTERRUPTED_LOADING

# The console script's start, with Ctrl-C arriving while the command group is imported.
INTERRUPTED = """
import sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "ofc_stats.cli.main":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
from ofc_stats.cli import run
sys.exit(run())
"""


def test_ctrl_c_while_the_commands_load_is_one_line_and_exit_130() -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 130
    assert done.stderr == INTERRUPTED_LOADING and done.stdout == ""


def test_importing_the_package_loads_neither_numpy_nor_the_core() -> None:
    code = (
        "import sys, ofc_stats, ofc_stats.cli; "
        "print(sorted(m for m in ('numpy', 'pyarrow', 'duckdb', 'ofc_stats._core') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_public_names_load_on_first_use() -> None:
    import ofc_stats

    board = ofc_stats.Board.parse("As Ks Qs", "2c 3c 4c 5c 6c", "7d 8d 9d Td Jd")
    # A-high top under a 6-high straight flush under a J-high one: not fouled.
    result = ofc_stats.score_board(board, ofc_stats.get_ruleset("pineapple-progressive"))
    assert result.fouled is False
    assert set(ofc_stats.__all__) <= set(dir(ofc_stats)) | set(ofc_stats._PUBLIC)
