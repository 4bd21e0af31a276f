"""`audit --guess-rules` reads the room's Fantasyland entries, the button and the jokers as
counts per room, rule string and class from DuckDB, never a row a board or a hand.

Memory bounded by the batch, never by the dataset: at 100,000 simulated hands the
Fantasyland evidence came back as a frame of every traced board (297,000 rows, about
170 MB); the counts are a row per top class seen.  The entry tiers are the engine's
(:meth:`FantasyRules.tiers`, :meth:`FantasyRules.entry_cards_for`), not a copy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd

import ofc_stats
from ofc_stats.audit.guess import JOKERS_SQL, joker_groups
from ofc_stats.audit.infer import (
    BUTTON_COUNTS_SQL,
    BUTTON_SQL,
    FANTASY_TRACED,
    _entry_counts,
    _entry_evidence,
    _stays,
)
from ofc_stats.core.tables import tables
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rank import RowRank
from ofc_stats.engine.rules import FrozenMap
from tests.test_audit_infer import odd_room  # noqa: F401  (the fixture)

PROGRESSIVE = get_ruleset("pineapple-progressive")


def _every_top(dealt: Callable[[RowRank], int | None]) -> pd.DataFrame:
    """One board of each of the 455 top classes; the room dealt what ``dealt(rank)`` says."""
    rows = []
    for top_class, rank in enumerate(tables().rank3):
        cards = dealt(rank)
        rows.append((top_class, cards is not None, cards if cards is not None else 0, 1))
    return pd.DataFrame(rows, columns=["top_class", "room_fantasy", "room_cards", "boards"])


def test_the_tiers_are_the_engines() -> None:
    # The room deals what the engine says each top earns.  Top classes per tier: a pair
    # of Qs, Ks or As with any of the 12 other ranks as kicker, 12 each; trips of each
    # of the 13 ranks, 13.  Nothing below QQ gets Fantasyland, so no entry is below it.
    evidence, found = _entry_evidence(_every_top(PROGRESSIVE.fantasy.entry_cards_for), PROGRESSIVE)
    assert (
        found
        == PROGRESSIVE.fantasy.entry_cards
        == FrozenMap({"QQ": 14, "KK": 15, "AA": 16, "222": 17})
    )
    counts = {e.option: (e.value, e.support, e.contradict) for e in evidence}
    assert counts == {
        "fantasy.entry_cards.QQ": ("14", 12, 0),
        "fantasy.entry_cards.KK": ("15", 12, 0),
        "fantasy.entry_cards.AA": ("16", 12, 0),
        "fantasy.entry_cards.222": ("17", 13, 0),
    }


def test_tiers_dealing_the_same_cards_stay_apart() -> None:
    # QQ and KK both deal 15 in this room's rules: still two tiers, 12 top classes each.
    fantasy = replace(PROGRESSIVE.fantasy, entry_cards=FrozenMap({"QQ": 15, "KK": 15, "AA": 16}))
    rules = PROGRESSIVE.with_options(fantasy=fantasy)
    evidence, found = _entry_evidence(_every_top(fantasy.entry_cards_for), rules)
    assert found == FrozenMap({"QQ": 15, "KK": 15, "AA": 16})
    # AA's tier holds the 12 AA classes and every trips (13): 25 boards
    assert [(e.option, e.support) for e in evidence] == [
        ("fantasy.entry_cards.QQ", 12),
        ("fantasy.entry_cards.KK", 12),
        ("fantasy.entry_cards.AA", 25),
    ]


def test_boards_are_counted_by_their_number() -> None:
    # Three JJ boards the room sent to Fantasyland with 14 cards, and one QQ class seen on
    # 5 boards: 4 dealt 14, 1 dealt nothing.  QQ = 14 on 4 boards against 1; 3 entries
    # below the threshold.
    t = tables()
    jj = next(c for c, r in enumerate(t.rank3) if r.describe() == "pair of Js")
    qq = next(c for c, r in enumerate(t.rank3) if r.describe() == "pair of Qs")
    counts = pd.DataFrame(
        [(jj, True, 14, 3), (qq, True, 14, 4), (qq, False, 0, 1)],
        columns=["top_class", "room_fantasy", "room_cards", "boards"],
    )
    evidence, _ = _entry_evidence(counts, PROGRESSIVE)
    first, threshold = evidence[0], evidence[-1]
    assert (first.option, first.value, first.support, first.contradict) == (
        "fantasy.entry_cards.QQ", "14", 4, 1,
    )  # fmt: skip
    assert first.note == "1 qualifying board got no Fantasyland"
    assert (threshold.option, threshold.value, threshold.contradict) == (
        "fantasy entry threshold", "QQ", 3,
    )  # fmt: skip


def test_the_queries_return_counts_not_boards(odd_room: tuple[Path, Path]) -> None:  # noqa: F811
    with ofc_stats.open(odd_room[0]) as db:
        gap = {"gap": 15 * 60}
        boards = int(db.df("SELECT count(*) AS n" + FANTASY_TRACED, gap)["n"].iloc[0])
        entries = _entry_counts(db, 15.0)
        stays = _stays(db, 15.0)
        # every traced board counted once: outside Fantasyland unfouled, or in it
        fouled_entries = db.df(
            "SELECT count(*) AS n" + FANTASY_TRACED + " AND NOT f.in_fantasy AND f.fouled", gap
        )["n"].iloc[0]
        assert int(entries["boards"].sum()) + len(stays) + int(fouled_entries) == boards
        # a row per (top class, what the room dealt): far fewer than the boards
        assert len(entries) < int(entries["boards"].sum()) / 2
        assert not entries.duplicated(["room", "rules_text", "top_class", "room_fantasy",
                                       "room_cards"]).any()  # fmt: skip
        # the button: a row per kind of hand, summing to the hands the per-hand query links
        button = db.df(BUTTON_COUNTS_SQL)
        linked = len(db.df(BUTTON_SQL))
        assert int(button["hands"].sum()) == linked and len(button) <= 8 < linked
        # the jokers: a row per room and rule string, the hands summing to the stored
        jokers = db.df(JOKERS_SQL)
        hands = int(db.df("SELECT count(*) AS n FROM hands")["n"].iloc[0])
        assert len(jokers) == len(joker_groups(db)) == 1
        assert int(jokers["hands"].iloc[0]) == hands and int(jokers["joker_hands"].iloc[0]) == 0
