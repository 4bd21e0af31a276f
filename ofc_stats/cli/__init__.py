"""The ``ofc-stats`` command line: the only layer that knows every other one."""

from ofc_stats.cli.main import main

__all__ = ["main"]
