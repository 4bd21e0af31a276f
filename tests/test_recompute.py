"""The results tables: batch recompute equals the scalar engine; incremental; views."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

import ofc_stats
from ofc_stats.engine.board import Board
from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Variant
from ofc_stats.engine.scoring import score_hand
from ofc_stats.records import HandRecord, Placement
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from parsers.open_format import dumps
from tests.builders import hand_record, seat_record, sim_records, write_dataset
from tests.handgen import random_records


def test_results_equal_the_scalar_engine(tmp_path: Path) -> None:
    """Every seat of every hand, against score_hand: fouls, royalties, rows, points, Fantasyland."""
    records = sim_records(300, seed=11, stack=15.0) + random_records(160, seed=3)
    data = write_dataset(tmp_path, records)
    with ofc_stats.open(data) as db:
        frame = db.df("SELECT * FROM results ORDER BY hand_key, seat")
        versus = db.df("SELECT * FROM versus ORDER BY hand_key, seat, opponent")
    by_key = frame.groupby("hand_key")
    vs_key = versus.groupby("hand_key")
    fantasy_seen = caps_seen = fouls_seen = 0
    for record in records:
        ruleset = get_ruleset(record.ruleset)
        boards = [Board(s.top, s.middle, s.bottom) for s in record.seats]
        stacks = [s.stack for s in record.seats]
        use_stacks = ruleset.stack_cap and all(x is not None for x in stacks)
        scalar = score_hand(
            boards,
            ruleset,
            stacks=[float(x or 0) for x in stacks] if use_stacks else None,
            in_fantasy=[s.in_fantasy for s in record.seats],
            fantasy_cards=[s.fantasy_cards for s in record.seats],
        )
        rows = by_key.get_group(record.hand_key)
        assert list(rows["status"]) == ["scored"] * len(record.seats)
        for index, (board, row) in enumerate(zip(scalar.boards, rows.itertuples(), strict=True)):
            assert row.fouled == board.fouled
            assert (row.royalty_top, row.royalty_middle, row.royalty_bottom) == (
                board.royalties.top,
                board.royalties.middle,
                board.royalties.bottom,
            )
            assert row.net == scalar.net[index]
            assert row.net_capped == pytest.approx(scalar.net_capped[index])
            outcome = board.fantasyland
            assert row.fantasy_entry == (outcome.cards or 0)
            assert row.fantasy_stays == outcome.stays
            fantasy_seen += bool(outcome.cards or outcome.stays)
            fouls_seen += board.fouled
        caps_seen += scalar.net_capped != tuple(float(x) for x in scalar.net)
        pairs = vs_key.get_group(record.hand_key)
        for pair in pairs.itertuples():
            assert pair.points == scalar.points[pair.seat][pair.opponent]
            assert pair.rows_won + pair.rows_lost + pair.rows_tied in (0, 3)
    assert fantasy_seen >= 3 and caps_seen >= 5 and fouls_seen > 50


def test_core_timeout_flags_equal_the_scalar_rule(tmp_path: Path) -> None:
    """results.timeout_streets (core.timeout, from board streets) against the scalar
    rule of engine.timeout on every stored street, order-free; Fantasyland seats are never
    flagged, and the scalar forced streets are exactly the view's forced streets."""
    records = sim_records(150, seed=12, timeout_rate=0.2) + random_records(50, seed=4)
    data = write_dataset(tmp_path, records)
    _assert_flags_and_forced_streets(data, records, lambda r: get_ruleset(r.ruleset).variant)


def test_forced_streets_under_a_ruleset_the_dataset_keeps(tmp_path: Path) -> None:
    """Hands imported under a TOML ruleset (``import --rules ROOM.toml``, kept in the
    dataset): the view finds their variant too.  Before, ``ruleset_variants`` listed the
    presets only, so a kept ruleset's streets had no cards placed to compare with and
    "every open slot gets filled" never held: 55 of 74 forced streets went unseen."""
    records = sim_records(150, seed=12, timeout_rate=0.2)
    rules = tmp_path / "my-room.toml"
    rules.write_text('extends = "pineapple-progressive"\nname = "my-room"\n', encoding="utf-8")
    source = tmp_path / "hands.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in records), encoding="utf-8")
    data = tmp_path / "data"
    assert import_paths([source], data, rules=str(rules)).stored == len(records)
    recompute(data)
    with ofc_stats.open(data) as db:
        assert db.sql("SELECT DISTINCT ruleset FROM hands").fetchall() == [("my-room",)]
    variant = get_ruleset("pineapple-progressive").variant
    _assert_flags_and_forced_streets(data, records, lambda r: variant)


