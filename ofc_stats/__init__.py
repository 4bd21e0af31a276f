"""ofc-stats: Open Face Chinese Poker rules engine, hand-history analytics and audit.

The public API: cards, boards, rulesets and the scalar and batch scorers.
"""

from ofc_stats.batch import BatchResult, score_batch
from ofc_stats.board import Board
from ofc_stats.cards import format_card, format_cards, parse_card, parse_cards
from ofc_stats.errors import BoardError, CardError, HandError, OfcError, RulesetError
from ofc_stats.hand_rank import Category, RowRank, rank_row
from ofc_stats.presets import PRESETS, get_ruleset
from ofc_stats.rules import Ruleset
from ofc_stats.ruleset_file import load_ruleset, resolve_ruleset
from ofc_stats.scoring import BoardResult, HandResult, score_board, score_hand
from ofc_stats.timeout import Street, timeout_streets


def __getattr__(name: str) -> object:
    """Load the data layers (pyarrow, DuckDB, parsers) only when they are asked for."""
    if name == "import_paths":
        from ofc_stats.importer import import_paths

        return import_paths
    if name == "open":
        from ofc_stats.db import open_dataset

        return open_dataset
    if name == "recompute":
        from ofc_stats.recompute import recompute

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
    "import_paths",
    "load_ruleset",
    "open",
    "parse_card",
    "parse_cards",
    "rank_row",
    "recompute",
    "resolve_ruleset",
    "score_batch",
    "score_board",
    "score_hand",
    "timeout_streets",
]
