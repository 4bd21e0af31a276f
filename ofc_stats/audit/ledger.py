"""What does the room owe me?  A ledger per player × room × currency.

For each seat with reported money the audit knows what the rules say it
should have got (points × stakes, the room's rake and short-stack
settlement, :mod:`ofc_stats.audit.money`).  :func:`price_ledger` writes that,
seat by seat, into the dataset's ``ledger_seats`` table, which the store
shows as the ``ledger`` view (its columns: ``ofc_stats.store.schema.LEDGER_SEATS``)
and sums per person with ``ofc_stats.store.views.LEDGER_SQL``: the report
page reads the same view, so the page and ``audit --player`` cannot differ.

What the room paid is a fact and is always counted; what the rules give needs
a scored hand, so a hand that could not be scored (another seat's board
incomplete) has its paid money in ``money_not_scored`` and is counted apart
as not checked.  A player is named by name, by the room's player id, by an
alias stored with ``ofc-stats players alias``, or ``hero`` (the player who
recorded the files); several names can be summed as one person's aliases.

The rules are each room's, inferred from all its money hands (and judged on
the halves they were not inferred from, :mod:`.holdout`) or given by a rules
file.  The table is stored one file per import batch (:func:`price_batches`),
each stamped with the rules and the results it was priced from, and priced
by ``ofc-stats recompute`` (so by every import) for the batches it scored:
a dataset of more than :data:`WHOLE_UP_TO` money hands has each room's rules
inferred from a bounded sample, then is priced batch by batch from each
batch's files, so memory follows the batch, not the dataset.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.audit.holdout import Holdout, holdout
from ofc_stats.audit.money import MoneyRules, RoomMoney, room_money, rules_money
from ofc_stats.audit.money_seats import SeatMoney
from ofc_stats.errors import DatasetError, DatasetLocked
from ofc_stats.payouts.settle import kind_text
from ofc_stats.store.dataset import EMPTY, Dataset
from ofc_stats.store.files import fsync_dir, write_parquet
from ofc_stats.store.hand_ids import hand_id_range
from ofc_stats.store.schema import LEDGER_KEY, LEDGER_SEATS, LEDGER_TABLES
from ofc_stats.store.views import OfcData, ledger_of, owed_text
from ofc_stats.wording import plural

HERO = "hero"
# How seats are priced: a ledger file priced by an older version is priced again, though
# its rules' words and results are the same (2: a room's wrong points are no short stack).
PRICING_VERSION = "2"
LEDGER_COLUMNS = [
    "player",
    "room",
    "currency",
    "hands",
    "money_rules",
    "money_paid",
    "difference",
    "overpaid",
    "underpaid",
    "hands_off",
    "off_hand_keys",
    "overpaid_hand_keys",
    "underpaid_hand_keys",
    "net_hand_keys",
    "hands_not_scored",
    "money_not_scored",
    "not_scored_hand_keys",
    "rules",
    "rules_source",
    "out_of_sample",
]
HAND_COLUMNS = ["player", "hand_key", "room", "currency", "money_rules", "money_paid", "difference"]
TABLE = next(iter(LEDGER_TABLES))  # ledger_seats

# Every seat the room paid, with its hand's room and currency.
PAID_SQL = """
SELECT s.hand_id, s.seat, h.room, coalesce(h.currency, '') AS currency,
       s.reported_money AS money_paid
FROM (SELECT hand_id, seat, reported_money FROM seats WHERE reported_money IS NOT NULL) s
JOIN (SELECT hand_id, room, currency FROM hands) h USING (hand_id)
ORDER BY s.hand_id, s.seat
"""

SEATS_SQL = """
SELECT hand_id, hand_key, seat FROM seats WHERE reported_money IS NOT NULL AND ({who})
"""


@dataclass(frozen=True)
class Ledger:
    """The ledger rows and the hands behind them, one row per player and hand."""

    rows: pd.DataFrame  # LEDGER_COLUMNS
    hands: pd.DataFrame  # HAND_COLUMNS, largest difference first


def _label(room: str, currency: str) -> str:
    """A money rule's label, as ``room_money`` names them."""
    return f"{room} {currency or '(no currency)'}"


UNCHECKED = "inferred from this player's hands only"  # an inferred rule without holdouts


def priced_seats(
    data: OfcData,
    money: RoomMoney,
    holdouts: Sequence[Holdout] | None = None,
    hands: str | None = None,
    unchecked: str = UNCHECKED,
    files: RulesFiles = None,
) -> pa.Table:
    """``ledger_seats`` rows: every seat the room paid, with what the rules give it under
    ``money``'s rules (null on a hand not scored) and the words of those rules.

    ``holdouts`` (rules inferred from these hands) say whether each room's rule
    held on the halves it was not inferred from; a rules file's are not checked, and
    without holdouts an inferred rule is "not checked (``unchecked``)".  With
    ``hands`` (a table of hand_id on the connection) only those hands' seats; ``files``
    names the rules file each room's given rules come from.
    """
    paid = data.arrow(PAID_SQL if hands is None else _only(PAID_SQL, hands))
    return _priced(paid, money.seats, rule_words(money, holdouts, unchecked, files))