def _assert_flags_and_forced_streets(
    data: Path, records: list[HandRecord], variant_of: Callable[[HandRecord], Variant]
) -> None:
    from collections import defaultdict

    from ofc_stats.engine.timeout import Street, forced_street, timeout_streets

    with ofc_stats.open(data) as db:
        stored = dict(
            ((k, s), m)
            for k, s, m in db.sql("SELECT hand_key, seat, timeout_streets FROM results").fetchall()
        )
        forced = {
            (k, s, n)
            for k, s, n in db.sql(
                "SELECT hand_key, seat, street FROM streets WHERE forced"
            ).fetchall()
        }
        view = {
            (k, s, n)
            for k, s, n in db.sql(
                # the auto-placement matched on a free street where the deal order is kept
                "SELECT st.hand_key, st.seat, st.street FROM streets st JOIN hands h "
                "USING (hand_key) WHERE st.pattern_match AND NOT st.forced "
                "AND records_deal_order(h.format)"
            ).fetchall()
        }
    flagged = forced_seen = 0
    for record in records:
        variant = variant_of(record)
        by_seat: dict[int, dict[int, list[Placement]]] = defaultdict(lambda: defaultdict(list))
        for placement in record.placements:
            by_seat[placement.seat][placement.street].append(placement)
        for seat in record.seats:
            expected = 0
            if not seat.in_fantasy:
                streets = [
                    Street(tuple(p.card for p in ps), tuple(p.destination for p in ps))
                    for _, ps in sorted(by_seat[seat.seat].items())
                ]
                for number, match in enumerate(timeout_streets(variant, streets, ordered=False)):
                    if match:
                        expected |= 1 << number
                filled = [0, 0, 0]
                for number, st in enumerate(streets):
                    key = (record.hand_key, seat.seat, number)
                    is_forced = forced_street(variant, number, filled, len(st.cards))
                    assert is_forced == (key in forced), key
                    forced_seen += is_forced
                    for d in st.destinations:
                        if d != "discard":
                            filled[("top", "middle", "bottom").index(d)] += 1
            assert stored[(record.hand_key, seat.seat)] == expected
            flagged += bin(expected).count("1")
    assert flagged > 50 and forced_seen > 50
    assert len(view) == flagged  # the view reads the same flags


def test_hand_computed_results(tmp_path: Path) -> None:
    """Alice: QQ top (7), straight middle (4), flush bottom (4): royalties 15.
    Bob fouls (middle trips over a bottom pair).  Carol: K-high top, pair middle, two pair bottom.

    Alice against Bob: scoop 6 + her royalties 15 = +21.  Alice against Carol: she wins
    top (QQ > K), middle (straight > pair), bottom (flush > two pair): 6 + 15 = +21.
    Carol against Bob: scoop 6, no royalties: +6.  Nets: Alice +42, Bob -27, Carol -15.
    """
    alice = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
    carol = seat_record(2, "Carol", "Kc 3d 2d", "Tc Td 3c 6s 7s", "Jc Jd 9d 9s 2s")
    data = write_dataset(tmp_path, [hand_record(1, (alice, bob, carol))])
    with ofc_stats.open(data) as db:
        rows = db.df(
            "SELECT seat, fouled, royalty_top, royalty_middle, royalty_bottom, royalties, rows_won,"
            " rows_lost, scoops, scooped, net, fantasy_entry FROM results ORDER BY seat"
        )
        names = db.df(
            "SELECT r.seat, t.description AS top, m.description AS middle FROM results r"
            " JOIN row_classes t ON t.cards = 3 AND t.class = r.top_class"
            " JOIN row_classes m ON m.cards = 5 AND m.class = r.middle_class ORDER BY r.seat"
        )
        versus = db.df("SELECT seat, opponent, points, rows_won, scoop FROM versus ORDER BY ALL")
    assert rows.to_dict("list") == {
        "seat": [0, 1, 2],
        "fouled": [False, True, False],
        "royalty_top": [7, 0, 0],
        "royalty_middle": [4, 0, 0],
        "royalty_bottom": [4, 0, 0],
        "royalties": [15, 0, 0],
        "rows_won": [6, 0, 3],
        "rows_lost": [0, 6, 3],
        "scoops": [2, 0, 1],
        "scooped": [0, 2, 1],
        "net": [42, -27, -15],
        "fantasy_entry": [14, 0, 0],
    }
    assert list(names["top"]) == ["pair of Qs", "A-high", "K-high"]
    assert names["middle"].iloc[0] == "straight 9-high"
    assert versus.to_dict("list") == {
        "seat": [0, 0, 1, 1, 2, 2],
        "opponent": [1, 2, 0, 2, 0, 1],
        "points": [21, 21, -21, -6, -21, 6],
        "rows_won": [3, 3, 0, 0, 0, 3],
        "scoop": [True, True, False, False, False, True],
    }


