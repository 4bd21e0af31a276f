"""fpdb's core lane (rust/ofc-core/src/decode/fpdb.rs) stores exactly what the record path stores.

Each example is a database of generated rawJson hands, damaged in the ways
real rows differ (odd card spellings, nulls where lists were, unknown round
players, shuffled rounds, Fantasyland rounds, odd points and seats), imported
both ways and compared table for table.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_stats.records import HandRecord
from parsers.base import ColumnarHands
from parsers.fpdb import FpdbParser
from tests.handgen import random_records
from tests.swcgen import fpdb_database, raw_json
from tests.test_swc_fpdb_columnar import assert_same, database

ODD_CARDS: list[Any] = ["--", "10h", "th", "TH", "Td", "X1", "Zz", "", " As", "A\u2660", 5, None]
ODD_VALUES: list[Any] = [
    None,
    0,
    1,
    -1,
    True,
    False,
    "",
    "x",
    "2",
    [],
    {},
    2.5,
    "nan",
    "1_000",
    10**30,
]
FIELDS = ["placed", "dealt", "discarded", "player", "round"]
HAND_FIELDS = ["variant", "players", "rounds", "result", "timestamp", "table_id", "hand_id", "site"]
PLAYER_FIELDS = ["name", "seat_idx", "top", "middle", "bottom", "points"]


def damaged(raw: dict[str, Any], rng: random.Random, times: int) -> dict[str, Any]:
    """The rawJson with ``times`` random changes of the kinds real rows show."""
    raw = copy.deepcopy(raw)
    players, rounds = raw["players"], raw["rounds"]
    names = [p["name"] for p in players]
    for _ in range(times):
        kind = rng.randrange(12)
        if kind == 0:
            rng.shuffle(rounds)  # the record path sorts them by "round"
        elif kind == 1 and rounds:
            rng.choice(rounds)["round"] = rng.choice([1, 1, None, "3", True, 2**70])
        elif kind == 2 and rounds:
            rng.choice(rounds)["player"] = rng.choice(["nobody", None, names[0]])
        elif kind == 3:
            lists = [p.get(r) for p in players for r in ("top", "middle", "bottom")]
            lists += [v for rd in rounds if isinstance(rd.get("placed"), dict)
                      for v in rd["placed"].values()]  # fmt: skip
            lists = [v for v in lists if isinstance(v, list) and v]
            if lists:
                chosen = rng.choice(lists)
                chosen[rng.randrange(len(chosen))] = rng.choice(ODD_CARDS)
        elif kind == 4 and rounds:
            rng.choice(rounds)[rng.choice(FIELDS)] = rng.choice(ODD_VALUES)
        elif kind == 5:
            raw[rng.choice(HAND_FIELDS)] = rng.choice(ODD_VALUES)
        elif kind == 6:
            rng.choice(players)[rng.choice(PLAYER_FIELDS)] = rng.choice(ODD_VALUES)
        elif kind == 7:
            players[-1]["name"] = names[0]  # two seats of one name
        elif kind == 8 and rounds:
            # A Fantasyland round: a player's whole board at once, then no more rounds.
            seat = rng.randrange(len(players))
            player = players[seat]
            rounds[:] = [r for r in rounds if r.get("player") != names[seat]]
            rows = {row: player.get(row) for row in ("top", "middle", "bottom")}
            rounds.append({"round": 0, "player": names[seat], "dealt": ["Ah"], "placed": rows})
        elif kind == 9:
            raw["variant"] = rng.choice(
                [{"variant": "ofc"}, {"pineapple": False}, {"pineapple": None},
                 {"deuce_to_seven": True}, {"variant": "ofcp_27"}, {}, None]
            )  # fmt: skip
        elif kind == 10:
            result = raw.get("result")
            settled = result.get("points_settled") if isinstance(result, dict) else None
            if isinstance(settled, dict) and settled:
                settled[rng.choice(list(settled))] = rng.choice([" 3 ", 2.5, "1e400", True, None])
        else:
            raw["junk"] = rng.choice([[[[1]]], {"a": 2**63}, "\u00e9", 1.5e300])
    return raw


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1), times=st.integers(0, 4))
def test_damaged_rows_store_alike(tmp_path_factory: Any, seed: int, times: int) -> None:
    rng = random.Random(seed)
    records = random_records(6, seed=seed % 1000)
    raws = [damaged(raw_json(r), rng, times if i % 2 else rng.randrange(3)) for i, r in
            enumerate(records)]  # fmt: skip
    folder = tmp_path_factory.mktemp("fpdb")
    assert_same([[database(folder / "f.db3", raws)]], folder)


def _typed_hands(path: Path) -> int:
    items = FpdbParser().parse_path_columnar(str(path), "f")
    return sum(i.hands.num_rows for i in items if isinstance(i, ColumnarHands))


def test_rows_the_core_refuses_take_the_per_row_path(tmp_path: Path) -> None:
    """A null where a list was, a card only parse_card spells, a bool seat: per row, stored alike."""
    records = random_records(5, seed=31)
    raws = [raw_json(r) for r in records]
    raws[0]["players"][0]["seat_idx"] = True  # hand_parts refuses it, with its reason
    top = raws[1]["players"][0]["top"]
    suit = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}[top[0][-1]]
    top[0] = top[0][:-1] + suit  # the same card as parse_card reads it; the core leaves it
    raws[2]["rounds"][0]["placed"] = []  # hand_parts reads "or {}"; the core leaves it
    path = database(tmp_path / "f.db3", raws)
    assert _typed_hands(path) == 2  # the three are items of the per-row path
    items = list(FpdbParser().parse_path_columnar(str(path), "f"))
    assert [i.room_hand_id for i in items if isinstance(i, HandRecord)] == [
        r.room_hand_id for r in records[1:3]
    ]
    counts = assert_same([[path]], tmp_path)
    assert counts["hands"] == 4


def test_hands_the_definition_refuses_go_through_the_record_path(tmp_path: Path) -> None:
    """A card twice on one board: the core leaves that hand (only) to the record path."""
    records = random_records(4, seed=32)
    raws = [raw_json(r) for r in records]
    top = raws[1]["players"][0]["top"]
    top[1] = top[0]
    path = database(tmp_path / "f.db3", raws)
    assert _typed_hands(path) == 3
    counts = assert_same([[path]], tmp_path)
    assert counts["hands"] == 3 and counts["quarantine"] == 1


def test_fantasyland_and_hidden_cards(tmp_path: Path) -> None:
    """A whole board placed in one round is street 0 from then on; "--" cards are left out."""
    records = random_records(3, seed=33)
    raws = [raw_json(r) for r in records]
    player = raws[0]["players"][0]
    rounds = [r for r in raws[0]["rounds"] if r["player"] != player["name"]]
    rows = {row: list(player[row]) for row in ("top", "middle", "bottom")}
    rounds.insert(0, {"round": 0, "player": player["name"], "dealt": ["2c"], "placed": rows})
    raws[0]["rounds"] = rounds
    raws[1]["rounds"][1]["placed"]["bottom"].append("--")
    raws[2]["rounds"][0]["discarded"] = ["--"]
    path = database(tmp_path / "f.db3", raws)
    assert _typed_hands(path) == 3
    assert assert_same([[path]], tmp_path)["hands"] == 3


def test_a_chunk_without_rounds(tmp_path: Path) -> None:
    """Hands whose rawJson lists no rounds: final rows only, no placements (Hypothesis found it)."""
    raws = [raw_json(r) | {"rounds": []} for r in random_records(2, seed=34)]
    path = database(tmp_path / "f.db3", raws)
    assert _typed_hands(path) == 2
    counts = assert_same([[path]], tmp_path)
    assert counts["hands"] == 2 and counts["placements"] == 0


def test_nested_rawjson_stores_alike(tmp_path: Path) -> None:
    """Deep lists in a field no reader looks at and in one it reads: the core takes a text that
    opens at most 400 brackets in all (Python's json reads that deep), scans the nesting of
    any other, and leaves a deeper one to the definition (past Python's depth: quarantined)."""
    raws = [raw_json(r) for r in random_records(6, seed=35)]
    nest = lambda depth: "[" * depth + "]" * depth  # noqa: E731
    raws[3]["variant"] = json.loads(nest(150))  # where an object belongs: refused alike
    texts = [json.dumps(raw) for raw in raws]
    extra = {0: 120, 1: 99, 2: 380, 4: 3000}  # 380 opens over 400 with the hand's own brackets
    for row, depth in extra.items():  # 3000: json.loads raises RecursionError (quarantined)
        texts[row] = texts[row][:-1] + f', "extra": {{"deep": {nest(depth)}}}}}'
    assert sum(c in "[{" for c in texts[0]) <= 400 < sum(c in "[{" for c in texts[2])
    path = fpdb_database(tmp_path / "f.db3", texts, "t")
    assert _typed_hands(path) == 3  # the 120 and 99 deep ones and the plain one
    counts = assert_same([[path]], tmp_path)
    assert counts["hands"] == 4 and counts["quarantine"] == 2
