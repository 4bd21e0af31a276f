"""Street-by-street facts from each seat's 13-byte board and board streets, in NumPy.

A report on a million hands cannot afford to scan the placements table
(about 50 rows a hand); every seat already carries its board, the street of
each board card and its discards in street order, which is all a street
decision needs.  Everything here works on whole arrays of seats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ofc_stats.store.views import board_array

ROW_OF = np.repeat(np.arange(3), (3, 5, 5))  # board position -> 0 top, 1 middle, 2 bottom
QUEEN = 10  # rank index of the queen (2 = 0 ... A = 12)
UNKNOWN = -1


@dataclass(frozen=True)
class SeatCards:
    """Boards of N seats: card ids, the street of each card (-1 unknown), discards by street."""

    cards: npt.NDArray[np.int16]  # (N, 13)
    streets: npt.NDArray[np.int16]  # (N, 13)
    discards: npt.NDArray[np.int16]  # (N, 4): discard of streets 1-4, -1 none or hidden

    @property
    def ranks(self) -> npt.NDArray[np.int16]:
        return self.cards >> 2


def seat_cards(table: pa.Table) -> SeatCards:
    """From a table with ``board``, ``board_streets`` and ``discards`` columns."""
    cards, valid = board_array(table["board"])
    streets, known = board_array(table["board_streets"])
    streets16 = streets.astype(np.int16)
    streets16[~known] = UNKNOWN
    streets16[streets16 == 255] = UNKNOWN
    streets16[~valid] = UNKNOWN
    discards = np.full((table.num_rows, 4), UNKNOWN, dtype=np.int16)
    column = table["discards"].combine_chunks()
    offsets = np.asarray(column.offsets)
    lengths = np.diff(offsets)
    values = np.asarray(column.values.fill_null(-1), dtype=np.int16)
    four = np.flatnonzero(lengths == 4)  # a normal Pineapple seat: one discard a street
    if len(four):
        discards[four] = values[offsets[four][:, None] + np.arange(4)]
    return SeatCards(cards.astype(np.int16), streets16, discards)


def first_street(seats: SeatCards) -> dict[str, npt.NDArray[np.generic]]:
    """Top/middle/bottom counts of the first five cards, the best rank and a pair on top."""
    first = seats.streets == 0
    counts = [first[:, row == ROW_OF].sum(axis=1) for row in range(3)]
    top = first[:, :3]
    top_ranks = np.where(top, seats.ranks[:, :3], -1)
    best = top_ranks.max(axis=1)
    pair = np.zeros(len(first), dtype=bool)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        pair |= top[:, a] & top[:, b] & (top_ranks[:, a] == top_ranks[:, b])
    known = (seats.streets >= 0).all(axis=1)
    return {
        "to_top": counts[0],
        "to_middle": counts[1],
        "to_bottom": counts[2],
        "top_rank": best,
        "top_pair": pair,
        "known": known,
    }


def queen_up(seats: SeatCards, last_street: int) -> npt.NDArray[np.bool_]:
    """A queen or better went to the top row on a street up to ``last_street``."""
    early = (seats.streets[:, :3] >= 0) & (seats.streets[:, :3] <= last_street)
    return np.asarray((early & (seats.ranks[:, :3] >= QUEEN)).any(axis=1), dtype=bool)


Classes = dict[str, tuple[npt.NDArray[np.int16], list[str]]]  # kind -> (codes, labels)

FIRST_LABELS = [f"first five as {t}-{m}-{b}" for t in range(6) for m in range(6) for b in range(6)]
LATER_LABELS = [
    "to " + " + ".join(["top"] * t + ["middle"] * m + ["bottom"] * b)
    for t in range(6)
    for m in range(6)
    for b in range(6)
]
PAIR_LABELS = [
    "kept a dealt pair in one row",
    "split a dealt pair across rows",
    "broke a dealt pair by discarding",
]
DISCARD_LABELS = ["discarded a T or lower", "discarded a Q, K or A"]


def street_decisions(seats: SeatCards, street: int) -> Classes:
    """The decision classes of one street for every seat, as codes (-1: none).

    placement: "first five as T-M-B" or "to top + bottom"; top: a queen or
    better to the top; pair: a dealt pair kept, split or broken by the
    discard; discard: its rank class.  Seats with unknown streets get -1.
    """
    n = len(seats.cards)
    here = seats.streets == street
    known = (seats.streets >= 0).all(axis=1) & here.any(axis=1)
    counts = [np.minimum(here[:, row == ROW_OF].sum(axis=1), 5) for row in range(3)]
    placement = (counts[0] * 36 + counts[1] * 6 + counts[2]).astype(np.int16)
    top = np.where((here[:, :3] & (seats.ranks[:, :3] >= QUEEN)).any(axis=1), 0, -1)
    discard = seats.discards[:, street - 1] if 1 <= street <= 4 else np.full(n, UNKNOWN)
    has_discard = discard >= 0
    discard_rank = np.where(has_discard, discard >> 2, -1)
    discard_code = np.where(~has_discard, -1, (discard_rank >= QUEEN).astype(np.int16))
    pair = _pairs(seats, here, discard_rank, has_discard)
    out: Classes = {
        "placement": (placement, FIRST_LABELS if street == 0 else LATER_LABELS),
        "top": (top.astype(np.int16), ["Q, K or A to the top"]),
        "pair": (pair, PAIR_LABELS),
        "discard": (discard_code.astype(np.int16), DISCARD_LABELS),
    }
    for codes, _ in out.values():
        codes[~known] = -1
    return out


def _pairs(
    seats: SeatCards,
    here: npt.NDArray[np.bool_],
    discard_rank: npt.NDArray[np.int16],
    has_discard: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int16]:
    """What happened to a pair among the street's dealt cards: code into PAIR_LABELS.

    A normal street deals five placed cards or two and a discard, so every pair
    of them is compared directly (whole columns at a time): two of one rank
    with one discarded broke a pair, two placed in different rows split one.
    """
    n = len(here)
    width = int(here.sum(axis=1).max(initial=0))
    # positions of each seat's placed cards, left-aligned (the rest masked out)
    order = np.argsort(~here, axis=1, kind="stable")[:, :width]
    placed = np.take_along_axis(here, order, axis=1)
    ranks = np.where(placed, np.take_along_axis(seats.ranks, order, axis=1), -1)
    rows = np.where(placed, ROW_OF[order], -1)
    ranks = np.column_stack([ranks, np.where(has_discard, discard_rank, -1)]).astype(np.int16)
    rows = np.column_stack([rows, np.full(n, 3)])  # the discard is row 3: no row at all
    last = ranks.shape[1] - 1
    paired = np.zeros(n, dtype=bool)
    split = np.zeros(n, dtype=bool)
    broken = np.zeros(n, dtype=bool)
    for a in range(last + 1):
        for b in range(a + 1, last + 1):
            same = (ranks[:, a] == ranks[:, b]) & (ranks[:, a] >= 0)
            paired |= same
            if b == last:
                broken |= same
            else:
                split |= same & (rows[:, a] != rows[:, b])
    result = np.full(n, -1, dtype=np.int16)
    result[paired] = 0
    result[split] = 1
    result[broken] = 2
    return result


def summarise(table: pa.Table) -> list[dict[str, object]]:
    """Count, mean and sd of final points per (street, kind, decision), by bincount.

    ``table`` has board, board_streets, discards, net_capped and timeout_streets.
    Streets matching the timeout pattern are counted under kind "timeout" only.
    """
    seats = seat_cards(table)
    points = np.asarray(table["net_capped"].to_numpy(zero_copy_only=False), dtype=np.float64)
    timeouts = np.asarray(
        table["timeout_streets"].fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64
    )
    rows: list[dict[str, object]] = []
    last = int(seats.streets.max()) if seats.streets.size else -1
    for street in range(last + 1):
        timed_out = (timeouts >> street) & 1 == 1
        played = (seats.streets == street).any(axis=1)
        for kind, (codes, labels) in street_decisions(seats, street).items():
            use = (codes >= 0) & ~timed_out
            rows += _stats(street, kind, codes[use], points[use], labels)
        flagged = timed_out & played
        if flagged.any():
            rows += _stats(
                street,
                "timeout",
                np.zeros(int(flagged.sum()), np.int16),
                points[flagged],
                ["matches the timeout auto-placement"],
            )
    return rows


def _stats(
    street: int,
    kind: str,
    codes: npt.NDArray[np.int16],
    points: npt.NDArray[np.float64],
    labels: list[str],
) -> list[dict[str, object]]:
    size = len(labels)
    count = np.bincount(codes, minlength=size)
    total = np.bincount(codes, weights=points, minlength=size)
    squares = np.bincount(codes, weights=points * points, minlength=size)
    out = []
    for code in np.flatnonzero(count).tolist():
        n = int(count[code])
        mean = total[code] / n
        var = (squares[code] - n * mean * mean) / (n - 1) if n > 1 else 0.0
        out.append(
            {
                "street": street,
                "kind": kind,
                "decision": labels[code],
                "count": n,
                "mean": float(mean),
                "sd": float(np.sqrt(max(var, 0.0))),
            }
        )
    return out
