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


def prepare(data: OfcData, filters: Filters) -> Scope:
    """Materialise the report's scope once as temp tables; every report reads those.

    Joining the views once, not once per query, and never scanning the
    placements (street facts come from each seat's board and board streets,
    :mod:`reports.streetwise`) is what keeps a report on a million hands fast.
    """
    known = _SCOPES.get(data)
    if known is not None and known.filters == filters:
        return known
    where, params = filters.player_where("s")
    con = data.connection
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {SEATS} AS SELECT s.* FROM seat_results s WHERE {where}",
        params=params,
    )
    everyone = int(con.sql("SELECT count(*) FROM seats").fetchall()[0][0])
    permille = int(min(1000, max(1, 1000 * OTHERS_SEATS // max(everyone, 1))))
    others_where, others_params = filters.where("s")
    mine, mine_params = filters.me("s")
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {OTHERS} AS SELECT s.hand_key, s.seat, s.net_capped, "
        "s.timeout_streets, s.in_fantasy, s.board, s.board_streets, s.discards "
        f"FROM seat_results s WHERE {others_where} "
        f"AND NOT ({mine}) AND hash(s.hand_key) % 1000 < $permille",
        params={**others_params, **mine_params, "permille": permille},
    )
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {HANDS} AS SELECT s.hand_key, s.seat, s.player, "
        "s.in_fantasy, r.royalties FROM seats s JOIN results r USING (hand_key, seat) "
        f"WHERE s.hand_key IN (SELECT hand_key FROM {SEATS})"
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


def player_cards(data: OfcData, filters: Filters, where: str = "true") -> SeatCards:
    """Board facts of the player's seats matching ``where``, in :func:`player_seats` order."""
    prepare(data, filters)
    return seat_cards(
        data.arrow(
            f"SELECT board, board_streets, discards FROM {SEATS} s WHERE {where} ORDER BY {ORDER}"
        )
    )
