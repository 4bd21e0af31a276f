"""The core's import decoders: a block of lines to the dataset's hands, seats and placements.

``_core.AppDecoder``, ``_core.OpenDecoder`` and ``_core.SwcDecoder``
(``rust/ofc-core/src/decode``) decode whole lines, ``_core.FpdbDecoder``
database rows, into plain vectors with the GIL released; here they become
Arrow arrays without a copy (``from_buffers`` over the NumPy arrays the
vectors moved into).  What the
core leaves to the readable reader comes back as units of lines, in file
order (:class:`Decoded`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pyarrow as pa

import ofc_stats._core as _core
from ofc_stats.engine.board import DESTINATIONS

CARDS = pa.list_(pa.int8())
_DESTINATIONS = pa.array(DESTINATIONS, pa.string())
HANDS = 0  # a unit of decoded hands (start, stop: hand indices)
LINES = 1  # a unit of lines for the readable reader (start, stop: bytes of the block)

# rule text -> (preset name, max seats, deck size), or None where the definition refuses it
Resolver = Callable[[str], tuple[str, int, int] | None]
Decoder: TypeAlias = _core.AppDecoder | _core.OpenDecoder


def decoder(format_name: str, resolve: Resolver) -> Decoder:
    """A decoder for one file of ``app-json`` or ``open``."""
    if format_name == "app-json":
        return _core.AppDecoder(resolve)
    return _core.OpenDecoder(resolve)


def count_lines(block: bytes) -> int:
    """The lines of ``block`` (its newlines, one more if the last has none), counted by the
    core without the GIL: NumPy's compare-and-count took a third of a microsecond a hand
    and a 4 MB temporary a block."""
    return _core.count_lines(block)


def fpdb_decoder(resolve: Resolver) -> _core.FpdbDecoder:
    """A decoder for the rows of one fpdb-3 database."""
    return _core.FpdbDecoder(resolve)


def swc_decoder(resolve: Resolver) -> _core.SwcDecoder:
    """A decoder for one SwC capture file."""
    return _core.SwcDecoder(resolve)


def _validity(valid: npt.NDArray[np.bool_]) -> tuple[pa.Buffer | None, int]:
    nulls = len(valid) - int(np.count_nonzero(valid))
    if nulls == 0:
        return None, 0
    return pa.py_buffer(np.packbits(valid, bitorder="little")), nulls


def _strings(d: dict[str, Any], name: str) -> pa.Array:
    offsets = d[f"{name}.offsets"]
    validity, nulls = _validity(d[f"{name}.valid"])
    return pa.StringArray.from_buffers(
        len(offsets) - 1,
        pa.py_buffer(offsets),
        pa.py_buffer(d[f"{name}.data"]),
        validity,
        nulls,
    )


def _primitive(d: dict[str, Any], name: str, kind: pa.DataType) -> pa.Array:
    values = d[name]
    validity, nulls = _validity(d[f"{name}.valid"])
    return pa.Array.from_buffers(kind, len(values), [validity, pa.py_buffer(values)], nulls)


def _lists(d: dict[str, Any], name: str) -> pa.Array:
    offsets = d[f"{name}.offsets"]
    validity, nulls = _validity(d[f"{name}.valid"])
    values = pa.array(d[f"{name}.values"], pa.int8())
    return pa.Array.from_buffers(
        CARDS, len(offsets) - 1, [validity, pa.py_buffer(offsets)], nulls, children=[values]
    )


def _fixed13(d: dict[str, Any], name: str) -> pa.Array:
    values = d[name]
    validity, nulls = _validity(d[f"{name}.valid"])
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(13), len(values) // 13, [validity, pa.py_buffer(values)], nulls
    )


def _constant(text: str, count: int) -> pa.Array:
    data = text.encode("utf-8")
    offsets = np.arange(count + 1, dtype=np.int32) * len(data)
    return pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(data * count))


@dataclass
class Decoded:
    """One block: its decoded hands as tables, and the units in file order.

    ``units`` rows are (kind, start, stop, first line): :data:`HANDS` for
    hands ``start..stop``, :data:`LINES` for bytes ``start..stop`` of the
    block that the readable reader reads.  ``span_*`` give each decoded
    hand's bytes and first line with the blank lines before it, for the app
    splitter to read again when it is not idle.  The seats and placements
    tables carry one last column, ``source_line``, that ties them to their hand
    (dictionary-coded: their ``hand_key`` indices over the hands' lines).
    """

    hands: pa.Table
    seats: pa.Table
    placements: pa.Table
    units: npt.NDArray[np.int64]
    span_start: npt.NDArray[np.int64]
    span_stop: npt.NDArray[np.int64]
    span_line: npt.NDArray[np.int64]
    seat_at: npt.NDArray[np.int64]  # each hand's first seat row, and one more: the end
    card_at: npt.NDArray[np.int64]  # each hand's first placement row, and the end
    consumed: int
    consumed_lines: int

    def slice(self, start: int, stop: int) -> tuple[pa.Table, pa.Table, pa.Table]:
        """Hands ``start..stop`` with their seats and placements (the rows not copied).

        The seats' and placements' ``hand_key`` index the slice's own hands
        (the store gives them their ids by position).
        """
        if start == 0 and stop == self.hands.num_rows:
            return self.hands, self.seats, self.placements
        s0, s1 = int(self.seat_at[start]), int(self.seat_at[stop])
        c0, c1 = int(self.card_at[start]), int(self.card_at[stop])
        hands = self.hands.slice(start, stop - start)
        keys = hands["hand_key"].chunk(0)
        return (
            hands,
            _rebased(self.seats.slice(s0, s1 - s0), start, keys),
            _rebased(self.placements.slice(c0, c1 - c0), start, keys),
        )


def _rebased(table: pa.Table, start: int, keys: pa.Array) -> pa.Table:
    """``table`` with its ``hand_key`` indices counted from hand ``start``, over ``keys``."""
    indices = np.asarray(table["hand_key"].chunk(0).indices, np.int32) - np.int32(start)
    column = pa.DictionaryArray.from_arrays(pa.array(indices), keys, safe=False)
    return table.set_column(0, table.schema.field("hand_key").with_type(column.type), column)


def decode(
    core: Decoder,
    data: bytes,
    first_line: int,
    first_offset: int,
    *,
    last: bool,
    format_name: str,
    source: str,
) -> Decoded:
    """Decode a block of whole lines (``last``: the file ends with it)."""
    d = core.decode(data, first_line, first_offset, first_offset == 0, last)
    return _decoded(d, format_name, source, offsets=True)


def decode_rows(
    core: _core.FpdbDecoder,
    rows: list[tuple[int | None, str | None, str, Any]],
    format_name: str,
    source: str,
) -> Decoded:
    """Decode database rows, each (row id, hand number, table name, raw text) as fetched
    (their ids are the hands' lines; they have no byte offsets).  A row with no id, or
    whose raw text is not a ``str``, is the readable reader's.

    Units of :data:`LINES` are rows ``start..stop`` for the readable reader.
    """
    return _decoded(core.decode(rows), format_name, source, offsets=False)


def decode_swc(
    core: _core.SwcDecoder,
    block: tuple[bytes, list[bytes], int],
    first_line: int,
    *,
    last: bool,
    source: str,
) -> tuple[Decoded, Any]:
    """Decode a block of whole capture lines, given as ``(head, reads, end)``: ``head`` then
    the reads, the last to byte ``end`` (the core reads the parts: no copy joins them); the
    hands the core folded, and where it stopped for the readable reader (None: it did not)."""
    d = core.decode(*block, first_line, last)
    return _decoded(d, "swc", source, offsets=False), d["stop"]


def _decoded(d: dict[str, Any], format_name: str, source: str, *, offsets: bool) -> Decoded:
    count = len(d["line"])
    hand_key = _strings(d, "hand_key")
    line = d["line"]
    lines = pa.array(line, pa.int64())
    presets = pa.array(d["presets"], pa.string())
    hands = pa.table(
        {
            "hand_key": hand_key,
            "format": _constant(format_name, count),
            "room": _strings(d, "room"),
            "table_id": _strings(d, "table_id"),
            "room_hand_id": _strings(d, "room_hand_id"),
            "played_at": _primitive(d, "played_at", pa.timestamp("us")),
            "rules_text": _strings(d, "rules_text"),
            "ruleset": presets.take(pa.array(d["preset"])),
            "seat_count": pa.array(d["seat_count"], pa.int8()),
            "complete": pa.array(d["complete"], pa.bool_()),
            "stakes": _primitive(d, "stakes", pa.float64()),
            "currency": _strings(d, "currency"),
            "source_file": _constant(source, count),
            "source_line": lines,
            "source_offset": pa.array(d["offset"], pa.int64())
            if offsets
            else pa.nulls(count, pa.int64()),
            "raw_text": _strings(d, "raw_text"),
            "fingerprint": pa.StringArray.from_buffers(
                count,
                pa.py_buffer(np.arange(count + 1, dtype=np.int32) * 16),
                pa.py_buffer(d["fingerprint"]),
            ),
            "batch": _constant("", count),
        }
    )
    seat_hand = pa.array(d["seat_hand"])
    seats = pa.table(
        {
            "hand_key": pa.DictionaryArray.from_arrays(seat_hand, hand_key),
            "seat": pa.array(d["seat"], pa.int8()),
            "player": _strings(d, "player"),
            "player_id": _strings(d, "player_id"),
            "hero": pa.array(d["hero"], pa.bool_()),
            "in_fantasy": pa.array(d["in_fantasy"], pa.bool_()),
            "fantasy_cards": _primitive(d, "fantasy_cards", pa.int8()),
            "top": _lists(d, "top"),
            "middle": _lists(d, "middle"),
            "bottom": _lists(d, "bottom"),
            "board": _fixed13(d, "board"),
            "board_streets": _fixed13(d, "board_streets"),
            "discards": _lists(d, "discards"),
            "reported_points": _primitive(d, "reported_points", pa.float64()),
            "reported_money": _primitive(d, "reported_money", pa.float64()),
            "stack": _primitive(d, "stack", pa.float64()),
            "source_line": pa.DictionaryArray.from_arrays(seat_hand, lines),
        }
    )
    card_hand = d["card_hand"]  # ascending: a hand's placements follow one another
    # each hand's first placement row (the search in card_hand's own dtype: no int64 copy)
    card_at = np.searchsorted(card_hand, np.arange(count + 1, dtype=card_hand.dtype))
    card_index = pa.array(card_hand)
    placements = pa.table(
        {
            "hand_key": pa.DictionaryArray.from_arrays(card_index, hand_key),
            "seat": pa.array(d["card_seat"], pa.int8()),
            "street": pa.array(d["street"], pa.int8()),
            "card": pa.array(d["card"], pa.int8()),
            "destination": pa.DictionaryArray.from_arrays(
                pa.array(d["destination"], pa.int8()), _DESTINATIONS
            ),
            # the hand_key's indices over the hands' lines: no 8 bytes a row (a fresh 1.2 MB
            # a block for the kernel to zero, ~43 rows a hand) laid out per row
            "source_line": pa.DictionaryArray.from_arrays(card_index, lines),
        }
    )
    seat_at = np.zeros(count + 1, np.int64)
    np.cumsum(d["seat_count"], out=seat_at[1:])
    return Decoded(
        hands=hands,
        seats=seats,
        placements=placements,
        units=d["units"],
        span_start=d["span_start"],
        span_stop=d["span_stop"],
        span_line=d["span_line"],
        seat_at=seat_at,
        card_at=card_at.astype(np.int64),
        consumed=d["consumed"],
        consumed_lines=d["consumed_lines"],
    )
