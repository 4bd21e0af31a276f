"""The report's scope (temp tables joined on integer hand ids) against the plain views.

``reports.base.prepare`` reads the stored results and versus by ``hand_id``
and samples other players by a hash of it; every table it builds must hold
exactly the rows the documented views give for the same player and filters
(checked with EXCEPT ALL both ways, so lists and BLOBs compare too).  The
fouls tables, grouped on categorical codes since the speed work, must equal
what the per-seat string grouping they replaced gives.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from weakref import WeakKeyDictionary

import numpy as np
import pandas as pd
import pytest

import ofc_stats
from ofc_stats.errors import UnknownFilter
from ofc_stats.records import HandRecord
from ofc_stats.store.hand_ids import hand_id_range
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from ofc_stats.store.views import OfcData
from parsers.open_format import dumps
from reports import Filters, build_all, checked, fouls
from reports import base as scope_module
from reports import ledger as ledger_module
from reports.base import HANDS, OTHERS, SEATS, VERSUS, prepare
from reports.ledger import money_seats
from reports.replay import hand_details
from reports.stats import wilson
from reports.streetwise import first_street, queen_up
from tests.builders import sim_records

HERO = "Fay"  # one of the simulated pool (Ana, Bo, Chen, Dara, Emil, Fay): marked hero


def with_hero(records: list[HandRecord]) -> list[HandRecord]:
    return [
        replace(r, seats=tuple(replace(s, hero=s.player == HERO) for s in r.seats)) for r in records
    ]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three imports (three batches) of simulated hands, one player marked hero."""
    folder = tmp_path_factory.mktemp("scope")
    root = folder / "data"
    for part, seed in enumerate((11, 12, 13)):
        records = with_hero(sim_records(60, seed=seed))
        source = folder / f"part{part}.jsonl"
        source.write_text("".join(dumps(r) + "\n" for r in records), encoding="utf-8")
        import_paths([source], root)
    recompute(root)
    return root


def players(db: OfcData) -> list[str]:
    return [
        str(r[0])
        for r in db.sql(
            "SELECT player_key FROM seat_results GROUP BY 1 ORDER BY count(*) DESC, 1"
        ).fetchall()
    ]


def scopes(db: OfcData) -> list[Filters]:
    keys = players(db)
    room = str(db.sql("SELECT any_value(room) FROM hands").fetchall()[0][0])
    day = db.sql("SELECT min(played_at)::DATE FROM hands").fetchall()[0][0]
    return [
        Filters(hero=True),
        Filters(player=keys[1]),
        Filters(accounts=(keys[2], keys[3])),
        Filters(hero=True, room=room.upper(), seats=3, since=day),
        checked(db, Filters(player=keys[0], opponent=keys[4])),
        checked(db, Filters(hero=True, ruleset="progressive")),
    ]


def same_rows(db: OfcData, expected: str, got: str, params: dict[str, object]) -> int:
    """Rows of both queries, after checking each holds every row of the other (EXCEPT ALL)."""
    for a, b in ((expected, got), (got, expected)):
        extra = db.sql(f"SELECT count(*) FROM (({a}) EXCEPT ALL ({b}))", params).fetchall()
        assert extra[0][0] == 0, (a, b)
    return int(db.sql(f"SELECT count(*) FROM ({expected})", params).fetchall()[0][0])


SEAT_COLUMNS = (
    "hand_key, hand_id, format, room, table_id, room_hand_id, played_at, ruleset, seat_count, "
    "stakes, currency, seat, player, player_id, player_key, hero, in_fantasy, fantasy_cards, "
    "reported_points, reported_money, stack, board, board_streets, discards, status, fouled, "
    "top_class, middle_class, bottom_class, royalty_top, royalty_middle, royalty_bottom, "
    "royalties, rows_won, rows_lost, rows_tied, scoops, scooped, net, net_capped, "
    "fantasy_entry, fantasy_stays, repeat_cards, fantasy_next, timeout_streets, timeouts, "
    "scored_with"
)


# One row a hand where several of the person's accounts sat: the first seat, with the points
# and money of all of them summed (reports.base: hands counted once, never against oneself).
ONCE = (
    "SELECT * REPLACE (sum(net_capped) OVER hand AS net_capped, sum(net) OVER hand AS net, "
    "sum(reported_money) OVER hand AS reported_money) FROM ({mine}) "
    "WINDOW hand AS (PARTITION BY hand_id) "
    "QUALIFY row_number() OVER (PARTITION BY hand_id ORDER BY seat) = 1"
)


