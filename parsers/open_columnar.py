"""The open format read in columns: DuckDB parses, unnests and checks whole chunks.

The per-line Python parser (:mod:`parsers.open_format`) is the definition.
This path takes only lines it can prove ordinary: every scalar of the
expected JSON type, every card a known spelling, every check of
:func:`ofc_stats.records.validate_hand` passed in SQL.  Any other line goes
through the Python parser, which stores it or quarantines it with the exact
reason, so both paths store the same rows (``tests/test_open_columnar.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

import duckdb
import numpy as np
import pyarrow as pa

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.engine.cards import JOKER_1, JOKER_2, card_spellings
from ofc_stats.engine.presets import ALIASES, PRESETS, normalise_name
from parsers.base import ColumnarHands

CHUNK_LINES = 10_000
MEMORY_LIMIT = "256MB"
NUMBER_OR_NULL = "('UBIGINT', 'BIGINT', 'DOUBLE', 'NULL')"
STRUCTURE = (
    '{"ofc_format":"JSON","room":"JSON","table":"JSON","hand_id":"JSON","ruleset":"JSON",'
    '"rules_text":"JSON","played_at":"JSON","stakes":"JSON","currency":"JSON",'
    '"seats":[{"player":"JSON","player_id":"JSON","hero":"JSON","in_fantasy":"JSON",'
    '"stack":"JSON","rows":"JSON","discards":"JSON","result":"JSON",'
    '"streets":[{"cards":["VARCHAR"],"to":["VARCHAR"]}]}]}'
)


def _lookup_tables(connection: duckdb.DuckDBPyConnection) -> None:
    spellings = card_spellings()
    for alias in ("X", "X1", "x", "x1"):
        spellings[alias] = JOKER_1
    for alias in ("X2", "x2"):
        spellings[alias] = JOKER_2
    connection.register(
        "spellings",
        pa.table({"text": list(spellings), "id": pa.array(list(spellings.values()), pa.int8())}),
    )
    names = {normalise_name(n): n for n in PRESETS} | {
        normalise_name(a): t for a, t in ALIASES.items()
    }
    connection.register(
        "rulesets",
        pa.table(
            {
                "name": list(names),
                "canonical": list(names.values()),
                "max_seats": [PRESETS[t].max_seats for t in names.values()],
                "deck": [PRESETS[t].deck.size for t in names.values()],
            }
        ),
    )


SQL = f"""
CREATE OR REPLACE TEMP TABLE parsed AS
SELECT line_no, TRY(json_transform(raw, '{STRUCTURE}')) AS h FROM src;

CREATE OR REPLACE TEMP TABLE hands0 AS
SELECT p.line_no, p.h, r.canonical AS ruleset, r.max_seats, r.deck
FROM parsed p
LEFT JOIN rulesets r
  ON r.name = lower(trim(replace(replace(
       json_extract_string(p.h.ruleset, '$'), '_', '-'), ' ', '-')))
WHERE p.h IS NOT NULL
  AND json_type(p.h.ofc_format) IN ('UBIGINT', 'BIGINT') AND p.h.ofc_format::BIGINT = 1
  AND json_type(p.h.room) = 'VARCHAR' AND json_type(p.h."table") = 'VARCHAR'
  AND json_type(p.h.hand_id) = 'VARCHAR' AND json_type(p.h.ruleset) = 'VARCHAR'
  AND coalesce(json_type(p.h.rules_text), 'VARCHAR') IN ('VARCHAR', 'NULL')
  AND coalesce(json_type(p.h.currency), 'VARCHAR') IN ('VARCHAR', 'NULL')
  AND coalesce(json_type(p.h.stakes), 'DOUBLE') IN {NUMBER_OR_NULL}
  AND coalesce(isfinite(TRY_CAST(p.h.stakes AS DOUBLE)), json_type(p.h.stakes) = 'NULL', true)
  AND (p.h.played_at IS NULL OR json_type(p.h.played_at) = 'NULL' OR (regexp_full_match(
       json_extract_string(p.h.played_at, '$'),
       '\\d{{4}}-\\d\\d-\\d\\d[T ]\\d\\d:\\d\\d(:\\d\\d(\\.\\d{{1,6}})?)?')
       AND TRY_CAST(json_extract_string(p.h.played_at, '$') AS TIMESTAMP) IS NOT NULL))
  AND len(p.h.seats) BETWEEN 2 AND 4;

