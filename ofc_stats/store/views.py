"""A dataset as a DuckDB connection with documented views over its Parquet files.

``ofc_stats.open("ofc-data")`` gives an :class:`OfcData`; its views are
described in docs/analyst.md.  Queries take parameters bound by
DuckDB (``$name`` or ``?``), never pasted into the SQL text, because player
names are untrusted text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from ofc_stats.core.tables import tables
from ofc_stats.engine.rules import five_card_label
from ofc_stats.errors import OfcError
from ofc_stats.store.counts import counted
from ofc_stats.store.dataset import EMPTY, Dataset
from ofc_stats.store.hand_ids import hand_id_range
from ofc_stats.store.read_only import only_reading
from ofc_stats.store.rescore import board_array
from ofc_stats.store.schema import DERIVED, GRADER_TABLES, IMPORTED, LEDGER_SEATS, LEDGER_TABLES
from ofc_stats.store.streets import RECORDED_TIMEOUTS_SQL, STREETS_SQL, rule_tables
from parsers.app_records import APP_NAMES

Params = Sequence[object] | Mapping[str, object] | None

__all__ = [  # what reports may use
    "LEDGER_HANDS_SQL",
    "LEDGER_HAND_MONEY_SQL",
    "LEDGER_OF_SEATS",
    "LEDGER_SQL",
    "LEDGER_TOLERANCE",
    "OfcData",
    "Params",
    "board_array",
    "open_dataset",
    "owed_text",
]

# The results joined by (hand_id, seat) as stored, not through the keyed ``results`` view:
# that view joins every hand for its key, a join no filter on the hands (a share of the
# tables, audit.chunks.table_shares) reaches, so each share's query read and hashed them all.
SEAT_RESULTS_SQL = """
SELECT h.hand_key, h.format, h.room, h.table_id, h.room_hand_id, h.played_at, h.ruleset,
       h.seat_count, h.stakes, h.currency, s.seat, s.player, s.player_id,
       coalesce(s.player_id, s.player) AS player_key, s.hero, s.in_fantasy, s.fantasy_cards,
       s.reported_points, s.reported_money, s.stack, s.board, s.board_streets, s.discards,
       r.* EXCLUDE (hand_id, seat, ruleset), r.ruleset AS scored_with, h.hand_id
FROM {hands} h JOIN seats s USING (hand_id) LEFT JOIN {results} r USING (hand_id, seat)
"""  # {hands}, {results}: the hands and results_by_id, or their rows of some hands
SEAT_RESULTS_VIEW = "CREATE OR REPLACE VIEW seat_results AS" + SEAT_RESULTS_SQL.format(
    hands="hands", results="results_by_id"
)
# The results keyed by hand_id alone (no hand_key): the stored files, or the rescored table.
RESULTS_BY_ID = "results_by_id"

# results and versus are stored keyed by hand_id; their views add the hand's key.
RESULTS_VIEW = """
{create} {name} AS
SELECT h.hand_key, t.* FROM {source} t
JOIN (SELECT hand_id, hand_key FROM {hands}) h ON h.hand_id = t.hand_id
"""
# versus holds each pair of seats once (seat < opponent): here both ways round.
VERSUS_VIEW = """
{create} {name} AS
WITH pairs AS (SELECT * FROM {source})
SELECT h.hand_key, p.hand_id, p.seat, p.opponent, p.rows_won, p.rows_lost, p.rows_tied,
       p.rows_won = 3 AS scoop, p.points
FROM (SELECT hand_id, seat, opponent, rows_won, rows_lost, rows_tied, points FROM pairs
      UNION ALL
      SELECT hand_id, opponent, seat, rows_lost, rows_won, rows_tied, -points FROM pairs) p
JOIN (SELECT hand_id, hand_key FROM {hands}) h ON h.hand_id = p.hand_id
"""
KEYED_VIEWS = {"results": RESULTS_VIEW, "versus": VERSUS_VIEW}
# placements too (schema 5): about 43 a hand, each with no string of its own.
STORED_BY_ID = {**KEYED_VIEWS, "placements": RESULTS_VIEW}
VIEW = "CREATE OR REPLACE VIEW"

# A player's next hand decides his Fantasyland only when it is the table's next hand:
# after a hand he sat out, or a gap in the table's hand counter (a hand missing from
# the files; the counter is the number after "<table_id>-" in the room's hand id, when
# the id has one), what the room dealt cannot be checked (next_link 'sat out', 'gap').
# A table whose hand ids were reused for other hands (stored under hand_key~<fingerprint>,
# say two simulations' T0000) is one table per file: two files' hands with one name and
# the same ids are not one table's hands in turn, so no link crosses files there.
# TABLE_RUNS (the ``table_runs`` view) is that split, the one definition of it: each hand of
# such a table with its file as its ``run``; a table whose ids were never reused has no
# rows (a LEFT JOIN gives a null run: one table, however many files hold it).  Whatever
# takes a table's hands in turn partitions by format, room, table_id and run.
TABLE_RUNS = """
  SELECT h.hand_key, h.hand_id, h.source_file AS run
  FROM {hands} h SEMI JOIN (SELECT DISTINCT format, room, table_id FROM {hands}
                            WHERE contains(hand_key, '~')) r
    ON h.format = r.format AND h.room IS NOT DISTINCT FROM r.room
   AND h.table_id IS NOT DISTINCT FROM r.table_id
