"""Every Arrow schema of the dataset, in one place (docs/analyst.md documents them).

A dataset folder holds one folder per table, named as in :data:`TABLES`.
Imports write ``hands``, ``seats``, ``placements``, ``files`` and
``quarantine``; recompute writes ``results`` and ``versus``.

``HANDS``, ``SEATS`` and ``PLACEMENTS`` are the rows as parsers and the
record path lay them out; the stored tables add :data:`HAND_ID`, the
dataset's integer key of a hand (``store.hand_ids``).  ``placements``,
``results`` and ``versus`` are stored keyed by ``hand_id`` alone (no string
repeated on each of a hand's ~43 placements), ``versus`` once per pair of
seats; the views add ``hand_key`` back and both directions of a pair, so
:data:`PLACEMENTS`, :data:`RESULTS` and :data:`VERSUS` are the shapes users see.
"""

from __future__ import annotations

import pyarrow as pa

# 2: seats.board_streets; 3: one folder per table; 4: hand_id; 5: placements keyed by hand_id;
# 6: quarantine's room id is room_hand_id (hand_id is the integer key everywhere else);
# 7: results.recorded_timeouts (the timeouts each hand's text records, read once at scoring);
# 8: the ledger (ledger_seats) stored one file per import batch, priced at recompute
SCHEMA_VERSION = 8
# Stored results are this engine version's when their Parquet metadata says so;
# bump when a rule fix changes results, and recompute redoes them.
ENGINE_VERSION = 2
ENGINE_KEY = b"ofc_stats.engine"
CARDS = pa.list_(pa.int8())
DESTINATION = pa.dictionary(pa.int8(), pa.string())
HAND_ID = pa.field("hand_id", pa.int64())  # unique in the dataset, given at import, never changed

HANDS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("format", pa.string()),
        ("room", pa.string()),
        ("table_id", pa.string()),
        ("room_hand_id", pa.string()),
        ("played_at", pa.timestamp("us")),
        ("rules_text", pa.string()),
        ("ruleset", pa.string()),
        ("seat_count", pa.int8()),
        ("complete", pa.bool_()),
        ("stakes", pa.float64()),
        ("currency", pa.string()),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
        ("source_offset", pa.int64()),
        ("raw_text", pa.string()),
        ("fingerprint", pa.string()),
        ("batch", pa.string()),
    ]
)
SEATS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("player_id", pa.string()),
        ("hero", pa.bool_()),
        ("in_fantasy", pa.bool_()),
        ("fantasy_cards", pa.int8()),
        ("top", CARDS),
        ("middle", CARDS),
        ("bottom", CARDS),
        ("board", pa.binary(13)),  # top+middle+bottom card ids as 13 bytes; null if incomplete
        ("board_streets", pa.binary(13)),  # street of each board card, 255 = unknown; null if none
        ("discards", CARDS),
        ("reported_points", pa.float64()),
        ("reported_money", pa.float64()),
        ("stack", pa.float64()),
    ]
)
PLACEMENTS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("street", pa.int8()),
        ("card", pa.int8()),
        ("destination", DESTINATION),
    ]
)
FILES = pa.schema(
    [
        ("path", pa.string()),
        ("size", pa.int64()),
        ("modified_at", pa.timestamp("us")),
        ("sha256", pa.string()),
        ("format", pa.string()),
        ("hands_seen", pa.int64()),
        ("stored", pa.int64()),
        ("duplicates", pa.int64()),
        ("quarantined", pa.int64()),
        ("imported_at", pa.timestamp("us")),
        ("batch", pa.string()),
    ]
)
QUARANTINE = pa.schema(
    [
        ("source_file", pa.string()),
        ("line", pa.int64()),
        ("offset", pa.int64()),
        ("room_hand_id", pa.string()),  # the room's id of the refused hand, as text
        ("reason", pa.string()),
        ("raw_text", pa.string()),
        ("quarantined_at", pa.timestamp("us")),
        ("batch", pa.string()),
    ]
)
RESULTS = pa.schema(
    [
        ("hand_key", pa.string()),
        HAND_ID,
        ("seat", pa.int8()),
        ("ruleset", pa.dictionary(pa.int32(), pa.string())),  # the ruleset scored with
        ("status", pa.dictionary(pa.int8(), pa.string())),  # scored | incomplete | unknown ruleset
        ("fouled", pa.bool_()),
        ("top_class", pa.int16()),  # dense strength class; names in the row_classes view
        ("middle_class", pa.int16()),
        ("bottom_class", pa.int16()),
        ("royalty_top", pa.int16()),
        ("royalty_middle", pa.int16()),
        ("royalty_bottom", pa.int16()),
        ("royalties", pa.int16()),
        ("rows_won", pa.int8()),  # summed over opponents
        ("rows_lost", pa.int8()),
        ("rows_tied", pa.int8()),
        ("scoops", pa.int8()),  # opponents this seat won all three rows from
        ("scooped", pa.int8()),  # opponents that won all three rows from this seat
        ("net", pa.int32()),  # points before stack caps
        ("net_capped", pa.float64()),  # points after caps and max loss, as settled
        ("fantasy_entry", pa.int8()),  # cards of the Fantasyland this board earns, 0 = none
        ("fantasy_stays", pa.bool_()),  # a Fantasyland seat keeps Fantasyland
        ("repeat_cards", pa.int8()),  # cards of that repeat, 0 = none or unknown
        ("fantasy_next", pa.int8()),  # cards the rules deal next hand, 0 = normal, null = unknown
        ("timeout_streets", pa.int16()),  # bit s: street s matches the timeout auto-placement
        ("timeouts", pa.int8()),  # how many streets did
        # bit s: the hand's text records street s as timed out (the open format's street
        # "timeout": true, store.streets.recorded_bits); 0 in a format that records none
        ("recorded_timeouts", pa.int16()),
    ]
)
VERSUS = pa.schema(
    [
        ("hand_key", pa.string()),
        HAND_ID,
        ("seat", pa.int8()),
        ("opponent", pa.int8()),
        ("rows_won", pa.int8()),
        ("rows_lost", pa.int8()),
        ("rows_tied", pa.int8()),
        ("scoop", pa.bool_()),
        ("points", pa.int32()),  # uncapped, royalties included
    ]
)

