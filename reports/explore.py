"""The data the page carries so that its filter bar recomputes everything it shows.

One row per hand of the report's player (the scope the command line chose),
kept column by column and small: times as seconds, rooms, currencies,
accounts and opponents as indexes into short name lists.  The page's script
(``assets/report.js``) filters these rows by room, stakes with their
currency, dates, table size and opponent, and recomputes from them the
results, the charts over dates, sessions and hours of play, the tables by
stakes, room and opponent, the hand browser, the opponent pages, the
room ledger and the fouls, Fantasyland, royalties and regret sections' headline
figures (:mod:`reports.live_figures`: the field's foul rate from two small counts a
hand, the opponents' normal seats and their fouls; each live board's rows as
[class, royalty] kinds; each hand's graded street-decision loss and the named
leaks' decisions).  Money is summed only within one currency.

Hands the room paid but the rules could not score (another seat's board
incomplete) are carried too, with no points: the ledger counts their money
as paid and apart, as :mod:`reports.ledger` does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ofc_stats.store.views import OfcData, ledger_hands_of
from reports.base import HANDS, MINE, ORDER, ROW_POINTS, SEATS, TABLE_ROYALTIES, VERSUS, Scope
from reports.ledger import money_seats, scope_ledger
from reports.replay import hand_details
from reports.royalties import ROW_CLASS, TOP_CLASS
from reports.stats import MIN_HANDS

REPLAYS = 2_000  # a player with at most this many hands: every one opens in the replayer
REPLAYS_LARGE = 400  # else the newest (stored together: a few batch files to read)

HANDS_SQL = f"""
SELECT s.hand_id, s.hand_key, epoch(s.played_at)::BIGINT AS t, s.format, s.room, s.table_id,
       s.stakes, coalesce(s.currency, '') AS currency, s.seat_count, s.player_key,
       s.net_capped AS points, s.reported_money AS money, s.fouled, s.in_fantasy,
       s.royalties,
       coalesce(earns_fantasy(s.fantasy_entry, s.fantasy_stays), false) AS earns_fantasy,
       {ROW_POINTS} AS row_points, r.run
FROM {SEATS} s LEFT JOIN table_runs r USING (hand_id) {TABLE_ROYALTIES}
ORDER BY {ORDER}
"""

# Each live (unfouled) board's rows: class as the royalties section names it, and the
# royalty it paid; a fouled board's are null (the section counts live boards only).
ROYALTY_ROWS_SQL = f"""
SELECT s.hand_id,
       {TOP_CLASS.replace("c.", "t.")} AS top_class, s.royalty_top AS top,
       {ROW_CLASS.replace("c.", "m.")} AS middle_class, s.royalty_middle AS middle,
       {ROW_CLASS.replace("c.", "b.")} AS bottom_class, s.royalty_bottom AS bottom
FROM {SEATS} s
LEFT JOIN row_classes t ON t.cards = 3 AND t.class = s.top_class
LEFT JOIN row_classes m ON m.cards = 5 AND m.class = s.middle_class
LEFT JOIN row_classes b ON b.cards = 5 AND b.class = s.bottom_class
WHERE NOT s.fouled
"""

# The regret section's measures over the hands kept: each hand's graded street decisions'
# loss (a hand graded with none charged: 0), and each named leak (a named decision that lost
# expected points), as :mod:`reports.regret` reads the grades of the report's seats.
STREET_LOSS_SQL = f"""
SELECT m.hand_id, coalesce(sum(g.loss), 0) AS loss
FROM grades g JOIN (SELECT hand_id, hand_key, seat FROM {SEATS}) m
  ON g.hand_key = m.hand_key AND g.seat = m.seat
WHERE g.kind = 'street' AND g.status IN ('graded', 'forced') GROUP BY m.hand_id
"""
LEAKS_SQL = f"""
SELECT m.hand_id, 'street ' || (g.street + 1) || ': ' || g.mistake AS leak, g.loss
FROM grades g JOIN (SELECT hand_id, hand_key, seat FROM {SEATS}) m
  ON g.hand_key = m.hand_key AND g.seat = m.seat