"""  # {hands}: the view, or the rows of some tables (a table's hands all in or all out)
TABLE_RUNS_VIEW = "CREATE OR REPLACE VIEW table_runs AS" + TABLE_RUNS.format(hands="hands")
FANTASY_SQL = (
    """
WITH runs AS ("""
    + TABLE_RUNS
    + """), counted AS (
  SELECT hand_key, format, room, table_id, played_at, room_hand_id, runs.run,
         CASE WHEN strpos(room_hand_id, table_id || '-') > 0 THEN TRY_CAST(regexp_extract(
           substr(room_hand_id, strpos(room_hand_id, table_id || '-') + length(table_id) + 1),
           '^[0-9]+') AS BIGINT) END AS counter
  FROM {hands} LEFT JOIN runs USING (hand_key)
), tabled AS (
  SELECT hand_key, lead(hand_key) OVER next AS table_next_key,
         lead(counter) OVER next - counter AS counter_step
  FROM counted
  WINDOW next AS (PARTITION BY format, room, table_id, run
                  ORDER BY played_at, room_hand_id, hand_key)
), linked AS (
  SELECT hand_key, format, room, table_id, played_at, seat, player, player_key,
         in_fantasy, fantasy_cards, status, fouled, fantasy_entry, fantasy_stays,
         repeat_cards, fantasy_next,
         lead(hand_key) OVER next AS next_hand_key,
         lead(seat) OVER next AS next_seat,
         lead(played_at) OVER next AS next_played_at,
         lead(in_fantasy) OVER next AS next_in_fantasy,
         lead(fantasy_cards) OVER next AS next_fantasy_cards
  FROM {seat_results} LEFT JOIN runs USING (hand_key)
  WINDOW next AS (PARTITION BY format, room, table_id, run, player_key
                  ORDER BY played_at, room_hand_id, hand_key)
)
SELECT l.*,
  CASE WHEN l.next_hand_key IS NULL THEN NULL
       WHEN l.next_hand_key IS DISTINCT FROM t.table_next_key THEN 'sat out'
       WHEN t.counter_step > 1 THEN 'gap'
       ELSE 'next' END AS next_link,
  date_diff('second', played_at, next_played_at) AS seconds_to_next,
  next_in_fantasy AS room_fantasy,
  CASE WHEN next_in_fantasy THEN next_fantasy_cards WHEN NOT next_in_fantasy THEN 0 END
    AS room_cards,
  earns_fantasy(fantasy_entry, fantasy_stays) AS rules_fantasy,
  fantasy_next AS rules_cards
FROM linked l LEFT JOIN tabled t USING (hand_key)
"""
)  # {hands}, {seat_results}: the views, or the rows of some tables (the windows stay in one)
FANTASY_VIEW = "CREATE OR REPLACE VIEW fantasy AS" + FANTASY_SQL.format(
    hands="hands", seat_results="seat_results"
)


# Cards as people write them: card ids 0-51 are rank * 4 + suit (2..A, c d h s),
# 52 and 53 the jokers X1 and X2; a board BLOB is 13 card ids, top then middle, bottom.
CARD_MACROS = (
    "CREATE OR REPLACE MACRO card_text(c) AS CASE WHEN c IS NULL OR c < 0 THEN NULL "
    "WHEN c >= 52 THEN 'X' || (c - 51)::VARCHAR "
    "ELSE substr('23456789TJQKA', (c // 4) + 1, 1) || substr('cdhs', (c % 4) + 1, 1) END",
    "CREATE OR REPLACE MACRO cards_text(l) AS "
    "array_to_string(list_transform(l, lambda x: card_text(x)), ' ')",
    "CREATE OR REPLACE MACRO board_ids(b) AS list_transform(range(octet_length(b)), "
    "lambda i: ('0x' || substr(hex(b), 2 * i + 1, 2))::INTEGER)",
    "CREATE OR REPLACE MACRO board_text(b) AS cards_text(board_ids(b))",
)
# Money is float64 (the rooms' decimal amounts as doubles): what the ledger and the reports
# show of a product, sum or difference is rounded to 1e-6, far below any room's unit, so
# binary noise (21 × 0.9 = 18.900000000000002, a difference of 4e-16 where the room paid
# exactly) is not shown as money and `difference <> 0` means a difference (+ 0.0: no -0).
MONEY_MACRO = "CREATE OR REPLACE MACRO money_shown(x) AS round(x, 6) + 0.0"
# A seat's next hand is in Fantasyland by the rules: it entered, or it stays (a repeat whose
# size the rules leave open has no fantasy_next, so the flag is not fantasy_next > 0).  The
# one SQL spelling of engine.scoring.FantasyOutcome's "qualifies or stays", for every view,
# check and report that asks it (NULL for a seat not scored, as before).
FANTASY_MACRO = "CREATE OR REPLACE MACRO earns_fantasy(entry, stays) AS stays OR entry > 0"

EMPTY_ALIASES_VIEW = """
CREATE OR REPLACE VIEW aliases AS
SELECT NULL::VARCHAR AS name, NULL::VARCHAR AS account, NULL::VARCHAR AS action,
       NULL::TIMESTAMP AS changed_at
