"""Batch twins of the engine's definitions, on NumPy arrays of card ids.

Each module is named after the definition it vectorises (``rank_tables`` ↔
``rank``, ``scoring`` ↔ ``scoring``, ``jokers`` ↔ ``jokers``, ``timeout`` ↔
``timeout``, ``boards`` ↔ ``board``); ``rule_arrays`` turns a ruleset into the
lookup arrays the twins share, by calling the scalar rule functions.
"""