def test_the_scope_holds_what_the_views_give(data: Path) -> None:
    with ofc_stats.open(data) as db:
        for filters in scopes(db):
            prepare(db, filters)
            where, params = filters.player_where("s")
            every = f"SELECT {SEAT_COLUMNS} FROM seat_results s WHERE {where}"
            mine = ONCE.format(mine=every)
            seats = same_rows(db, mine, f"SELECT {SEAT_COLUMNS} FROM {SEATS}", params)
            assert seats > 0, filters
            played = f"(SELECT hand_id FROM seat_results s WHERE {where})"
            hands = (
                "SELECT hand_id, seat, player, in_fantasy, royalties FROM seat_results "
                f"WHERE status IS NOT NULL AND hand_id IN {played}"
            )
            assert same_rows(db, hands, f"SELECT * FROM {HANDS}", params) > seats
            versus = (
                "SELECT v.hand_id, sum(v.points) AS points, o.player AS opponent, "
                "bool_or(o.in_fantasy) AS opponent_in_fantasy FROM versus v "
                f"JOIN ({every}) m ON m.hand_key = v.hand_key AND m.seat = v.seat "
                "JOIN seat_results o ON o.hand_key = v.hand_key AND o.seat = v.opponent "
                f"WHERE o.status IS NOT NULL AND (o.hand_id, o.seat) NOT IN "
                f"(SELECT (hand_id, seat) FROM ({every})) GROUP BY v.hand_id, o.player"
            )
            # heads-up or not, each of the player's seats meets every other seat once
            assert same_rows(db, versus, f"SELECT * FROM {VERSUS}", params) >= seats


def test_accounts_that_met_count_each_hand_once_and_never_against_themselves(
    data: Path,
) -> None:
    """Issue 29: an alias of two accounts that sat at one table counted the hand twice and
    listed its own accounts as opponents."""
    with ofc_stats.open(data) as db:
        keys = players(db)
        pair = (keys[2], keys[3])
        met = db.sql(
            "SELECT count(*) FROM (SELECT hand_id FROM seat_results WHERE status = 'scored' "
            "AND list_contains($a, player_key) GROUP BY hand_id HAVING count(*) = 2)",
            {"a": list(pair)},
        ).fetchall()[0][0]
        assert met > 0  # six simulated players at three-seat tables: they often met
        total, seats, hands = db.sql(
            "SELECT sum(net_capped), count(*), count(DISTINCT hand_id) FROM seat_results "
            "WHERE status = 'scored' AND list_contains($a, player_key)",
            {"a": list(pair)},
        ).fetchall()[0]
        assert seats == hands + met
        scope = prepare(db, Filters(accounts=pair))
        assert scope.shared == (met, tuple(sorted(pair)))
        counted, points = db.sql(f"SELECT count(*), sum(net_capped) FROM {SEATS}").fetchall()[0]
        # each hand once, with every seat's points: what they won from each other cancels
        assert counted == hands and points == pytest.approx(total)
        names = db.sql(
            "SELECT DISTINCT player FROM seats WHERE list_contains($a, coalesce(player_id, player))",
            {"a": list(pair)},
        ).fetchall()
        opponents = {r[0] for r in db.sql(f"SELECT DISTINCT opponent FROM {VERSUS}").fetchall()}
        assert opponents and not opponents & {r[0] for r in names}
        prepare(db, Filters(accounts=pair, self_play="skip"))
        assert db.sql(f"SELECT count(*) FROM {SEATS}").fetchall()[0][0] == hands - met


def test_other_players_are_every_other_seat_on_a_small_dataset(data: Path) -> None:
    with ofc_stats.open(data) as db:
        for filters in scopes(db):
            scope = prepare(db, filters)
            assert scope.sample_ppm == 1_000_000 and scope.sample_permille == 1000
            where, params = filters.where("s")
            me, mine_params = filters.me("s")
            columns = "hand_id, seat, net_capped, timeout_streets, in_fantasy, board, board_streets"
            others = f"SELECT {columns} FROM seat_results s WHERE {where} AND NOT ({me})"
            got = f"SELECT {columns} FROM {OTHERS}"
            assert same_rows(db, others, got, {**params, **mine_params}) > 0