WHERE g.kind = 'street' AND g.status IN ('graded', 'forced') AND g.mistake IS NOT NULL
  AND g.loss > 0
ORDER BY m.hand_id, g.street, g.loss DESC
"""

GRADED_SQL = f"""
SELECT m.hand_id, sum(g.loss) AS loss
FROM grades g JOIN (SELECT hand_id, hand_key, seat FROM {SEATS}) m
  ON g.hand_key = m.hand_key AND g.seat = m.seat
WHERE g.loss IS NOT NULL GROUP BY m.hand_id
"""

# The field at the player's hands: per hand, the other players' scored normal (not
# Fantasyland) seats and how many of them fouled; none of the person's seats (MINE) is one.
FIELD_SQL = f"""
SELECT o.hand_id, count(*) AS seats, count(*) FILTER (WHERE r.fouled) AS fouls
FROM {HANDS} o
JOIN (SELECT hand_id, seat, status, fouled FROM {{results}}
      WHERE hand_id IN (SELECT hand_id FROM {SEATS})) r USING (hand_id, seat)
ANTI JOIN {MINE} m ON m.hand_id = o.hand_id AND m.seat = o.seat
WHERE r.status = 'scored' AND NOT coalesce(o.in_fantasy, false)
GROUP BY o.hand_id
"""

UNSCORED_SQL = """
SELECT h.hand_id, h.hand_key, epoch(h.played_at)::BIGINT AS t, h.format, h.room, h.table_id,
       h.stakes,
       coalesce(h.currency, '') AS currency, h.seat_count, r.run
FROM hands h LEFT JOIN table_runs r USING (hand_id)
WHERE h.hand_id IN (SELECT hand_id FROM explore_unscored)
"""


@dataclass(frozen=True)
class LedgerHands:
    """Per hand of the player: money the rules give (NaN where not scored) and money paid."""

    hand_ids: np.ndarray
    accounts: list[str]
    rules: np.ndarray  # rounded to 4 digits, as the page carries it
    paid: np.ndarray


def ledger_hands(scope: Scope) -> LedgerHands:
    """The room ledger's hands for the report's player, from the store's ``ledger`` view.

    One row per person and hand (the money of the view's :data:`LEDGER_HANDS_SQL`, the sum
    ``audit --player`` prints too); the money by the rules is null on a hand the
    rules did not price.  The report prices the ledger before it builds the page.
    """
    data = scope.data
    seats = money_seats(scope)
    if seats.empty:
        return LedgerHands(np.zeros(0, np.int64), [], np.zeros(0), np.zeros(0))
    who = pa.table(
        {
            "who": pa.array(seats["who"].astype(str).tolist(), pa.string()),
            "hand_id": pa.array(seats["hand_id"].to_numpy(np.int64)),
            "seat": pa.array(seats["seat"].to_numpy(np.int64)),
        }
    )
    hands = ledger_hands_of(data, who, scope_ledger(scope))
    hand_ids = hands["hand_id"].to_numpy(dtype=np.int64)
    rules = pd.to_numeric(hands["money_rules"]).to_numpy(np.float64, na_value=np.nan)
    return LedgerHands(
        hand_ids,
        [str(w) for w in hands["player"].tolist()],
        np.round(rules, 4),  # NaN: not priced
        pd.to_numeric(hands["money_paid"]).to_numpy(np.float64),
    )


MONEY_RULES_SQL = """
SELECT room, coalesce(currency, '') AS currency, any_value(rules), any_value(rules_source),
       any_value(out_of_sample)