WHERE false
"""

# The latest event of an account decides: joined to a name, or on its own.
PLAYER_ALIASES_VIEW = """
CREATE OR REPLACE VIEW player_aliases AS
SELECT account, name, changed_at AS since FROM (
  SELECT *, row_number() OVER (PARTITION BY account ORDER BY changed_at DESC, action) AS latest
  FROM aliases
) WHERE latest = 1 AND action = 'join'
"""

# SwC's dealer chat names no hand id, so a chat hand a browser capture or an fpdb-3
# database of the same table also holds is stored twice (ofc_stats.store.overlap).  A chat
# hand repeats a captured one when both are at the same table with the same players and
# every player's reported points equal, and the capture's time (decoded captures have none)
# is within an hour of the chat's; hands alike in that pair one to one, in order (the
# chat's by time, the captures' by hand id), so two chat hands never claim one capture.
CHAT_FORMAT = "swc-chat"
CAPTURE_FORMATS = ("swc", "fpdb")  # SwC's own hand ids: a browser capture, an fpdb-3 database
CHAT_REPEATS_VIEW = """
CREATE OR REPLACE VIEW chat_repeats AS
WITH sig AS (
    SELECT h.hand_key, h.format, h.table_id, h.source_file, h.played_at, h.room_hand_id,
           list(struct_pack(p := s.player, pts := s.reported_points) ORDER BY s.player)
               AS signature
    FROM hands h JOIN seats s USING (hand_key)
    WHERE h.format IN ({chat}, {captures})
      AND h.table_id IN (SELECT table_id FROM hands WHERE format = {chat})
    GROUP BY ALL
),
chat AS (
    SELECT *, row_number() OVER (
        PARTITION BY table_id, signature ORDER BY played_at, hand_key) AS nth
    FROM sig WHERE format = {chat}
),
captured AS (
    SELECT *, row_number() OVER (
        PARTITION BY table_id, signature
        ORDER BY TRY_CAST(room_hand_id AS BIGINT) NULLS LAST, hand_key) AS nth
    FROM sig WHERE format <> {chat}
)
SELECT chat.hand_key AS chat_key, captured.hand_key AS capture_key,
       chat.source_file AS chat_file, captured.played_at IS NOT NULL AS timed
FROM chat JOIN captured USING (table_id, signature, nth)
WHERE captured.played_at IS NULL
   OR abs(epoch(captured.played_at) - epoch(chat.played_at)) <= 3600
""".format(  # our own format names as SQL literals (a view takes no parameters)
    chat=f"'{CHAT_FORMAT}'", captures=", ".join(f"'{name}'" for name in CAPTURE_FORMATS)
)

# A chat hand that repeats a captured one is counted once, as the capture.  One row per
# account (its person: the alias joining it, else the account itself); after the first
# eight columns, what a person is seen as: the account's room id (null: known by name
# only) and every name it played under (most seats first), the person's accounts (most
# seats first), hands (two of their accounts at one table: one hand) and rooms.  A person
# of one account has its counts, so only the seats of people of several are read again.
PLAYERS_VIEW = """
CREATE OR REPLACE VIEW players AS
WITH seat AS (
  SELECT s.hand_key, s.player, s.player_id, coalesce(s.player_id, s.player) AS player_key,
         s.hero, h.room, h.played_at
  FROM seats s JOIN hands h USING (hand_key)
  WHERE s.hand_key NOT IN (SELECT chat_key FROM chat_repeats)
),
named AS (
  SELECT player_key, player, count(*) AS seats, max(player_id) AS player_id
  FROM seat GROUP BY player_key, player
),
account AS (
  SELECT coalesce(a.name, p.player_key) AS person, p.*
  FROM (
    SELECT s.player_key, mode(s.player) AS player, count(*) AS hands,
           count(*) FILTER (WHERE s.hero) AS hero_hands,
           string_agg(DISTINCT s.room, ', ' ORDER BY s.room) AS rooms,
           min(s.played_at) AS first_seen, max(s.played_at) AS last_seen
    FROM seat s GROUP BY s.player_key
  ) p LEFT JOIN player_aliases a ON a.account = p.player_key
),
names AS (
  SELECT player_key, max(player_id) AS player_id,
         list(player ORDER BY seats DESC, player) AS names
  FROM named GROUP BY player_key
),
person AS (
  SELECT person, count(*) AS accounts_held,
         list(player_key ORDER BY hands DESC, player_key) AS accounts,
         any_value(hands) AS hands, any_value(rooms) AS rooms
  FROM account GROUP BY person
),
several AS (
  SELECT a.person, count(DISTINCT s.hand_key) AS hands,
         string_agg(DISTINCT s.room, ', ' ORDER BY s.room) AS rooms
  FROM seat s JOIN account a USING (player_key)
  WHERE a.person IN (SELECT person FROM person WHERE accounts_held > 1)
  GROUP BY a.person
)
SELECT a.*, n.player_id, n.names, p.accounts,
       CASE WHEN p.accounts_held > 1 THEN m.hands ELSE p.hands END AS person_hands,
       CASE WHEN p.accounts_held > 1 THEN m.rooms ELSE p.rooms END AS person_rooms
FROM account a JOIN names n USING (player_key) JOIN person p USING (person)
LEFT JOIN several m USING (person)
"""

BOARDS_VIEW = """
CREATE OR REPLACE VIEW boards AS
SELECT s.hand_key, s.seat, s.player, coalesce(s.player_id, s.player) AS player_key,
       cards_text(s.top) AS top, cards_text(s.middle) AS middle, cards_text(s.bottom) AS bottom,
       cards_text(s.discards) AS discards, s.in_fantasy, r.fouled, r.royalties, r.net,
       r.net_capped, s.hand_id, h.room, h.played_at
