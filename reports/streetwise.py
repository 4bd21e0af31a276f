"""Street-by-street facts from each seat's 13-byte board and board streets, in NumPy.

A report on a million hands cannot afford to scan the placements table
(about 50 rows a hand); every seat already carries its board, the street of
each board card and its discards in street order, which is all a street
decision needs.  Everything here works on whole arrays of seats.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ofc_stats.engine.cards import Rank
from ofc_stats.store.views import board_array, open_dataset

ROW_OF = np.repeat(np.arange(3), (3, 5, 5))  # board position -> 0 top, 1 middle, 2 bottom
ROW_POSITIONS = (slice(0, 3), slice(3, 8), slice(8, 13))  # top, middle, bottom
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

    @cached_property
    def complete(self) -> npt.NDArray[np.bool_]:
        """Seats whose every board card's street is known."""
        return np.asarray((self.streets >= 0).all(axis=1), dtype=bool)

    @cached_property
    def by_position(self) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
        """(streets, ranks) as (13, N): one board position's column contiguous, for speed."""
        return np.ascontiguousarray(self.streets.T), np.ascontiguousarray(self.ranks.T)


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


FOULED_NORMAL = (
    "SELECT s.board, s.board_streets, s.discards FROM seats s JOIN results r "
    "USING (hand_id, seat) WHERE r.fouled AND NOT s.in_fantasy ORDER BY s.hand_id, s.seat"
)


def fouled_boards(data: Path) -> SeatCards:
    """Every fouled normal board of a recomputed dataset (the foul's street questions)."""
    with open_dataset(data) as db:
        return seat_cards(db.sql(FOULED_NORMAL).arrow().read_all())


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
    return np.asarray((early & (seats.ranks[:, :3] >= Rank.QUEEN)).any(axis=1), dtype=bool)


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
    streets, ranks = seats.by_position
    here = streets == street  # (13, N)
    known = seats.complete & here.any(axis=0)
    counts = [np.minimum(here[rows].sum(axis=0), 5) for rows in ROW_POSITIONS]
    placement = (counts[0] * 36 + counts[1] * 6 + counts[2]).astype(np.int16)
    top = np.where((here[:3] & (ranks[:3] >= Rank.QUEEN)).any(axis=0), 0, -1)
    discard = seats.discards[:, street - 1] if 1 <= street <= 4 else np.full(n, UNKNOWN)
    has_discard = discard >= 0
    discard_rank = np.where(has_discard, discard >> 2, -1)
    discard_code = np.where(~has_discard, -1, (discard_rank >= Rank.QUEEN).astype(np.int16))
    pair = _pairs(ranks, here, discard_rank, has_discard)
    out: Classes = {
        "placement": (placement, FIRST_LABELS if street == 0 else LATER_LABELS),
        "top": (top.astype(np.int16), ["Q, K or A to the top"]),
        "pair": (pair, PAIR_LABELS),
        "discard": (discard_code.astype(np.int16), DISCARD_LABELS),
    }
    for codes, _ in out.values():
        codes[~known] = -1
    return out


NIBBLES = np.uint64(0x1111_1111_1111_11)  # the low bit of each rank's 4-bit count (14 ranks)


def _pairs(
    ranks: npt.NDArray[np.int16],
    here: npt.NDArray[np.bool_],
    discard_rank: npt.NDArray[np.int16],
    has_discard: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int16]:
    """What happened to a pair among the street's dealt cards: code into PAIR_LABELS.

    Each row's cards of the street are counted by rank in one 64-bit word, four
    bits a rank (a street deals at most five cards, jokers are rank 13), whole
    columns at a time: two of one rank among the placed cards and the discard
    made a pair; the discard's rank among the placed cards broke it; one rank
    in two rows split it.  ``ranks`` and ``here`` are position-major, (13, N).
    """
    n = here.shape[1]
    rows = np.zeros((3, n), dtype=np.uint64)
    shifts = (ranks.astype(np.uint64) & np.uint64(15)) * np.uint64(4)
    one = np.uint64(1)
    for position in range(13):
        bit = np.where(here[position], one << shifts[position], np.uint64(0))
        rows[ROW_OF[position]] += bit
    placed = rows[0] + rows[1] + rows[2]
    discard_shift = np.where(has_discard, discard_rank, 0).astype(np.uint64) * np.uint64(4)
    discarded = np.where(has_discard, one << discard_shift, np.uint64(0))
    dealt = placed + discarded
    paired = (dealt & (NIBBLES * np.uint64(14))) != 0  # some rank counted twice or more
    broken = has_discard & (((placed >> discard_shift) & np.uint64(15)) != 0)
    present = [(r | (r >> one) | (r >> np.uint64(2)) | (r >> np.uint64(3))) & NIBBLES for r in rows]
    in_rows = present[0] + present[1] + present[2]  # rows holding each rank: 0 to 3
    split = (in_rows & (NIBBLES * np.uint64(2))) != 0  # some rank in two rows or more
    result = np.full(n, -1, dtype=np.int16)
    result[paired] = 0
    result[paired & split] = 1
    result[paired & broken] = 2
    return result


def summarise(table: pa.Table) -> list[dict[str, object]]:
    """Count, mean and sd of final points per (street, kind, decision), by bincount.

    ``table`` has board, board_streets, discards, net_capped and flagged_timeouts
    (the SQL macro of that name: stored timeout bits only where the format can
    tell a timeout).  Flagged streets are counted under kind "timeout" only.
    """
    seats = seat_cards(table)
    points = np.asarray(table["net_capped"].to_numpy(zero_copy_only=False), dtype=np.float64)
    timeouts = np.asarray(
        table["flagged_timeouts"].fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64
    )
    rows: list[dict[str, object]] = []
    last = int(seats.streets.max()) if seats.streets.size else -1
    for street in range(last + 1):
        timed_out = (timeouts >> street) & 1 == 1
        played = (seats.by_position[0] == street).any(axis=0)
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
