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
file; the table is priced again when the stored hands change.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.audit.holdout import Holdout, holdout
from ofc_stats.audit.money import MoneyRules, RoomMoney, room_money
from ofc_stats.errors import DatasetError
from ofc_stats.payouts.settle import kind_text
from ofc_stats.store.dataset import EMPTY, Dataset
from ofc_stats.store.files import fsync_dir, write_parquet
from ofc_stats.store.schema import LEDGER_FILE, LEDGER_KEY, LEDGER_SEATS, LEDGER_TABLES
from ofc_stats.store.views import OfcData, ledger_of, owed_text
from ofc_stats.wording import plural

HERO = "hero"
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


def priced_seats(
    data: OfcData,
    money: RoomMoney,
    holdouts: Sequence[Holdout] | None = None,
    hands: str | None = None,
) -> pa.Table:
    """``ledger_seats`` rows: every seat the room paid, with what the rules give it under
    ``money``'s rules (null on a hand not scored) and the words of those rules.

    ``holdouts`` (rules inferred from these hands) say whether each room's rule
    held on the halves it was not inferred from; a rules file's are not checked.  With
    ``hands`` (a table of hand_id on the connection) only those hands' seats.
    """
    paid = data.arrow(PAID_SQL if hands is None else _only(PAID_SQL, hands))
    words: dict[str, tuple[str, str, str]] = {}
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
            verdict = "not checked (inferred from this player's hands only)"
        else:
            verdict = check.verdict
        words[rake.room] = (text, rake.source, verdict)
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
            "money_rules": pa.array(_expected(money.seats, ids, seats), from_pandas=True),
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


def _expected(seats: pd.DataFrame, ids: npt.NDArray[np.int64], seat: npt.NDArray[np.int64]) -> Any:
    """What the rules give each (hand id, seat), the first of ``seats``' rows for it; NaN
    for a seat the rules did not price (its hand not scored)."""
    out = np.full(len(ids), np.nan)
    if not len(ids) or seats.empty:
        return out
    keys = seats["hand_id"].to_numpy(np.int64) * 256 + seats["seat"].to_numpy(np.int64)
    known, first = np.unique(keys, return_index=True)
    values = seats["expected_money"].to_numpy(np.float64)[first]
    wanted = ids * 256 + seat
    at = np.minimum(np.searchsorted(known, wanted), len(known) - 1)
    hit = known[at] == wanted
    out[hit] = values[at[hit]]
    return out


def _stamp(dataset: Dataset) -> dict[str, list[str]]:
    """What a ledger was priced from: the stored batches of hands and of results."""
    return {
        "hands": [os.path.basename(p) for p in dataset.files("hands")],
        "results": [os.path.basename(p) for p in dataset.files("results")],
    }


def ledger_is_current(data: OfcData) -> bool:
    """Whether the stored ledger was priced from the hands and results stored now."""
    import pyarrow.parquet as pq

    dataset = Dataset(data.root)
    files = dataset.files(TABLE)
    if len(files) != 1:
        return False
    try:
        stamp = json.loads((pq.read_schema(files[0]).metadata or {}).get(LEDGER_KEY, b"{}"))
    except (OSError, ValueError, pa.ArrowInvalid):
        return False
    return bool(stamp == _stamp(dataset))


def store_ledger(data: OfcData, table: pa.Table) -> bool:
    """Write ``table`` as the dataset's ledger and show it; False (the ledger shown from
    memory only) when this process cannot write the dataset."""
    dataset = Dataset(data.root)
    try:
        with dataset.locked():
            folder = dataset.table_dir(TABLE)
            folder.mkdir(exist_ok=True)
            if not (folder / EMPTY).exists():
                write_parquet(LEDGER_SEATS.empty_table(), folder / EMPTY)
            stamped = table.replace_schema_metadata({LEDGER_KEY: json.dumps(_stamp(dataset))})
            staged = dataset.root / ".tmp" / f"{TABLE}.parquet"
            write_parquet(stamped, staged)
            os.replace(staged, folder / LEDGER_FILE)
            fsync_dir(folder)
    except (DatasetError, OSError):
        data.reload_ledger(table)
        return False
    data.reload_ledger()
    return True


def price_ledger(data: OfcData, rules: MoneyRules = None) -> pa.Table:
    """Price every seat the room paid (rules inferred and judged out of sample, or
    ``rules``'), store it as the dataset's ledger, and return it."""
    money = room_money(data, rules)
    holdouts = None
    if rules is None:
        pairwise = {r.room: p for r, p in zip(money.rakes, money.pairwise, strict=True)}
        holdouts = holdout(data, pairwise)
    table = priced_seats(data, money, holdouts)
    store_ledger(data, table)
    return table


def ensure_ledger(data: OfcData, hand_ids: Sequence[int] | None = None) -> None:
    """Price the ledger when the stored hands changed since it was (or it never was).

    A dataset of more than :data:`WHOLE_UP_TO` money hands is not priced whole
    for one report: with ``hand_ids`` (the report player's hands) only those are
    priced, their rules inferred from them, and shown from memory, so a report
    costs the player's hands, not the dataset's (``ofc-stats audit`` prices it
    whole).
    """
    if ledger_is_current(data):
        return
    if hand_ids is None or _money_hands(data) <= WHOLE_UP_TO:
        price_ledger(data)
        return
    ids = pa.table({"hand_id": pa.array(pd.unique(np.asarray(hand_ids, np.int64)), pa.int64())})
    data.connection.register(KEYS_TABLE, ids)
    try:
        money = room_money(data, hands=KEYS_TABLE)
        table = priced_seats(data, money, hands=KEYS_TABLE)
    finally:
        data.connection.unregister(KEYS_TABLE)
    data.reload_ledger(table)


WHOLE_UP_TO = 50_000  # money hands a report prices whole (about 15 CPU seconds)
KEYS_TABLE = "ledger_hand_ids"  # the hands a report's ledger is priced from


def _money_hands(data: OfcData) -> int:
    count = data.sql("SELECT count(DISTINCT hand_id) FROM seats WHERE reported_money IS NOT NULL")
    return int(count.fetchall()[0][0])


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
    tables) the ledger is priced by them; else by each room's inferred rules,
    priced again only when the stored hands changed.
    """
    if rules is None:
        ensure_ledger(data)
    else:
        price_ledger(data, rules)
    return book(data, player_seats(data, player_keys, alias)).rows


def ledger_lines(frame: pd.DataFrame, shown: int = 5) -> list[str]:
    """The ledger for a terminal: one line per row, then the hands behind each amount."""
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
                out.append(f"  {len(keys)} hand(s) {what} ({amount:g}{unit}): {listed(keys)}")
        if not row["hands_off"] and abs(difference) > 0:
            keys = [str(k) for k in row["net_hand_keys"]]
            out.append(f"  the {difference:+g}{unit} is roundings of under a cent: {listed(keys)}")
        out.append(f"  {rules_text(row)}")
        if unscored:
            keys = [str(k) for k in row["not_scored_hand_keys"]]
            paid = float(row["money_not_scored"])
            out.append(
                f"  {unscored} hand(s) not scored ({paid:+g}{unit} paid, not checked): "
                f"{listed(keys)}"
            )
    return out


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


__all__ = ["Ledger", "book", "ensure_ledger", "ledger", "ledger_lines", "owed_text", "price_ledger"]
