"""The CLI's name for :func:`ofc_stats.safe_text.terminal_safe` (its home is the low layer)."""

from __future__ import annotations

from ofc_stats.safe_text import terminal_safe

__all__ = ["terminal_safe"]