CREATE OR REPLACE TEMP TABLE seats0 AS
SELECT line_no, unnest(h.seats) AS s, unnest(range(len(h.seats))) AS seat FROM hands0;

CREATE OR REPLACE TEMP TABLE streets0 AS
SELECT line_no, seat, unnest(s.streets) AS st, unnest(range(len(s.streets))) AS street
FROM seats0 WHERE s.streets IS NOT NULL;

CREATE OR REPLACE TEMP TABLE cards0 AS
WITH cards AS (
  SELECT line_no, seat, street, len(st.cards) = len(st."to") AS paired,
         unnest(st.cards) AS card, unnest(st."to") AS dest, unnest(range(len(st.cards))) AS pos
  FROM streets0
)
SELECT c.line_no, c.seat, c.street, c.pos, c.paired, c.dest, c.card IS NULL AS hidden, sp.id AS card
FROM cards c
LEFT JOIN spellings sp ON sp.text = c.card;

CREATE OR REPLACE TEMP TABLE bad_lines AS
SELECT line_no FROM seats0
WHERE s.streets IS NULL OR s.rows IS NOT NULL OR s.discards IS NOT NULL
   OR json_type(s.player) IS DISTINCT FROM 'VARCHAR'
   OR coalesce(json_type(s.player_id), 'VARCHAR') NOT IN ('VARCHAR', 'NULL')
   OR coalesce(json_type(s.hero), 'BOOLEAN') NOT IN ('BOOLEAN', 'NULL')
   OR coalesce(json_type(s.in_fantasy), 'BOOLEAN') NOT IN ('BOOLEAN', 'NULL')
   OR coalesce(json_type(s.stack), 'NULL') NOT IN {NUMBER_OR_NULL}
   OR coalesce(json_type(s.result), 'OBJECT') NOT IN ('OBJECT', 'NULL')
   OR coalesce(json_type(s.result, '$.points'), 'NULL') NOT IN {NUMBER_OR_NULL}
   OR coalesce(json_type(s.result, '$.money'), 'NULL') NOT IN {NUMBER_OR_NULL}
   OR NOT coalesce(isfinite(TRY_CAST(s.stack AS DOUBLE)), json_type(s.stack) = 'NULL', true)
   OR NOT coalesce(isfinite(TRY_CAST(json_extract(s.result, '$.points') AS DOUBLE)),
                   json_type(s.result, '$.points') = 'NULL', true)
   OR NOT coalesce(isfinite(TRY_CAST(json_extract(s.result, '$.money') AS DOUBLE)),
                   json_type(s.result, '$.money') = 'NULL', true)
UNION
SELECT line_no FROM streets0 WHERE st IS NULL OR st.cards IS NULL OR st."to" IS NULL
   OR street > 127
UNION
SELECT line_no FROM cards0
WHERE NOT paired OR dest IS NULL OR dest NOT IN ('top', 'middle', 'bottom', 'discard')
   OR (hidden AND dest <> 'discard')
   OR (NOT hidden AND card IS NULL)
UNION
SELECT line_no FROM cards0 WHERE card IS NOT NULL
GROUP BY line_no HAVING count(*) <> count(DISTINCT card)
UNION
SELECT line_no FROM cards0 GROUP BY line_no, seat
HAVING count(*) FILTER (WHERE dest = 'top') > 3 OR count(*) FILTER (WHERE dest = 'middle') > 5
    OR count(*) FILTER (WHERE dest = 'bottom') > 5
UNION
SELECT h.line_no FROM hands0 h
WHERE h.ruleset IS NULL OR len(h.h.seats) > h.max_seats
UNION
SELECT c.line_no FROM cards0 c JOIN hands0 h USING (line_no) WHERE c.card >= h.deck;

CREATE OR REPLACE TEMP TABLE good AS
SELECT h.*, s.off, s.raw FROM hands0 h JOIN src s USING (line_no)
WHERE h.line_no NOT IN (SELECT line_no FROM bad_lines);