FROM {ledger} GROUP BY ALL ORDER BY ALL
"""


def _money_rules(scope: Scope) -> dict[str, str]:
    """Per room and currency of the player's ledger, the money rule it was priced by, as
    the ledger section's caption says it (the live page's ledger replaced that caption, so
    a player paid $44.40 for 276 points at $0.20 saw no rake to explain it)."""
    rows = scope.data.sql(MONEY_RULES_SQL.format(ledger=scope_ledger(scope))).fetchall()
    return {
        f"{room} {currency}".strip(): f"{rules} ({source}; out of sample: {held})".replace(
            "  ", " "
        )
        for room, currency, rules, source, held in rows
        if rules
    }


def page_data(scope: Scope) -> dict[str, Any]:
    """Everything the page's script recomputes from, as columns (see module doc): lists and
    NumPy arrays (NaN for a missing number) that :func:`reports.html.script_json` writes.

    Opponents are carried flat: hand ``i`` met ``opp[opp_at[i]:opp_at[i + 1]]`` (indexes
    into ``opponents``) and scored ``vs`` against each; the script unpacks them.
    """
    data, filters = scope.data, scope.filters
    frame = data.arrow(HANDS_SQL).to_pandas()
    frame["scored"] = True
    ledger = ledger_hands(scope)
    scored_ids = frame["hand_id"].to_numpy(np.int64)
    # (np.setdiff1d hashes both whole arrays: a second at 200,000 hands)
    unscored_ids = _distinct(ledger.hand_ids[~_member(ledger.hand_ids, scored_ids)])
    if len(unscored_ids):
        data.connection.register(
            "explore_unscored", pa.table({"hand_id": pa.array(unscored_ids, pa.int64())})
        )
        try:
            extra = data.df(UNSCORED_SQL)
        finally:
            data.connection.unregister("explore_unscored")
        first = pd.Series(ledger.accounts, index=ledger.hand_ids)
        first = first[~first.index.duplicated()]
        extra["player_key"] = first.reindex(extra["hand_id"]).to_numpy()
        extra["scored"] = False
        frame = pd.concat([frame, extra], ignore_index=True).sort_values(
            ["t", "hand_key"], kind="stable", na_position="first"
        )
    frame = frame.reset_index(drop=True)
    ids = frame["hand_id"].to_numpy(np.int64)
    by_id = np.argsort(ids, kind="stable")

    def at(hand_ids: np.ndarray) -> np.ndarray:
        """Each hand_id's row in ``frame`` (one row a hand)."""
        return by_id[np.searchsorted(ids, hand_ids, sorter=by_id)]

    versus = data.arrow(f"SELECT hand_id, opponent, points FROM {VERSUS}").to_pandas()
    rows = at(versus["hand_id"].to_numpy(np.int64)) if len(versus) else np.zeros(0, np.int64)
    who, names = pd.factorize(versus["opponent"].fillna("").astype(str), sort=True)
    order = np.lexsort((who, rows))
    offsets = np.searchsorted(rows[order], np.arange(len(frame) + 1))

    rules = np.full(len(frame), np.nan)
    paid = np.full(len(frame), np.nan)
    if len(ledger.hand_ids):
        where = at(ledger.hand_ids)
        priced = ledger.rules
        unpriced = np.zeros(len(frame), np.int64)
        np.add.at(unpriced, where, np.isnan(priced).astype(np.int64))
        rules[_distinct(where)] = 0.0
        np.add.at(rules, where, np.nan_to_num(priced))
        rules[unpriced > 0] = np.nan  # a person's seat the rules could not price: not checked
        paid[_distinct(where)] = 0.0
        np.add.at(paid, where, np.asarray(ledger.paid, dtype=np.float64))
    # A hand the rules could not score was still paid: its money is what the room paid.
    money = frame["money"].to_numpy(np.float64, copy=True)
    unscored = ~frame["scored"].to_numpy(bool)
    money[unscored] = paid[unscored]

    loss = np.full(len(frame), np.nan)
    street_loss = np.full(len(frame), np.nan)
    leaks: dict[str, Any] = {"names": [], "at": [], "leak": [], "loss": []}
    if int(data.sql("SELECT count(*) FROM grades").fetchall()[0][0]):
        graded = data.arrow(GRADED_SQL).to_pandas()
        loss[at(graded["hand_id"].to_numpy(np.int64))] = graded["loss"].to_numpy(np.float64)
        streets = data.arrow(STREET_LOSS_SQL).to_pandas()
        street_loss[at(streets["hand_id"].to_numpy(np.int64))] = streets["loss"].to_numpy(
            np.float64
        )
        leaks = _leaks(data.arrow(LEAKS_SQL).to_pandas(), at)
    royalty_kinds, royalty_rows = _royalty_rows(data.df(ROYALTY_ROWS_SQL), at, len(frame))

    field_seats = np.zeros(len(frame), np.int64)
    field_fouls = np.zeros(len(frame), np.int64)
    field = data.arrow(FIELD_SQL.format(results=scope.sources["results"])).to_pandas()
    if len(field):
        where = at(field["hand_id"].to_numpy(np.int64))
        field_seats[where] = field["seats"].to_numpy(np.int64)
        field_fouls[where] = field["fouls"].to_numpy(np.int64)

    money_rules = _money_rules(scope) if len(ledger.hand_ids) else {}
    formats, format_index = _codes(frame["format"])
    rooms, room_index = _codes(frame["room"])
    currencies, currency_index = _codes(frame["currency"])
    accounts, account_index = _codes(frame["player_key"])
    tables, table_index = _table_codes(frame)
    return {
        "formats": formats,
        "rooms": rooms,
        "currencies": currencies,
        "accounts": accounts,
        "tables": tables,
        "opponents": [str(n) for n in names],
        "session_gap": filters.session_gap,
        "money_rules": money_rules,  # "room currency" -> how the rules price its money
        "min_hands": MIN_HANDS,  # the fewest hands an interval or a rate per hour is given for
        "shared": scope.shared_hands(),
        # [class, royalty points] of the live boards' rows (hands' rk_top, rk_mid, rk_bot)
        "royalty_kinds": royalty_kinds,
        # the named leaks: names, and per decision its hand's row (ascending), name, loss
        "leaks": leaks,
        "hand_ids": ids.tolist(),  # not carried: finds the replayed hands' files
        "hands": {
            "key": frame["hand_key"].tolist(),
            "t": _column(frame["t"], 0),
            "fmt": format_index,
            "room": room_index,
            "table": table_index,
            "stakes": _column(frame["stakes"], 4),
            "cur": currency_index,
            "seats": _column(frame["seat_count"], 0),
            "acct": account_index,
            "scored": frame["scored"].to_numpy(np.int8),
            "points": _column(frame["points"], 2),
            "money": _column(pd.Series(money), 4),
            "foul": _flags(frame["fouled"]),
            "fl": _flags(frame["in_fantasy"]),
            "earns": _flags(frame["earns_fantasy"]),
            # the field here: the opponents' scored normal seats and their fouls (0 to 3 each)
            "f_seats": field_seats.astype(np.int8),
            "f_fouls": field_fouls.astype(np.int8),
            "roy": _column(frame["royalties"], 2),
            "rows": _column(frame["row_points"], 2),
            "opp_at": offsets,
            "opp": who[order],
            "vs": _column(versus["points"].iloc[order], 2),
            "rules": _column(pd.Series(rules), 4),
            "paid": _column(pd.Series(paid), 4),
            "loss": _column(pd.Series(loss), 3),
            # the graded street decisions' loss (none graded: null), for the regret line
            "sloss": _column(pd.Series(street_loss), 4),
            # each live board's row as an index into royalty_kinds (-1: fouled, not scored)
            "rk_top": royalty_rows[0],
            "rk_mid": royalty_rows[1],
            "rk_bot": royalty_rows[2],
        },
    }


