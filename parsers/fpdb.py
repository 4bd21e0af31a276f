"""fpdb-3 databases: the OFC tables of its SQLite file (shared/formats/SWC.md §7).

fpdb-3 stores SwC browser-captured OFC hands in ``HttpOFCHands`` with the
whole hand model as ``rawJson`` (players, final rows, every round record).
The database is opened read-only and only SELECTed from.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime
from typing import Any, BinaryIO

from ofc_stats.engine.cards import parse_card
from ofc_stats.errors import FpdbError, OfcError
from ofc_stats.records import HandRecord, Placement, Quarantined, SeatRecord
from parsers.base import ParseItem, Parser
from parsers.swc import street_of

FORMAT = "fpdb"
SQLITE_MAGIC = b"SQLite format 3\x00"
VARIANTS = {"ofc": "classic-american", "ofcp": "pineapple"}
ROW_NAMES = ("top", "middle", "bottom")


def _cards(values: Any) -> list[int]:
    if isinstance(values, str):
        values = values.split()
    return [parse_card(str(v)) for v in values or [] if str(v) != "--"]


def _number(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise FpdbError(f"points {value!r} is not a number") from None


def hand_from_raw(raw: dict[str, Any], table_name: str, source: str, row_id: int) -> HandRecord:
    """One rawJson hand model as a HandRecord."""
    variant = raw.get("variant") or {}
    name = str(variant.get("variant", "ofcp"))
    if variant.get("deuce_to_seven") or name == "ofcp_27":
        raise FpdbError("OFC/P 2-7: its rules are unknown; import with --rules")
    if name not in VARIANTS:
        raise FpdbError(f"unknown OFC variant {name!r}")
    pineapple = bool(variant.get("pineapple", name == "ofcp"))
    players = sorted(raw.get("players") or [], key=lambda p: p.get("seat_idx") or 0)
    if not players:
        raise FpdbError("the hand has no players")
    index_of = {str(p.get("name")): i for i, p in enumerate(players)}
    placed_count = dict.fromkeys(index_of, 0)
    fantasy = dict.fromkeys(index_of, False)
    dealt_any = dict.fromkeys(index_of, False)
    discards: dict[str, list[int]] = {n: [] for n in index_of}
    placements = []
    for record in sorted(raw.get("rounds") or [], key=lambda r: r.get("round") or 0):
        player = str(record.get("player"))
        if player not in index_of:
            continue
        dealt_any[player] |= bool(record.get("dealt"))
        placed = {row: _cards((record.get("placed") or {}).get(row)) for row in ROW_NAMES}
        count = sum(len(cards) for cards in placed.values())
        fantasy[player] |= count > 5
        placed_count[player] += count
        street = street_of(placed_count[player], pineapple, fantasy[player])
        seat = index_of[player]
        for row in ROW_NAMES:
            placements += [Placement(seat, street, card, row) for card in placed[row]]
        for card in _cards(record.get("discarded")):
            placements.append(Placement(seat, street, card, "discard"))
            discards[player].append(card)
    settled = ((raw.get("result") or {}).get("points_settled")) or {}
    seats = []
    for index, player in enumerate(players):
        name_ = str(player.get("name"))
        points = settled.get(name_, player.get("points"))
        seats.append(
            SeatRecord(
                seat=index,
                player=name_,
                top=tuple(_cards(player.get("top"))),
                middle=tuple(_cards(player.get("middle"))),
                bottom=tuple(_cards(player.get("bottom"))),
                discards=tuple(discards[name_]) if dealt_any[name_] else None,
                hero=dealt_any[name_],
                in_fantasy=fantasy[name_],
                reported_points=_number(points) if settled else None,
                stack=None,
            )
        )
    played_at = None
    if raw.get("timestamp"):
        try:
            played_at = datetime.fromisoformat(str(raw["timestamp"]).replace("Z", "+00:00"))
            played_at = played_at.replace(tzinfo=None)
        except ValueError:
            played_at = None
    return HandRecord(
        format=FORMAT,
        room=str(raw.get("site") or "SealsWithClubs"),
        table_id=str(raw.get("table_id") or table_name or ""),
        room_hand_id=str(raw.get("hand_id")),
        ruleset=VARIANTS[name],
        seats=tuple(seats),
        placements=tuple(placements),
        played_at=played_at,
        rules_text=name,
        source_file=source,
        source_line=row_id,
        raw_text=json.dumps(raw, sort_keys=True),
    )


class FpdbParser(Parser):
    name = FORMAT
    description = "fpdb-3 SQLite database (its HttpOFCHands tables)"
    needs_path = True

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        return head.startswith(SQLITE_MAGIC)

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        raise FpdbError("fpdb databases are read from a file path")

    def parse_path(self, path: str, source: str) -> Iterator[ParseItem]:
        try:
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        except sqlite3.Error as error:
            yield Quarantined(source, f"cannot open the database: {error}", "")
            return
        try:
            try:
                rows = connection.execute(
                    "SELECT id, siteHandNo, tableName, rawJson FROM HttpOFCHands ORDER BY id"
                ).fetchall()
            except sqlite3.Error as error:
                yield Quarantined(source, f"no fpdb-3 OFC tables: {error}", "")
                return
            for row_id, hand_no, table_name, raw_json in rows:
                try:
                    raw = json.loads(raw_json)
                    if not isinstance(raw, dict):
                        raise FpdbError("rawJson is not an object")
                    yield hand_from_raw(raw, table_name or "", source, row_id)
                except (json.JSONDecodeError, TypeError) as error:
                    yield Quarantined(
                        source, f"bad rawJson: {error}", str(raw_json), row_id, hand_id=hand_no
                    )
                except OfcError as error:
                    yield Quarantined(source, str(error), str(raw_json), row_id, hand_id=hand_no)
        finally:
            connection.close()
