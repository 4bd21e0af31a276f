"""Stored hands scored again through the batch engine, as Arrow tables.

Input is one import batch's ``hands`` and ``seats`` columns; output is the
``results`` table (one row per seat) and the ``versus`` table (one row per
pair of seats, seat < opponent, as stored: the view adds the other way
round).  Hands are grouped by ruleset and seat count, and each group is one
:func:`ofc_stats.core.scoring.score_batch` call on NumPy arrays made
straight from the Arrow buffers: no Python call per hand or per seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.core.scoring import BatchResult, score_batch
from ofc_stats.core.timeout import timeout_mask
from ofc_stats.engine.board import BOARD_SIZE
from ofc_stats.engine.rules import Ruleset, Variant
from ofc_stats.errors import OfcError
from ofc_stats.store.schema import PAIRS, RESULTS
from ofc_stats.store.streets import recorded_bits

SCORED = "scored"
INCOMPLETE = "incomplete"
UNKNOWN_RULESET = "unknown ruleset"

RulesetLookup = Callable[[str], Ruleset]


@dataclass(frozen=True)
class Scored:
    results: pa.Table
    versus: pa.Table


def board_array(
    column: pa.ChunkedArray | pa.Array,
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """(N, 13) card ids and validity from a fixed_size_binary(13) column, without copying rows."""
    if isinstance(column, pa.ChunkedArray):  # one chunk (a file read whole) is not copied
        array = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    else:
        array = column
    if array.type != pa.binary(BOARD_SIZE):  # e.g. a DuckDB BLOB
        array = array.cast(pa.binary(BOARD_SIZE))
    count = len(array)
    data = array.buffers()[1]
    if data is None:
        return np.zeros((count, BOARD_SIZE), np.int8), np.zeros(count, bool)
    start = array.offset * BOARD_SIZE
    cards = np.frombuffer(data, dtype=np.int8, count=count * BOARD_SIZE, offset=start)
    if array.null_count == 0:
        valid = np.ones(count, bool)
    else:
        valid = array.is_valid().to_numpy(zero_copy_only=False)
    return cards.reshape(count, BOARD_SIZE), valid


def _numbers(column: pa.ChunkedArray, fill: float, dtype: type) -> npt.NDArray[np.generic]:
    return np.asarray(pc.fill_null(column, fill).to_numpy(), dtype=dtype)


def key_column(hands: pa.Table, seats: pa.Table) -> str:
    """The column that ties seats to hands: ``hand_id`` when both have it (stored tables)."""
    both = set(hands.column_names) & set(seats.column_names)
    return "hand_id" if "hand_id" in both else "hand_key"


def _seat_order(hands: pa.Table, seats: pa.Table) -> tuple[pa.Table, npt.NDArray[np.int64]]:
    """Seats grouped by hand in the hands' order, and each hand's first seat row.

    Importers write seats hand by hand in that order; anything else is sorted.
    """
    key = key_column(hands, seats)
    counts = hands["seat_count"].to_numpy().astype(np.int64)
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    if int(counts.sum()) == seats.num_rows:
        if key == "hand_id" and not (hands[key].null_count or seats[key].null_count):
            ids = np.asarray(seats[key].to_numpy())  # integers: compared in NumPy
            if np.array_equal(ids[starts], np.asarray(hands[key].to_numpy())):
                return seats, starts
        else:
            firsts = pc.take(seats[key], pa.array(starts)) if len(starts) else None
            if firsts is None or firsts.equals(hands[key]):
                return seats, starts
    position = pc.index_in(seats[key], value_set=hands[key].combine_chunks())
    position = pc.fill_null(position, len(counts))
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
    boards' own foul verdicts, for the audit's "what if" questions.  The timeouts
    each hand's text records are read from ``hands``' ``format`` and ``raw_text``
    when given (recompute's ``HAND_COLUMNS``); without them ``recorded_timeouts``
    is null, not read (a rescoring copies the stored ones:
    ``recompute.stored_timeouts``).
    """
    seats, starts = _seat_order(hands, seats)
    rows = seats.num_rows
    counts = hands["seat_count"].to_numpy().astype(np.int64)
    boards, valid = board_array(seats["board"])
    complete = hands["complete"].to_numpy(zero_copy_only=False).astype(bool)
    if valid.all():  # every board stored: a hand is scorable when it is complete
        hand_valid = complete
    else:
        hand_valid = np.logical_and.reduceat(valid, starts) if rows else np.zeros(0, bool)
        hand_valid &= complete
    streets = _street_column(seats, rows)

    in_fantasy = _numbers(seats["in_fantasy"], False, np.bool_)
    fantasy_cards = _numbers(seats["fantasy_cards"], 0, np.int8)
    stacks = _numbers(seats["stack"], np.nan, np.float64)

    out = _Columns(rows)
    # Per seat row: 0 = incomplete, 1 = scored, 2 = unknown ruleset; which ruleset name.
    status = np.zeros(rows, dtype=np.int8)
    names = hands["ruleset"].combine_chunks().dictionary_encode()
    name_list = names.dictionary.to_pylist()
    name_code = np.asarray(names.indices.fill_null(0).to_numpy(), dtype=np.int32)
    used_names = list(name_list) if ruleset is None else [ruleset.name]
    if ruleset is not None or (len(name_code) and bool((name_code == name_code[0]).all())):
        used = np.full(rows, 0 if ruleset is not None else name_code[0], np.int32)
    else:
        used = np.repeat(name_code, counts)
    versus: list[dict[str, npt.NDArray[np.generic]]] = []
    seat_numbers = seats["seat"].to_numpy().astype(np.int8)
    variants: dict[Variant, list[npt.NDArray[np.int64]]] = {}
    for (code, seat_count), members in _groups(name_code, counts, hand_valid, ruleset).items():
        index = starts[members][:, None] + np.arange(seat_count)  # (G, S) seat rows
        flat = index.reshape(-1)
        # One group holding every hand (the usual batch): views, not gathers.
        whole = len(members) == len(counts)
        try:
            rules = ruleset or lookup(name_list[code])
        except OfcError:
            status[flat] = 2
            continue
        group_stacks = _rows(stacks, index, whole) if rules.stack_cap else None
        if group_stacks is not None and np.isnan(group_stacks).all():
            group_stacks = None  # no stack known: caps change nothing
        result = score_batch(
            _rows(boards, index, whole),
            rules,
            in_fantasy=_rows(in_fantasy, index, whole),
            fantasy_cards=_rows(fantasy_cards, index, whole),
            stacks=group_stacks,
            check=False,
            forced_fouls=None if forced_fouls is None else _rows(forced_fouls, index, whole),
        )
        status[flat] = 1
        out.fill(index, whole, result)
        variants.setdefault(rules.variant, []).append(flat)
        versus.append(_versus(result, index, seat_numbers))
    if streets is not None:  # one pass per variant over all its seats, not one per group
        for variant, parts in variants.items():
            flat = parts[0] if len(parts) == 1 else np.concatenate(parts)
            if len(flat) == rows:  # every seat row plays this variant: no gather
                out.timeout_streets = timeout_mask(streets, np.asarray(in_fantasy, bool), variant)
            else:
                fantasy = np.asarray(in_fantasy[flat], bool)
                out.timeouts(flat, timeout_mask(streets[flat], fantasy, variant))
    if "raw_text" in hands.column_names and "format" in hands.column_names:
        hand_of_row = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        out.recorded = recorded_bits(hands["format"], hands["raw_text"], hand_of_row, seat_numbers)
    else:
        out.recorded = None
    names = [name for name in KEYS if name in seats.column_names]
    results = out.table(
        names,
        [seats.column(name) for name in names],
        seats["seat"],
        pa.DictionaryArray.from_arrays(pa.array(used, pa.int32()), pa.array(used_names)),
        pa.DictionaryArray.from_arrays(pa.array(status), pa.array(STATUSES)),
    )
    return Scored(results, _versus_table(seats, versus))


