"""Shared test setup: tests import helpers (handgen) from this folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
