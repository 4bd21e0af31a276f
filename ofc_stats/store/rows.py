"""Hand records as the dataset's Arrow rows: the record path of every import."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.records import HandRecord, Quarantined, SeatRecord
from ofc_stats.store.schema import HANDS, PLACEMENTS, QUARANTINE, SEATS


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def hands_table(
    hands: Sequence[HandRecord], batch: str, fingerprints: Sequence[str] | None = None
) -> dict[str, pa.Table]:
    """The hands, seats and placements rows of some hand records.

    Built a column at a time (one comprehension per field, no dict per row);
    ``fingerprints`` are the hands' own when the caller has them (they cost
    an md5 each).
    """
    keys = [hand.hand_key for hand in hands]
    if fingerprints is None:
        fingerprints = [hand.fingerprint for hand in hands]
    h: dict[str, Any] = {name: [getattr(hand, name) for hand in hands] for name in _HAND_FIELDS}
    h["hand_key"] = keys
    h["seat_count"] = [len(hand.seats) for hand in hands]
    h["complete"] = [hand.complete for hand in hands]
    h["fingerprint"] = fingerprints
    h["batch"] = pa.repeat(pa.scalar(batch, pa.string()), len(hands))
    seats = [
        (key, hand, seat) for key, hand in zip(keys, hands, strict=True) for seat in hand.seats
    ]
    s: dict[str, Any] = {
        name: [getattr(seat, name) for _, _, seat in seats] for name in _SEAT_FIELDS
    }
    s["hand_key"] = [key for key, _, _ in seats]
    for row in ("top", "middle", "bottom"):
        s[row] = [list(getattr(seat, row)) for _, _, seat in seats]
    boards, streets, discards = [], [], []
    for hand, group in _by_hand(seats):
        streets_of, discard_street = _streets(hand)
        for seat in group:
            board = seat.top + seat.middle + seat.bottom
            boards.append(bytes(board) if seat.complete else None)
            streets.append(_board_streets(board, streets_of.get(seat.seat)))
            discards.append(_street_order(seat.seat, seat.discards, discard_street))
    s["board"], s["board_streets"], s["discards"] = boards, streets, discards
    placed = [(key, p) for key, hand in zip(keys, hands, strict=True) for p in hand.placements]
    destinations = pc.index_in(
        pa.array([p.destination for _, p in placed], pa.string()), value_set=_DESTINATIONS
    )
    placements = {
        "hand_key": [key for key, _ in placed],
        "seat": [p.seat for _, p in placed],
        "street": [p.street for _, p in placed],
        "card": [p.card for _, p in placed],
        "destination": pa.DictionaryArray.from_arrays(destinations.cast(pa.int8()), _DESTINATIONS),
    }
    return {
        "hands": pa.table(h, schema=HANDS),
        "seats": pa.table(s, schema=SEATS),
        "placements": pa.table(placements, schema=PLACEMENTS),
    }


_HAND_FIELDS = [
    name
    for name in HANDS.names
    if name not in ("hand_key", "seat_count", "complete", "fingerprint", "batch")
]
_SEAT_FIELDS = [
    name
    for name in SEATS.names
    if name not in ("hand_key", "top", "middle", "bottom", "board", "board_streets", "discards")
]
_DESTINATIONS = pa.array(DESTINATIONS, pa.string())


def _by_hand(
    seats: list[tuple[str, HandRecord, SeatRecord]],
) -> list[tuple[HandRecord, list[SeatRecord]]]:
    """The flat seat list grouped back by hand (consecutive, as it was built)."""
    out: list[tuple[HandRecord, list[SeatRecord]]] = []
    for _, hand, seat in seats:
        if not out or out[-1][0] is not hand:
            out.append((hand, []))
        out[-1][1].append(seat)
    return out


def _streets(hand: HandRecord) -> tuple[dict[int, dict[int, int]], dict[tuple[int, int], int]]:
    """Each seat's board card -> street, and (seat, discard) -> street."""
    streets_of: dict[int, dict[int, int]] = {}
    discard_street: dict[tuple[int, int], int] = {}
    for placement in hand.placements:
        if placement.destination != "discard":
            streets_of.setdefault(placement.seat, {})[placement.card] = placement.street
        else:
            discard_street[(placement.seat, placement.card)] = placement.street
    return streets_of, discard_street


def _street_order(
    seat: int, discards: tuple[int, ...] | None, streets: dict[tuple[int, int], int]
) -> list[int] | None:
    """Discards in the order of their streets (as the columnar import stores them)."""
    if discards is None:
        return None
    return sorted(discards, key=lambda card: streets.get((seat, card), 99))


def _board_streets(board: tuple[int, ...], streets: dict[int, int] | None) -> bytes | None:
    """The street each board card was placed on (255 where unknown); None without placements."""
    if streets is None or len(board) != 13:
        return None
    return bytes(min(streets.get(card, 255), 255) for card in board)


def storable(text: str | None) -> str | None:
    """Text Arrow can store: a lone surrogate (refused input can hold one) as its escape."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def quarantine_table(entries: Sequence[Quarantined], batch: str) -> pa.Table:
    """The quarantine rows; their text is what was refused, so it is made storable first."""
    now = _now()
    return pa.table(
        {
            "source_file": [storable(q.source_file) for q in entries],
            "line": [q.line for q in entries],
            "offset": [q.offset for q in entries],
            "hand_id": [storable(q.hand_id) for q in entries],
            "reason": [storable(q.reason) for q in entries],
            "raw_text": [storable(q.raw_text) for q in entries],
            "quarantined_at": [now] * len(entries),
            "batch": [batch] * len(entries),
        },
        schema=QUARANTINE,
    )
