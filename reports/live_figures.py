"""Headline figures for the hands the filter bar keeps: fouls, Fantasyland, royalties, regret.

The page's script (``figuresOf``, ``royaltyFiguresOf`` and ``regretFiguresOf`` in
``assets/report.js``)
recomputes them from the filter bar's rows (:func:`reports.explore.page_data`) whenever
the bar changes; this module draws them, from the same rows and with the same
arithmetic in the same order, for every hand of the report, so that the page before
its rows are in (or in a browser that cannot read them) says what the script says
unfiltered, character for character.  Numbers are written as the script's
``Intl.NumberFormat`` and ``toFixed`` write them (:func:`fixed`, :func:`percent`): rounded
half away from zero, where Python's ``format`` rounds the exact binary value half to even.

The figures, over the scored hands kept: the player's foul rate of normal hands with
its count and Wilson 95% interval (as :mod:`reports.fouls`), the field's beside it
(the opponents' scored normal seats at those hands), the Fantasyland entry rate of
normal hands (as :mod:`reports.fantasy`) and the Fantasyland hands' points; the live
boards' royalties, by row and by the class that paid most (as :mod:`reports.royalties`);
the graded street decisions' expected loss per 100 hands and the costliest named leak
(as :mod:`reports.regret`; whether a leak is clear needs the grader's replays, which the
page does not carry, so the regret section's verdicts stay over every hand).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from ofc_stats.wording import fixed, per_100_text, plural, signed
from reports.stats import MIN_HANDS, NO_INTERVAL, Z95, wilson


@dataclass(frozen=True)
class Figures:
    """Counts over the scored hands kept, and the Fantasyland hands' points in hand order."""

    normal: int  # the player's normal (not Fantasyland) hands
    fouls: int  # of those, fouled
    entries: int  # of those, earning Fantasyland
    field_seats: int  # the opponents' scored normal seats at the hands
    field_fouls: int  # of those, fouled
    fantasy_points: list[float]  # the player's points in each Fantasyland hand, oldest first


def figures(hands: dict[str, Any], kept: Sequence[int] | None = None) -> Figures:
    """The counts over the scored hands among ``kept`` (positions in the rows; all: None)."""
    scored = np.asarray(hands["scored"], dtype=bool)
    at = np.arange(len(scored)) if kept is None else np.asarray(kept, dtype=np.int64)
    at = at[scored[at]]
    fantasy = np.asarray(hands["fl"], dtype=bool)[at]
    normal = at[~fantasy]
    points = np.asarray(hands["points"], dtype=np.float64)[at[fantasy]]
    return Figures(
        normal=len(normal),
        fouls=int(np.asarray(hands["foul"], dtype=bool)[normal].sum()),
        entries=int(np.asarray(hands["earns"], dtype=bool)[normal].sum()),
        field_seats=int(np.asarray(hands["f_seats"], dtype=np.int64)[at].sum()),
        field_fouls=int(np.asarray(hands["f_fouls"], dtype=np.int64)[at].sum()),
        fantasy_points=[float(p) for p in points if not math.isnan(p)],  # (the script: not null)
    )


def signed_interval(low: float | None, high: float | None) -> str:
    """``95% interval +0.30 to +2.07`` (:func:`signed`), or why there is none (None or NaN)."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return NO_INTERVAL
    return f"95% interval {signed(low, 2)} to {signed(high, 2)}"


def percent(value: float) -> str:
    """A share as the script's ``pct`` writes it, ``(100 * v).toFixed(1) + "%"``: toFixed
    rounds the exact binary value, half up (not the shortest decimal, as Intl does)."""
    exact = Decimal(float(100 * value))
    return f"{exact.quantize(Decimal('0.1'), rounding=ROUND_HALF_UP)}%"


def moments(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """(mean, low, high) as the script's ``moments``: sums in order, no interval under
    :data:`reports.stats.MIN_HANDS` values."""
    total = squares = 0.0
    for v in values:
        total += v
        squares += v * v
    n = len(values)
    mean = total / n
    if n < max(2, MIN_HANDS):
        return mean, None, None
    sd = math.sqrt(max(0.0, (squares - n * mean * mean) / (n - 1)))
    half = Z95 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def rate_text(events: int, trials: int) -> str:
    """``30.4% (427 of 1,403; 95% interval 28.1% to 32.9%)``."""
    rate, low, high = wilson(events, trials)
    return (
        f"{percent(rate)} ({events:,} of {trials:,}; 95% interval {percent(low)} to "
        f"{percent(high)})"
    )


def fouls_text(f: Figures) -> str:
    """The fouls section's live line (``#live-fouls``)."""
    if not f.normal:
        mine = "Your foul rate: no normal hand among these hands."
    else:
        mine = f"Your foul rate over these normal hands: {rate_text(f.fouls, f.normal)}."
    if not f.field_seats:
        return mine + " The field's: no opponent's normal hand in these hands."
    return (
        mine + " The field's, over your opponents' normal hands in these hands: "
        f"{rate_text(f.field_fouls, f.field_seats)}."
    )


