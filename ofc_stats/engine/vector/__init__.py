"""The one NumPy twin left in the engine: ``timeout`` ↔ :mod:`ofc_stats.engine.timeout`.

Row ranking, rule arrays, boards and jokers have their fast twin in the
compiled core (:mod:`ofc_stats.core`); the timeout mask stays here because
the recompute and the ``streets`` view run it over stored columns.
"""