FROM seats s LEFT JOIN results r USING (hand_key, seat) LEFT JOIN hands h ON h.hand_id = s.hand_id
"""


# Freed memory past this size is handed back at once; 0 for a statement: all of it.
FLUSH_SETTING = "allocator_bulk_deallocation_flush_threshold"

# The ledger: ``ledger_seats`` is what the audit priced (one row per seat the room paid);
# ``ledger`` adds whose seat it is and the hand, so a report filters it as it filters seats.
LEDGER_VIEW = """
CREATE OR REPLACE VIEW ledger AS
SELECT h.hand_key, l.hand_id, l.seat, s.player, coalesce(s.player_id, s.player) AS player_key,
       s.hero, h.played_at, l.room, l.currency, l.money_paid,
       money_shown(l.money_rules) AS money_rules,
       money_shown(l.money_paid - l.money_rules) AS difference, l.rules, l.rules_source,
       l.out_of_sample
FROM ledger_seats l
JOIN (SELECT hand_id, hand_key, played_at FROM hands) h USING (hand_id)
JOIN (SELECT hand_id, seat, player, player_id, hero FROM seats) s USING (hand_id, seat)
"""
# The ledger view's rows that LEDGER_HANDS_SQL reads, of the seats in ``{seats}`` (a table
# of hand_id, seat, hand_key, played_at: a report's player's seats, which it read already):
# ledger_seats cut down to those hands by an integer semi-join, no hands or seats joined.
LEDGER_OF_SEATS = """
SELECT w.hand_key, l.hand_id, l.seat, w.played_at, l.room, l.currency, l.money_paid,
       money_shown(l.money_rules) AS money_rules,
       money_shown(l.money_paid - l.money_rules) AS difference, l.rules, l.rules_source,
       l.out_of_sample
FROM (SELECT * FROM ledger_seats WHERE hand_id IN (SELECT hand_id FROM {seats})) l
JOIN {seats} w ON w.hand_id = l.hand_id AND w.seat = l.seat
"""
LEDGER_TOLERANCE = 0.011  # a hand paid more or less than the rules by over a cent differs
# One row per person (``who``) and hand, over ``{who}``: a relation of who, hand_id, seat,
# and ``{ledger}``: the ledger view, or a copy of its rows for some hands.
# A hand is scored when the rules priced every one of its seats there; difference = paid -
# rules (negative: the room owes the player), null on a hand not scored.
LEDGER_HANDS_SQL = """
SELECT w.who AS player, l.room, l.currency, l.hand_id, any_value(l.hand_key) AS hand_key,
       min(l.played_at) AS played_at, bool_and(l.money_rules IS NOT NULL) AS scored,
       CASE WHEN bool_and(l.money_rules IS NOT NULL)
            THEN money_shown(sum(l.money_rules)) END AS money_rules,
       money_shown(sum(l.money_paid)) AS money_paid,
       CASE WHEN bool_and(l.money_rules IS NOT NULL)
            THEN money_shown(sum(l.money_paid) - sum(l.money_rules)) END AS difference,
       any_value(l.rules) AS rules, any_value(l.rules_source) AS rules_source,
       any_value(l.out_of_sample) AS out_of_sample
FROM {who} w JOIN {ledger} l USING (hand_id, seat)
GROUP BY w.who, l.room, l.currency, l.hand_id
"""
# LEDGER_HANDS_SQL's money alone, grouped as it groups and shown as it shows it (the page's
# ledger sums it again under its filters): no text column is carried, so it costs a third
# as much.
LEDGER_HAND_MONEY_SQL = """
SELECT w.who AS player, l.hand_id,
       CASE WHEN bool_and(l.money_rules IS NOT NULL)
            THEN money_shown(sum(l.money_rules)) END AS money_rules,
       money_shown(sum(l.money_paid)) AS money_paid