def fantasy_text(f: Figures) -> str:
    """The Fantasyland section's live line (``#live-fantasy``)."""
    if not f.normal:
        entry = "Your Fantasyland entry rate: no normal hand among these hands."
    else:
        entry = (
            "Your Fantasyland entry rate over these normal hands: "
            f"{rate_text(f.entries, f.normal)}."
        )
    count = len(f.fantasy_points)
    if not count:
        return entry + " No Fantasyland hand among these hands."
    total = 0.0
    for p in f.fantasy_points:  # in order, as the script sums them
        total += p
    mean, low, high = moments(f.fantasy_points)
    interval = signed_interval(low, high)
    hands = plural(count, "Fantasyland hand")
    return f"{entry} {hands}: {signed(total, 0)} points, {signed(mean, 2)} per hand ({interval})."


ROWS = ("top", "middle", "bottom")
ROW_CODES = ("rk_top", "rk_mid", "rk_bot")  # each row's [class, royalty] in royalty_kinds


@dataclass(frozen=True)
class Royalties:
    """The live (unfouled) boards kept, and per row how many have a class and their points;
    the class and row that paid the most: (class, row, points, boards), None without one."""

    boards: int
    rows: list[tuple[int, float]]
    best: tuple[str, str, float, int] | None


def royalty_figures(live: dict[str, Any], kept: Sequence[int] | None = None) -> Royalties:
    """The royalties section's counts over the scored hands among ``kept`` (all: None).

    Per row, the boards of each [class, royalty] kind are counted, and a row's points are
    each kind's count times its royalty summed in the kinds' order (the script's order:
    exact where royalties are whole); a class paid at two rates (two rulesets) is one
    class, as the section groups it.  The biggest source breaks ties as
    :func:`reports.royalties.biggest`: more boards, the row higher up, the class's name."""
    hands = live["hands"]
    kinds = live["royalty_kinds"]
    scored = np.asarray(hands["scored"], dtype=bool)
    at = np.arange(len(scored)) if kept is None else np.asarray(kept, dtype=np.int64)
    at = at[scored[at]]
    boards = int((~np.asarray(hands["foul"], dtype=bool)[at]).sum())
    rows: list[tuple[int, float]] = []
    sources: list[tuple[float, int, int, str]] = []  # (points, boards, row, class)
    for row, name in enumerate(ROW_CODES):
        codes = np.asarray(hands[name], dtype=np.int64)[at]
        counts = np.bincount(codes[codes >= 0], minlength=len(kinds)).tolist()
        total = 0.0
        by_class: dict[str, list[float]] = {}
        for (label, royalty), count in zip(kinds, counts, strict=True):
            if not count:
                continue
            total += count * royalty
            paid = by_class.setdefault(label, [0.0, 0])
            paid[0] += count * royalty
            paid[1] += count
        rows.append((sum(counts), total))
        sources += [(p, int(n), row, label) for label, (p, n) in by_class.items()]
    if not sources:
        return Royalties(boards, rows, None)
    points, count, row, label = min(sources, key=lambda s: (-s[0], -s[1], s[2], s[3]))
    return Royalties(boards, rows, (label, ROWS[row], points, count))