def test_timeout_streets_follow_the_auto_placement(tmp_path: Path) -> None:
    """Street 1 goes bottom, bottom + discard (the room's pattern) -> matches it; street 0
    top-heavy is a decision; the last street has one way to go (forced) -> never matched.
    No street is flagged a timeout: the hand records none (docs/format.md)."""
    seat = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    other = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 5s Js Ks", "5c 5d 6c 8d 9c")
    cards = {c: row for row in ("top", "middle", "bottom") for c in getattr(seat, row)}
    order = [*seat.top[:2], *seat.middle[:3]]  # street 0: 2 top, 3 middle
    order += [seat.bottom[0], seat.bottom[1]]  # street 1: both to the bottom
    order += [seat.bottom[2], seat.middle[3]]  # street 2
    order += [seat.bottom[3], seat.middle[4]]  # street 3
    order += [seat.top[2], seat.bottom[4]]  # street 4: forced
    discards = parse_cards("3c 3h 4s 6h")
    streets = [5, 2, 2, 2, 2]
    placements, position = [], 0
    for street, count in enumerate(streets):
        for card in order[position : position + count]:
            placements.append(Placement(0, street, card, cards[card]))
        position += count
        if street:
            placements.append(Placement(0, street, discards[street - 1], "discard"))
    hand = hand_record(1, (replace(seat, discards=discards), other), placements=tuple(placements))
    data = write_dataset(tmp_path, [hand])
    with ofc_stats.open(data) as db:
        streets_df = db.df(
            "SELECT street, forced, pattern_match, timeout FROM streets WHERE seat = 0 ORDER BY 1"
        )
        flags = db.df("SELECT timeout_streets, timeouts FROM results WHERE seat = 0")
    assert list(streets_df["pattern_match"]) == [False, True, False, False, False]
    assert not streets_df["timeout"].any()
    assert list(streets_df["forced"]) == [False, False, False, False, True]
    assert flags.to_dict("list") == {"timeout_streets": [2], "timeouts": [1]}


def test_recompute_is_incremental_and_force_redoes(tmp_path: Path) -> None:
    records = random_records(60, seed=5)
    data = write_dataset(tmp_path, records[:40], "first")
    again = recompute(data)
    assert (again.batches, again.up_to_date) == (0, 1)
    with ofc_stats.open(data) as db:
        before = db.df("SELECT * FROM results ORDER BY hand_key, seat")
    second = tmp_path / "second.jsonl"
    second.write_text("".join(dumps(r) + "\n" for r in records[40:]), encoding="utf-8")
    import_paths([second], data)
    summary = recompute(data)
    assert (summary.batches, summary.up_to_date, summary.hands) == (1, 1, 20)
    forced = recompute(data, force=True)
    assert (forced.batches, forced.up_to_date, forced.hands) == (2, 0, 60)
    with ofc_stats.open(data) as db:
        after = db.df("SELECT * FROM results ORDER BY hand_key, seat")
        assert db.sql("SELECT count(DISTINCT hand_key) FROM results").fetchall() == [(60,)]
    first_keys = set(before["hand_key"])
    kept = after[after["hand_key"].isin(first_keys)].reset_index(drop=True)
    assert kept.equals(before)