FROM {who} w JOIN {ledger} l USING (hand_id, seat)
GROUP BY w.who, l.room, l.currency, l.hand_id
"""
# Per person, room and currency, every money column over the same hands, the scored
# ones; overpaid and underpaid are the gross of the hands that differ (so errors that net
# to zero still show), each with its hands, largest difference first.
# The sums of LEDGER_SQL over {per_hand}: the rows of LEDGER_HANDS_SQL, as a query or a table.
LEDGER_SUMS_SQL = f"""
WITH ranked AS (SELECT *, abs(difference) AS size FROM {{per_hand}})
SELECT player, room, currency, count(*)::BIGINT AS hands,
  money_shown(coalesce(sum(money_rules) FILTER (WHERE scored), 0)) AS money_rules,
  money_shown(coalesce(sum(money_paid) FILTER (WHERE scored), 0)) AS money_paid,
  money_shown(coalesce(sum(difference), 0)) AS difference,
  money_shown(coalesce(sum(difference) FILTER (WHERE difference > {LEDGER_TOLERANCE}), 0))
    AS overpaid,
  money_shown(coalesce(-sum(difference) FILTER (WHERE difference < -{LEDGER_TOLERANCE}), 0))
    AS underpaid,
  count(*) FILTER (WHERE size > {LEDGER_TOLERANCE})::BIGINT AS hands_off,
  coalesce(list(hand_key ORDER BY size DESC, hand_id) FILTER (WHERE size > {LEDGER_TOLERANCE}),
           []) AS off_hand_keys,
  coalesce(list(hand_key ORDER BY size DESC, hand_id)
           FILTER (WHERE difference > {LEDGER_TOLERANCE}), []) AS overpaid_hand_keys,
  coalesce(list(hand_key ORDER BY size DESC, hand_id)
           FILTER (WHERE difference < -{LEDGER_TOLERANCE}), []) AS underpaid_hand_keys,
  coalesce(list(hand_key ORDER BY size DESC, hand_id) FILTER (WHERE size >= 0.005), [])
    AS net_hand_keys,
  count(*) FILTER (WHERE NOT scored)::BIGINT AS hands_not_scored,
  money_shown(coalesce(sum(money_paid) FILTER (WHERE NOT scored), 0)) AS money_not_scored,
  coalesce(list(hand_key ORDER BY hand_id) FILTER (WHERE NOT scored), [])
    AS not_scored_hand_keys,
  any_value(rules) AS rules, any_value(rules_source) AS rules_source,
  any_value(out_of_sample) AS out_of_sample
FROM ranked
GROUP BY player, room, currency ORDER BY player, room, currency
"""
LEDGER_SQL = LEDGER_SUMS_SQL.format(per_hand=f"({LEDGER_HANDS_SQL})")


LEDGER_PER_HAND = "ledger_per_hand"  # ledger_of's hands, grouped once


def ledger_of(
    data: OfcData, seats: pa.Table, ledger: str = "ledger"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ledger of ``seats`` (columns who, hand_id, seat): the sums of :data:`LEDGER_SQL`
    and the hands of :data:`LEDGER_HANDS_SQL`, largest difference first, read from
    ``ledger`` (the view, or a table of ours holding its rows for these seats' hands).

    The one place the ledger is summed: ``audit --player``, the report's section
    and the page all read it.
    """
    with _registered(data, "ledger_who", seats) as name:
        # The hands are grouped once (a table of ours), then summed and listed from there.
        data.connection.sql(
            f"CREATE OR REPLACE TEMP TABLE {LEDGER_PER_HAND} AS "
            + LEDGER_HANDS_SQL.format(who=name, ledger=ledger)
        )
    try:
        rows = data.df(LEDGER_SUMS_SQL.format(per_hand=LEDGER_PER_HAND))
        hands = data.df(
            f"SELECT * FROM {LEDGER_PER_HAND} ORDER BY abs(difference) DESC NULLS LAST, hand_id"
        )
    finally:
        data.connection.sql(f"DROP TABLE IF EXISTS {LEDGER_PER_HAND}")
    return rows, hands


def ledger_hands_of(data: OfcData, seats: pa.Table, ledger: str = "ledger") -> pd.DataFrame:
    """The money of :func:`ledger_of`'s hands alone (:data:`LEDGER_HAND_MONEY_SQL`: player,
    hand_id, money_rules, money_paid; in hand order): the page's ledger, which sums them
    again under its filters."""
    with _registered(data, "ledger_who", seats) as name:
        return data.df(
            f"{LEDGER_HAND_MONEY_SQL.format(who=name, ledger=ledger)} ORDER BY hand_id, player"
        )


@contextmanager
def _registered(data: OfcData, name: str, table: pa.Table) -> Iterator[str]:
    data.connection.register(name, table)
    try:
        yield name
    finally:
        data.connection.unregister(name)


def owed_text(row: Mapping[Any, Any], currency: str = "") -> str:
    """Who owes whom on a ledger row, in words; "settled" only when every hand matches.

    >>> owed_text({"difference": -1.0, "hands_off": 1, "overpaid": 0, "underpaid": 1}, "USD")
    'the room owes 1 USD'
    >>> owed_text({"difference": 0.0, "hands_off": 2, "overpaid": 40, "underpaid": 40}, "INR")
    'not settled: 40 INR overpaid and 40 INR underpaid net to 0'
    >>> owed_text({"difference": 0.0, "hands_off": 0, "overpaid": 0, "underpaid": 0})
    'settled as the rules say'

    A difference no hand accounts for (every hand within a cent: the room's roundings)
    is said to be that, not a debt: nobody can claim it.

    >>> owed_text({"difference": -0.08, "hands_off": 0, "net_hand_keys": ["a", "b"]}, "USD")[32:]
    'the -0.08 USD is the roundings of under a cent of 2 hands, not money owed'
    """
    unit = f" {currency}" if currency else ""
    difference = float(row["difference"])
    if not int(row["hands_off"]) and abs(difference) > LEDGER_TOLERANCE:
        keys = row.get("net_hand_keys")
        rounded = counted(0 if keys is None else len(keys), "hand")
        return (
            f"no hand differs by over a cent: the {difference:+,.2f}{unit} is the roundings "
            f"of under a cent of {rounded}, not money owed"
        )
    if difference < -LEDGER_TOLERANCE:
        return f"the room owes {-difference:g}{unit}"
    if difference > LEDGER_TOLERANCE:
        return f"the room paid {difference:g}{unit} more than the rules"
    if int(row["hands_off"]):
        over, under = float(row["overpaid"]), float(row["underpaid"])
        return f"not settled: {over:g}{unit} overpaid and {under:g}{unit} underpaid net to 0"
    return "settled as the rules say"