STORED_HANDS = HANDS.append(HAND_ID)
STORED_SEATS = SEATS.append(HAND_ID)
# Never null, so Parquet writes no definition levels (a placement is always a whole card).
STORED_PLACEMENTS = pa.schema(
    [HAND_ID.with_nullable(False)]
    + [f.with_nullable(False) for f in PLACEMENTS if f.name != "hand_key"]
)
STORED_RESULTS = RESULTS.remove(RESULTS.get_field_index("hand_key"))
# versus is stored once per pair of seats (seat < opponent); the view adds the other way round.
PAIRS = pa.schema([f for f in VERSUS if f.name != "scoop"])
STORED_VERSUS = PAIRS.remove(PAIRS.get_field_index("hand_key"))
ALIASES = pa.schema(
    [
        ("name", pa.string()),  # the person, as ``--player NAME`` takes it
        ("account", pa.string()),  # a player_key: the room's player id, else the stored name
        ("action", pa.string()),  # join | leave: the latest event of an account wins
        ("changed_at", pa.timestamp("us")),
    ]
)

IMPORTED = {
    "hands": STORED_HANDS,
    "seats": STORED_SEATS,
    "placements": STORED_PLACEMENTS,
    "files": FILES,
    "quarantine": QUARANTINE,
}
DERIVED = {"results": STORED_RESULTS, "versus": STORED_VERSUS}  # recompute's, keyed by hand_id
TABLES = {**IMPORTED, **DERIVED}
# Written by `ofc-stats players alias`; kept out of TABLES because datasets made
# before it have no folder for it (ofc_stats.store.aliases makes it on first use).
PLAYER_TABLES = {"aliases": ALIASES}

