"""Hand records as the dataset's Arrow rows: the record path of every import."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.records import HandRecord, Quarantined
from ofc_stats.store.schema import HANDS, PLACEMENTS, QUARANTINE, SEATS


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def hands_table(hands: Sequence[HandRecord], batch: str) -> dict[str, pa.Table]:
    """The hands, seats and placements rows of some hand records."""
    h: dict[str, list[Any]] = {name: [] for name in HANDS.names}
    s: dict[str, list[Any]] = {name: [] for name in SEATS.names}
    p: dict[str, list[Any]] = {name: [] for name in PLACEMENTS.names}
    for hand in hands:
        key = hand.hand_key
        streets_of: dict[int, dict[int, int]] = {}
        discard_street: dict[tuple[int, int], int] = {}
        for placement in hand.placements:
            if placement.destination != "discard":
                streets_of.setdefault(placement.seat, {})[placement.card] = placement.street
            else:
                discard_street[(placement.seat, placement.card)] = placement.street
        hand_row: dict[str, Any] = dict(
            hand_key=key,
            format=hand.format,
            room=hand.room,
            table_id=hand.table_id,
            room_hand_id=hand.room_hand_id,
            played_at=hand.played_at,
            rules_text=hand.rules_text,
            ruleset=hand.ruleset,
            seat_count=len(hand.seats),
            complete=hand.complete,
            stakes=hand.stakes,
            currency=hand.currency,
            source_file=hand.source_file,
            source_line=hand.source_line,
            source_offset=hand.source_offset,
            raw_text=hand.raw_text,
            fingerprint=hand.fingerprint,
            batch=batch,
        )
        for name, value in hand_row.items():
            h[name].append(value)
        for seat in hand.seats:
            board = seat.top + seat.middle + seat.bottom
            seat_row: dict[str, Any] = dict(
                hand_key=key,
                seat=seat.seat,
                player=seat.player,
                player_id=seat.player_id,
                hero=seat.hero,
                in_fantasy=seat.in_fantasy,
                fantasy_cards=seat.fantasy_cards,
                top=list(seat.top),
                middle=list(seat.middle),
                bottom=list(seat.bottom),
                board=bytes(board) if seat.complete else None,
                board_streets=_board_streets(board, streets_of.get(seat.seat)),
                discards=_street_order(seat.seat, seat.discards, discard_street),
                reported_points=seat.reported_points,
                reported_money=seat.reported_money,
                stack=seat.stack,
            )
            for name, value in seat_row.items():
                s[name].append(value)
        for placement in hand.placements:
            p["hand_key"].append(key)
            p["seat"].append(placement.seat)
            p["street"].append(placement.street)
            p["card"].append(placement.card)
            p["destination"].append(DESTINATIONS.index(placement.destination))
    destinations = pa.DictionaryArray.from_arrays(
        pa.array(p.pop("destination"), pa.int8()), pa.array(DESTINATIONS)
    )
    placements = pa.table(
        {
            **{k: pa.array(v, PLACEMENTS.field(k).type) for k, v in p.items()},
            "destination": destinations,
        },
        schema=PLACEMENTS,
    )
    return {
        "hands": pa.table(h, schema=HANDS),
        "seats": pa.table(s, schema=SEATS),
        "placements": placements,
    }


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
