"""ofc-stats: Open Face Chinese Poker rules engine, hand-history analytics and audit.

The public API: cards, boards, rulesets and the scalar and batch scorers.
``ofc_stats.open``, ``ofc_stats.import_paths`` and ``ofc_stats.recompute``
load the data layers on first use and stay out of ``__all__``, so that
``from ofc_stats import *`` neither hides the builtin ``open`` nor loads DuckDB.

The public names load their modules on first use too (``import ofc_stats`` loads neither
NumPy nor the core), so the command line starts its own Ctrl-C handling before anything
heavy loads (a Ctrl-C then printed a traceback of the imports).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

# Where each public name is defined (one line each, as ``from MODULE import NAME``).
_PUBLIC = {
    "BatchResult": "ofc_stats.core.scoring",
    "score_batch": "ofc_stats.core.scoring",
    "Board": "ofc_stats.engine.board",
    "format_card": "ofc_stats.engine.cards",
    "format_cards": "ofc_stats.engine.cards",
    "parse_card": "ofc_stats.engine.cards",
    "parse_cards": "ofc_stats.engine.cards",
    "PRESETS": "ofc_stats.engine.presets",
    "get_ruleset": "ofc_stats.engine.presets",
    "Category": "ofc_stats.engine.rank",
    "RowRank": "ofc_stats.engine.rank",
    "rank_row": "ofc_stats.engine.rank",
    "Ruleset": "ofc_stats.engine.rules",
    "load_ruleset": "ofc_stats.engine.ruleset_toml",
    "resolve_ruleset": "ofc_stats.engine.ruleset_toml",
    "BoardResult": "ofc_stats.engine.scoring",
    "HandResult": "ofc_stats.engine.scoring",
    "score_board": "ofc_stats.engine.scoring",
    "score_hand": "ofc_stats.engine.scoring",
    "Street": "ofc_stats.engine.timeout",
    "timeout_streets": "ofc_stats.engine.timeout",
    "BoardError": "ofc_stats.errors",
    "CardError": "ofc_stats.errors",
    "HandError": "ofc_stats.errors",
    "OfcError": "ofc_stats.errors",
    "RulesetError": "ofc_stats.errors",
}
# The data layers (pyarrow, DuckDB, parsers): out of ``__all__``, so that
# ``from ofc_stats import *`` neither hides the builtin ``open`` nor loads DuckDB.
_DATA = {
    "import_paths": ("ofc_stats.store.importer", "import_paths"),
    "open": ("ofc_stats.store.views", "open_dataset"),
    "recompute": ("ofc_stats.store.recompute", "recompute"),
}


def __getattr__(name: str) -> object:
    """A public name, its module loaded when it is first asked for."""
    if name in _PUBLIC:
        module, attribute = _PUBLIC[name], name
    elif name in _DATA:
        module, attribute = _DATA[name]
    else:
        raise AttributeError(f"module 'ofc_stats' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # asked once
    return value


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
