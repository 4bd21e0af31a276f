"""Fouls: how often, since when, in which setups, and when a foul became unavoidable."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations, product

import numpy as np
import numpy.typing as npt
import pandas as pd

from ofc_stats.core.tables import classify_five, classify_three, tables
from ofc_stats.engine.certain import foul_unavoidable_after
from ofc_stats.wording import plural
from reports.base import Report, Scope
from reports.charts import bars_with_ci, line
from reports.stats import wilson
from reports.streetwise import SeatCards, first_street, queen_up

QUEEN = 10  # rank index: 2 = 0 ... Q = 10, K = 11, A = 12
# Fouls whose unavoidable street is found (the latest): ~0.1 ms each, and the shares of
# 2,000 are within about 2 points of all of them.
LOCKED_FOULS = 2_000


TOP_LABELS = (
    "nothing on top",
    "a pair on top",
    "Q, K or A on top",
    "T or J on top",
    "2 to 9 on top",
)
CHASING = ("not chasing", "chasing (Q+ on top by street 2)")


def rate_table(frame: pd.DataFrame, by: str, flag: str = "fouled") -> pd.DataFrame:
    """Per group: hands, events, rate and Wilson 95% interval, average points.

    Groups come out in the order of their values (a categorical ``by`` in the
    order of its categories) and as plain values, not categories.
    """
    sums = frame.groupby(by, sort=True, observed=True).agg(
        hands=(flag, "size"), events=(flag, "sum"), points=("points", "mean")
    )
    rows = []
    for value, hands, events, points in zip(
        sums.index.tolist(), sums["hands"], sums["events"], sums["points"], strict=True
    ):
        rate, low, high = wilson(int(events), int(hands))
        rows.append(
            {
                by: value,
                "hands": int(hands),
                flag: int(events),
                "rate": rate,
                "low": low,
                "high": high,
                "points_per_hand": float(points),
            }
        )
    return pd.DataFrame(rows)


def labelled(codes: npt.NDArray[np.integer], label: Callable[[int], str]) -> pd.Categorical:
    """Per-seat labels as a categorical, categories in the labels' string order.

    One string per distinct code instead of one per seat; grouping on it
    gives the groups in the order grouping the strings would.
    """
    distinct = np.unique(codes)
    names = np.array([label(int(c)) for c in distinct], dtype=object)
    order = np.argsort(names, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return pd.Categorical.from_codes(
        rank[np.searchsorted(distinct, codes)], categories=names[order].tolist()
    )


def locked_street(cards: np.ndarray, streets: np.ndarray, discards: np.ndarray) -> np.ndarray:
    """The street after which each fouled board's foul was unavoidable with the cards that
    came (:func:`~ofc_stats.engine.certain.foul_unavoidable_after`), -1 where unknown.

    ``discards`` holds the discard of streets 1-4 (-1: none, or not recorded); a street
    that placed two cards dealt three, so its -1 is a discard not recorded.  The engine's
    definition, found for every board at once: the boards still sealed after a street are
    asked together, street by street back from the last, each way of playing the later
    cards ranked by the core's row classes (``tests/test_fouls_unavoidable.py`` proves
    it equal to the definition).
    """
    count = len(cards)
    out = np.full(count, -1, dtype=np.int16)
    if count == 0:
        return out
    cards = np.asarray(cards, dtype=np.int64)
    streets = np.asarray(streets, dtype=np.int64)
    last = streets.max(axis=1)
    width = max(int(last.max()) + 1, 5)
    placed = np.stack([(streets == at).sum(axis=1) for at in range(width)], axis=1)
    thrown = np.full((count, width), -1, dtype=np.int64)
    thrown[:, 1:5] = np.asarray(discards, dtype=np.int64)[:, :4]
    told = placed[:, 1:5] == 2
    hidden = (told & (thrown[:, 1:5] < 0)).any(axis=1)
    dealt = (placed == 2) | (thrown >= 0)
    dealt[:, 0] = False
    valid = (streets.min(axis=1) >= 0) & (cards.min(axis=1) >= 0) & (cards.max(axis=1) < 52)
    valid &= ~hidden
    # a card twice on a board or in its discards (the core ranks distinct cards only)
    dropped = np.where(thrown[:, 1:5] >= 0, thrown[:, 1:5], -1 - np.arange(4))
    ordered = np.sort(np.concatenate([cards, dropped], axis=1), axis=1)
    twice = valid & (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    for board in np.flatnonzero(twice).tolist():
        out[board] = _defined(cards[board], streets[board], discards[board])
    rows = np.flatnonzero(valid & ~twice)
    if rows.size == 0:
        return out
    limit = tables().top_limit
    top = classify_three(cards[rows, 0:3]).astype(np.int64)
    middle = classify_five(cards[rows, 3:8]).astype(np.int64)
    bottom = classify_five(cards[rows, 8:13]).astype(np.int64)
    fouled = rows[(top > limit[middle]) | (middle > bottom)]
    out[fouled] = last[fouled]
    active = fouled
    for street in range(int(last.max()) - 1, -1, -1):
        asked = active[last[active] > street]
        if asked.size == 0:
            continue
        saved = _savable(asked, street, cards, streets, thrown, dealt)
        out[asked[~saved]] = street
        active = np.setdiff1d(active, asked[saved])
    return out


def _defined(board: np.ndarray, placed: np.ndarray, dropped: np.ndarray) -> int:
    """One board through the engine's definition (-1: None)."""
    counts = placed.tolist()
    thrown = {
        street: (card if card >= 0 else None)
        for street, card in enumerate(np.asarray(dropped).tolist()[:4], start=1)
        if counts.count(street) == 2 or card >= 0
    }
    found = foul_unavoidable_after(board.tolist(), counts, thrown)
    return -1 if found is None else found