def test_the_others_sample_is_whole_hands_in_runs_spread_over_the_dataset(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Room for 60 seats of 540 (3 a hand): 20 hands, as 4 runs of 5 consecutive ids spread
    over ids 0-179 (180 // 4 = 45 apart: 0-4, 45-49, 90-94, 135-139), each hand with
    every other player's seat."""
    monkeypatch.setattr(scope_module, "OTHERS_SEATS", 60)
    monkeypatch.setattr(scope_module, "SAMPLE_RUNS", 4)
    with ofc_stats.open(data) as db:
        assert db.sql("SELECT count(*), max(hand_id) FROM seats").fetchall()[0] == (540, 179)
        sample = scope_module.others_sample(db)
        ranges, ppm = sample.ranges, sample.ppm
        assert ranges == [(0, 4), (45, 49), (90, 94), (135, 139)]
        assert ppm == 1_000_000 * 20 // 180
        assert sample.condition == "(hand_id % 45 < 5 AND hand_id < 180)"
        scope = prepare(db, Filters(hero=True))
        assert scope.sample_ppm == ppm
        sampled = dict(db.sql(f"SELECT hand_id, count(*) FROM {OTHERS} GROUP BY 1").fetchall())
        assert sorted(sampled) == [i for a, b in ranges for i in range(a, b + 1)]
        full = dict(
            db.sql(
                "SELECT hand_id, count(*) FROM seat_results "
                "WHERE status = 'scored' AND NOT coalesce(hero, false) GROUP BY 1"
            ).fetchall()
        )
        assert all(full[i] == n for i, n in sampled.items())
        # a run's batch files only: ids 0-4 are in the first import's batch
        source = db.batch_source("seats", [(0, 4)])
        assert source.count(".parquet") == 2  # schema.parquet and that batch
        assert db.batch_source("seats", [(0, 4), (135, 139)]).count(".parquet") == 3


def test_the_others_sample_does_not_grow_with_the_dataset(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seats sampled = about OTHERS_SEATS whatever the hands: 30 and 90 of 540 here."""
    with ofc_stats.open(data) as db:
        for room in (30, 90):
            monkeypatch.setattr(scope_module, "OTHERS_SEATS", room)
            prepare(db, Filters(hero=True))
            hands = db.sql(f"SELECT count(DISTINCT hand_id) FROM {OTHERS}").fetchall()[0][0]
            assert hands == room // 3


def test_the_scope_keeps_what_reports_read_twice(data: Path) -> None:
    """Issue 31: no cache keyed by the connection: a scope is an object passed to every
    report, and what several read (board facts, money seats) is kept on it."""
    with ofc_stats.open(data) as db:
        scope = prepare(db, Filters(hero=True))
        assert scope.data is db and scope.filters == Filters(hero=True)
        cards = scope.cards("NOT s.in_fantasy")
        assert scope.cards("NOT s.in_fantasy") is cards
        assert scope.cards("true") is not cards
        assert scope.money is None
        money = money_seats(scope)
        assert scope.money is not None and money.equals(money_seats(scope))
        money["mine"] = 1  # each caller its own copy
        assert "mine" not in money_seats(scope).columns
        assert len(money_seats(scope)) == len(scope.money) > 0
        other = prepare(db, Filters(player=players(db)[0]))
        assert other is not scope and other.money is None
    for module in (scope_module, ledger_module):  # nothing beside the connection
        assert not [v for v in vars(module).values() if isinstance(v, WeakKeyDictionary)]


def test_fouls_tables_equal_the_per_seat_string_grouping(data: Path) -> None:
    """The previous fouls code labelled every seat with strings and grouped them in a loop."""
    with ofc_stats.open(data) as db:
        for filters in scopes(db)[:3]:
            scope = prepare(db, filters)
            report = fouls.build(scope)
            seats = scope.seats("s.in_fantasy, s.fouled, s.net_capped AS points, s.seat_count")
            normal = seats[~seats["in_fantasy"].astype(bool)].copy()
            cards = scope.cards("NOT s.in_fantasy")
            first = first_street(cards)
            normal["setup"] = [
                f"{t}-{m}-{b}"
                for t, m, b in zip(
                    first["to_top"], first["to_middle"], first["to_bottom"], strict=True
                )
            ]
            normal["on_top"] = np.select(
                [
                    first["top_rank"] < 0,
                    first["top_pair"],
                    first["top_rank"] >= 10,
                    first["top_rank"] >= 8,
                ],
                ["nothing on top", "a pair on top", "Q, K or A on top", "T or J on top"],
                "2 to 9 on top",
            )
            normal["chasing"] = np.where(
                queen_up(cards, 1), "chasing (Q+ on top by street 2)", "not chasing"
            )
            known = normal[first["known"]]
            expected = {
                "by_players": _old_rates(normal, "seat_count"),
                "by_setup": _old_rates(known, "setup").sort_values("hands", ascending=False),
                "by_top_card": _old_rates(known, "on_top").sort_values("rate", ascending=False),
                "by_chasing": _old_rates(known, "chasing"),
            }
            for name, table in expected.items():
                pd.testing.assert_frame_equal(
                    report.tables[name].reset_index(drop=True),
                    table.reset_index(drop=True),
                    check_dtype=False,
                )
            assert len(expected["by_setup"]) > 3


def _old_rates(frame: pd.DataFrame, by: str) -> pd.DataFrame:
    rows = []
    for value, group in frame.groupby(by, sort=True):
        rate, low, high = wilson(int(group["fouled"].sum()), len(group))
        rows.append(
            {
                by: value,
                "hands": len(group),
                "fouled": int(group["fouled"].sum()),
                "rate": rate,
                "low": low,
                "high": high,
                "points_per_hand": float(group["points"].mean()),
            }
        )
    return pd.DataFrame(rows)


def test_hands_found_by_id_ranges_equal_hands_found_by_key(data: Path) -> None:
    with ofc_stats.open(data) as db:
        files = db.sql(
            "SELECT filename, min(hand_id), max(hand_id) FROM read_parquet("
            f"'{data}/hands/*.parquet', filename = true) GROUP BY 1"
        ).fetchall()
        assert len([f for f in files if not f[0].endswith("schema.parquet")]) == 3
        for path, low, high in files:
            assert hand_id_range(path) == ((0, -1) if low is None else (low, high))
        rows = db.sql(
            "SELECT hand_key, hand_id FROM hands WHERE hand_id % 37 = 5 ORDER BY hand_id"
        ).fetchall()
        keys, ids = [str(r[0]) for r in rows], [int(r[1]) for r in rows]
        assert len(keys) >= 3
        by_key = hand_details(db, keys)
        assert sorted(by_key) == sorted(keys)
        assert hand_details(db, keys, ids) == by_key


def test_every_report_builds_on_the_scope(data: Path) -> None:
    with ofc_stats.open(data) as db:
        for filters in scopes(db):
            built = {r.key: r for r in build_all(db, filters)}
            summary = built["results"].tables["summary"].set_index("measure")["value"]
            where, params = filters.player_where("s")
            total = db.sql(  # hands, not seats: accounts of one person that met count once
                f"SELECT count(DISTINCT hand_id), sum(net_capped) FROM seat_results s WHERE {where}",
                params,
            ).fetchall()[0]
            assert summary["hands"] == total[0]
            assert summary["net points"] == pytest.approx(float(total[1]))


def test_a_player_of_some_batches_is_read_from_those_batches_alone(tmp_path: Path) -> None:
    """A dataset of two imports whose players differ (the second's renamed): the hero's
    scope reads the first batch's files only, and holds what the views give, as for
    every scope above."""
    root = tmp_path / "data"
    first = sim_records(40, seed=21)
    me = first[0].seats[0].player
    first = [
        replace(r, seats=tuple(replace(s, hero=s.player == me) for s in r.seats)) for r in first
    ]
    second = [
        replace(r, seats=tuple(replace(s, player=f"{s.player}~b", hero=False) for s in r.seats))
        for r in sim_records(40, seed=22)
    ]
    for part, records in enumerate((first, second)):
        source = tmp_path / f"part{part}.jsonl"
        source.write_text("".join(dumps(r) + "\n" for r in records), encoding="utf-8")
        import_paths([source], root)
    recompute(root)
    with ofc_stats.open(root) as db:
        ids = db.sql("SELECT hand_id FROM seats WHERE hero").fetchnumpy()["hand_id"]
        sources = db.batch_sources_of(np.asarray(ids, np.int64))
        (batch, _) = sorted(p.stem for p in (root / "hands").glob("0*.parquet"))
        for table in ("hands", "seats", "results", "versus"):
            assert sources[table].count(".parquet") == 2, sources[table]  # schema + one batch
            assert f"{table}/{batch}.parquet" in sources[table]
        everyone = db.sql("SELECT hand_id FROM hands").fetchnumpy()["hand_id"]
        assert db.batch_sources_of(np.asarray(everyone, np.int64))["results"] == "results_stored"
    test_the_scope_holds_what_the_views_give(root)


def test_an_opponent_is_never_the_reports_own_player(data: Path) -> None:
    """A player met at every one of his own tables: `--opponent` naming him, or an alias of
    his own accounts, is refused (it kept every hand and titled the page 'against' him); a
    hero report's opponent filter never matches the hero's own seats."""
    with ofc_stats.open(data) as db:
        keys = players(db)
        with pytest.raises(UnknownFilter, match="is this report's player"):
            checked(db, Filters(player=keys[0], opponent=keys[0]))
        with pytest.raises(UnknownFilter, match="is this report's player"):
            checked(db, Filters(accounts=(keys[0], keys[1]), opponent=keys[1]))
        hero = checked(db, Filters(hero=True, opponent=HERO))  # the hero's account itself
        where, params = hero.where("s")
        mine, _ = hero.me("s")
        query = f"SELECT count(*) FROM seat_results s WHERE {where} AND {mine}"
        assert db.sql(query, params).fetchall()[0][0] == 0  # he never sits against himself
        every = f"SELECT count(*) FROM seat_results s WHERE s.status = 'scored' AND {mine}"
        assert db.sql(every).fetchall()[0][0] > 0
