"""The money rules inferred from what the shares add up to are the rules of the seats read
whole.

``room_money`` reads the money seats a share of the tables at a time and keeps, per
room and currency, counts only (the losers' ratios; each distinct winning (gross,
money) and its seats) and the few hands with a short loser whole.  Whatever the
shares (the whole dataset, 40 hands, one table each), the rake, the settlement and
every seat's expected money must come out the same.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ofc_stats.audit import chunks, money
from ofc_stats.audit import holdout as holdout_module
from ofc_stats.audit.holdout import holdout
from ofc_stats.audit.money import Ratios, RoomMoney, Winners, expected_money, infer_rake
from ofc_stats.store.views import OfcData, open_dataset
from tests.test_audit_shares import simulated  # noqa: F401  (the fixture)


def _one_table_each(data: OfcData, alias: str = "") -> list[str]:
    """One share per table: the smallest share the audit's windows allow."""
    tables = data.df("SELECT DISTINCT room, table_id FROM hands ORDER BY ALL")
    return [
        f"{alias}room = '{room}' AND {alias}table_id = '{table}'"
        for room, table in zip(tables["room"], tables["table_id"], strict=True)
    ]


def _money(data: Path, shares: str, monkeypatch: pytest.MonkeyPatch) -> tuple[RoomMoney, int]:
    counted: list[int] = []
    if shares == "one table each":

        def split(db: OfcData, alias: str = "") -> list[str]:
            out = _one_table_each(db, alias)
            counted.append(len(out))
            return out

        monkeypatch.setattr(money, "table_shares", split)
    else:
        monkeypatch.setattr(chunks, "CHUNK_HANDS", {"whole": 10**9, "40 hands": 40}[shares])
    with open_dataset(data) as db:
        found = money.room_money(db)
        if not counted:
            counted.append(len(chunks.table_shares(db)))
    return found, counted[0]


@pytest.fixture(params=["40 hands", "one table each"])
def shares(request: pytest.FixtureRequest) -> str:
    """How the tables are cut: 40 hands a share, or one table a share (the smallest)."""
    return str(request.param)


def test_room_money_is_the_same_whatever_the_shares(
    simulated: Path,  # noqa: F811
    shares: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    whole, one = _money(simulated, "whole", monkeypatch)
    split, many = _money(simulated, shares, monkeypatch)
    assert one == 1 and many > 4
    assert split.rakes == whole.rakes and split.settlements == whole.settlements
    assert any(s.short_hands for s in whole.settlements)  # short stacks were settled
    pd.testing.assert_frame_equal(split.seats, whole.seats, check_exact=True)
    assert [sorted(p) for p in split.pairwise] == [sorted(p) for p in whole.pairwise]
    for mine, theirs in zip(split.pairwise, whole.pairwise, strict=True):
        assert all(np.array_equal(mine[key], theirs[key]) for key in theirs)


def _room(gross: list[float], money: list[float]) -> pd.DataFrame:
    """Heads-up hands paid in full: the winner's points are his gross (stakes 1)."""
    rows = []
    for index, (won, paid) in enumerate(zip(gross, money, strict=True)):
        rows += [
            {"hand_key": f"h{index}", "seat": 0, "net_capped": won, "stakes": 1.0,
             "reported_money": paid},
            {"hand_key": f"h{index}", "seat": 1, "net_capped": -won, "stakes": 1.0,
             "reported_money": -won},
        ]  # fmt: skip
    return expected_money(pd.DataFrame(rows))


def test_a_rake_from_the_counts_of_two_shares_is_the_rake_of_their_seats() -> None:
    # 5% rounded down to 0.1: 20 → 19.0, 30 → 28.5, 13 → 12.4 (0.65 down to 0.6); the
    # 30 paid 29 is the room's error (1 of 30, no rule the others follow).
    first = _room([20, 30, 13], [19.0, 28.5, 12.4])
    second = _room([20, 20, 30], [19.0, 19.0, 29.0])
    whole = pd.concat([first, second], ignore_index=True)
    counts = Winners.of(first).plus(Winners.of(second))
    # Four distinct (gross, money): (20, 19) three seats, (30, 28.5), (13, 12.4), (30, 29).
    assert len(counts.gross) == 4 and counts.seats == 6
    assert sorted(counts.count.tolist()) == [1, 1, 1, 3]
    assert infer_rake("R", counts) == infer_rake("R", whole)
    rake = infer_rake("R", counts)
    assert (rake.rate, rake.tick, rake.mode) == (0.05, 0.1, "down")
    assert (rake.winners, rake.explained) == (6, 5)  # all but the 30 paid 29


def test_the_multiplier_from_the_counts_of_two_shares_is_the_whole_rooms() -> None:
    def losers(ratios: list[int]) -> pd.DataFrame:
        # Losers of 10 points at stakes 1 who paid ratio × 10.
        return pd.DataFrame(
            {"net_capped": -10.0, "stakes": 1.0, "reported_money": [-10.0 * r for r in ratios]}
        )

    for ratios, expected in (
        ([2] * 5 + [3] * 5, 2.0),  # 2 and 3 as common: the smaller, paid by half the losers
        ([2] * 5 + [3] * 5 + [1], 1.0),  # 2 is paid by 5 of 11, under half: points × stakes
        ([2] * 4, 1.0),  # every loser pays 2, but 4 losers are no room's rule yet
        ([2] * 5, 2.0),  # 5 are
    ):
        tally = Ratios()
        tally.add(losers(ratios[:1]))
        tally.add(losers(ratios[1:]))
        whole = Ratios()
        whole.add(losers(ratios))
        assert tally.multiplier() == whole.multiplier() == expected


def test_the_holdout_a_share_at_a_time_is_the_holdout_of_the_seats_whole(
    simulated: Path,  # noqa: F811
    shares: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The halves' cut, each half's rules and the hands they explain, from three passes
    over the shares, are those of room_money's seats folded whole."""
    found, _ = _money(simulated, "whole", monkeypatch)
    pairwise = {r.room: p for r, p in zip(found.rakes, found.pairwise, strict=True)}
    with open_dataset(simulated) as db:
        whole = holdout(db, pairwise, found.seats)
    if shares == "one table each":
        monkeypatch.setattr(holdout_module, "table_shares", _one_table_each)
    else:
        monkeypatch.setattr(chunks, "CHUNK_HANDS", 40)
    with open_dataset(simulated) as db:
        split = holdout(db, pairwise)
    assert split == whole and all(h.folds == 2 for h in whole)
    assert any(h.out_of_sample for h in whole) and any(not h.agree or h.runner_up for h in whole)
