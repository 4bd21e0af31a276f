"""What every report returns: tidy tables, figures and a few sentences."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
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
OTHERS = "report_others"  # other players' scored seats under the filters (a sample)
HANDS = "report_hands"  # every seat of the hands the player played
VERSUS = "report_versus"  # the player's points against each opponent, hand by hand
OTHERS_SEATS = 250_000  # at most about this many other players' seats are sampled
SAMPLE_RUNS = 64  # the others' sample: this many runs of consecutive hands, spread evenly
SAMPLE_SCALE = 1_000_000  # the others' sample share is counted in millionths
ORDER = "s.played_at, s.hand_key, s.seat"
# Points without royalties: against each opponent, points - (mine - theirs); summed over
# the S - 1 opponents that is net - S * mine + the hand's total (its join, TABLE_ROYALTIES).
ROW_POINTS = "s.net - s.seat_count * s.royalties + t.total"
TABLE_ROYALTIES = (
    f"LEFT JOIN (SELECT hand_id, sum(royalties) AS total FROM {HANDS} GROUP BY hand_id) t "
    "USING (hand_id)"
)
TABLES = {
    "hands": "hands",
    "seats": "seats",
    "results": "results_stored",
    "versus": "versus_stored",
}


@dataclass(eq=False)
class Scope:
    """The report's scope on one dataset, made by :func:`prepare`: every report reads it.

    Its rows are temp tables on ``data``'s connection (:data:`SEATS`, ...), so
    a connection holds one scope at a time: preparing another replaces them.
    What several reports read is kept here, with the scope, not beside the
    connection: the player's money seats (:func:`reports.ledger.money_seats`),
    the ledger's rows of their hands (:func:`reports.ledger.scope_ledger`) and
    the board facts of the seats last asked for (:meth:`cards`).
    """

    data: OfcData
    filters: Filters
    sample_ppm: int  # the share of other players' hands in OTHERS, per million
    shared: tuple[int, tuple[str, ...]] = (0, ())  # hands where the player's accounts met
    # the stored tables holding the player's hands (OfcData.batch_sources_of): their batches
    sources: dict[str, str] = field(default_factory=lambda: dict(TABLES), repr=False)
    money: pd.DataFrame | None = field(default=None, repr=False)  # ledger.money_seats' rows
    ledger: str | None = field(default=None, repr=False)  # ledger.scope_ledger's table
    _cards: tuple[str, SeatCards] | None = field(default=None, repr=False)

    @property
    def sample_permille(self) -> float:
        """The same share per thousand, as the page's caption shows it."""
        return self.sample_ppm / 1000

    def hand_count(self) -> int:
        """How many of the player's scored seats the filters keep."""
        return int(self.data.sql(f"SELECT count(*) FROM {SEATS}").fetchall()[0][0])

    def seats(self, columns: str) -> pd.DataFrame:
        """The player's scored seats under the filters, oldest first."""
        return self.data.df(f"SELECT {columns} FROM {SEATS} s ORDER BY {ORDER}")

    def cards(self, where: str = "true") -> SeatCards:
        """Board facts of the player's seats matching ``where``, in :meth:`seats` order.

        The last one asked for is kept: fouls and Fantasyland read the same.
        """
        if self._cards is None or self._cards[0] != where:
            query = (
                f"SELECT board, board_streets, discards FROM {SEATS} s WHERE {where} "
                f"ORDER BY {ORDER}"
            )
            self._cards = (where, seat_cards(self.data.arrow(query)))
        return self._cards[1]

    def shared_hands(self) -> dict[str, object]:
        """What the page and the CLI say when the player's accounts met: hands, accounts,
        choice (nothing when they never met)."""
        if not self.shared[0]:
            return {}
        return {
            "hands": self.shared[0],
            "accounts": list(self.shared[1]),
            "choice": self.filters.self_play,
        }


SEAT_COLUMNS = (
    "hand_id, seat, player, player_id, coalesce(player_id, player) AS player_key, hero, "
    "in_fantasy, fantasy_cards, reported_points, reported_money, stack, board, board_streets, "
    "discards"
)
HAND_COLUMNS = (
    "hand_id, hand_key, format, room, table_id, room_hand_id, played_at, ruleset, seat_count, "
    "stakes, currency"
)

# seat_results' columns for the seats in {picked} (a temp table of seat rows): hands and
# results cut down to those hands by an integer semi-join on hand_id before the join.
SCOPED_SEATS = """
SELECT h.* EXCLUDE (hand_id), p.* EXCLUDE (hand_id), r.* EXCLUDE (seat)
FROM (SELECT {hand_columns} FROM {hands_table}
      WHERE {hands} AND hand_id IN (SELECT hand_id FROM {picked})) h
JOIN {picked} p USING (hand_id)
JOIN (SELECT {result_columns} FROM {results_table}
      WHERE {hands} AND hand_id IN (SELECT hand_id FROM {picked})) r USING (hand_id, seat)
"""
RESULT_COLUMNS = "* EXCLUDE (ruleset), ruleset AS scored_with"
PICKED = "report_picked"  # a step of prepare(): seat rows before their hands are joined
# Every seat of the player whatever its status, before the filters (SEAT_COLUMNS): read
# from the store once, by prepare(); the scope's seats and the money seats
# (reports.ledger.money_seats: unscored ones too) start there.
PERSON = "report_person"
MINE = "report_mine"  # every seat of the player (hand_id, seat, player_key): one a hand or more


