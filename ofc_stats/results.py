"""Stored hands scored again through the batch engine, as Arrow tables.

Input is one import batch's ``hands`` and ``seats`` columns; output is the
``results`` table (one row per seat) and the ``versus`` table (one row per
seat and opponent).  Hands are grouped by ruleset and seat count, and each
group is one :func:`ofc_stats.batch.score_batch` call on NumPy arrays made
straight from the Arrow buffers: no Python call per hand or per seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.batch import BatchResult, score_batch
from ofc_stats.board import BOARD_SIZE
from ofc_stats.errors import OfcError
from ofc_stats.rules import Ruleset

RESULTS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("ruleset", pa.string()),  # the ruleset these results were computed with
        ("status", pa.string()),  # scored | incomplete | unknown ruleset
        ("fouled", pa.bool_()),
        ("top_class", pa.int16()),  # dense strength class; names in the row_classes view
        ("middle_class", pa.int16()),
        ("bottom_class", pa.int16()),
        ("royalty_top", pa.int16()),
        ("royalty_middle", pa.int16()),
        ("royalty_bottom", pa.int16()),
        ("royalties", pa.int16()),
        ("rows_won", pa.int8()),  # summed over opponents
        ("rows_lost", pa.int8()),
        ("rows_tied", pa.int8()),
        ("scoops", pa.int8()),  # opponents this seat won all three rows from
        ("scooped", pa.int8()),  # opponents that won all three rows from this seat
        ("net", pa.int32()),  # points before stack caps
        ("net_capped", pa.float64()),  # points after caps and max loss, as settled
        ("fantasy_entry", pa.int8()),  # cards of the Fantasyland this board earns, 0 = none
        ("fantasy_stays", pa.bool_()),  # a Fantasyland seat keeps Fantasyland
        ("repeat_cards", pa.int8()),  # cards of that repeat, 0 = none or unknown
        ("fantasy_next", pa.int8()),  # cards the rules deal next hand, 0 = normal, null = unknown
    ]
)
VERSUS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("opponent", pa.int8()),
        ("rows_won", pa.int8()),
        ("rows_lost", pa.int8()),
        ("rows_tied", pa.int8()),
        ("scoop", pa.bool_()),
        ("points", pa.int32()),  # uncapped, royalties included
    ]
)
SCORED = "scored"
INCOMPLETE = "incomplete"
UNKNOWN_RULESET = "unknown ruleset"

RulesetLookup = Callable[[str], Ruleset]


@dataclass(frozen=True)
class Scored:
    results: pa.Table
    versus: pa.Table


def _boards(
    column: pa.ChunkedArray | pa.Array,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """(N, 13) card ids and validity from a fixed_size_binary(13) column, without copying rows."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if array.type != pa.binary(BOARD_SIZE):  # e.g. a DuckDB BLOB
        array = array.cast(pa.binary(BOARD_SIZE))
    count = len(array)
    data = array.buffers()[1]
    if data is None:
        return np.zeros((count, BOARD_SIZE), np.int8), np.zeros(count, bool)
    start = array.offset * BOARD_SIZE
    cards = np.frombuffer(data, dtype=np.int8, count=count * BOARD_SIZE, offset=start)
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    return cards.reshape(count, BOARD_SIZE), valid


def _numbers(column: pa.ChunkedArray, fill: float, dtype: type) -> npt.NDArray[np.generic]:
    return np.asarray(pc.fill_null(column, fill).to_numpy(), dtype=dtype)


def _seat_order(hands: pa.Table, seats: pa.Table) -> tuple[pa.Table, npt.NDArray[np.int64]]:
    """Seats grouped by hand in the hands' order, and each hand's first seat row.

    Importers write seats hand by hand in that order; anything else is sorted.
    """
    counts = hands["seat_count"].to_numpy().astype(np.int64)
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    if int(counts.sum()) == seats.num_rows:
        firsts = pc.take(seats["hand_key"], pa.array(starts)) if len(starts) else None
        if firsts is None or firsts.equals(hands["hand_key"]):
            return seats, starts
    order = {key: i for i, key in enumerate(hands["hand_key"].to_pylist())}
    position = pa.array([order.get(k, len(order)) for k in seats["hand_key"].to_pylist()])
    seats = seats.append_column("_pos", position).sort_by(
        [("_pos", "ascending"), ("seat", "ascending")]
    )
    seats = seats.drop_columns(["_pos"])
    if int(counts.sum()) != seats.num_rows:
        raise OfcError("seats table does not match the hands' seat counts")
    return seats, starts


