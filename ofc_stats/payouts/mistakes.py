"""Royalty mistakes a room's software makes, as alternative royalty tables.

The audit scores a mismatching hand under each of these to say *which*
mistake reproduces the room's numbers; the simulator's buggy room makes them
so that the audit can be tested against ground truth.  Each entry maps the
ruleset's own table to the wrong one the room used.
"""

from __future__ import annotations

from collections.abc import Callable

from ofc_stats.engine.rules import AMERICAN_ROYALTIES, CLASSIC_ROYALTIES, FrozenMap, RoyaltyTable

RoyaltyMistake = Callable[[RoyaltyTable], RoyaltyTable]


def _named(table: RoyaltyTable) -> RoyaltyMistake:
    named = RoyaltyTable(table.top, table.middle, table.bottom, name=f"{table.name} royalty table")
    return lambda own: named


def _middle_as_bottom(own: RoyaltyTable) -> RoyaltyTable:
    return RoyaltyTable(
        top=own.top,
        middle=FrozenMap(dict(own.bottom)),
        bottom=own.bottom,
        name=f"{own.name} royalty table with the middle paid at bottom rates",
    )


def _top_unpaid(own: RoyaltyTable) -> RoyaltyTable:
    return RoyaltyTable(
        top=FrozenMap({}),
        middle=own.middle,
        bottom=own.bottom,
        name=f"{own.name} royalty table without top-row royalties",
    )


ROYALTY_MISTAKES: dict[str, RoyaltyMistake] = {
    "classic table": _named(CLASSIC_ROYALTIES),
    "american table": _named(AMERICAN_ROYALTIES),
    "middle paid at bottom rates": _middle_as_bottom,
    "top row unpaid": _top_unpaid,
}
