"""Reports a player reads: results, sessions, hands, fouls, Fantasyland, decisions, royalties.

Each module's ``build(scope)`` returns a :class:`reports.base.Report` (tidy
pandas tables and :class:`reports.charts.Chart` charts) for a
:class:`reports.base.Scope` (``prepare(data, filters)``: the player's hands,
made once), usable from a notebook; :func:`build_all` prepares the scope and
runs them all (:func:`build_sections` over a scope already made), and
:mod:`reports.html` writes the page.  A new section registers its builder in
:data:`BUILDERS` (the page shows sections in this order).
"""

from __future__ import annotations

from collections.abc import Callable

from ofc_stats.errors import UnknownPlayer
from ofc_stats.store.views import OfcData
from reports import decisions, fantasy, fouls, hands, ledger, regret, results, royalties, sessions
from reports.base import Report, Scope, prepare
from reports.filters import Filters, Player, checked, choose_player, resolve_player
from reports.regret import NOT_GRADED_YET

Builder = Callable[[Scope], Report]

BUILDERS: list[Builder] = [
    results.build,
    ledger.build,
    sessions.build,
    hands.build,
    fouls.build,
    fantasy.build,
    decisions.build,
    royalties.build,
    regret.build,
]


def build_sections(scope: Scope) -> list[Report]:
    """Every section, in page order, over one scope."""
    return [build(scope) for build in BUILDERS]


def build_all(data: OfcData, filters: Filters) -> list[Report]:
    """Every section for ``filters``: :func:`prepare` then :func:`build_sections`."""
    return build_sections(prepare(data, filters))


UNGRADED = (
    "Not graded yet, so no leak is named: `ofc-stats grade` measures each decision's "
    "expected points lost against the best legal play and lists the costliest here. "
    "The street-decision tables below compare results, which bad cards explain as often "
    "as bad play."
)


def leak_summary(reports: list[Report]) -> list[str]:
    """The written summary: the graded leaks to look at, then the headline numbers.

    With grades (``ofc-stats grade``) those are the costliest decisions, named,
    with their claimed cost and what the replay realised.  Without grades the
    summary names none: the street decisions whose hands did worst describe the
    consequences of bad cards as much as causes, so they stay a labelled table
    on the page, out of the summary.
    """
    by_key = {r.key: r for r in reports}
    regret = by_key.get("regret")
    if regret is not None and "by_decision" in regret.tables:
        # Graded hands: the (up to) three costliest named leaks, each claimed cost with its
        # SE, the replay's realised cost and "clear" or "not clear yet", whatever their SEs
        # (regret's notes lead with them; with no leak its first note says so).
        named = min(3, len(regret.tables.get("leaks", ())))
        # then the costliest street and loss part, which sums many leaks (or "no leak")
        summed = 1 if len(regret.tables["by_decision"]) else 0
        lines = list(regret.notes[: max(named, 1) + summed])
        if not lines:
            lines.append("No decision stands out as a leak yet: more hands will tell.")
    elif regret is not None and regret.notes and regret.notes[0] != NOT_GRADED_YET:
        lines = [regret.notes[0]]  # graded, but these hands could not be: regret says why
    else:
        lines = [UNGRADED]
    for key in ("results", "sessions", "fouls", "fantasyland"):
        if key in by_key and by_key[key].notes:
            # results and sessions end with their headline (notes on unscored money come first)
            notes = by_key[key].notes
            lines.append(notes[-1] if key in ("results", "sessions") else notes[0])
    return lines


__all__ = [
    "BUILDERS",
    "NOT_GRADED_YET",
    "UNGRADED",
    "Filters",
    "Player",
    "Report",
    "Scope",
    "UnknownPlayer",
    "build_all",
    "build_sections",
    "checked",
    "choose_player",
    "leak_summary",
    "prepare",
    "resolve_player",
]