def _royalty_rows(
    boards: pd.DataFrame, at: Callable[[np.ndarray], np.ndarray], hands: int
) -> tuple[list[list[Any]], list[np.ndarray]]:
    """The distinct [class, royalty] pairs of the live boards' rows (sorted), and per row
    (top, middle, bottom) each hand's pair as an index into them, -1 where the hand has
    no live board (fouled or not scored) or the row no class."""
    where = at(boards["hand_id"].to_numpy(np.int64)) if len(boards) else np.zeros(0, np.int64)
    pairs = []
    for row in ("top", "middle", "bottom"):
        known = boards[f"{row}_class"].notna().to_numpy()
        pairs.append((known, boards[f"{row}_class"], boards[row]))
    kinds = sorted(
        {
            (str(c), float(r))
            for known, classes, royalty in pairs
            for c, r in zip(classes[known], royalty[known], strict=True)
        }
    )
    index = {kind: k for k, kind in enumerate(kinds)}
    columns = []
    for known, classes, royalty in pairs:
        codes = np.full(hands, -1, np.int64)
        codes[where[known]] = [
            index[(str(c), float(r))] for c, r in zip(classes[known], royalty[known], strict=True)
        ]
        columns.append(codes)
    return [[c, r] for c, r in kinds], columns


def _leaks(frame: pd.DataFrame, at: Callable[[np.ndarray], np.ndarray]) -> dict[str, Any]:
    """The named leaks' decisions: their names (sorted), and per decision the row of its hand
    (ascending: in hand order, as the page's script sums them), its name's index and loss."""
    if frame.empty:
        return {"names": [], "at": [], "leak": [], "loss": []}
    rows = at(frame["hand_id"].to_numpy(np.int64))
    codes, names = pd.factorize(frame["leak"].astype(str), sort=True)
    order = np.lexsort((np.arange(len(rows)), rows))  # by hand, as the query gave them within
    return {
        "names": [str(n) for n in names],
        "at": rows[order],
        "leak": codes[order],
        "loss": _column(frame["loss"].iloc[order].reset_index(drop=True), 4),
    }


