"""`python -m ofc_stats` is the `ofc-stats` command."""

from ofc_stats.cli import run

run()