Shape = tuple[tuple[tuple[int, bool], ...], int, int, int]  # later streets, open places


def _savable(
    boards: np.ndarray,
    street: int,
    cards: np.ndarray,
    streets: np.ndarray,
    thrown: np.ndarray,
    dealt: np.ndarray,
) -> np.ndarray:
    """For each of ``boards``: can the later streets' cards finish it unfouled after
    ``street`` (``engine.certain.savable``)?  Boards of one shape (the later streets'
    placed counts and discards, the open places per row) share their ways of playing."""
    groups: dict[Shape, list[int]] = {}
    parts: list[tuple[list[int], list[int], list[int], list[int]]] = []
    for at, board in enumerate(boards.tolist()):
        placed = streets[board].tolist()
        held = cards[board].tolist()
        fixed = [
            [c for c, s in zip(held[part], placed[part], strict=True) if s <= street]
            for part in (slice(0, 3), slice(3, 8), slice(8, 13))
        ]
        later: list[int] = []
        shape: list[tuple[int, bool]] = []
        for at_street in range(street + 1, max(placed) + 1):
            came = [c for c, s in zip(held, placed, strict=True) if s == at_street]
            drop = bool(dealt[board, at_street])
            later += came + ([int(thrown[board, at_street])] if drop else [])
            shape.append((len(came), drop))
        key = (tuple(shape), 3 - len(fixed[0]), 5 - len(fixed[1]), 5 - len(fixed[2]))
        groups.setdefault(key, []).append(at)
        parts.append((fixed[0], fixed[1], fixed[2], later))
    saved = np.zeros(len(boards), dtype=bool)
    limit = tables().top_limit
    for shape_key, members in groups.items():
        top_sets, middle_sets, bottom_sets, plays = _plays(shape_key)
        step = max(1, 2_000_000 // max(len(plays[0]), 1))
        for start in range(0, len(members), step):
            chunk = members[start : start + step]
            top = _classes([parts[m][0] for m in chunk], [parts[m][3] for m in chunk], top_sets)
            middle = _classes(
                [parts[m][1] for m in chunk], [parts[m][3] for m in chunk], middle_sets
            )
            bottom = _classes(
                [parts[m][2] for m in chunk], [parts[m][3] for m in chunk], bottom_sets
            )
            mid = middle[:, plays[1]]
            ok = (top[:, plays[0]] <= limit[mid]) & (mid <= bottom[:, plays[2]])
            saved[chunk] = ok.any(axis=1)
    return saved


def _classes(
    fixed: list[list[int]], later: list[list[int]], subsets: list[tuple[int, ...]]
) -> np.ndarray:
    """Each board's row class for each subset of its later cards added to its fixed cards."""
    pick = np.array(subsets, dtype=np.int64).reshape(len(subsets), -1)
    taken = np.array(later, dtype=np.int64)[:, pick]  # (boards, subsets, open places)
    held = np.array(fixed, dtype=np.int64).reshape(len(fixed), 1, -1)
    row = np.concatenate([np.broadcast_to(held, (*taken.shape[:2], held.shape[2])), taken], 2)
    flat = row.reshape(-1, row.shape[2])
    classes = classify_three(flat) if row.shape[2] == 3 else classify_five(flat)
    return np.asarray(classes, dtype=np.int64).reshape(taken.shape[:2])


@lru_cache(maxsize=256)
def _plays(
    shape: Shape,
) -> tuple[
    list[tuple[int, ...]],
    list[tuple[int, ...]],
    list[tuple[int, ...]],
    tuple[np.ndarray, np.ndarray, np.ndarray],
]:
    """Every way to play the later cards of a shape: which card of each street is dropped,
    which of the kept go to the top and the middle (the bottom takes the rest), as indices
    into each row's distinct subsets of the later cards."""
    later, open_top, open_middle, _ = shape
    options: list[list[tuple[int, ...]]] = []
    at = 0
    for came, drop in later:
        dealt = list(range(at, at + came + drop))
        at += came + drop
        options.append([tuple(dealt)] if not drop else list(combinations(dealt, came)))
    kept = np.array([[i for street in k for i in street] for k in product(*options)], np.int64)
    size = kept.shape[1]
    split: tuple[list[tuple[int, ...]], list[tuple[int, ...]], list[tuple[int, ...]]] = ([], [], [])
    for top in combinations(range(size), open_top):
        rest = [i for i in range(size) if i not in top]
        for middle in combinations(rest, open_middle):
            split[0].append(top)
            split[1].append(middle)
            split[2].append(tuple(i for i in rest if i not in middle))
    sets: list[list[tuple[int, ...]]] = []
    plays: list[np.ndarray] = []
    for places in split:
        taken = kept[:, np.array(places, dtype=np.int64).reshape(len(places), -1)]
        masks = (np.int64(1) << taken).sum(axis=2).reshape(-1)  # a subset of the later cards
        distinct, index = np.unique(masks, return_inverse=True)
        sets.append([tuple(i for i in range(at) if mask >> i & 1) for mask in distinct.tolist()])
        plays.append(index.astype(np.int64))
    return sets[0], sets[1], sets[2], (plays[0], plays[1], plays[2])


def build(scope: Scope) -> Report:
    report = Report("fouls", "Fouls")
    seats = scope.seats(
        "s.played_at, s.seat_count, s.in_fantasy, s.fouled, "
        "s.net_capped AS points, s.top_class, s.middle_class, s.bottom_class",
    )
    normal = seats[~seats["in_fantasy"].astype(bool)].copy()
    fouls = int(normal["fouled"].sum())
    rate, low, high = wilson(fouls, len(normal))
    fl = seats[seats["in_fantasy"].astype(bool)]
    fl_rate = wilson(int(fl["fouled"].sum()), len(fl))
    report.tables["summary"] = pd.DataFrame(
        [
            {
                "hands": "normal hands",
                "count": len(normal),
                "fouls": fouls,
                "rate": rate,
                "low": low,
                "high": high,
            },
            {
                "hands": "Fantasyland hands",
                "count": len(fl),
                "fouls": int(fl["fouled"].sum()),
                "rate": fl_rate[0],
                "low": fl_rate[1],
                "high": fl_rate[2],
            },
        ]
    )
    if normal.empty:
        report.notes.append("No normal hands match these filters.")
        return report
    report.notes.append(
        f"You fouled {rate:.1%} of {plural(len(normal), 'normal hand')} "
        f"(95% interval {low:.1%} to {high:.1%})."
    )

    window = int(min(200, max(20, len(normal) // 10)))
    rolling = normal["fouled"].astype(float).rolling(window, min_periods=window).mean()
    report.tables["over_time"] = pd.DataFrame(
        {
            "hand": np.arange(1, len(normal) + 1),
            "played_at": normal["played_at"].to_numpy(),
            "rolling_rate": rolling.to_numpy(),
        }
    )
    report.figures["over_time"] = line(
        np.arange(1, len(normal) + 1),
        {f"foul rate, last {window} hands": rolling.to_numpy()},
        "Foul rate over time",
        "hand",
        "foul rate",
        percent=True,
    )

    by_players = rate_table(normal, "seat_count")
    report.tables["by_players"] = by_players

    cards = scope.cards("NOT s.in_fantasy")
    first = first_street(cards)
    size = 14  # counts of one street's cards in a row: 0 to 13
    top, middle, bottom = (
        np.asarray(first[k], dtype=np.int64) for k in ("to_top", "to_middle", "to_bottom")
    )
    normal["setup"] = labelled(
        (top * size + middle) * size + bottom,
        lambda c: f"{c // (size * size)}-{c // size % size}-{c % size}",
    )
    # which of TOP_LABELS: nothing, a pair, Q+, T or J, 2 to 9 on top
    rank = np.asarray(first["top_rank"], dtype=np.int64)
    pair = np.asarray(first["top_pair"], dtype=bool)
    case = np.select([rank < 0, pair, rank >= QUEEN, rank >= 8], [0, 1, 2, 3], 4)
    normal["on_top"] = labelled(np.asarray(case, dtype=np.int64), lambda c: TOP_LABELS[c])
    normal["chasing"] = labelled(queen_up(cards, 1).astype(np.int64), lambda c: CHASING[c])
    known = normal[first["known"]].copy()
    if len(known):
        setup = rate_table(known, "setup").sort_values("hands", ascending=False)
        report.tables["by_setup"] = setup.reset_index(drop=True)
        report.captions["by_setup"] = "first five cards as top-middle-bottom counts"
        on_top = rate_table(known, "on_top").sort_values("rate", ascending=False)
        report.tables["by_top_card"] = on_top.reset_index(drop=True)
        shown = setup.head(10).assign(
            label=lambda f: f["setup"] + " (" + f["hands"].astype(str) + ")"
        )
        report.figures["by_setup"] = bars_with_ci(
            shown,
            "label",
            "rate",
            "low",
            "high",
            "Foul rate by first-street setup (top-middle-bottom)",
            "foul rate",
            percent=True,
        )

    report.tables["by_chasing"] = rate_table(known, "chasing")

    fouled = np.flatnonzero(normal["fouled"].to_numpy(dtype=bool))
    if fouled.size:
        latest = fouled[-LOCKED_FOULS:]  # in play order: the latest
        report.tables["locked_street"] = _locked(
            SeatCards(cards.cards[latest], cards.streets[latest], cards.discards[latest])
        )
        over = f" (the latest {LOCKED_FOULS:,} of {fouled.size:,} fouls)"
        report.captions["locked_street"] = (
            "the street after which the foul was unavoidable: no way of playing the cards that "
            "came next (which to discard, where to place the rest) finished the board unfouled; "
            "unknown where a discard was not recorded"
            + (over if fouled.size > LOCKED_FOULS else "")
        )
    return report


def _locked(cards: SeatCards) -> pd.DataFrame:
    """Fouled boards by the street their foul became unavoidable."""
    street = locked_street(cards.cards, cards.streets, cards.discards)
    labels = np.where(street < 0, "unknown", np.char.add("street ", (street + 1).astype(str)))
    counts = (
        pd.Series(labels).value_counts().rename_axis("unavoidable after").reset_index(name="fouls")
    )
    counts["share"] = counts["fouls"] / counts["fouls"].sum()
    return counts.sort_values("unavoidable after").reset_index(drop=True)