def score_tables(
    hands: pa.Table,
    seats: pa.Table,
    lookup: RulesetLookup,
    *,
    ruleset: Ruleset | None = None,
    forced_fouls: npt.NDArray[np.bool_] | None = None,
) -> Scored:
    """Score the hands of one batch; ``ruleset`` overrides each hand's own.

    ``forced_fouls`` (one flag per seat row, in the seats' order) replaces the
    boards' own foul verdicts, for the audit's "what if" questions.
    """
    seats, starts = _seat_order(hands, seats)
    hand_count = hands.num_rows
    rows = seats.num_rows
    counts = hands["seat_count"].to_numpy().astype(np.int64)
    boards, valid = _boards(seats["board"])
    hand_valid = np.logical_and.reduceat(valid, starts) if rows else np.zeros(0, bool)
    hand_valid &= hands["complete"].to_numpy(zero_copy_only=False).astype(bool)

    in_fantasy = _numbers(seats["in_fantasy"], False, np.bool_)
    fantasy_cards = _numbers(seats["fantasy_cards"], 0, np.int8)
    stacks = _numbers(seats["stack"], np.nan, np.float64)

    out = _Columns(rows)
    status = np.full(rows, INCOMPLETE, dtype=object)
    used = np.empty(rows, dtype=object)
    names = hands["ruleset"].to_numpy(zero_copy_only=False)
    hand_rows = np.repeat(np.arange(hand_count), counts)
    versus: list[dict[str, npt.NDArray[np.generic]]] = []
    groups = _groups(names, counts, hand_valid, ruleset)
    seat_numbers = seats["seat"].to_numpy().astype(np.int8)
    for (name, seat_count), members in groups.items():
        index = starts[members][:, None] + np.arange(seat_count)  # (G, S) seat rows
        try:
            rules = ruleset or lookup(name)
        except OfcError:
            status[index.reshape(-1)] = UNKNOWN_RULESET
            continue
        result = score_batch(
            boards[index],
            rules,
            in_fantasy=in_fantasy[index],
            fantasy_cards=fantasy_cards[index],
            stacks=stacks[index] if rules.stack_cap else None,
            check=False,
            forced_fouls=None if forced_fouls is None else forced_fouls[index],
        )
        flat = index.reshape(-1)
        status[flat] = SCORED
        used[flat] = rules.name
        out.fill(flat, result)
        versus.append(_versus(result, index, seat_numbers))
    key_column = pc.take(hands["hand_key"], pa.array(hand_rows))
    if ruleset is not None:
        used[:] = ruleset.name
    else:
        used = np.where(used == None, names[hand_rows], used)  # noqa: E711
    results = out.table(key_column, seats["seat"], used, status)
    return Scored(results, _versus_table(hands, starts, versus))


def _groups(
    names: npt.NDArray[np.object_],
    counts: npt.NDArray[np.int64],
    valid: npt.NDArray[np.bool_],
    override: Ruleset | None,
) -> dict[tuple[str, int], npt.NDArray[np.int64]]:
    """Scorable hands by (ruleset, seat count)."""
    groups: dict[tuple[str, int], npt.NDArray[np.int64]] = {}
    scorable = np.flatnonzero(valid)
    keys = (
        np.asarray(names[scorable], dtype=str) if override is None else np.full(len(scorable), "")
    )
    for name in np.unique(keys).tolist():
        of_name = scorable[keys == name]
        sizes = counts[of_name]
        for size in np.unique(sizes).tolist():
            groups[(name, int(size))] = of_name[sizes == size]
    return groups


