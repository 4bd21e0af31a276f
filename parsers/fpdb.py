"""fpdb-3 databases: the OFC tables of its SQLite file (shared/formats/SWC.md §7).

fpdb-3 stores SwC browser-captured OFC hands in ``HttpOFCHands`` with the
whole hand model as ``rawJson`` (players, final rows, every round record).
The database is opened read-only and only SELECTed from.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from ofc_stats.core.decode import HANDS, Decoded, decode_rows, fpdb_decoder
from ofc_stats.engine.board import DISCARD, ROWS
from ofc_stats.engine.cards import parse_card
from ofc_stats.errors import FpdbError
from ofc_stats.records import HandRecord, Placement, Quarantined, SeatRecord, storable_text
from parsers import core_lane
from parsers.base import BAD_INPUT, ColumnarHands, ParseItem, Parser, reason_of
from parsers.streets import fantasy_jump, street_of

FORMAT = "fpdb"
SQLITE_MAGIC = b"SQLite format 3\x00"
VARIANTS = {"ofc": "classic-american", "ofcp": "pineapple"}
FETCH_ROWS = 2_000  # rows read from SQLite at a time
LOCK_SECONDS = 5.0  # how long to wait for a program writing the database
READ_SECONDS = 600  # one database read for longer is stopped (a view that never ends)
MAX_RAW = 4 << 20  # characters of one rawJson (a hand is a few thousand)
# length() of a BLOB is its size, read without the BLOB (a zeroblob of 900 MB stays on disk);
# a text's bytes (at least its characters) spare length() a scan of it, twice a row
QUERY = (
    "SELECT id, siteHandNo, tableName, CASE WHEN typeof(rawJson) = 'text' AND length(CAST("
    "rawJson AS BLOB)) <= ?1 OR length(rawJson) <= ?1 THEN rawJson END, CASE WHEN typeof("
    "rawJson) = 'text' AND length(CAST(rawJson AS BLOB)) <= ?1 THEN 0 ELSE length(rawJson) END "
    "FROM HttpOFCHands ORDER BY id"
)


def _cards(values: Any) -> list[int]:
    """Cards as fpdb-3 writes them: a list of texts or one space-separated text; "--" is hidden."""
    if isinstance(values, str):
        values = values.split()
    if not values:
        return []
    if not isinstance(values, list):  # a number or an object where a card list belongs
        raise FpdbError(f"cards {str(values)[:40]!r} are not a list")
    return [parse_card(str(v)) for v in values if str(v) != "--"]


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
    raw: dict[str, Any],
    table_name: str,
    source: str,
    row_id: int | None,
    raw_text: str = "",
    played_under: str | None = None,
) -> HandRecord:
    """One rawJson hand model as a HandRecord (``raw_text``: the row's text as stored);
    FpdbError (or a BAD_INPUT error) if it cannot be read.

    ``played_under`` (``import --rules``): the ruleset of every hand, so a variant
    whose rules are unknown (OFC/P 2-7, a name fpdb-3 does not use) is read under it.
    """
    variant = raw.get("variant") or {}
    if not isinstance(variant, dict):
        raise FpdbError(f"variant {str(variant)[:40]!r} is not an object")
    name = str(variant.get("variant", "ofcp"))
    if played_under is None and (variant.get("deuce_to_seven") or name == "ofcp_27"):
        raise FpdbError("OFC/P 2-7: its rules are unknown; import with --rules")
    if played_under is None and name not in VARIANTS:
        raise FpdbError(f"unknown OFC variant {name!r}")
    pineapple = bool(variant.get("pineapple", name in ("ofcp", "ofcp_27")))
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
    # per player: [seat, cards placed so far, in Fantasyland, dealt to, discards]
    states: dict[str, list[Any]] = {n: [i, 0, False, False, []] for n, i in index_of.items()}
    moves: list[Placement] = []
    rounds = raw.get("rounds") or []
    if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
        raise FpdbError("rounds is not a list of objects")
    for record in sorted(rounds, key=_round):
        state = states.get(str(record.get("player")))
        if state is None:
            continue
        if record.get("dealt"):
            state[3] = True
        placed_rows = record.get("placed") or {}
        if not isinstance(placed_rows, dict):
            raise FpdbError(f"placed {str(placed_rows)[:40]!r} is not an object")
        rows = {row: _cards(placed_rows.get(row)) for row in ROWS}
        count = sum(map(len, rows.values()))
        state[2] = state[2] or fantasy_jump(count)
        state[1] += count
        street = street_of(state[1], pineapple, state[2])
        moves += [Placement(state[0], street, card, row) for row in ROWS for card in rows[row]]
        for card in _cards(record.get("discarded")):
            moves.append(Placement(state[0], street, card, DISCARD))
            state[4].append(card)
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
                discards=tuple(states[name_][4]) if states[name_][3] else None,
                hero=states[name_][3],
                in_fantasy=states[name_][2],
                reported_points=_number(points) if settled else None,
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
        ruleset=played_under or VARIANTS[name],
        seats=tuple(seats),
        placements=tuple(moves),
        played_at=played_at,
        rules_text=name,
        source_file=source,
        source_line=row_id,
        raw_text=raw_text or json.dumps(raw, sort_keys=True),
    )


class FpdbParser(Parser):
    name = FORMAT
    description = "fpdb-3 SQLite database (its HttpOFCHands tables)"
    needs_path = True
    columnar = True

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        return head.startswith(SQLITE_MAGIC)

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        raise FpdbError("fpdb databases are read from a file path")

    def parse_path(self, path: str, source: str) -> Iterator[ParseItem]:
        for rows in _fetch(path, source):
            if isinstance(rows, Quarantined):
                yield rows
                continue
            for row in rows:
                yield _item(row, source, self.played_under)

    def parse_path_columnar(self, path: str, source: str) -> Iterator[ParseItem]:
        """The same items, most hands decoded by the core straight into columns.

        Each fetch of rows goes to the core (``rust/ofc-core/src/decode/fpdb.rs``);
        the rows it leaves (any it cannot read exactly as :func:`hand_from_raw`
        would, or whose hand would be refused) are read here, in their place.
        """
        # Every hand of an unstorable name is refused (the definition says why); a
        # ruleset played under is the definition's to apply.
        if not storable_text(source) or self.played_under is not None:
            yield from self.parse_path(path, source)
            return
        for rows, decoded in core_lane.ahead(_fetched_decoded(path, source), f"decode {source}"):
            if isinstance(rows, Quarantined):
                yield rows
                continue
            assert decoded is not None
            for kind, start, stop, _ in decoded.units.tolist():
                if kind == HANDS:
                    yield ColumnarHands(*decoded.slice(start, stop))
                else:
                    yield from (_item(row, source) for row in rows[start:stop])

    def hand_from_raw(self, raw_text: str, source: str, line: int, offset: int) -> ParseItem:
        """One stored rawJson text again through the record path."""
        row = _Row(line, None, "", raw_text, json.loads(raw_text))
        return _record(row, source, self.played_under)


def _fetched_decoded(
    path: str, source: str
) -> Iterator[tuple[list[Fetched], Decoded] | tuple[Quarantined, None]]:
    """Each fetch of rows with the core's decoding of them (on the thread of
    :func:`core_lane.ahead`: the core releases the GIL, so the next rows are fetched and
    decoded while the importer stores these)."""
    core = fpdb_decoder(core_lane.resolving(VARIANTS.__getitem__))
    for rows in _fetch(path, source):
        if isinstance(rows, Quarantined):
            yield rows, None
            continue
        yield rows, decode_rows(core, rows, FORMAT, source)


class _Row(NamedTuple):
    line: int | None
    hand_id: str | None
    table_name: str
    raw_json: Any
    raw: Any


Fetched = tuple[int | None, str | None, str, Any]  # (row id, siteHandNo, table name, rawJson)


def read_only_uri(path: str) -> str:
    """The SQLite URI that opens ``path`` read-only: through pathname2url, so "#", "?"
    and "%" in a file name stay part of the name and never become URI parameters."""
    return f"{Path(path).resolve().as_uri()}?mode=ro"


def _fetch(path: str, source: str) -> Iterator[list[Fetched] | Quarantined]:
    """The HttpOFCHands rows a fetch at a time, in id order; why not, as a Quarantined.

    Reading stops, with the rows read so far kept, at damage in the file, a
    row id met twice (a view, not fpdb-3's table), or :data:`READ_SECONDS`
    spent on one database (a view that never ends).  A rawJson over
    :data:`MAX_RAW` is quarantined without being read into memory.
    """
    try:
        # (read by one thread at a time, but closed by whichever ends the reading)
        uri = read_only_uri(path)
        connection = sqlite3.connect(uri, uri=True, timeout=LOCK_SECONDS, check_same_thread=False)
    except (sqlite3.Error, ValueError) as error:
        yield Quarantined(source, f"cannot open the database: {error}", "", hand=False)
        return
    deadline = time.monotonic() + READ_SECONDS
    connection.set_progress_handler(lambda: time.monotonic() > deadline, 100_000)
    last: int | None = None
    try:
        try:
            cursor = connection.execute(QUERY, (MAX_RAW,))
            rows = cursor.fetchmany(FETCH_ROWS)
        except DAMAGED as error:
            yield Quarantined(source, _why_not(error, "no fpdb-3 OFC tables"), "", hand=False)
            return
        while rows:
            fetched: list[Fetched] = []
            for row_id, hand_no, table_name, raw_json, size in rows:
                line = row_id if isinstance(row_id, int) else None
                hand_id = None if hand_no is None else str(hand_no)[:200]
                if line is not None and last is not None and line <= last:
                    if fetched:
                        yield fetched
                    why = f"row id {line} comes twice: HttpOFCHands is not fpdb-3's table"
                    why += " (a view?); the rows before it are read"
                    yield Quarantined(source, why, "", line, hand=False)
                    return
                last = line if line is not None else last
                if raw_json is None and isinstance(size, int) and size > MAX_RAW:
                    why = f"rawJson of {size:,} characters is over the {MAX_RAW:,} a hand may hold"
                    fetched.append((line, hand_id, "", Quarantined(source, why, "", line)))
                    continue
                fetched.append((line, hand_id, str(table_name or ""), raw_json))
            yield fetched
            try:
                rows = cursor.fetchmany(FETCH_ROWS)
            except DAMAGED as error:
                after = "" if last is None else f" after row {last}"
                why = _why_not(error, f"the database is damaged{after}")
                yield Quarantined(source, why, "", hand=False)
                return
    finally:
        connection.close()


# What a damaged database raises: SQLite's error, or Python's failure to decode SQLite's
# message when the damage is in a name it quotes (a byte-flipped schema).
DAMAGED = (sqlite3.Error, UnicodeDecodeError)


def _why_not(error: sqlite3.Error | UnicodeDecodeError, what: str) -> str:
    """A quarantine reason for a database that stops being read: locked, too slow, or damaged."""
    if isinstance(error, UnicodeDecodeError):
        return f"{what}: the database is damaged (SQLite's message about it is not UTF-8)"
    text = str(error)
    if "locked" in text or "busy" in text:
        return f"the database is locked by another program ({text}); import it again later"
    if "interrupted" in text:
        return f"reading the database took over {READ_SECONDS} s; the rows before are read"
    return f"{what}: {text}"


def _item(row: Fetched, source: str, played_under: str | None = None) -> ParseItem:
    """One fetched row through the record path (the definition)."""
    if isinstance(row[3], Quarantined):
        return row[3]
    decoded = _decoded(row, source)
    return decoded if isinstance(decoded, Quarantined) else _record(decoded, source, played_under)


def _decoded(row: Fetched, source: str) -> _Row | Quarantined:
    line, hand_id, table_name, raw_json = row
    try:
        raw = json.loads(raw_json)
    except json.JSONDecodeError as error:
        return Quarantined(source, f"bad rawJson: {error}", str(raw_json), line, hand_id=hand_id)
    except BAD_INPUT as error:
        return Quarantined(source, reason_of(error), str(raw_json), line, hand_id=hand_id)
    return _Row(line, hand_id, table_name, raw_json, raw)


def _raw_text(row: _Row) -> str:
    """The hand's text as the database holds it (a BLOB as its canonical JSON)."""
    if isinstance(row.raw_json, str):
        return row.raw_json
    return json.dumps(row.raw, sort_keys=True)


def _record(row: _Row, source: str, played_under: str | None = None) -> HandRecord | Quarantined:
    try:
        if not isinstance(row.raw, dict):
            raise FpdbError("rawJson is not an object")
        text = _raw_text(row)
        return hand_from_raw(row.raw, row.table_name, source, row.line, text, played_under)
    except BAD_INPUT as error:
        return Quarantined(
            source, reason_of(error), str(row.raw_json), row.line, hand_id=row.hand_id
        )