CREATE OR REPLACE TEMP TABLE seat_cards AS
SELECT c.line_no, c.seat,
  list(c.card ORDER BY c.street, c.pos) FILTER (WHERE c.dest = 'top') AS top,
  list(c.card ORDER BY c.street, c.pos) FILTER (WHERE c.dest = 'middle') AS middle,
  list(c.card ORDER BY c.street, c.pos) FILTER (WHERE c.dest = 'bottom') AS bottom,
  list(c.street ORDER BY c.street, c.pos) FILTER (WHERE c.dest = 'top') AS top_streets,
  list(c.street ORDER BY c.street, c.pos) FILTER (WHERE c.dest = 'middle') AS middle_streets,
  list(c.street ORDER BY c.street, c.pos) FILTER (WHERE c.dest = 'bottom') AS bottom_streets,
  CASE WHEN count(*) FILTER (WHERE c.dest = 'discard' AND c.card IS NULL) > 0 THEN NULL
       ELSE coalesce(list(c.card ORDER BY c.street, c.pos)
                     FILTER (WHERE c.dest = 'discard' AND c.card IS NOT NULL), []) END AS discards,
  count(c.card) AS cards_seen
FROM cards0 c SEMI JOIN good g ON g.line_no = c.line_no
GROUP BY c.line_no, c.seat;

CREATE OR REPLACE TEMP TABLE seat_rows AS
SELECT s.line_no, s.seat,
  json_extract_string(s.s.player, '$') AS player,
  json_extract_string(s.s.player_id, '$') AS player_id,
  coalesce(s.s.hero::BOOLEAN, false) AS hero,
  coalesce(s.s.in_fantasy::BOOLEAN, false) AS in_fantasy,
  coalesce(sc.top, []) AS top,
  coalesce(sc.middle, []) AS middle,
  coalesce(sc.bottom, []) AS bottom,
  list_concat(coalesce(sc.top_streets, []), coalesce(sc.middle_streets, []),
              coalesce(sc.bottom_streets, [])) AS board_streets,
  CASE WHEN sc.line_no IS NULL THEN [] ELSE sc.discards END AS discards,
  coalesce(sc.cards_seen, 0) AS cards_seen,
  json_extract(s.s.result, '$.points')::DOUBLE AS reported_points,
  json_extract(s.s.result, '$.money')::DOUBLE AS reported_money,
  s.s.stack::DOUBLE AS stack
FROM seats0 s
SEMI JOIN good g ON g.line_no = s.line_no
LEFT JOIN seat_cards sc ON sc.line_no = s.line_no AND sc.seat = s.seat;
"""

HANDS_SQL = """
WITH agg AS (
  SELECT line_no,
    bool_and(len(top) = 3 AND len(middle) = 5 AND len(bottom) = 5) AS complete,
    left(md5(string_agg(player || chr(31) || array_to_string(top, ',') || '|'
         || array_to_string(middle, ',') || '|' || array_to_string(bottom, ',') || '|'
         || coalesce(array_to_string(discards, ','), ''), ';' ORDER BY seat)), 16) AS fingerprint
  FROM seat_rows GROUP BY line_no
)
SELECT 'open:' || json_extract_string(g.h.room, '$') || ':' || json_extract_string(g.h."table", '$')
         || ':' || json_extract_string(g.h.hand_id, '$') AS hand_key,
  'open' AS format,
  json_extract_string(g.h.room, '$') AS room,
  json_extract_string(g.h."table", '$') AS table_id,
  json_extract_string(g.h.hand_id, '$') AS room_hand_id,
  TRY_CAST(json_extract_string(g.h.played_at, '$') AS TIMESTAMP) AS played_at,
  json_extract_string(g.h.rules_text, '$') AS rules_text,
  g.ruleset,
  len(g.h.seats)::TINYINT AS seat_count,
  a.complete,
  g.h.stakes::DOUBLE AS stakes,
  json_extract_string(g.h.currency, '$') AS currency,
  $source AS source_file,
  g.line_no AS source_line,
  g.off AS source_offset,
  g.raw AS raw_text,
  a.fingerprint,
  '' AS batch
