"""fpdb-3 databases: the OFC tables of its SQLite file (shared/formats/SWC.md §7).

fpdb-3 stores SwC browser-captured OFC hands in ``HttpOFCHands`` with the
whole hand model as ``rawJson`` (players, final rows, every round record).
The database is opened read-only and only SELECTed from.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from ofc_stats.engine.cards import parse_card
from ofc_stats.errors import FpdbError
from ofc_stats.records import HandRecord, Placement, Quarantined, SeatRecord
from parsers.base import BAD_INPUT, ParseItem, Parser, reason_of
from parsers.swc import street_of

FORMAT = "fpdb"
SQLITE_MAGIC = b"SQLite format 3\x00"
VARIANTS = {"ofc": "classic-american", "ofcp": "pineapple"}
ROW_NAMES = ("top", "middle", "bottom")


def _cards(values: Any) -> list[int]:
    if isinstance(values, str):
        values = values.split()
    return [parse_card(str(v)) for v in values or [] if str(v) != "--"]


def _round(record: dict[str, Any]) -> int:
    number = record.get("round")
    return number if isinstance(number, int) and not isinstance(number, bool) else 0


def _number(value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise FpdbError(f"points {str(value)[:40]!r} is not a number") from None
    if not math.isfinite(number):
        raise FpdbError(f"points {str(value)[:40]} is out of range")
    return number


def hand_from_raw(
    raw: dict[str, Any], table_name: str, source: str, row_id: int | None
) -> HandRecord:
    """One rawJson hand model as a HandRecord."""
    variant = raw.get("variant") or {}
    if not isinstance(variant, dict):
        raise FpdbError(f"variant {str(variant)[:40]!r} is not an object")
    name = str(variant.get("variant", "ofcp"))
    if variant.get("deuce_to_seven") or name == "ofcp_27":
        raise FpdbError("OFC/P 2-7: its rules are unknown; import with --rules")
    if name not in VARIANTS:
        raise FpdbError(f"unknown OFC variant {name!r}")
    pineapple = bool(variant.get("pineapple", name == "ofcp"))
    players = raw.get("players") or []
    if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
        raise FpdbError("players is not a list of objects")
    for player in players:
        seat_idx = player.get("seat_idx") or 0
        if isinstance(seat_idx, bool) or not isinstance(seat_idx, int):
            raise FpdbError(f"seat_idx {str(seat_idx)[:40]!r} is not a number")
    players = sorted(players, key=lambda p: p.get("seat_idx") or 0)
    if not players:
        raise FpdbError("the hand has no players")
    index_of = {str(p.get("name")): i for i, p in enumerate(players)}
    placed_count = dict.fromkeys(index_of, 0)
    fantasy = dict.fromkeys(index_of, False)
    dealt_any = dict.fromkeys(index_of, False)
    discards: dict[str, list[int]] = {n: [] for n in index_of}
    placements = []
    rounds = raw.get("rounds") or []
    if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
        raise FpdbError("rounds is not a list of objects")
    for record in sorted(rounds, key=_round):
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
    result = raw.get("result") or {}
    if not isinstance(result, dict):
        raise FpdbError(f"result {str(result)[:40]!r} is not an object")
    settled = result.get("points_settled") or {}
    if not isinstance(settled, dict):
        raise FpdbError("points_settled is not an object")
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
            # The path goes through pathname2url, so "#", "?" and "%" in a file
            # name stay part of the name and never become URI parameters.
            uri = f"{Path(path).resolve().as_uri()}?mode=ro"
            connection = sqlite3.connect(uri, uri=True)
        except (sqlite3.Error, ValueError) as error:
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
                line = row_id if isinstance(row_id, int) else None
                hand_id = None if hand_no is None else str(hand_no)[:200]
                try:
                    raw = json.loads(raw_json)
                    if not isinstance(raw, dict):
                        raise FpdbError("rawJson is not an object")
                    yield hand_from_raw(raw, str(table_name or ""), source, line)
                except json.JSONDecodeError as error:
                    yield Quarantined(
                        source, f"bad rawJson: {error}", str(raw_json), line, hand_id=hand_id
                    )
                except BAD_INPUT as error:
                    yield Quarantined(
                        source, reason_of(error), str(raw_json), line, hand_id=hand_id
                    )
        finally:
            connection.close()