class _Columns:
    """Result columns for every seat row, filled group by group."""

    def __init__(self, rows: int) -> None:
        self.valid = np.zeros(rows, dtype=bool)
        self.fouled = np.zeros(rows, dtype=bool)
        self.classes = [np.zeros(rows, dtype=np.int16) for _ in range(3)]
        self.royalty = [np.zeros(rows, dtype=np.int16) for _ in range(3)]
        self.rows_won = np.zeros(rows, dtype=np.int8)
        self.rows_lost = np.zeros(rows, dtype=np.int8)
        self.rows_tied = np.zeros(rows, dtype=np.int8)
        self.scoops = np.zeros(rows, dtype=np.int8)
        self.scooped = np.zeros(rows, dtype=np.int8)
        self.net = np.zeros(rows, dtype=np.int32)
        self.net_capped = np.zeros(rows, dtype=np.float64)
        self.entry = np.zeros(rows, dtype=np.int8)
        self.stays = np.zeros(rows, dtype=bool)
        self.repeat = np.zeros(rows, dtype=np.int8)

    def fill(self, flat: npt.NDArray[np.int64], result: BatchResult) -> None:
        self.valid[flat] = True
        self.fouled[flat] = result.fouled.reshape(-1)
        for target, source in zip(
            self.classes, (result.top_class, result.middle_class, result.bottom_class), strict=True
        ):
            target[flat] = source.reshape(-1)
        for target, source in zip(
            self.royalty,
            (result.royalty_top, result.royalty_middle, result.royalty_bottom),
            strict=True,
        ):
            target[flat] = source.reshape(-1)
        won, lost, tied = _row_outcomes(result)
        self.rows_won[flat] = won.sum(axis=2).reshape(-1)
        self.rows_lost[flat] = lost.sum(axis=2).reshape(-1)
        self.rows_tied[flat] = tied.sum(axis=2).reshape(-1)
        self.scoops[flat] = (won == 3).sum(axis=2).reshape(-1)
        self.scooped[flat] = (lost == 3).sum(axis=2).reshape(-1)
        self.net[flat] = result.net.reshape(-1)
        self.net_capped[flat] = result.net_capped.reshape(-1)
        self.entry[flat] = result.fantasy_cards.reshape(-1)
        self.stays[flat] = result.fantasy_stays.reshape(-1)
        self.repeat[flat] = result.repeat_cards.reshape(-1)

    def table(
        self,
        hand_key: pa.Array,
        seat: pa.ChunkedArray,
        ruleset: npt.NDArray[np.object_],
        status: npt.NDArray[np.object_],
    ) -> pa.Table:
        mask = ~self.valid

        def col(values: npt.NDArray[np.generic], kind: pa.DataType) -> pa.Array:
            return pa.array(values, kind, mask=mask)

        royalties = sum(r.astype(np.int16) for r in self.royalty)
        next_cards = np.where(self.stays, self.repeat, self.entry)
        unknown = self.stays & (self.repeat == 0)  # a repeat whose count the data lacks
        columns = [
            hand_key,
            seat,
            pa.array(ruleset, pa.string()),
            pa.array(status, pa.string()),
            col(self.fouled, pa.bool_()),
            *(col(c, pa.int16()) for c in self.classes),
            *(col(r, pa.int16()) for r in self.royalty),
            col(np.asarray(royalties, np.int16), pa.int16()),
            col(self.rows_won, pa.int8()),
            col(self.rows_lost, pa.int8()),
            col(self.rows_tied, pa.int8()),
            col(self.scoops, pa.int8()),
            col(self.scooped, pa.int8()),
            col(self.net, pa.int32()),
            col(self.net_capped, pa.float64()),
            col(self.entry, pa.int8()),
            col(self.stays, pa.bool_()),
            col(self.repeat, pa.int8()),
            pa.array(next_cards.astype(np.int8), pa.int8(), mask=mask | unknown),
        ]
        return pa.Table.from_arrays(columns, schema=RESULTS)


def _row_outcomes(
    result: BatchResult,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """Rows won, lost and tied by seat i against seat j, each (H, S, S).

    A fouled board loses all three rows to a live one; two fouled boards
    compare no rows (0 won, lost or tied); a seat against itself counts nothing.
    """
    won = np.zeros(result.points.shape, dtype=np.int8)
    lost = np.zeros_like(won)
    for row in (result.top_class, result.middle_class, result.bottom_class):
        diff = row[:, :, None].astype(np.int32) - row[:, None, :]
        won += diff > 0
        lost += diff < 0
    fouled = result.fouled
    mine, theirs = fouled[:, :, None], fouled[:, None, :]
    live = ~mine & ~theirs
    seats = fouled.shape[1]
    live &= ~np.eye(seats, dtype=bool)
    won = np.where(live, won, np.where(~mine & theirs, 3, 0)).astype(np.int8)
    lost = np.where(live, lost, np.where(mine & ~theirs, 3, 0)).astype(np.int8)
    tied = np.where(live, 3 - won - lost, 0).astype(np.int8)
    return won, lost, tied


def _versus(
    result: BatchResult, index: npt.NDArray[np.int64], seat_numbers: npt.NDArray[np.int8]
) -> dict[str, npt.NDArray[np.generic]]:
    won, lost, tied = _row_outcomes(result)
    seats = index.shape[1]
    me, them = np.nonzero(~np.eye(seats, dtype=bool))
    return {
        "row": np.repeat(index[:, 0], len(me)),
        "seat": seat_numbers[index[:, me]].reshape(-1),
        "opponent": seat_numbers[index[:, them]].reshape(-1),
        "rows_won": won[:, me, them].reshape(-1),
        "rows_lost": lost[:, me, them].reshape(-1),
        "rows_tied": tied[:, me, them].reshape(-1),
        "points": result.points[:, me, them].reshape(-1),
    }


def _versus_table(
    hands: pa.Table, starts: npt.NDArray[np.int64], parts: list[dict[str, npt.NDArray[np.generic]]]
) -> pa.Table:
    if not parts:
        return VERSUS.empty_table()
    joined = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    hand_of_row = np.searchsorted(starts, joined["row"], side="right") - 1
    order = np.lexsort((joined["opponent"], joined["seat"], hand_of_row))
    return pa.Table.from_arrays(
        [
            pc.take(hands["hand_key"], pa.array(hand_of_row[order])),
            pa.array(joined["seat"][order].astype(np.int8)),
            pa.array(joined["opponent"][order].astype(np.int8)),
            pa.array(joined["rows_won"][order]),
            pa.array(joined["rows_lost"][order]),
            pa.array(joined["rows_tied"][order]),
            pa.array(joined["rows_won"][order] == 3),
            pa.array(joined["points"][order].astype(np.int32)),
        ],
        schema=VERSUS,
    )