FROM good g JOIN agg a USING (line_no)
ORDER BY g.line_no
"""

SEATS_SQL = """
SELECT h.hand_key, s.seat::TINYINT AS seat, s.player, s.player_id, s.hero, s.in_fantasy,
  CASE WHEN s.in_fantasy AND s.discards IS NOT NULL THEN s.cards_seen END::TINYINT AS fantasy_cards,
  s.top, s.middle, s.bottom, list_concat(s.top, s.middle, s.bottom) AS board, s.board_streets,
  s.discards, s.reported_points, s.reported_money, s.stack, s.line_no AS source_line
FROM seat_rows s JOIN hand_keys h USING (line_no)
ORDER BY s.line_no, s.seat
"""

PLACEMENTS_SQL = """
SELECT h.hand_key, c.seat::TINYINT AS seat, c.street::TINYINT AS street, c.card,
  c.dest AS destination, c.line_no AS source_line
FROM cards0 c JOIN hand_keys h USING (line_no)
WHERE c.card IS NOT NULL
ORDER BY c.line_no, c.seat, c.street, c.pos
"""


def _boards(lists: pa.ChunkedArray) -> pa.Array:
    """13 small ints per complete board (card ids, or streets) as fixed 13-byte values.

    Null where the list is not 13 long.
    """
    array = lists.combine_chunks()
    offsets = np.asarray(array.offsets)
    values = np.asarray(array.values.fill_null(0), dtype=np.int8)
    lengths = np.diff(offsets)
    complete = lengths == 13
    data = np.zeros((len(array), 13), dtype=np.int8)
    starts = offsets[:-1][complete]
    data[complete] = values[starts[:, None] + np.arange(13)]
    mask = pa.array(~complete)
    binary = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(13), len(array), [None, pa.py_buffer(data.tobytes())]
    )
    return pa.compute.if_else(mask, pa.nulls(len(array), pa.binary(13)), binary)


def _table(
    connection: duckdb.DuckDBPyConnection, query: str, params: dict[str, str] | None = None
) -> pa.Table:
    table = connection.sql(query, params=params).to_arrow_table()
    assert table is not None
    return table


def convert(connection: duckdb.DuckDBPyConnection, source: str) -> tuple[ColumnarHands, list[int]]:
    """Run the pipeline on the registered ``src`` table; returns tables and slow line numbers."""
    connection.execute(SQL)
    hands = _table(connection, HANDS_SQL, {"source": source})
    connection.register(
        "hand_keys",
        hands.select(["hand_key"]).append_column("line_no", hands.column("source_line")),
    )
    seats = _table(connection, SEATS_SQL)
    seats = seats.set_column(
        seats.schema.get_field_index("board"), "board", _boards(seats["board"])
    )
    seats = seats.set_column(
        seats.schema.get_field_index("board_streets"),
        "board_streets",
        _boards(seats["board_streets"]),
    )
    placements = _table(connection, PLACEMENTS_SQL)
    destination = pa.DictionaryArray.from_arrays(
        pa.compute.index_in(
            placements["destination"].combine_chunks(), pa.array(DESTINATIONS)
        ).cast(pa.int8()),
        pa.array(DESTINATIONS),
    )
    placements = placements.set_column(4, "destination", destination)
    good = set(hands.column("source_line").to_pylist())
    all_lines = connection.execute("SELECT line_no FROM src").fetchnumpy()["line_no"]
    slow = [int(n) for n in all_lines if int(n) not in good]
    # Column order and names are the dataset's; the importer casts to its schema.
    return ColumnarHands(hands=hands, seats=seats, placements=placements), slow


def read_chunks(
    stream: BinaryIO, chunk_lines: int = CHUNK_LINES
) -> Iterator[tuple[list[int], list[int], list[bytes]]]:
    """(line numbers, byte offsets, raw lines) of non-blank lines, a chunk at a time."""
    numbers: list[int] = []
    offsets: list[int] = []
    raws: list[bytes] = []
    offset = 0
    for number, raw in enumerate(stream, start=1):
        if raw.strip():
            numbers.append(number)
            offsets.append(offset)
            raws.append(raw)
        offset += len(raw)
        if len(raws) >= chunk_lines:
            yield numbers, offsets, raws
            numbers, offsets, raws = [], [], []
    if raws:
        yield numbers, offsets, raws


def connect() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("SET threads TO 1")  # one core, as the benchmark promises
    connection.execute("SET enable_progress_bar = false")  # ours is the import's
    connection.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")  # bounded, spills past it
    _lookup_tables(connection)
    return connection
