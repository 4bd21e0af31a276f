"""Write hands as SwC GameState captures and fpdb-3 rawJson, for golden and round-trip tests.

The writer follows shared/formats/SWC.md: seat ``d`` strings ``ids-T-M-B``
with the viewer's unplaced cards after the rows, one snapshot per placement,
a settlement snapshot with ``ts`` 0, ``ss.hc`` and ``p``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ofc_stats.engine.cards import format_card
from ofc_stats.records import HandRecord

ROWS = ("top", "middle", "bottom")


def _d(rows: dict[str, list[int]], active: list[int]) -> str:
    ids = sorted(rows["top"], reverse=True) + sorted(rows["middle"], reverse=True)
    ids += sorted(rows["bottom"], reverse=True) + active
    counts = "-".join(str(len(rows[r])) for r in ROWS)
    return ";".join(str(i) for i in ids) + "-" + counts


def snapshots(hand: HandRecord, gi: int, ti: int, viewer: int = 0, gt: int = 74) -> list[str]:
    """Decoded proxy messages, one JSON line each, for a hand with placements."""
    seats = len(hand.seats)
    rows = [{r: [] for r in ROWS} for _ in range(seats)]  # type: ignore[var-annotated]
    streets = max(p.street for p in hand.placements) + 1

    def state(ts: int, active: dict[int, list[int]] | None = None, settle: bool = False) -> str:
        s = []
        for seat in range(seats):
            d = _d(rows[seat], (active or {}).get(seat, []))
            if d.startswith("-"):
                d = ""
            entry: dict[str, Any] = {
                "n": hand.seats[seat].player,
                "c": 10000,
                "b": 0,
                "p": 0,
                "d": d,
            }
            if settle:
                entry["p"] = int(hand.seats[seat].reported_points or 0)
            s.append(entry)
        game: dict[str, Any] = {
            "gi": gi,
            "gt": gt,
            "ti": ti,
            "ts": ts,
            "m": {"di": seats - 1},
            "d": {"c": "", "p": 0},
            "s": s,
        }
        if settle:
            game["ss"] = {"hc": "\n".join("Pair\tPair\tPair" for _ in range(seats))}
        return json.dumps({"t": "GameState", "gameState": game, "events": []})

    out = [state(2)]
    for street in range(streets):
        for seat in range(seats):
            mine = [p for p in hand.placements if p.seat == seat and p.street == street]
            if not mine:
                continue
            if seat == viewer:
                out.append(state(2, {viewer: [p.card for p in mine]}))
            for p in mine:
                if p.destination != "discard":
                    rows[seat][p.destination].append(p.card)
            out.append(state(2))
    out.append(state(0, settle=True))
    out.append(out[-1])  # an exact resend, to be ignored
    return out


def raw_json(hand: HandRecord, viewer: int = 0) -> dict[str, Any]:
    """The fpdb-3 rawJson hand model (SWC.md §7.3) of a hand with placements."""

    def text(cards: Any) -> list[str]:
        return [format_card(c).replace("T", "10") for c in cards]

    rounds = []
    number = 0
    streets = max(p.street for p in hand.placements) + 1
    for street in range(streets):
        for seat in hand.seats:
            mine = [p for p in hand.placements if p.seat == seat.seat and p.street == street]
            if not mine:
                continue
            number += 1
            placed = {r: text(p.card for p in mine if p.destination == r) for r in ROWS}
            rounds.append(
                {
                    "round": number,
                    "step_num": number,
                    "player": seat.player,
                    "dealt": text(p.card for p in mine) if seat.seat == viewer else [],
                    "placed": {r: c for r, c in placed.items() if c},
                    "discarded": text(p.card for p in mine if p.destination == "discard")
                    if seat.seat == viewer
                    else [],
                }
            )
    return {
        "hand_id": int(hand.room_hand_id),
        "site": "SealsWithClubs",
        "table_id": "t-9",
        "timestamp": "2026-08-14T19:02:05.212004Z",
        "variant": {"family": "ofc", "variant": "ofcp", "pineapple": True, "deuce_to_seven": False},
        "players": [
            {
                "name": s.player,
                "seat_idx": s.seat,
                "starting_stack": "100.0",
                "top": text(s.top),
                "middle": text(s.middle),
                "bottom": text(s.bottom),
                "points": str(int(s.reported_points or 0)),
            }
            for s in hand.seats
        ],
        "rounds": rounds,
        "result": {"points_settled": {s.player: int(s.reported_points or 0) for s in hand.seats}},
    }


FPDB_DDL = """
CREATE TABLE HttpOFCHands (id INTEGER PRIMARY KEY AUTOINCREMENT, site TEXT NOT NULL,
  siteHandNo TEXT NOT NULL UNIQUE, tableName TEXT, startTime TEXT, variant TEXT,
  pineapple INTEGER, deuceToSeven INTEGER, rounds INTEGER, validationStatus TEXT, rawJson TEXT);
CREATE TABLE HttpOFCPlayers (id INTEGER PRIMARY KEY AUTOINCREMENT, ofcHandId INTEGER NOT NULL,
  playerName TEXT NOT NULL, seatNo INTEGER, startStack REAL, points REAL, collected REAL,
  topCards TEXT, middleCards TEXT, bottomCards TEXT);
"""


def fpdb_database(path: Path, texts: Iterable[str], table: str = "t") -> Path:
    """An fpdb-3 database at ``path`` whose HttpOFCHands rows hold these rawJson texts."""
    connection = sqlite3.connect(path)
    connection.executescript(FPDB_DDL)
    for number, text in enumerate(texts, start=1):
        connection.execute(
            "INSERT INTO HttpOFCHands (site, siteHandNo, tableName, rawJson) VALUES (?, ?, ?, ?)",
            ("SealsWithClubs", str(number), table, text),
        )
    connection.commit()
    connection.close()
    return path
