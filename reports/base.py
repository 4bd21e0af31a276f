"""What every report returns: tidy tables, figures and a few sentences."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

import pandas as pd

from ofc_stats.store.views import OfcData
from reports.charts import Chart
from reports.filters import Filters
from reports.streetwise import SeatCards, seat_cards


@dataclass
class Report:
    """One report: ``tables`` and ``figures`` (charts) by name, ``notes`` for people.

    ``hands`` names the tables whose ``hand_key`` column the page links to
    the hand replayer (biggest wins, fouls, Fantasyland hands, ...).
    """

    key: str
    title: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Chart] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    captions: dict[str, str] = field(default_factory=dict)
    hands: set[str] = field(default_factory=set)
    replays: dict[str, dict[str, Any]] = field(default_factory=dict)  # hand_key -> replayer data


SEATS = "report_seats"  # the player's scored seats under the filters
OTHERS = "report_others"  # other players' scored seats under the filters (a hash sample)
HANDS = "report_hands"  # every seat of the hands the player played
VERSUS = "report_versus"  # the player's points against each opponent, hand by hand
OTHERS_SEATS = 250_000  # at most about this many other players' seats are sampled
ORDER = "s.played_at, s.hand_key, s.seat"


@dataclass(frozen=True)
class Scope:
    """What :func:`prepare` materialised on a connection."""

    filters: Filters
    sample_permille: int  # the share of other players' hands in OTHERS, per thousand


_SCOPES: WeakKeyDictionary[OfcData, Scope] = WeakKeyDictionary()


# seat_results' columns, built from pre-filtered scans of hands, seats and results: each
# table is cut down to the scope's hands before the join on the string key.
SCOPED_SEATS = """
WITH s AS (
  SELECT hand_key, seat, player, player_id, coalesce(player_id, player) AS player_key, hero,
         in_fantasy, fantasy_cards, reported_points, reported_money, stack, board,
         board_streets, discards
  FROM seats WHERE {seats}
),
keys AS (SELECT DISTINCT hand_key FROM s)
SELECT h.hand_key, h.format, h.room, h.table_id, h.room_hand_id, h.played_at, h.ruleset,
       h.seat_count, h.stakes, h.currency, s.seat, s.player, s.player_id, s.player_key, s.hero,
       s.in_fantasy, s.fantasy_cards, s.reported_points, s.reported_money, s.stack, s.board,
       s.board_streets, s.discards, r.* EXCLUDE (hand_key, seat, ruleset),
       r.ruleset AS scored_with
FROM (SELECT hand_key, format, room, table_id, room_hand_id, played_at, ruleset, seat_count,
             stakes, currency
      FROM hands WHERE {hands} AND hand_key IN (SELECT hand_key FROM keys)) h
JOIN s USING (hand_key)
JOIN (SELECT * FROM results WHERE {hands} AND hand_key IN (SELECT hand_key FROM keys)) r
  USING (hand_key, seat)
"""


def prepare(data: OfcData, filters: Filters) -> Scope:
    """Materialise the report's scope once as temp tables; every report reads those.

    Joining the tables once, not once per query, cutting each down to the
    scope's hands before the join, and never scanning the placements (street
    facts come from each seat's board and board streets,
    :mod:`reports.streetwise`) is what keeps a report on a million hands fast.
    """
    known = _SCOPES.get(data)
    if known is not None and known.filters == filters:
        return known
    where, params = filters.where("s")
    mine, mine_params = filters.me("seats")
    mine = mine.replace("seats.player_key", "coalesce(player_id, player)")
    con = data.connection
    mine_sql = SCOPED_SEATS.format(seats=mine, hands="true")
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {SEATS} AS SELECT * FROM ({mine_sql}) s WHERE {where}",
        params={**params, **mine_params},
    )
    everyone = int(con.sql("SELECT count(*) FROM seats").fetchall()[0][0])
    permille = int(min(1000, max(1, 1000 * OTHERS_SEATS // max(everyone, 1))))
    sample = "hash(hand_key) % 1000 < $permille"
    others_sql = SCOPED_SEATS.format(
        seats=f"{sample} AND NOT ({mine})",
        hands=sample,
    )
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {OTHERS} AS SELECT s.hand_key, s.seat, s.net_capped, "
        "s.timeout_streets, s.in_fantasy, s.board, s.board_streets, s.discards "
        f"FROM ({others_sql}) s WHERE {where}",
        params={**params, **mine_params, "permille": permille},
    )
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {HANDS} AS SELECT s.hand_key, s.seat, s.player, "
        "s.in_fantasy, r.royalties "
        "FROM (SELECT hand_key, seat, player, in_fantasy FROM seats "
        f"WHERE hand_key IN (SELECT hand_key FROM {SEATS})) s "
        "JOIN (SELECT hand_key, seat, royalties FROM results "
        f"WHERE hand_key IN (SELECT hand_key FROM {SEATS})) r "
        "USING (hand_key, seat)"
    )
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {VERSUS} AS SELECT v.hand_key, v.points, "
        "o.player AS opponent, o.in_fantasy AS opponent_in_fantasy FROM versus v "
        f"SEMI JOIN {SEATS} m ON m.hand_key = v.hand_key AND m.seat = v.seat "
        f"JOIN {HANDS} o ON o.hand_key = v.hand_key AND o.seat = v.opponent"
    )
    scope = Scope(filters, permille)
    _SCOPES[data] = scope
    return scope


def hand_count(data: OfcData, filters: Filters) -> int:
    """How many of the player's scored seats the filters keep."""
    prepare(data, filters)
    return int(data.sql(f"SELECT count(*) FROM {SEATS}").fetchall()[0][0])


def player_seats(data: OfcData, filters: Filters, columns: str) -> pd.DataFrame:
    """The player's scored seats under the filters, oldest first."""
    prepare(data, filters)
    return data.df(f"SELECT {columns} FROM {SEATS} s ORDER BY {ORDER}")


_CARDS: WeakKeyDictionary[OfcData, tuple[Scope, str, SeatCards]] = WeakKeyDictionary()


def player_cards(data: OfcData, filters: Filters, where: str = "true") -> SeatCards:
    """Board facts of the player's seats matching ``where``, in :func:`player_seats` order.

    The last one asked for is kept with its scope: fouls and Fantasyland read the same.
    """
    scope = prepare(data, filters)
    known = _CARDS.get(data)
    if known is not None and known[0] is scope and known[1] == where:
        return known[2]
    cards = seat_cards(
        data.arrow(
            f"SELECT board, board_streets, discards FROM {SEATS} s WHERE {where} ORDER BY {ORDER}"
        )
    )
    _CARDS[data] = (scope, where, cards)
    return cards