KEYS = ("hand_key", "hand_id")  # passed from seats to results and versus when present


def _rows(values: npt.NDArray[Any], index: npt.NDArray[np.int64], whole: bool) -> npt.NDArray[Any]:
    """(G, S, ...) per-seat values of a group: a view when it is every row in order."""
    if whole:
        return values.reshape(index.shape + values.shape[1:])
    return values[index]


STATUSES = (INCOMPLETE, SCORED, UNKNOWN_RULESET)


def _street_column(seats: pa.Table, rows: int) -> npt.NDArray[np.int8] | None:
    """(N, 13) street of each board card, -1 unknown; None when the column is absent."""
    if "board_streets" not in seats.column_names:
        return None
    streets, known = board_array(seats["board_streets"])
    if known.all():
        return streets
    streets = streets.copy()
    streets[~known] = -1
    return streets


def _groups(
    codes: npt.NDArray[np.int32],
    counts: npt.NDArray[np.int64],
    valid: npt.NDArray[np.bool_],
    override: Ruleset | None,
) -> dict[tuple[int, int], npt.NDArray[np.int64]]:
    """Scorable hands by (ruleset code, seat count), on integer codes."""
    scorable = np.flatnonzero(valid)
    if len(scorable) == len(valid) and len(valid):  # every hand scorable: often one group
        one_code = override is not None or bool((codes == codes[0]).all())
        if one_code and bool((counts == counts[0]).all()):
            return {(0 if override is not None else int(codes[0]), int(counts[0])): scorable}
    keys = (codes[scorable] if override is None else np.zeros(len(scorable), np.int32)) * 8
    keys = keys.astype(np.int64) + counts[scorable]
    groups: dict[tuple[int, int], npt.NDArray[np.int64]] = {}
    for key in np.unique(keys).tolist():
        groups[(key // 8, key % 8)] = scorable[keys == key]
    return groups


class _Columns:
    """Result columns for every seat row, filled group by group."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
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
        self.next = np.zeros(rows, dtype=np.int8)
        self.timeout_streets = np.zeros(rows, dtype=np.int16)
        # whatever the status: a fact of the text; None when the text was not read
        self.recorded: npt.NDArray[np.int16] | None = np.zeros(rows, dtype=np.int16)

    def fill(
        self,
        index: npt.NDArray[np.int64],
        whole: bool,
        result: BatchResult,
    ) -> None:
        """Put one group's (G, S) results at its seat rows ``index``.

        A group of every row in order (``whole``, the usual batch) adopts the
        result's arrays as they are (a view, no copy); any other is a scatter.
        """

        def put(target: npt.NDArray[Any], source: npt.NDArray[Any]) -> npt.NDArray[Any]:
            if whole:
                return np.asarray(source, dtype=target.dtype).reshape(-1)
            target[index] = source
            return target

        if whole:
            self.valid[...] = True
        else:
            self.valid[index] = True
        self.fouled = put(self.fouled, result.fouled)
        sources = (result.top_class, result.middle_class, result.bottom_class)
        self.classes = [put(t, c) for t, c in zip(self.classes, sources, strict=True)]
        sources = (result.royalty_top, result.royalty_middle, result.royalty_bottom)
        self.royalty = [put(t, r) for t, r in zip(self.royalty, sources, strict=True)]
        self.rows_won = put(self.rows_won, result.rows_won)
        self.rows_lost = put(self.rows_lost, result.rows_lost)
        self.rows_tied = put(self.rows_tied, result.rows_tied)
        self.scoops = put(self.scoops, result.scoops)
        self.scooped = put(self.scooped, result.scooped)
        self.net = put(self.net, result.net)
        self.net_capped = put(self.net_capped, result.net_capped)
        self.entry = put(self.entry, result.fantasy_cards)
        self.stays = put(self.stays, result.fantasy_stays)
        self.repeat = put(self.repeat, result.repeat_cards)
        self.next = put(self.next, result.next_cards)

    def timeouts(self, flat: npt.NDArray[np.int64], mask: npt.NDArray[np.int16]) -> None:
        self.timeout_streets[flat] = mask

    def table(
        self,
        names: list[str],
        keys: list[pa.ChunkedArray],
        seat: pa.ChunkedArray,
        ruleset: pa.Array,
        status: pa.Array,
    ) -> pa.Table:
        all_valid = bool(self.valid.all())
        mask = None if all_valid else ~self.valid

        def col(values: npt.NDArray[np.generic], kind: pa.DataType) -> pa.Array:
            return pa.array(values, kind, mask=mask)

        royalties = self.royalty[0] + self.royalty[1] + self.royalty[2]
        unknown = self.stays & (self.next == 0)  # a repeat whose count the data lacks
        next_mask = unknown if mask is None else mask | unknown
        timeouts = np.bitwise_count(self.timeout_streets.view(np.uint16)).astype(np.int8)
        columns = [
            *keys,
            seat,
            ruleset,
            status,
            col(self.fouled, pa.bool_()),
            *(col(c, pa.int16()) for c in self.classes),
            *(col(r, pa.int16()) for r in self.royalty),
            col(royalties, pa.int16()),
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
            pa.array(self.next, pa.int8(), mask=next_mask if next_mask.any() else None),
            col(self.timeout_streets, pa.int16()),
            col(timeouts, pa.int8()),
            pa.nulls(self.rows, pa.int16())
            if self.recorded is None
            else pa.array(self.recorded, pa.int16()),
        ]
        return pa.Table.from_arrays(columns, schema=_keyed(RESULTS, names))


def _pairs(seats: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(me, them) of every ordered seat pair, me-major: the versus rows of one hand."""
    me, them = np.nonzero(~np.eye(seats, dtype=bool))
    return me.astype(np.int64), them.astype(np.int64)


def _versus(
    result: BatchResult,
    index: npt.NDArray[np.int64],
    seat_numbers: npt.NDArray[np.int8],
) -> dict[str, npt.NDArray[np.generic]]:
    """Hand-major pair rows of one group: (hand, seat, opponent) in seat order."""
    me, them = _pairs(index.shape[1])
    once = me < them  # each pair once; the view adds the other way round
    me, them = me[once], them[once]
    return {
        "row": index[:, me].reshape(-1),  # the seat row of "me"
        "opponent": seat_numbers[index[:, them]].reshape(-1),
        "rows_won": result.pair_won[:, me, them].reshape(-1),
        "rows_lost": result.pair_won[:, them, me].reshape(-1),
        "rows_tied": result.pair_tied[:, me, them].reshape(-1),
        "points": result.points[:, me, them].reshape(-1),
    }


def _keyed(schema: pa.Schema, names: list[str]) -> pa.Schema:
    """``schema`` with only the key columns the seats had (stored tables: ``hand_id``)."""
    return pa.schema([f for f in schema if f.name not in KEYS or f.name in names])


def _versus_table(seats: pa.Table, parts: list[dict[str, npt.NDArray[np.generic]]]) -> pa.Table:
    names = [name for name in KEYS if name in seats.column_names]
    schema = _keyed(PAIRS, names)
    if not parts:
        return schema.empty_table()
    if len(parts) == 1:
        joined = parts[0]
    else:  # several groups: back into the seats' order
        joined = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
        order = np.argsort(joined["row"], kind="stable")
        joined = {name: values[order] for name, values in joined.items()}
    rows = pa.array(joined["row"])
    return pa.Table.from_arrays(
        [
            *(pc.take(seats[name], rows) for name in names),
            pc.take(seats["seat"], rows),
            pa.array(joined["opponent"].astype(np.int8)),
            pa.array(joined["rows_won"]),
            pa.array(joined["rows_lost"]),
            pa.array(joined["rows_tied"]),
            pa.array(joined["points"].astype(np.int32)),
        ],
        schema=schema,
    )
