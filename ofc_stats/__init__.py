"""ofc-stats: Open Face Chinese Poker rules engine, hand-history analytics and audit.

The public API: cards, boards, rulesets and the scalar and batch scorers.
``ofc_stats.open``, ``ofc_stats.import_paths`` and ``ofc_stats.recompute``
load the data layers on first use and stay out of ``__all__``, so that
``from ofc_stats import *`` neither hides the builtin ``open`` nor loads DuckDB.
"""

from ofc_stats.core.scoring import BatchResult, score_batch
from ofc_stats.engine.board import Board
from ofc_stats.engine.cards import format_card, format_cards, parse_card, parse_cards
from ofc_stats.engine.presets import PRESETS, get_ruleset
from ofc_stats.engine.rank import Category, RowRank, rank_row
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.ruleset_toml import load_ruleset, resolve_ruleset
from ofc_stats.engine.scoring import BoardResult, HandResult, score_board, score_hand
from ofc_stats.engine.timeout import Street, timeout_streets
from ofc_stats.errors import BoardError, CardError, HandError, OfcError, RulesetError


def __getattr__(name: str) -> object:
    """Load the data layers (pyarrow, DuckDB, parsers) only when they are asked for."""
    if name == "import_paths":
        from ofc_stats.store.importer import import_paths

        return import_paths
    if name == "open":
        from ofc_stats.store.views import open_dataset

        return open_dataset
    if name == "recompute":
        from ofc_stats.store.recompute import recompute

        return recompute
    raise AttributeError(f"module 'ofc_stats' has no attribute {name!r}")


__all__ = [
    "PRESETS",
    "BatchResult",
    "Board",
    "BoardError",
    "BoardResult",
    "CardError",
    "Category",
    "HandError",
    "HandResult",
    "OfcError",
    "RowRank",
    "Ruleset",
    "RulesetError",
    "Street",
    "format_card",
    "format_cards",
    "get_ruleset",
    "load_ruleset",
    "parse_card",
    "parse_cards",
    "rank_row",
    "resolve_ruleset",
    "score_batch",
    "score_board",
    "score_hand",
    "timeout_streets",
]
