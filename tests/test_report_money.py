"""The report's money seats when two accounts of one person met at a table.

``reports.ledger.money_seats`` lists the person's seats with money, scored or
not: the ledger, the results' money won and the sessions' note on hands not
scored read it.  A seat is scored when it is one of the person's own scored
seats (the first seat that stands for a shared hand and the others alike),
and ``--self-play skip`` leaves the shared hands out of the money as it does
out of the points.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

import ofc_stats
from ofc_stats.records import HandRecord, SeatRecord
from reports import Filters, prepare, results
from reports.html import table_html
from reports.ledger import money_seats, paid_not_scored
from tests.builders import hand_record, seat_record, write_dataset

# Ann and Ann2 are one person's two accounts.  Boards from tests/test_audit_ledger_unscored:
# the first scoops the second's fouled board; a short board leaves the hand not scored.
ANN = seat_record(0, "Ann", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
BOB = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
BOB_SHORT = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c")
ANN2 = seat_record(2, "Ann2", "2d 3c 4s", "5s 6s 7s 8c 9s", "3d 7d 9d Jd Ad")
PERSON = ("Ann", "Ann2")


def _paid(seats: tuple[SeatRecord, ...], money: tuple[float, ...]) -> tuple[SeatRecord, ...]:
    return tuple(replace(s, reported_money=m) for s, m in zip(seats, money, strict=True))


def hands() -> list[HandRecord]:
    """Hand 1: Ann +10.5 against Bob.  Hand 2: Ann +5, Ann2 -2, Bob -3 (the accounts met).
    Hand 3: Ann +7, Bob's board short: not scored."""
    money = {"stakes": 0.5, "currency": "USD"}
    return [
        hand_record(1, _paid((ANN, BOB), (10.5, -10.5)), **money),
        hand_record(2, _paid((ANN, BOB, ANN2), (5.0, -3.0, -2.0)), **money),
        hand_record(3, _paid((ANN, BOB_SHORT), (7.0, -7.0)), **money),
    ]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("money"), hands())


def test_the_premise(data: Path) -> None:
    with ofc_stats.open(data) as db:
        status = dict(
            db.sql(
                "SELECT room_hand_id, list(DISTINCT status) FROM seat_results GROUP BY 1"
            ).fetchall()
        )
    assert status == {"1": ["scored"], "2": ["scored"], "3": ["incomplete"]}


def test_the_seats_of_accounts_that_met_are_scored_money(data: Path) -> None:
    """Counted once: seats Ann@1, Ann@2 and Ann2@2 scored, Ann@3 not.  Money won
    10.5 + 5 - 2 + 7 = 20.5, of which the 7 of hand 3 not scored (1 hand); no seat of
    hand 2 is money "not scored" (Ann2's seat was, read against the hand's one seat left)."""
    with ofc_stats.open(data) as db:
        filters = Filters(accounts=PERSON)
        seats = money_seats(prepare(db, filters))
        summary = (
            results.build(prepare(db, filters)).tables["summary"].set_index("measure")["value"]
        )
    rows = [
        (int(h), int(s), float(m), bool(k))
        for h, s, m, k in seats[["hand_id", "seat", "reported_money", "scored"]].itertuples(
            index=False
        )
    ]
    first = rows[0][0]
    assert rows == [
        (first, 0, 10.5, True),
        (first + 1, 0, 5.0, True),
        (first + 1, 2, -2.0, True),
        (first + 2, 0, 7.0, False),
    ]
    assert paid_not_scored(seats) == {"USD": (1, 7.0)}
    assert summary["money won (USD)"] == pytest.approx(20.5)


def test_skip_leaves_the_hands_where_they_met_out_of_the_money(data: Path) -> None:
    """Hand 2 left out: money won 10.5 + 7 = 17.5, hand 3's 7 still not scored."""
    with ofc_stats.open(data) as db:
        filters = Filters(accounts=PERSON, self_play="skip")
        seats = money_seats(prepare(db, filters))
        summary = (
            results.build(prepare(db, filters)).tables["summary"].set_index("measure")["value"]
        )
    assert seats["reported_money"].tolist() == [10.5, 7.0]
    assert seats["scored"].tolist() == [True, False]
    assert paid_not_scored(seats) == {"USD": (1, 7.0)}
    assert summary["money won (USD)"] == pytest.approx(17.5)


def test_a_sessions_money_shows_no_binary_noise(tmp_path: Path) -> None:
    """An analyst's find: a session's money read 44.40000000000002 in the CSV.  Ann is paid
    0.1, 0.2 and 0.4 in one session: 0.1 + 0.2 + 0.4 is 0.7000000000000001 as doubles; the
    session shows 0.7."""
    from reports import sessions

    money = {"stakes": 0.1, "currency": "USD"}
    paid = [
        hand_record(n, _paid((ANN, BOB), (won, -won)), **money)
        for n, won in ((1, 0.1), (2, 0.2), (3, 0.4))
    ]
    assert 0.1 + 0.2 + 0.4 != 0.7  # the premise
    data = write_dataset(tmp_path, paid)
    with ofc_stats.open(data) as db:
        table = sessions.build(prepare(db, Filters(player="Ann"))).tables["sessions"]
    assert table["net_money"].tolist() == [0.7]


def test_the_summary_writes_money_signed_and_in_cents() -> None:
    """Money won is written as the page's script writes it (``plusNum(m, 2)``): a sign and
    cents always, so a whole amount lines up with the others ("+1,945.00", not "1,945"),
    a loss keeps its minus and nothing rounds to "-0.00"."""
    summary = pd.DataFrame(
        {
            "measure": ["money won (USD)", "money won (INR)", "money won (EUR)", "hands"],
            "value": [1945.0, -8420.5, -0.001, 12],
        },
        dtype=object,
    )
    text = table_html(summary, "summary", "Summary")
    cells = re.findall(r'data-label="value">([^<]*)</td>', text)
    assert cells == ["+1,945.00", "-8,420.50", "0.00", "12"]