Words = dict[str, tuple[str, str, str]]  # a room's label -> (rules, source, out of sample)
# The rules file a room's given money rules come from (``audit --rules``), by room name.
RulesFiles = Callable[[str], str | None] | None
FROM_FILE = "from the rules file"  # rule_source's words for rules a file gives
GIVEN_TO = "given to `ofc-stats audit --rules`"


def rule_words(
    money: RoomMoney,
    holdouts: Sequence[Holdout] | None = None,
    unchecked: str = "",
    files: RulesFiles = None,
) -> Words:
    """Each room's money rules in words, where they come from (for a rules file, which
    one: the ledger is stored, and read again by a later run that gave none), and whether
    they held on the hands they were not inferred from (the ledger's last three columns)."""
    words: Words = {}
    held = {h.room: h for h in holdouts or ()}
    settled = {s.room: s for s in money.settlements}
    for rake in money.rakes:
        text = rake.rule()
        settlement = settled.get(rake.room)
        if settlement is not None and settlement.short_hands:
            text += f"; short stacks: {kind_text(settlement.kind)}"
        check = held.get(rake.room)
        if rake.given:
            verdict = "not checked (rules file)"
        elif check is None:
            verdict = f"not checked ({unchecked})"
        else:
            verdict = check.verdict
        source = rake.source
        file = files(_room_of(rake.room)) if files is not None and rake.given else None
        if file:
            source = f"{FROM_FILE} {file}, {GIVEN_TO}"
        words[rake.room] = (text, source, verdict)
    return words


def _room_of(label: str) -> str:
    """The room of a money rule's label "<room> <currency>" (a currency has no space)."""
    if label.endswith(" (no currency)"):
        return label.removesuffix(" (no currency)")
    return label.rsplit(" ", 1)[0]