def prepare(data: OfcData, filters: Filters) -> Scope:
    """Materialise the report's scope once as temp tables; every report reads those.

    The player's seats are picked from ``seats`` once, then their hands,
    results, the other seats of those hands and the points against each
    opponent are fetched by integer semi-joins on ``hand_id`` (no string key
    is joined); other players' seats are a sample of about
    :data:`OTHERS_SEATS` seats however large the dataset (:func:`others_sample`),
    read from the few batch files that hold it.  The placements are never
    scanned (street facts come from each seat's board and board streets,
    :mod:`reports.streetwise`).
    """
    where, params = filters.where("s")
    mine, mine_params = filters.me("seats")
    mine = mine.replace("seats.player_key", "coalesce(player_id, player)")
    con = data.connection
    bound = {**params, **mine_params}
    sources = _scoped(
        data,
        SEATS,
        f"SELECT {SEAT_COLUMNS} FROM seats WHERE {mine}",
        "true",
        RESULT_COLUMNS,
        where,
        bound,
        narrow=True,
    )
    sample = others_sample(data)
    tables = {"seats": "seats", "hands": "hands", "results": "results_stored"}
    if sample.runs:  # only the batch files that hold the sampled hands are read
        tables = {name: data.batch_source(name, sample.ranges) for name in tables}
    _scoped(
        data,
        OTHERS,
        "SELECT hand_id, seat, in_fantasy, board, board_streets, discards "
        f"FROM {tables['seats']} seats WHERE {sample.condition} AND NOT ({mine})",
        sample.condition,
        "hand_id, seat, status, net_capped, timeout_streets, recorded_timeouts",
        where,
        bound,
        keep="s.hand_id, s.format, s.seat, s.net_capped, s.timeout_streets, "
        "s.recorded_timeouts, s.in_fantasy, s.board, s.board_streets, s.discards",
        hands_table=tables["hands"],
        results_table=tables["results"],
    )
    shared = _one_seat_a_hand(data, filters)
    mine_ids = f"hand_id IN (SELECT hand_id FROM {SEATS})"
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {HANDS} AS SELECT s.hand_id, s.seat, s.player, "
        "s.in_fantasy, r.royalties "
        f"FROM (SELECT hand_id, seat, player, in_fantasy FROM {sources['seats']} "
        f"WHERE {mine_ids}) s "
        f"JOIN (SELECT hand_id, seat, royalties FROM {sources['results']} WHERE {mine_ids}) r "
        "USING (hand_id, seat)"
    )
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {VERSUS} AS "
        f"WITH pairs AS (SELECT hand_id, seat, opponent, points FROM {sources['versus']} "
        f"WHERE {mine_ids}), "
        "both_ways AS (SELECT hand_id, seat, opponent, points FROM pairs UNION ALL "
        "SELECT hand_id, opponent, seat, -points FROM pairs) "
        "SELECT v.hand_id, sum(v.points) AS points, o.player AS opponent, "
        "bool_or(o.in_fantasy) AS opponent_in_fantasy "
        f"FROM both_ways v SEMI JOIN {MINE} m ON m.hand_id = v.hand_id AND m.seat = v.seat "
        f"ANTI JOIN {MINE} x ON x.hand_id = v.hand_id AND x.seat = v.opponent "
        f"JOIN {HANDS} o ON o.hand_id = v.hand_id AND o.seat = v.opponent "
        "GROUP BY v.hand_id, o.player"
    )
    return Scope(data, filters, sample.ppm, shared, sources)


