"""The ofc-stats test suite (a package, so helpers import as ``tests.handgen``)."""