def royalties_text(r: Royalties) -> str:
    """The royalties section's live line (``#live-royalties``)."""
    if not r.boards:
        return "Your royalties: no live (unfouled) board among these hands."
    total = 0.0
    for _, points in r.rows:
        total += points
    each = ", ".join(
        f"{name} {fixed(points / count, 2) if count else '–'}"
        for name, (count, points) in zip(ROWS, r.rows, strict=True)
    )
    line = (
        f"Your royalties over these hands' {r.boards:,} live boards: {fixed(total, 0)} points, "
        f"{fixed(total / r.boards, 2)} a board ({each})."
    )
    if r.best is None or r.best[2] <= 0:
        return line + " None of them paid a royalty."
    label, row, points, count = r.best
    return (
        f"{line} The biggest source: {label} in the {row} row, {fixed(points, 0)} points "
        f"from {plural(count, 'board')}."
    )


@dataclass(frozen=True)
class Regret:
    """The graded street decisions over the scored hands kept: graded hands among the
    normal ones, their losses' sum and sum of squares, and the costliest named leak:
    (name, its per-hand sums' sum and sum of squares, decisions), None without one."""

    normal: int
    graded: int
    total: float
    squares: float
    leak: tuple[str, float, float, int] | None


def regret_figures(live: dict[str, Any], kept: Sequence[int] | None = None) -> Regret:
    """The regret section's street-decision loss over the scored hands among ``kept``: the
    hands with a graded street decision (``sloss``, summed hand by hand in order) and the
    named leaks' decisions, a leak's losses summed per hand (its SE is over hands, as
    :func:`reports.regret.per_100` takes it); the costliest leak loses the most, then has
    more decisions, then the first name."""
    hands = live["hands"]
    scored = np.asarray(hands["scored"], dtype=bool)
    at = np.arange(len(scored)) if kept is None else np.asarray(kept, dtype=np.int64)
    at = at[scored[at]]
    normal = int((~np.asarray(hands["fl"], dtype=bool)[at]).sum())
    losses = np.asarray(hands["sloss"], dtype=np.float64)[at]
    graded = losses[~np.isnan(losses)].tolist()
    total = squares = 0.0
    for loss in graded:
        total += loss
        squares += loss * loss
    leaks = live["leaks"]
    wanted = np.zeros(len(scored), dtype=bool)
    wanted[at] = True
    sums: dict[int, list[float]] = {}  # leak -> [sum, squares, decisions, hand, this hand's]
    for row, leak, loss in zip(
        np.asarray(leaks["at"], dtype=np.int64).tolist(),
        np.asarray(leaks["leak"], dtype=np.int64).tolist(),
        np.asarray(leaks["loss"], dtype=np.float64).tolist(),
        strict=True,
    ):
        if not wanted[row]:
            continue
        s = sums.setdefault(leak, [0.0, 0.0, 0, -1, 0.0])
        if s[3] != row:
            s[0] += s[4]
            s[1] += s[4] * s[4]
            s[3], s[4] = row, 0.0
        s[2] += 1
        s[4] += loss
    costliest: tuple[str, float, float, int] | None = None
    for leak, s in sums.items():
        s[0] += s[4]
        s[1] += s[4] * s[4]
        here = (str(leaks["names"][leak]), s[0], s[1], int(s[2]))
        if costliest is None or (-here[1], -here[3], here[0]) < (
            -costliest[1],
            -costliest[3],
            costliest[0],
        ):
            costliest = here
    return Regret(normal, len(graded), total, squares, costliest)


def regret_text(r: Regret) -> str:
    """The regret section's live line (``#live-regret``)."""
    if not r.graded:
        return "Street decisions: no graded hand among these hands."
    hands = plural(r.graded, "graded hand")
    over = f"over these {hands} of {plural(r.normal, 'normal hand')}"
    if r.total <= 0:
        return (
            f"Street decisions {over}: no decision lost expected points beyond 2 SE of the "
            "grader's noise (0 per 100 hands)."
        )
    line = (
        f"Street decisions {over}: {per_100_text(r.total, r.squares, r.graded)} expected "
        "points lost per 100 hands against the best legal play."
    )
    if r.leak is None:
        return line + " No named leak among them."
    name, total, squares, decisions = r.leak
    count = plural(decisions, "decision")
    return (
        f"{line} The costliest named leak among them: {name}, "
        f"{per_100_text(total, squares, r.graded)} per 100 hands ({count})."
    )