class OfcData:
    """A read-only DuckDB view of one dataset: ``sql`` for relations, ``df`` for frames."""

    def __init__(
        self, root: str | Path, *, threads: int | None = None, results: pa.Table | None = None
    ) -> None:
        """``results``: a handle whose ``results`` view is this table, not the stored one
        (:meth:`rescored`)."""
        self.root = Path(root)
        self.threads = threads
        self.rescored_results = results
        dataset = Dataset(self.root)
        dataset.require()
        # Reading never writes: a dataset of an older version is refused with the
        # command that upgrades it (`ofc-stats migrate`; import and recompute upgrade too).
        dataset.check_version()
        config: dict[str, Any] = {}
        if threads is not None:
            config["threads"] = threads
        self.connection = duckdb.connect(config=config)
        self.connection.sql("SET enable_progress_bar = false")  # ours, when there is one
        self._views(dataset)
        self._seen = self._stamp()
        self.reading_only = False

    def read_only(self) -> None:
        """From now on: statements that read (SELECT, EXPLAIN), files of this dataset only.

        ``ofc-stats sql --read-only``: DuckDB's file access is switched off
        but for the dataset's folder, and locked so a query cannot switch it
        back on; COPY, ATTACH, INSTALL, SET and CREATE are refused before they run.
        """
        root = os.path.realpath(self.root) + os.sep
        quoted = "'" + root.replace("'", "''") + "'"
        self.connection.sql(f"SET allowed_directories = [{quoted}]")
        self.connection.sql("SET enable_external_access = false")
        self.connection.sql("SET lock_configuration = true")
        self.reading_only = True

    def _refuse_writes(self, query: str) -> None:
        only_reading(query)  # what it refuses, EXPLAIN ANALYZE's statement included

    def _stamp(self) -> tuple[int, ...]:
        """The table folders' change times: a commit renames files in or out of them."""
        stamps = []
        for name in (*IMPORTED, *DERIVED, *GRADER_TABLES, "aliases"):
            try:
                stamps.append(os.stat(self.root / name).st_mtime_ns)
            except OSError:
                stamps.append(0)
        return tuple(stamps)

    def _current(self) -> None:
        """Views over the files the dataset holds now (a forget or an import since opening
        removed or added batch files; the views name files one by one)."""
        stamp = self._stamp()
        if stamp != self._seen:
            self._views(Dataset(self.root))
            self._seen = stamp

    def _views(self, dataset: Dataset) -> None:
        con = self.connection
        con.sql(MONEY_MACRO)
        con.sql(FANTASY_MACRO)
        for name in [*IMPORTED, *DERIVED]:  # hands before the views that join it
            self._parquet_view(dataset, name)
        by_id = "SELECT * FROM results_stored"
        if self.rescored_results is not None:
            con.register("results_rescored", self.rescored_results)
            con.sql("CREATE OR REPLACE VIEW results AS SELECT * FROM results_rescored")
            by_id = "SELECT * EXCLUDE (hand_key) FROM results_rescored"
        con.sql(f"{VIEW} {RESULTS_BY_ID} AS {by_id}")
        rule_tables(con, self.root)
        con.sql(
            "CREATE OR REPLACE VIEW recorded_timeouts AS "
            + RECORDED_TIMEOUTS_SQL.format(results="results")
        )
        con.sql(
            "CREATE OR REPLACE VIEW streets AS "
            + STREETS_SQL.format(placements="placements", hands="hands", results="results")
        )
        con.register("row_classes", row_classes())
        # each app's own name for itself (hands.room) beside the name people know it by
        con.register("app_names", pa.table({"room": [*APP_NAMES], "app": [*APP_NAMES.values()]}))
        con.sql(SEAT_RESULTS_VIEW)
        con.sql(TABLE_RUNS_VIEW)
        con.sql(FANTASY_VIEW)
        self._people_views(dataset)
        self._grade_views(dataset)
        self.reload_ledger()

    def _people_views(self, dataset: Dataset) -> None:
        """Cards as text, the players and their aliases (docs/analyst.md)."""
        con = self.connection
        for macro in CARD_MACROS:
            con.sql(macro)
        folder = dataset.table_dir("aliases")
        paths = [str(p) for p in sorted(folder.glob("*.parquet"))] if folder.is_dir() else []
        hidden = dataset.publishing()
        paths = [p for p in paths if Path(p).stem not in hidden]
        if paths:
            listed = ", ".join("'" + path.replace("'", "''") + "'" for path in paths)
            con.sql(f"CREATE OR REPLACE VIEW aliases AS SELECT * FROM read_parquet([{listed}])")
        else:
            con.sql(EMPTY_ALIASES_VIEW)
        con.sql(PLAYER_ALIASES_VIEW)
        con.sql(CHAT_REPEATS_VIEW)
        con.sql(PLAYERS_VIEW)
        con.sql(BOARDS_VIEW)

    def pick_hands(self, keys: Sequence[str] = (), ids: Sequence[int] = ()) -> None:
        """Temp tables ``picked_hands``, ``picked_seats``, ``picked_results``,
        ``picked_versus`` holding only these hands (by ``hand_key`` or ``hand_id``).

        Only the batch files that hold them are read: found for ids from the
        files' ``hand_id`` ranges in their Parquet footers (no data read), for
        keys by one scan of the hands' keys.  One hand, or the few dozen a
        report names, opens without reading every batch's seats and versus.
        """
        dataset = Dataset(self.root)
        wanted = {int(i) for i in ids}
        stems: set[str] = set()
        hands = dataset.files("hands")
        if hands and keys:
            rows = self.sql(
                f"SELECT hand_id, filename FROM read_parquet([{_listed(hands)}], filename = true) "
                "WHERE hand_key IN (SELECT unnest($keys))",
                {"keys": list(keys)},
            ).fetchall()
            wanted |= {int(r[0]) for r in rows}
            stems |= {Path(str(r[1])).stem for r in rows}
        if wanted:
            ordered = np.array(sorted(wanted), dtype=np.int64)
            for path in hands:
                low, high = hand_id_range(path)
                at = int(np.searchsorted(ordered, low))
                if at < len(ordered) and ordered[at] <= high:
                    stems.add(Path(path).stem)
        bound = {"ids": sorted(wanted)}
        for table in ("hands", "seats", "results", "versus"):
            folder = dataset.table_dir(table)
            paths = [str(folder / EMPTY)] + [
                str(folder / f"{stem}.parquet")
                for stem in sorted(stems)
                if (folder / f"{stem}.parquet").is_file()
            ]
            source = (
                f"(SELECT * FROM read_parquet([{_listed(paths)}], union_by_name = true) "
                "WHERE hand_id IN (SELECT unnest($ids)))"
            )
            create = "CREATE OR REPLACE TEMP TABLE"
            if table in KEYED_VIEWS:  # stored by hand_id: hand_key from the picked hands
                query = KEYED_VIEWS[table].format(
                    create=create, name=f"picked_{table}", source=source, hands="picked_hands"
                )
            else:
                query = f"{create} picked_{table} AS SELECT * FROM {source}"
            self.sql(query, bound)

    def batch_source(self, table: str, ranges: Sequence[tuple[int, int]]) -> str:
        """SQL reading ``table`` from only the batch files holding hands in ``ranges``.

        ``ranges`` are inclusive ``hand_id`` ranges; a file is chosen by its
        hands' id range in the Parquet footer (no data read).  Raw stored
        columns (``results`` and ``versus`` keyed by ``hand_id`` alone).
        """
        dataset = Dataset(self.root)
        stems = set()
        for path in dataset.files("hands"):
            low, high = hand_id_range(path)
            if any(a <= high and low <= b for a, b in ranges):
                stems.add(Path(path).stem)
        folder = dataset.table_dir(table)
        paths = [str(folder / EMPTY)] + [p for p in dataset.files(table) if Path(p).stem in stems]
        return f"read_parquet([{_listed(paths)}], union_by_name = true)"

    def batch_sources_of(self, ids: npt.NDArray[np.int64]) -> dict[str, str]:
        """SQL reading ``hands``, ``seats``, ``results`` and ``versus`` (as stored, keyed by
        hand_id) from only the batch files that hold some of these hand ids.

        A report's player in a dataset of mined hands sits in some batches only: the
        rest are never read.  Each file is chosen by its hands' id range in the Parquet
        footer (no data read); when every batch holds one, the views themselves.
        """
        dataset = Dataset(self.root)
        ordered = np.sort(np.asarray(ids, np.int64))
        stems, every = set(), True
        for path in dataset.files("hands"):
            low, high = hand_id_range(path)
            at = int(np.searchsorted(ordered, low))
            if at < len(ordered) and ordered[at] <= high:
                stems.add(Path(path).stem)
            else:
                every = False
        names = {"hands": "hands", "seats": "seats", "results": "results_stored"}
        names["versus"] = "versus_stored"
        if every:
            return names
        out = {}
        for table in names:
            folder = dataset.table_dir(table)
            paths = [str(folder / EMPTY)]
            paths += [p for p in dataset.files(table) if Path(p).stem in stems]
            out[table] = f"read_parquet([{_listed(paths)}], union_by_name = true)"
        return out

    # --- Grades (issue 11): `grades`, `grade_candidates`; empty until `ofc-stats grade` ran ---
    def _grade_views(self, dataset: Dataset) -> None:
        for name, schema in GRADER_TABLES.items():
            if (dataset.table_dir(name) / EMPTY).is_file():
                self._parquet_view(dataset, name)
            else:  # a dataset never graded has no folder: an empty view, same columns
                self.connection.register(f"_{name}_empty", schema.empty_table())
                self.connection.sql(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM _{name}_empty")

    def reload_ledger(self, priced: pa.Table | None = None) -> None:
        """The ``ledger_seats`` and ``ledger`` views: over ``priced`` when given (a ledger
        priced in memory, for a dataset this process may not write), else the stored one
        (empty, same columns, when the dataset was never priced)."""
        dataset = Dataset(self.root)
        name = next(iter(LEDGER_TABLES))
        if priced is not None:
            self.connection.register("_ledger_priced", priced.cast(LEDGER_SEATS))
            self.connection.sql(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM _ledger_priced")
        elif (dataset.table_dir(name) / EMPTY).is_file():
            self._parquet_view(dataset, name)
        else:
            self.connection.register(f"_{name}_empty", LEDGER_SEATS.empty_table())
            self.connection.sql(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM _{name}_empty")
        self.connection.sql(LEDGER_VIEW)

    @contextmanager
    def rescored(self, results: pa.Table) -> Iterator[OfcData]:
        """This dataset with ``results`` in place of the stored results (an audit under
        other rules), as a handle of its own: this one's views stay as they are."""
        scored = OfcData(self.root, threads=self.threads, results=results)
        try:
            if self.reading_only:
                scored.read_only()
            yield scored
        finally:
            scored.close()

    def _parquet_view(self, dataset: Dataset, name: str) -> None:
        """A view over the table's files, named one by one: no glob, so any folder name works."""
        paths = [str(dataset.table_dir(name) / EMPTY), *dataset.files(name)]
        listed = ", ".join("'" + path.replace("'", "''") + "'" for path in paths)
        if name in STORED_BY_ID:
            source = f"read_parquet([{listed}], union_by_name = true)"
            view = STORED_BY_ID[name].format(create=VIEW, name=name, source=source, hands="hands")
            self.connection.sql(view)
            # as stored, keyed by hand_id alone: integer joins with no hand_key (reports)
            self.connection.sql(
                f"CREATE OR REPLACE VIEW {name}_stored AS "
                f"SELECT * FROM read_parquet([{listed}], union_by_name = true)"
            )
            return
        self.connection.sql(
            f"CREATE OR REPLACE VIEW {name} AS "
            f"SELECT * FROM read_parquet([{listed}], union_by_name = true)"
        )

    def give_back(self) -> None:
        """Hand the memory DuckDB's allocator kept from finished queries back to the system.

        The allocator keeps what a query freed for the next ones: after an audit's passes
        over 100,000 hands a share at a time, 45 to 75 MB more than after 30,000.  A flush
        threshold of zero for one statement returns it all (about 10 ms); kept at zero,
        every query would flush (half as much CPU again).  A read-only handle's settings
        are locked: it keeps its memory.  Arrow's pool, which holds the results' columns,
        keeps what they freed likewise: it is handed back too.
        """
        pa.default_memory_pool().release_unused()
        con = self.connection
        try:
            before = con.sql(f"SELECT current_setting('{FLUSH_SETTING}')").fetchall()[0][0]
            con.sql(f"SET {FLUSH_SETTING} = '0B'")
            con.sql(f"SET {FLUSH_SETTING} = '{before}'")
        except duckdb.Error:
            pass

    def sql(self, query: str, params: Params = None) -> duckdb.DuckDBPyRelation:
        """A DuckDB relation; ``params`` are bound, not formatted into ``query``."""
        self._current()
        if self.reading_only:
            self._refuse_writes(query)
        try:
            return self.connection.sql(query, params=params)
        except duckdb.Error as error:
            raise OfcError(f"SQL error: {sql_error_line(error)}") from None

    def df(self, query: str, params: Params = None) -> pd.DataFrame:
        frame: pd.DataFrame = self.arrow(query, params).to_pandas()
        return frame

    def arrow(self, query: str, params: Params = None) -> pa.Table:
        relation = self.sql(query, params)
        if relation is None:
            return pa.table({})
        return relation.to_arrow_table()

    def table(self, name: str) -> duckdb.DuckDBPyRelation:
        return self.connection.table(name)

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> OfcData:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _listed(paths: Sequence[str]) -> str:
    """File paths as SQL string literals, quotes doubled (any folder name works)."""
    return ", ".join("'" + path.replace("'", "''") + "'" for path in paths)


def sql_error_line(error: duckdb.Error) -> str:
    """A DuckDB error as one line: its message and hint joined, the caret drawing of
    where in the query (``LINE 1: ...`` and its ``^^^``) dropped."""
    kept = []
    for line in str(error).splitlines():
        if line.startswith("LINE "):
            break
        if line.strip():
            kept.append(line.strip())
    return " ".join(kept) or type(error).__name__


def open_dataset(root: str | Path, *, threads: int | None = None) -> OfcData:
    """Open the dataset at ``root`` for queries (``ofc_stats.open``)."""
    return OfcData(root, threads=threads)


def row_classes() -> pa.Table:
    """Every dense row class with its category and a name people read ("pair of Qs").

    ``royalty_class`` is the class the royalty tables pay by: the category, or
    ``royal_flush`` for an ace-high straight flush (RULES.md §5).
    """
    t = tables()
    rows: dict[str, list[object]] = {
        "cards": [],
        "class": [],
        "category": [],
        "description": [],
        "top_pattern": [],
        "royalty_class": [],
    }
    for cards, ranks in ((3, t.rank3), (5, t.rank5)):
        for index, rank in enumerate(ranks):
            rows["cards"].append(cards)
            rows["class"].append(index)
            rows["category"].append(rank.category.label)
            rows["description"].append(rank.describe())
            rows["top_pattern"].append(rank.top_pattern if cards == 3 else "")
            rows["royalty_class"].append(five_card_label(rank))
    return pa.table(
        {
            "cards": pa.array(rows["cards"], pa.int8()),
            "class": pa.array(rows["class"], pa.int16()),
            "category": pa.array(rows["category"], pa.string()),
            "description": pa.array(rows["description"], pa.string()),
            "top_pattern": pa.array(rows["top_pattern"], pa.string()),
            "royalty_class": pa.array(rows["royalty_class"], pa.string()),
        }
    )