def _priced(paid: pa.Table, expected: pd.DataFrame | SeatMoney, words: Words) -> pa.Table:
    """``ledger_seats`` rows of the ``paid`` seats (PAID_SQL's columns), what the rules give
    each from ``expected`` (hand_id, seat, expected_money, or those looked up already) and
    the rules' ``words``."""
    # Each (room, currency) once: its texts are taken for its rows by integer codes.
    rooms, room_codes = _codes(paid["room"])
    currencies, currency_codes = _codes(paid["currency"])
    pair = room_codes * (len(currencies) + 1) + currency_codes
    pairs, which = np.unique(pair, return_inverse=True)
    labels = [
        (rooms[p // (len(currencies) + 1)], currencies[p % (len(currencies) + 1)])
        for p in pairs.tolist()
    ]
    unknown = ("", "", "")
    texts = [words.get(_label(room, currency), unknown) for room, currency in labels]
    at = pa.array(which.astype(np.int64))

    def per_row(values: list[str]) -> pa.Array:
        return pc.take(pa.array(values, pa.string()), at)

    ids = np.asarray(paid["hand_id"].to_numpy(), np.int64)
    seats = np.asarray(paid["seat"].to_numpy(), np.int64)
    return pa.table(
        {
            "hand_id": pa.array(ids),
            "seat": pa.array(seats.astype(np.int8)),
            "room": per_row([room for room, _ in labels]),
            "currency": per_row([currency for _, currency in labels]),
            "money_paid": pa.array(
                np.asarray(paid["money_paid"].to_numpy(zero_copy_only=False), np.float64)
            ),
            "money_rules": pa.array(
                (expected if isinstance(expected, SeatMoney) else SeatMoney.of(expected)).at(
                    ids, seats
                ),
                from_pandas=True,
            ),
            "rules": per_row([t[0] for t in texts]),
            "rules_source": per_row([t[1] for t in texts]),
            "out_of_sample": per_row([t[2] for t in texts]),
        },
        schema=LEDGER_SEATS,
    )


def _codes(column: pa.ChunkedArray) -> tuple[list[str], npt.NDArray[np.int64]]:
    """A text column's distinct values (as ``str`` gives them: null is "None") and each
    row's code."""
    encoded = column.combine_chunks().dictionary_encode()
    values = [str(v) for v in encoded.dictionary.to_pylist()]
    codes = np.asarray(encoded.indices.fill_null(len(values)).to_numpy(), np.int64)
    return [*values, "None"], codes


def _results_stamp(dataset: Dataset, batch: str) -> str:
    """The batch's results file as its ledger was priced from (size and time: a recompute
    or a forget writes a new file); "" before the batch is scored."""
    try:
        stat = os.stat(dataset.batch_file("results", batch))
    except OSError:
        return ""
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def _fingerprint(words: Words) -> str:
    """The rules a ledger file was priced by, as one short text: files priced by other
    rules are priced again."""
    text = json.dumps(sorted(words.items()), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _table_words(table: pa.Table) -> Words:
    """The words of the rules a priced table holds, by room label."""
    rows = table.select(["room", "currency", "rules", "rules_source", "out_of_sample"])
    distinct = rows.group_by(rows.column_names).aggregate([]).to_pylist()
    return {
        _label(str(r["room"]), str(r["currency"])): (
            str(r["rules"]),
            str(r["rules_source"]),
            str(r["out_of_sample"]),
        )
        for r in distinct
    }


def _stamp(path: str | Path) -> dict[str, str]:
    """A ledger file's stamp (the rules and results it was priced from); {} if unreadable."""
    try:
        metadata = pq.read_schema(path).metadata or {}
        stamp = json.loads(metadata.get(LEDGER_KEY, b"{}"))
    except (OSError, ValueError, pa.ArrowInvalid):
        stamp = {}
    return stamp if isinstance(stamp, dict) else {}


def _stored_stamps(dataset: Dataset) -> dict[str, dict[str, str]]:
    """Each stored ledger file's stamp by batch (rules and results it was priced from)."""
    return {Path(path).stem: _stamp(path) for path in dataset.files(TABLE)}


def _stale(dataset: Dataset, fingerprint: str | None) -> tuple[list[str], list[str]]:
    """(batches whose ledger is missing or was priced from other results or rules,
    ledger files of batches no longer stored).  ``fingerprint`` None: any one set of rules
    shared by every file."""
    stamps = _stored_stamps(dataset)
    batches = dataset.batches()
    rules = {stamp.get("rules") for stamp in stamps.values()}
    if fingerprint is None and len(rules) > 1:
        return batches, []
    stale = [
        batch
        for batch in batches
        if batch not in stamps
        or stamps[batch].get("results") != _results_stamp(dataset, batch)
        or stamps[batch].get("pricing") != PRICING_VERSION
        or (fingerprint is not None and stamps[batch].get("rules") != fingerprint)
    ]
    return stale, sorted(set(stamps) - set(batches))


def ledger_is_current(data: OfcData) -> bool:
    """Whether every stored batch has its ledger file, priced from the results stored now
    and by one set of rules (one footer read a batch)."""
    stale, orphans = _stale(Dataset(data.root), None)
    return not stale and not orphans


def hand_ledger_is_current(data: OfcData, hand_id: int) -> bool:
    """Whether the ledger file of the batch holding ``hand_id`` is stored and was priced
    from that batch's results stored now: a hand's money is checked from its own batch's
    file, whatever the other batches' (one footer read, not every batch's)."""
    dataset = Dataset(data.root)
    for batch in dataset.batches():
        low, high = hand_id_range(dataset.batch_file("hands", batch))
        if low <= hand_id <= high:
            path = dataset.batch_file(TABLE, batch)
            if not path.is_file():
                return False
            stamp = _stamp(path)
            return bool(stamp.get("rules")) and stamp.get("results") == _results_stamp(
                dataset, batch
            )
    return False


def _commit(dataset: Dataset, parts: dict[str, pa.Table], orphans: Sequence[str] = ()) -> None:
    """Write some batches' ledger files in one commit (the caller holds the lock)."""
    folder = dataset.table_dir(TABLE)
    folder.mkdir(exist_ok=True)
    if not (folder / EMPTY).exists():
        write_parquet(LEDGER_SEATS.empty_table(), folder / EMPTY)
        fsync_dir(folder)
    gone: dict[str, pa.Table | None] = {batch: None for batch in orphans}
    if parts:
        first, *others = parts
        rewrites: dict[str, dict[str, pa.Table | None]] = {b: {TABLE: parts[b]} for b in others}
        rewrites.update({b: {TABLE: None} for b in gone})
        dataset.commit(first, {TABLE: parts[first]}, step="ledger", rewrites=rewrites)
    elif gone:
        dataset.commit(dataset.new_batch_id(), {}, rewrites={b: {TABLE: None} for b in gone})


def _stamped(dataset: Dataset, batch: str, table: pa.Table, fingerprint: str) -> pa.Table:
    stamp = {
        "rules": fingerprint,
        "results": _results_stamp(dataset, batch),
        "pricing": PRICING_VERSION,
    }
    return table.replace_schema_metadata({LEDGER_KEY: json.dumps(stamp)})


def _store_stale(
    dataset: Dataset,
    fingerprint: str,
    price: Callable[[str], pa.Table],
    say: Callable[[str], None] | None = None,
) -> None:
    """Under the lock: each batch whose ledger file is missing or stale priced by ``price``
    and stored, a commit every :data:`COMMIT_ROWS` rows (memory follows the batch), the
    files of batches gone removed with the last commit."""
    with dataset.locked():
        stale, orphans = _stale(dataset, fingerprint)
        parts: dict[str, pa.Table] = {}
        for number, batch in enumerate(stale, 1):
            if say is not None:
                say(PRICING_BATCH.format(number=number, batches=len(stale)))
            parts[batch] = _stamped(dataset, batch, price(batch), fingerprint)
            if sum(part.num_rows for part in parts.values()) >= COMMIT_ROWS:
                _commit(dataset, parts)
                parts = {}
        _commit(dataset, parts, orphans)


def store_ledger(data: OfcData, table: pa.Table) -> bool:
    """Write ``table`` (every seat the room paid) as the dataset's ledger, one file per
    import batch, and show it; False (the ledger shown from memory only) when this process
    cannot write the dataset.  Under the rules the stored files were priced by, only the
    batches whose file is missing or priced from other results are written (an import
    writes its own batch's file); under other rules, every batch's."""
    dataset = Dataset(data.root)
    fingerprint = _fingerprint(_table_words(table))
    ids = np.asarray(table["hand_id"].to_numpy(), np.int64)
    order = np.argsort(ids, kind="stable")

    def part(batch: str) -> pa.Table:  # the batch's rows of the table, by its hand ids
        low, high = hand_id_range(dataset.batch_file("hands", batch))
        at = order[np.searchsorted(ids[order], low) : np.searchsorted(ids[order], high, "right")]
        return table.take(pa.array(np.sort(at))).cast(LEDGER_SEATS)

    try:
        _store_stale(dataset, fingerprint, part)
    except (DatasetError, DatasetLocked, OSError):  # busy or read-only: shown, not stored
        data.reload_ledger(table)
        return False
    data.reload_ledger()
    return True


def store_priced(
    data: OfcData,
    money: RoomMoney,
    holdouts: Sequence[Holdout] | None = None,
    files: RulesFiles = None,
) -> bool:
    """Store the ledger :func:`priced_seats` gives, priced and written batch by batch: each
    batch's paid seats read from its own files and priced from ``money``'s seats (the
    audit's, in memory already), committed every :data:`COMMIT_ROWS` rows, so the ledger
    never stands whole in memory.  As :func:`store_ledger`: only the batches whose file is
    missing, stale or priced by other rules are written; False (the ledger priced whole
    and shown from memory) when this process cannot write the dataset."""
    words = rule_words(money, holdouts, UNCHECKED, files)
    dataset = Dataset(data.root)
    fingerprint = _fingerprint(_paid_words(data, words))
    expected = SeatMoney.of(money.seats)

    def price(batch: str) -> pa.Table:
        paid = data.arrow(BATCH_PAID_SQL.format(**_batch_files(dataset, batch)))
        return _priced(paid, expected, words).cast(LEDGER_SEATS)

    try:
        _store_stale(dataset, fingerprint, price)
    except (DatasetError, DatasetLocked, OSError):  # busy or read-only: shown, not stored
        data.reload_ledger(priced_seats(data, money, holdouts, files=files))
        return False
    data.reload_ledger()
    return True


# The room and currency of one batch's seats the room paid, once each (as PAID_SQL gives
# them); {seats}, {hands}: the batch's files (_batch_files).
PAID_ROOMS_SQL = """
SELECT DISTINCT h.room, coalesce(h.currency, '') AS currency
FROM (SELECT hand_id FROM read_parquet({seats}) WHERE reported_money IS NOT NULL) s
JOIN (SELECT hand_id, room, currency FROM read_parquet({hands})) h USING (hand_id)
"""


def _paid_words(data: OfcData, words: Words) -> Words:
    """The words a ledger of every paid seat holds (:func:`_table_words` of the table
    :func:`priced_seats` gives, without pricing it): the stamp its files are compared by.
    Read a batch at a time: the join of every paid seat to its hand hashed the dataset."""
    dataset = Dataset(data.root)
    labels: set[str] = set()
    for batch in dataset.batches():
        rooms = data.arrow(PAID_ROOMS_SQL.format(**_batch_files(dataset, batch))).to_pylist()
        labels |= {_label(str(r["room"]), str(r["currency"])) for r in rooms}
    data.give_back()
    unknown = ("", "", "")
    return {label: words.get(label, unknown) for label in sorted(labels)}


def price_ledger(data: OfcData, rules: MoneyRules = None, files: RulesFiles = None) -> pa.Table:
    """Price every seat the room paid (rules inferred and judged out of sample, or
    ``rules``', from ``files``), store it as the dataset's ledger, and return it."""
    table = _priced_whole(data, rules, files)
    store_ledger(data, table)
    return table


def _priced_whole(data: OfcData, rules: MoneyRules = None, files: RulesFiles = None) -> pa.Table:
    money = room_money(data, rules)
    holdouts = None
    if rules is None:
        pairwise = {r.room: p for r, p in zip(money.rakes, money.pairwise, strict=True)}
        # a share of the tables at a time
        holdouts = holdout(data, pairwise, points_rooms=money.points_rooms)
    return priced_seats(data, money, holdouts, files=files)


# What price_batches tells its progress as each step starts.
PRICING_WHOLE = "ledger: inferring each room's money rules from its money hands, pricing them"
INFERRING_SAMPLE = "ledger: inferring each room's money rules from a sample of its hands"
PRICING_BATCH = "ledger: pricing batch {number:,} of {batches:,}"


def price_batches(data: OfcData, progress: Callable[[str], None] | None = None) -> bool:
    """Price the batches whose ledger is missing or stale and store each one's file.

    A dataset of at most :data:`WHOLE_UP_TO` money hands is priced whole (its rules
    inferred from every hand and judged out of sample); a bigger one has each room's
    rules inferred from about :data:`RULES_SAMPLE` of its hands (the money ones, and at
    least :data:`RULES_MINIMUM` money hands a room and currency: :func:`_sample`), then prices
    batch by batch from the batch's own files, so memory follows the batch, not the
    dataset.  When the rules inferred now differ from the stored files', every batch
    is priced again.  False when this process cannot write the dataset (nothing stored).
    ``progress`` is told each step's words as it starts (:data:`PRICING_WHOLE`, ...).
    """
    say = progress or (lambda words: None)
    if _small(data):
        say(PRICING_WHOLE)
        return store_ledger(data, _priced_whole(data))
    dataset = Dataset(data.root)
    say(INFERRING_SAMPLE)
    sample = _sample(data)
    data.connection.register(KEYS_TABLE, sample)
    try:
        money = room_money(data, hands=KEYS_TABLE)
    finally:
        data.connection.unregister(KEYS_TABLE)
    words = rule_words(money, unchecked=SAMPLED)
    fingerprint = _fingerprint(words)

    def price(batch: str) -> pa.Table:
        return _price_batch(data, dataset, batch, money, words)

    try:
        _store_stale(dataset, fingerprint, price, say)
    except (DatasetError, DatasetLocked, OSError):  # busy or read-only: shown, not stored
        return False
    data.reload_ledger()
    return True


def ensure_ledger(data: OfcData, hand_ids: Sequence[int] | None = None) -> None:
    """Price the ledger when the stored hands changed since it was (or it never was).

    ``ofc-stats recompute`` (and so import) prices it batch by batch
    (:func:`price_batches`), so a report reads it stored.  When it is not current, a
    dataset of more than :data:`WHOLE_UP_TO` money hands is not priced for one report:
    with ``hand_ids`` (the report player's hands) only those are priced, their rules
    inferred from them, and shown from memory, so a report costs the player's hands,
    not the dataset's.
    """
    if ledger_is_current(data):
        return
    if _small(data):  # priced whole: stored, or shown from memory where this process cannot write
        price_batches(data)
        return
    if hand_ids is None:  # the audit: stored batch by batch, else priced whole in memory
        if not price_batches(data):
            data.reload_ledger(_priced_whole(data))
        return
    ids = pa.table({"hand_id": pa.array(pd.unique(np.asarray(hand_ids, np.int64)), pa.int64())})
    data.connection.register(KEYS_TABLE, ids)
    try:
        money = room_money(data, hands=KEYS_TABLE)
        table = priced_seats(data, money, hands=KEYS_TABLE)
    finally:
        data.connection.unregister(KEYS_TABLE)
    data.reload_ledger(table)


WHOLE_UP_TO = 50_000  # money hands priced whole, rules judged out of sample (about 15 CPU s)
RULES_SAMPLE = 50_000  # hands per room and currency a big dataset's rules come from, about
RULES_MINIMUM = 2_000  # money hands each room and currency's rules come from at least (or all)
# Ledger rows priced before they are committed: fewer than one import batch's paid seats
# (importer.BATCH_HANDS hands, two seats or more each), so a full batch is written on its
# own and only small batches are gathered.  At a million, every batch of a 100,000-hand
# dataset was held at once (60 MB, the first audit's peak); the ledger's bytes a row are
# about 190 (its rules' words are repeated on every row).
COMMIT_ROWS = 20_000
KEYS_TABLE = "ledger_hand_ids"  # the hands a ledger's rules are inferred from
# (no count in it: the words stamp the files, and the same rules must not price them again)
SAMPLED = f"inferred from a sample of about {RULES_SAMPLE:,} hands a room"

# About RULES_SAMPLE hands of each room and currency (a share of each room's hands, by a
# hash of the id: the hands kept stream past, no sort or window over the dataset), of
# which the ones the room paid money on; {shares}: room, currency, share (per million).
ROOMS_SQL = "SELECT room, coalesce(currency, '') AS currency, count(*) AS n FROM hands GROUP BY ALL"
SAMPLE_SQL = """
WITH kept AS (
  SELECT h.hand_id, h.room, h.currency
  FROM (SELECT hand_id, room, coalesce(currency, '') AS currency FROM hands) h
  JOIN {shares} r ON r.room IS NOT DISTINCT FROM h.room AND r.currency = h.currency
  WHERE hash(h.hand_id) % 1000000 < r.share)
SELECT hand_id, room, currency FROM kept
WHERE hand_id IN (SELECT hand_id FROM seats WHERE reported_money IS NOT NULL)
"""
# The rooms and currencies ({short}: room, currency) whose share holds fewer than
# {minimum} money hands: their first {minimum} money hands by the same hash (a window
# over those rooms' money hands only, the few a share missed).
TOP_UP_SQL = """
SELECT hand_id FROM (
  SELECT h.hand_id, row_number() OVER (
           PARTITION BY h.room, h.currency ORDER BY hash(h.hand_id), h.hand_id) AS n
  FROM (SELECT hand_id, room, coalesce(currency, '') AS currency FROM hands) h
  JOIN {short} r ON r.room IS NOT DISTINCT FROM h.room AND r.currency = h.currency
  WHERE h.hand_id IN (SELECT hand_id FROM seats WHERE reported_money IS NOT NULL))
WHERE n <= {minimum:d}
"""


def _sample(data: OfcData) -> pa.Table:
    """hand_id of about :data:`RULES_SAMPLE` money hands of each room and currency, spread
    over the whole dataset, and at least :data:`RULES_MINIMUM` (or all) of each one's
    money hands: a room whose hands are mostly without money would otherwise get few or
    none in its share, and no rules.  Memory follows the sample, not the dataset."""
    rooms = data.arrow(ROOMS_SQL)
    counts = np.asarray(rooms["n"].to_numpy(), np.float64)
    shares = np.minimum(1_000_000, np.ceil(1_000_000 * RULES_SAMPLE / np.maximum(counts, 1)))
    table = pa.table(
        {
            "room": rooms["room"],
            "currency": rooms["currency"],
            "share": pa.array(shares.astype(np.int64)),
        }
    )
    data.connection.register("ledger_room_shares", table)
    try:
        kept = data.arrow(SAMPLE_SQL.format(shares="ledger_room_shares"))
    finally:
        data.connection.unregister("ledger_room_shares")
    # Rooms kept whole (share of a million) hold all their money hands already.
    sampled = kept.group_by(["room", "currency"]).aggregate([("hand_id", "count")])
    held = {(r["room"], r["currency"]): int(r["hand_id_count"]) for r in sampled.to_pylist()}
    partial = table.filter(pc.less(table["share"], 1_000_000)).to_pylist()
    short = [r for r in partial if held.get((r["room"], r["currency"]), 0) < RULES_MINIMUM]
    ids = [kept["hand_id"]]
    if short:
        names = pa.table(
            {
                "room": pa.array([r["room"] for r in short], rooms["room"].type),
                "currency": pa.array([r["currency"] for r in short], pa.string()),
            }
        )
        data.connection.register("ledger_short_rooms", names)
        try:
            query = TOP_UP_SQL.format(short="ledger_short_rooms", minimum=RULES_MINIMUM)
            ids.append(data.arrow(query)["hand_id"])
        finally:
            data.connection.unregister("ledger_short_rooms")
    every = pa.chunked_array([c for column in ids for c in column.chunks], pa.int64())
    return pa.table({"hand_id": pc.unique(every).sort()})


# One batch's seats with money, read from its own files: PAID_SQL's columns, and
# room_money's (scoped_seats') for its scored seats; the versus rows of its short hands.
BATCH_PAID_SQL = """
SELECT s.hand_id, s.seat, h.room, coalesce(h.currency, '') AS currency,
       s.reported_money AS money_paid
FROM (SELECT hand_id, seat, reported_money FROM read_parquet({seats})
      WHERE reported_money IS NOT NULL) s
JOIN (SELECT hand_id, room, currency FROM read_parquet({hands})) h USING (hand_id)
ORDER BY s.hand_id, s.seat
"""
BATCH_MONEY_SQL = """
SELECT s.hand_id AS hand_key, s.hand_id, s.seat::BIGINT AS seat, coalesce(h.room, '') AS room,
       r.net_capped::DOUBLE AS net_capped, s.reported_points::DOUBLE AS reported_points,
       h.stakes::DOUBLE AS stakes, s.reported_money::DOUBLE AS reported_money,
       s.stack::DOUBLE AS stack, coalesce(h.currency, '') AS currency
FROM (SELECT hand_id, seat, reported_points, reported_money, stack
      FROM read_parquet({seats})) s
JOIN (SELECT hand_id, room, stakes, currency FROM read_parquet({hands})) h USING (hand_id)
JOIN (SELECT hand_id, seat, net_capped FROM read_parquet({results}) WHERE status = 'scored') r
  USING (hand_id, seat)
WHERE s.hand_id IN (SELECT hand_id FROM read_parquet({seats}) WHERE reported_money IS NOT NULL)
ORDER BY s.hand_id, s.seat
"""
# One batch's versus file both ways round (stored once a pair, seat < opponent), as the
# ``versus`` view shows it; {versus}: the file.
BATCH_VERSUS_SQL = """(
SELECT hand_id, seat, opponent, points FROM read_parquet({versus})
UNION ALL
SELECT hand_id, opponent, seat, -points FROM read_parquet({versus}))"""


def _batch_files(dataset: Dataset, batch: str) -> dict[str, str]:
    """A batch's hands, seats, results and versus files, each as an SQL string literal."""
    return {
        name: "'" + str(dataset.batch_file(name, batch)).replace("'", "''") + "'"
        for name in ("hands", "seats", "results", "versus")
    }


def _price_batch(
    data: OfcData, dataset: Dataset, batch: str, money: RoomMoney, words: Words
) -> pa.Table:
    """One batch's ``ledger_seats`` rows under ``money``'s rules (each room's multiplier,
    rake and short-stack settlement), read from the batch's own files."""
    files = _batch_files(dataset, batch)
    paid = data.arrow(BATCH_PAID_SQL.format(**files))
    if not paid.num_rows:
        return LEDGER_SEATS.empty_table()
    has_results = dataset.batch_file("results", batch).is_file()
    seats = data.df(BATCH_MONEY_SQL.format(**files)) if has_results else pd.DataFrame()
    rakes = {rake.room: rake for rake in money.rakes}
    kinds = {settlement.room: settlement.kind for settlement in money.settlements}
    versus = BATCH_VERSUS_SQL.format(**files)
    hands = f"read_parquet({files['hands']})"
    parts = []
    groups = seats.groupby(["room", "currency"], sort=True) if len(seats) else ()
    for (room, currency), group in groups:
        label = _label(str(room), str(currency))
        rake = rakes.get(label)
        if rake is None:  # a room the sample never saw scored: not priced
            continue
        kind = kinds.get(label, "proportional")
        frame = rules_money(
            data, group, rake, kind, column="hand_id", versus=versus, hands=hands,
            points_field=str(room) in money.points_rooms,
        )  # fmt: skip
        parts.append(frame[["hand_id", "seat", "expected_money"]])
    expected = (
        pd.concat(parts, ignore_index=True)
        if parts
        else pd.DataFrame({"hand_id": [], "seat": [], "expected_money": []})
    )
    return _priced(paid, expected, words)


SEATS_A_HAND = 8  # more than any table seats: so many rows hold at least rows / 8 hands


def _small(data: OfcData) -> bool:
    """Whether the dataset has at most :data:`WHOLE_UP_TO` money hands, read from the first
    seats with money only (a count of every money hand took 9 s at 10M hands)."""
    rows = (WHOLE_UP_TO + 1) * SEATS_A_HAND
    first = data.arrow(
        f"SELECT hand_id FROM seats WHERE reported_money IS NOT NULL LIMIT {rows:d}"
    )["hand_id"]
    return len(pc.unique(first)) <= WHOLE_UP_TO


def _only(query: str, hands: str) -> str:
    """PAID_SQL cut down to the hands whose id is in table ``hands`` (a name of ours)."""
    if not hands.isidentifier():
        raise ValueError(f"not a table name: {hands!r}")
    return query.replace(
        "WHERE reported_money IS NOT NULL",
        f"WHERE reported_money IS NOT NULL AND hand_id IN (SELECT hand_id FROM {hands})",
    )


def _who(data: OfcData, key: str) -> tuple[str, dict[str, object]]:
    """The seats of ``key``: the hero's, a stored alias's accounts, else a name or id."""
    if key == HERO:
        return "coalesce(hero, false)", {}
    aliased = data.sql(
        "SELECT count(*) FROM player_aliases WHERE name = $key", {"key": key}
    ).fetchall()
    if aliased[0][0]:
        return (
            "coalesce(player_id, player) IN (SELECT account FROM player_aliases WHERE name = $key)",
            {"key": key},
        )
    return "player = $key OR coalesce(player_id, player) = $key", {"key": key}


def player_seats(
    data: OfcData, player_keys: Sequence[str], alias: str | None = None
) -> pd.DataFrame:
    """who, hand_id, hand_key, seat of every seat with money of these players
    (``alias`` names them all)."""
    parts = []
    for key in player_keys:
        who, params = _who(data, key)
        mine = data.df(SEATS_SQL.format(who=who), params)
        mine["who"] = alias or key
        parts.append(mine)
    if not parts:
        return pd.DataFrame(columns=["who", "hand_id", "hand_key", "seat"])
    return pd.concat(parts, ignore_index=True)[["who", "hand_id", "hand_key", "seat"]]


def book(data: OfcData, seats: pd.DataFrame) -> Ledger:
    """The ledger of ``seats`` (columns who, hand_id, seat), summed from the stored
    ``ledger`` view by the store's own ``LEDGER_SQL`` (the report page's sum)."""
    seats = seats.drop_duplicates(["who", "hand_id", "seat"])
    if seats.empty:
        return Ledger(pd.DataFrame(columns=LEDGER_COLUMNS), pd.DataFrame(columns=HAND_COLUMNS))
    who = pa.table(
        {
            "who": pa.array(seats["who"].astype(str).tolist(), pa.string()),
            "hand_id": pa.array(seats["hand_id"].to_numpy(dtype=np.int64)),
            "seat": pa.array(seats["seat"].to_numpy(dtype=np.int8)),
        }
    )
    rows, hands = ledger_of(data, who)
    for column in ("off_hand_keys", "overpaid_hand_keys", "underpaid_hand_keys"):
        rows[column] = rows[column].map(list)
    for column in ("net_hand_keys", "not_scored_hand_keys"):
        rows[column] = rows[column].map(list)
    return Ledger(rows[LEDGER_COLUMNS], hands[HAND_COLUMNS].reset_index(drop=True))


def ledger(
    data: OfcData,
    player_keys: Sequence[str],
    *,
    alias: str | None = None,
    rules: MoneyRules = None,
    files: RulesFiles = None,
) -> pd.DataFrame:
    """One row per player (or ``alias`` for all of them) × room × currency.

    ``money_rules`` and ``money_paid`` are what the rules give and what the
    room paid on the same hands, the scored ones; ``difference`` = paid − rules
    (negative: the room owes the player) is the net of ``overpaid`` and
    ``underpaid``, the gross amounts of the hands paid more and less than the
    rules by over a cent (each with its hands, largest first); errors that
    net to zero are still errors.  ``net_hand_keys`` lists every hand whose
    difference rounds to a cent, so a net made of small roundings has hands
    too.  ``hands_not_scored`` hands (``money_not_scored`` paid,
    ``not_scored_hand_keys``) could not be checked: the rules cannot price a
    hand that was not scored.  With ``rules`` (a rules file's ``[room]``
    tables, from ``files``) the ledger is priced by them; else it is read as stored
    (the last audit's), priced by each room's inferred rules only when the stored hands
    changed.
    """
    if rules is None:
        ensure_ledger(data)
    else:
        price_ledger(data, rules, files)
    return book(data, player_seats(data, player_keys, alias)).rows


def ledger_lines(frame: pd.DataFrame, shown: int = 5, *, rules_given: bool = True) -> list[str]:
    """The ledger for a terminal: one line per row, then the hands behind each amount.

    Without ``rules_given`` (this run named no rules file) a row priced by a rules file
    says the file came from an earlier ``audit --rules``, which stored the ledger.
    """
    if frame.empty:
        return ["ledger: no seat of these players has reported money"]
    out = []
    for row in frame.to_dict("records"):
        currency, difference = str(row["currency"]), float(row["difference"])
        unit = f" {currency}" if currency else ""
        hands, unscored = int(row["hands"]), int(row["hands_not_scored"])
        checked = f"rules {float(row['money_rules']):g}, paid {float(row['money_paid']):g}"
        if unscored:
            checked = f"on the {hands - unscored:,} scored: {checked}"
        out.append(
            f"{row['player']} · {row['room']}{unit}: {plural(hands, 'hand')}, {checked}, "
            f"difference {difference:+g} ({owed_text(row, currency)})"
        )

        def listed(keys: list[str]) -> str:
            more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
            return ", ".join(keys[:shown]) + more

        for column, amount, what in (
            ("overpaid_hand_keys", float(row["overpaid"]), "paid more than the rules"),
            ("underpaid_hand_keys", float(row["underpaid"]), "paid less than the rules"),
        ):
            keys = [str(k) for k in row[column]]
            if keys:
                out.append(
                    f"  {plural(len(keys), 'hand')} {what} ({amount:g}{unit}): {listed(keys)}"
                )
        if not row["hands_off"] and abs(difference) > 0:
            keys = [str(k) for k in row["net_hand_keys"]]
            out.append(f"  the {difference:+g}{unit} is roundings of under a cent: {listed(keys)}")
        out.append(f"  {rules_text(row)}")
        if not rules_given and str(row["rules_source"]).startswith(FROM_FILE):
            out.append(f"  {EARLIER}")
        if unscored:
            keys = [str(k) for k in row["not_scored_hand_keys"]]
            paid = float(row["money_not_scored"])
            out.append(
                f"  {plural(unscored, 'hand')} not scored ({paid:+g}{unit} paid, not checked): "
                f"{listed(keys)}"
            )
    return out


# A ledger priced by a rules file, read by a run that gave none (`audit --player X`).
EARLIER = (
    "(priced by an earlier `ofc-stats audit --rules`, which stored this ledger; this run "
    "gave no rules file: `ofc-stats audit` without --player prices it again by the rules "
    "inferred from the hands)"
)


def rules_text(row: Mapping[Any, Any]) -> str:
    """The money rules a ledger row was priced by, where they come from, and whether an
    inferred rule held on the hands it was not inferred from.

    >>> rules_text({"rules": "no rake", "rules_source": "inferred from these hands",
    ...             "out_of_sample": "holds"})
    'by the rules: no rake (inferred from these hands; out of sample: holds)'
    """
    return (
        f"by the rules: {row['rules']} ({row['rules_source']}; "
        f"out of sample: {row['out_of_sample']})"
    )


__all__ = [
    "Ledger",
    "book",
    "ensure_ledger",
    "ledger",
    "ledger_lines",
    "owed_text",
    "price_ledger",
    "store_priced",
]
