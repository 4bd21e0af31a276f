"""The rules of Open Face Chinese Poker, pure: standard library and NumPy only.

Cards, row ranking, rulesets (frozen, validated presets and TOML files), the
scalar scorer that is the definition of every rule (the fast twins are the
compiled core's, :mod:`ofc_stats.core`, one layer up).  Nothing
here reads files other than a ruleset's TOML, and nothing imports pyarrow,
pandas, DuckDB or the CLI.
"""