PACKED_VERSION = 1  # the layout :func:`pack` writes and the page's script reads (unpackLive)


def pack(live: dict[str, Any]) -> dict[str, Any]:
    """:func:`page_data` in the lean layout the report page carries (gzipped, in base64:
    :func:`reports.html.gzip_script`); the page's script (``unpackLive`` in
    ``assets/report.js``) rebuilds exactly the columns :func:`page_data` made, as JSON
    would carry them.

    The columns are already arrays of numbers and indexes into short name lists; what
    repeats or grows is written smaller: ``hands.key`` holds what follows a key's
    ``format:room:table:`` (the key's start, :attr:`HandRecord.hand_key`, which the
    ``fmt``, ``room`` and ``table`` columns name), but the whole key at the positions
    listed in ``key_whole`` (a key of another shape); ``t`` holds each time less the one
    before it (the first less 0; a missing time is null and not counted); ``opp_n``, the
    number of opponents of each hand, stands for the offsets ``opp_at``.  ``hand_ids``
    (not carried) is left out; ``v`` is :data:`PACKED_VERSION`.  At 200,000 hands the
    JSON is 16.8 MB instead of 24.6 MB and gzipped (level 6) 0.52 MB instead of 1.46 MB.
    """
    hands = dict(live["hands"])
    formats, rooms, tables = live["formats"], live["rooms"], live["tables"]
    columns = zip(*(np.asarray(hands[c]).tolist() for c in ("fmt", "room", "table")), strict=True)
    starts: dict[tuple[int, int, int], str] = {}
    rests: list[str] = []
    whole: list[int] = []
    for at, (key, names) in enumerate(zip(hands["key"], columns, strict=True)):
        start = starts.get(names)
        if start is None:
            start = starts[names] = f"{formats[names[0]]}:{rooms[names[1]]}:{tables[names[2]]}:"
        if key.startswith(start):
            rests.append(key[len(start) :])
        else:
            rests.append(key)
            whole.append(at)
    hands["key"], hands["key_whole"] = rests, whole
    hands["t"] = _steps(hands["t"])
    hands["opp_n"] = np.diff(np.asarray(hands.pop("opp_at"), dtype=np.int64))
    shown = {k: v for k, v in live.items() if k not in ("hands", "hand_ids")}
    return {"v": PACKED_VERSION, **shown, "hands": hands}