def _one_seat_a_hand(data: OfcData, filters: Filters) -> tuple[int, tuple[str, ...]]:
    """One row a hand in :data:`SEATS`, however many of the player's accounts sat in it.

    When accounts of one person (an alias, or every hero seat) met at a table,
    the hand counts once: with ``self_play="once"`` its first seat stands for
    it, with the points and money of all the person's seats summed (the points
    between them cancel: never won from oneself); with ``"skip"`` such hands
    are left out.  :data:`MINE` keeps every seat of the person, so no account
    of theirs is ever an opponent.  Returns how many hands and which accounts.
    """
    con = data.connection
    con.sql(f"CREATE OR REPLACE TEMP TABLE {MINE} AS SELECT hand_id, seat, player_key FROM {SEATS}")
    met = con.sql(
        f"SELECT hand_id, list(DISTINCT player_key ORDER BY player_key) AS who FROM {MINE} "
        "GROUP BY hand_id HAVING count(*) > 1"
    ).fetchall()
    if not met:
        return (0, ())
    accounts = tuple(sorted({str(a) for _, who in met for a in who}))
    if filters.self_play == "skip":
        con.sql(
            f"DELETE FROM {SEATS} WHERE hand_id IN "
            f"(SELECT hand_id FROM {MINE} GROUP BY hand_id HAVING count(*) > 1)"
        )
        return (len(met), accounts)
    con.sql(
        f"CREATE OR REPLACE TEMP TABLE {SEATS} AS SELECT * REPLACE ("
        "sum(net_capped) OVER hand AS net_capped, sum(net) OVER hand AS net, "
        "sum(reported_money) OVER hand AS reported_money) "
        f"FROM {SEATS} WINDOW hand AS (PARTITION BY hand_id) "
        "QUALIFY row_number() OVER (PARTITION BY hand_id ORDER BY seat) = 1"
    )
    return (len(met), accounts)


def _scoped(
    data: OfcData,
    name: str,
    picked: str,
    hands: str,
    result_columns: str,
    where: str,
    params: dict[str, object],
    keep: str = "s.*",
    hands_table: str = "hands",
    results_table: str = "results_stored",
    narrow: bool = False,
) -> dict[str, str]:
    """Temp table ``name``: the seats ``picked`` selects, with their hands and results.

    With ``narrow`` (the player's seats) the picked seats are kept as :data:`PERSON`
    and their hands and results are read from the batch files holding them only;
    returns the tables read (:meth:`OfcData.batch_sources_of`).
    """
    con = data.connection
    table = PERSON if narrow else PICKED
    query = f"CREATE OR REPLACE TEMP TABLE {table} AS {picked}"
    con.sql(query, params=_used(query, params))
    sources = dict(TABLES)
    if narrow:
        ids = data.arrow(f"SELECT DISTINCT hand_id FROM {table}")["hand_id"]
        sources = data.batch_sources_of(np.asarray(ids.to_numpy(), np.int64))
        hands_table, results_table = sources["hands"], sources["results"]
    scoped = SCOPED_SEATS.format(
        hand_columns=HAND_COLUMNS,
        hands=hands,
        picked=table,
        result_columns=result_columns,
        hands_table=hands_table,
        results_table=results_table,
    )
    query = f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT {keep} FROM ({scoped}) s WHERE {where}"
    con.sql(query, params=_used(query, params))
    if not narrow:
        con.sql(f"DROP TABLE {table}")
    return sources


@dataclass(frozen=True)
class Sample:
    """Other players' sample: ``runs`` runs of ``length`` consecutive hand ids, ``stride`` apart.

    ``runs == 0``: every hand.
    """

    runs: int = 0
    length: int = 0
    stride: int = 1
    ppm: int = SAMPLE_SCALE  # the share of the hands, per million

    @property
    def ranges(self) -> list[tuple[int, int]]:
        """The runs as inclusive hand_id ranges."""
        return [(i * self.stride, i * self.stride + self.length - 1) for i in range(self.runs)]

    @property
    def condition(self) -> str:
        """SQL: a hand is in the sample (integers of ours only, no user text)."""
        if not self.runs:
            return "true"
        return (
            f"(hand_id % {self.stride:d} < {self.length:d} "
            f"AND hand_id < {self.runs * self.stride:d})"
        )


def others_sample(data: OfcData) -> Sample:
    """Which other players' hands the report compares with (see :class:`Sample`).

    Every hand when the dataset holds at most about :data:`OTHERS_SEATS`
    seats; else :data:`SAMPLE_RUNS` runs of consecutive hand ids spread
    evenly over the whole span of ids, together about that many seats.
    Consecutive ids are stored together, so the sample is read from a few
    dozen batch files whatever the dataset's size; runs spread over every
    period and import keep it close to the field.
    """
    hands, last = data.sql("SELECT count(*), max(hand_id) FROM hands").fetchall()[0]
    everyone = int(data.sql("SELECT count(*) FROM seats").fetchall()[0][0])
    wanted = OTHERS_SEATS * int(hands) // max(everyone, 1)
    if last is None or wanted >= int(hands):
        return Sample()
    runs = max(1, min(SAMPLE_RUNS, wanted))
    length = -(-wanted // runs)
    stride = max(length, (int(last) + 1) // runs)
    share = SAMPLE_SCALE * runs * length // int(hands)
    return Sample(runs, length, stride, int(min(SAMPLE_SCALE, max(1, share))))


def _used(query: str, params: dict[str, object]) -> dict[str, object]:
    """The parameters ``query`` names: DuckDB refuses any it does not."""
    return {k: v for k, v in params.items() if re.search(rf"\${k}\b", query)}