# --- Grades (issue 11: ofc_stats.grade writes them; `ofc-stats grade`) ----------------
# Not in TABLES: datasets without grades stay valid; the grader creates the folders.
GRADES = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("street", pa.int8()),  # 0 = first; a Fantasyland set is 0
        ("kind", pa.string()),  # street | fantasy
        ("decision", pa.string()),  # where the loss is: rows | fouls | royalties | fantasy | none
        ("status", pa.string()),  # graded | forced | no solver | unplayable: <why>
        ("candidates", pa.int16()),  # legal plays
        ("rollouts", pa.int32()),  # rollouts behind the chosen play's value
        ("dealt", CARDS),
        ("chosen_play", pa.string()),
        ("best_play", pa.string()),
        ("ev_chosen", pa.float64()),  # expected points (Fantasyland: the set's value)
        ("se_chosen", pa.float64()),
        ("ev_best", pa.float64()),
        ("se_best", pa.float64()),
        ("loss", pa.float64()),  # ev_best - ev_chosen >= 0, on common rollouts
        ("loss_se", pa.float64()),
        ("loss_se_independent", pa.float64()),  # the SE without common random numbers
        ("loss_rows", pa.float64()),  # the loss split; the four sum to loss
        ("loss_fouls", pa.float64()),
        ("loss_royalties", pa.float64()),
        ("loss_fantasy", pa.float64()),
        ("fantasy_cards", pa.int8()),  # Fantasyland sets: cards dealt
        ("missed_repeat", pa.bool_()),  # Fantasyland sets: the best set repeats, the real one not
        # Street decisions: the play made against the best, named (ofc_stats.grade.mistakes);
        # null when the play made is the best
        ("mistake", pa.string()),
        # grader 7, street decisions: the rival (the best play if another, else the play
        # within the noise the rollouts measured highest; null: none), named like mistake,
        # its value minus the play made's as measured (signed), its SE, within the noise
        ("rival_play", pa.string()),
        ("rival_mistake", pa.string()),
        ("rival_edge", pa.float64()),
        ("rival_se", pa.float64()),
        ("rival_within_noise", pa.bool_()),
    ]
)
GRADE_CANDIDATES = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("street", pa.int8()),
        ("candidate", pa.int16()),  # row of the street's candidate table
        ("play", pa.string()),
        ("destinations", CARDS),  # per dealt card: 0 top, 1 middle, 2 bottom, 3 discard
        ("ev", pa.float64()),
        ("se", pa.float64()),
        ("rollouts", pa.int32()),
        ("chosen", pa.bool_()),
        ("best", pa.bool_()),
        # grader 7: the measured gap behind the best (best - this, signed: < 0 means the
        # rollouts measured it above the best, within their noise), its SE, and whether
        # the rollouts cannot tell it from the best; ev never exceeds the best's
        ("gap", pa.float64()),
        ("gap_se", pa.float64()),
        ("within_noise", pa.bool_()),
    ]
)
GRADE_TABLES = {"grades": GRADES, "grade_candidates": GRADE_CANDIDATES}

# --- The ledger: what the rules give each seat the room paid (ofc_stats.audit.ledger writes
# it; `ofc-stats recompute`, so import, prices each new batch; `audit` and `report` price
# it when the hands changed).  One file per import batch (schema 8), stamped with the rules
# and the results it was priced from.  Not in TABLES: a dataset never priced has no folder
# and an empty view of these columns.
LEDGER_SEATS = pa.schema(
    [
        HAND_ID,
        ("seat", pa.int8()),
        ("room", pa.string()),
        ("currency", pa.string()),  # "" for none
        ("money_paid", pa.float64()),  # what the room paid the seat (reported), never null
        ("money_rules", pa.float64()),  # what the rules give after rake; null: hand not scored
        ("rules", pa.string()),  # the room's money rules it was priced by, in words
        ("rules_source", pa.string()),  # inferred | rules file
        ("out_of_sample", pa.string()),  # holds | does not hold | not checked (rules file)
    ]
)
LEDGER_KEY = b"ofc_stats.ledger"  # Parquet metadata: the batches and rules it was priced from
LEDGER_TABLES = {"ledger_seats": LEDGER_SEATS}
# `ofc-stats grade --replay` (ofc_stats.grade.replay_store): the grader's advice played
# on each graded seat's own cards, against the opponents' real final boards.
REPLAYS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("first_deviation", pa.int8()),  # first street the advice played otherwise; null: never
        ("bot_value", pa.float64()),  # net points before caps + the Fantasyland earned
        ("player_value", pa.float64()),  # the player's real board, valued the same way
        ("gain", pa.float64()),  # bot_value - player_value: what the advice realised
        ("claimed", pa.float64()),  # the grades' expected loss on the seat's street decisions
        ("bot_fouled", pa.bool_()),
        ("bot_fantasy_cards", pa.int8()),  # the Fantasyland the advice's board earns; 0 none
        ("bot_board", CARDS),
    ]
)
REPLAY_TABLES = {"replays": REPLAYS}
# Every table the grader writes, batch by batch (forget and the views take them all).
GRADER_TABLES = {**GRADE_TABLES, **REPLAY_TABLES}