def _steps(times: np.ndarray | list[Any]) -> np.ndarray | list[Any]:
    """Each time less the last time before it (the first less 0); a missing one stays None."""
    if isinstance(times, np.ndarray):
        return np.diff(times.astype(np.int64), prepend=0)
    known = [at for at, t in enumerate(times) if t is not None]
    values = np.asarray([times[at] for at in known], dtype=np.int64)
    steps: list[Any] = [None] * len(times)
    for at, step in zip(known, np.diff(values, prepend=0).tolist(), strict=True):
        steps[at] = step
    return steps


def replays(data: OfcData, carried: dict[str, Any], known: set[str]) -> dict[str, dict[str, Any]]:
    """The replayer data the page carries besides ``known``: every hand of a player with
    at most :data:`REPLAYS`, else the newest :data:`REPLAYS_LARGE` (the hands listed by
    the other sections, biggest wins and losses among them, are in ``known``)."""
    hands = carried["hands"]
    keys: list[str] = hands["key"]
    ids: list[int] = carried["hand_ids"]
    wanted_count = len(keys) if len(keys) <= REPLAYS else REPLAYS_LARGE
    chosen: dict[int, None] = {}
    for at in range(len(keys) - 1, -1, -1):
        if len(chosen) >= wanted_count:
            break
        chosen.setdefault(at)
    wanted = [at for at in chosen if keys[at] not in known]
    if not wanted:
        return {}
    return hand_details(data, [keys[at] for at in wanted], [ids[at] for at in wanted])


def _codes(values: pd.Series) -> tuple[list[str], np.ndarray]:
    """Distinct values (sorted, missing as '') and each row's index into them."""
    text = values.fillna("").astype(str)
    codes, uniques = pd.factorize(text, sort=True)
    return [str(u) for u in uniques], codes


def _table_codes(frame: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    """The tables' names and each row's index into them: one index per table of the store,
    so a table whose hand ids were reused (the ``table_runs`` view) has one per file, each
    named as the table is.  The page's script (sessionsOf) starts a session where the
    index changes, as the report's SQL partitions by the run."""
    if frame["run"].isna().all():
        return _codes(frame["table_id"])
    # A file's path holds no NUL: the last one splits the table's name from its run.
    keyed = frame["table_id"].fillna("").astype(str) + "\0" + frame["run"].fillna("").astype(str)
    names, codes = _codes(keyed)
    return [name.rsplit("\0", 1)[0] for name in names], codes


def _column(values: pd.Series, digits: int) -> np.ndarray | list[Any]:
    """Numbers rounded to ``digits``: floats with NaN for the missing, or integers when 0.

    The page's JSON writes the arrays as they are (orjson, :func:`reports.html.script_json`;
    NaN as null); integers with a missing value are a list with None.
    """
    if not pd.api.types.is_numeric_dtype(values):  # (numbers already: no parse pass)
        values = pd.to_numeric(values, errors="coerce")
    numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)
    rounded = np.round(numbers, digits)
    if digits:
        return rounded
    missing = np.isnan(numbers)
    if not missing.any():
        return rounded.astype(np.int64)
    listed: list[Any] = np.where(missing, 0, rounded).astype(np.int64).tolist()
    for at in np.flatnonzero(missing).tolist():
        listed[at] = None
    return listed


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (np.unique hashes: 5x slower on 200,000 ids)."""
    ordered = np.sort(values)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered


def _member(values: np.ndarray, among: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is one of ``among``, by a binary search of them sorted."""
    ordered = np.sort(among)
    if not len(ordered):
        return np.zeros(len(values), bool)
    at = np.minimum(np.searchsorted(ordered, values), len(ordered) - 1)
    return np.asarray(ordered[at] == values)


def _flags(values: pd.Series) -> np.ndarray:
    return values.fillna(False).astype(bool).to_numpy(np.int8)
