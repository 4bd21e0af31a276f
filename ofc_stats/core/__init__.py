"""The Python face of the compiled core (``ofc_stats._core``, built from ``rust/``).

The core is the one fast twin of the engine's hot rules and loops; this
package hands it rulesets compiled from the definitions
(:mod:`ofc_stats.core.rules`), reads its row-class tables
(:mod:`ofc_stats.core.tables`) and wraps each fast path in typed Python.
Layer: above :mod:`ofc_stats.engine`, below records, parsers and the store.
"""