def test_incomplete_and_unknown_ruleset_hands_are_kept_with_a_status(tmp_path: Path) -> None:
    complete = hand_record(
        1,
        (
            seat_record(0, "A", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah"),
            seat_record(1, "B", "Ac Kd 3s", "4c 4d 5s Js Ks", "5c 5d 6c 8d 9c"),
        ),
    )
    short = replace(
        complete,
        room_hand_id="2",
        seats=(complete.seats[0], replace(complete.seats[1], bottom=complete.seats[1].bottom[:3])),
    )
    data = write_dataset(tmp_path, [complete, short])
    with ofc_stats.open(data) as db:
        statuses = db.df(
            "SELECT room_hand_id, status, count(*) n FROM seat_results GROUP BY ALL ORDER BY 1"
        )
    assert statuses.to_dict("list") == {
        "room_hand_id": ["1", "2"],
        "status": ["scored", "incomplete"],
        "n": [2, 2],
    }


def test_fantasy_view_links_a_players_next_hand(tmp_path: Path) -> None:
    """Hand 1: Alice QQ on top earns 14 cards.  Hand 2: the room deals her Fantasyland
    with 14 (4 discards).  Hand 3: she did not stay; the room deals a normal hand."""
    alice1 = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
    bob = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 5s Js Ks", "5c 5d 6c 8d 9c")
    alice2 = replace(
        seat_record(0, "Alice", "2s 3d 4h", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah"),
        in_fantasy=True,
        discards=parse_cards("Kh"),
    )
    hands = [
        hand_record(1, (alice1, bob)),
        hand_record(2, (alice2, bob)),
        hand_record(3, (replace(alice1, top=parse_cards("2s 3d 4h")), bob)),
    ]
    data = write_dataset(tmp_path, hands)
    with ofc_stats.open(data) as db:
        links = db.df(
            "SELECT hand_key, rules_fantasy, rules_cards, room_fantasy, room_cards, next_hand_key "
            "FROM fantasy WHERE player = $p ORDER BY played_at",
            {"p": "Alice"},
        )
    assert list(links["rules_fantasy"]) == [True, False, False]
    assert list(links["rules_cards"]) == [14, 0, 0]
    assert list(links["room_fantasy"][:2]) == [True, False]
    assert list(links["room_cards"][:2]) == [14, 0]
    assert links["next_hand_key"].iloc[2] is None or links["next_hand_key"].isna().iloc[2]
    # The last hand has no next one: what the room dealt is unknown, not 0 cards (an
    # analyst's `rules_cards <> room_cards` counted such rows as room errors).
    assert pd.isna(links["room_fantasy"].iloc[2]) and pd.isna(links["room_cards"].iloc[2])


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_killed_recompute_leaves_no_worker_holding_the_lock(tmp_path: Path) -> None:
    """kill -9 mid-run: its workers are threads of the one process (no child outlives
    it), the lock is free at once, and a second run finishes the batches the first did not."""
    import fcntl
    import os
    import signal
    import subprocess
    import sys
    import time

    from ofc_stats.store.dataset import Dataset

    source = tmp_path / "hands.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in random_records(1200, seed=9)))
    data = tmp_path / "data"
    assert import_paths([source], data, batch_hands=12).stored == 1200  # 100 batches
    script = (
        "import sys; from ofc_stats.cli.main import main; "
        "main(['recompute', '--quiet', '--data', sys.argv[1]])"
    )
    parent = subprocess.Popen([sys.executable, "-c", script, str(data)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and parent.poll() is None:
        if len(list((data / "results").glob("0*.parquet"))) >= 4:
            break
        time.sleep(0.005)
    assert parent.poll() is None, "the first run ended before it could be killed"
    children = _children(parent.pid)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    assert children == []
    done = len(list((data / "results").glob("0*.parquet")))
    assert 4 <= done < 100
    with open(data / ".lock", "a+") as handle:  # nobody holds it
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(handle, fcntl.LOCK_UN)
    with Dataset(data).locked():
        summary = recompute(data)
    batches = len(Dataset(data).batches())  # 100, and the last one's file ledger
    assert summary.batches + summary.up_to_date == batches and 0 < summary.batches < batches
    with ofc_stats.open(data) as db:
        counts = db.sql("SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM seats)")
        assert counts.fetchall()[0][0] == counts.fetchall()[0][1]


def test_a_rate_says_what_its_seconds_hold() -> None:
    """An analyst's find: Spark's "219 hands/s" held its ~25 s start-up unsaid."""
    from ofc_stats.store.recompute import RecomputeSummary

    local = RecomputeSummary(hands=6000, batches=1, seconds=3.0).lines()[0]
    assert local.endswith("(2,000 hands/s)")
    spark = RecomputeSummary(
        hands=6000, batches=1, seconds=3.0, timed=", Spark's start-up included"
    )
    assert spark.lines()[0].endswith("(2,000 hands/s, Spark's start-up included)")
