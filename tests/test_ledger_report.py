"""The ledger on the report page: what the room owes the report's player, hand by hand."""

from __future__ import annotations

import html
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit.ledger import ensure_ledger, ledger, ledger_lines
from ofc_stats.cli.main import main
from ofc_stats.records import HandRecord
from reports import Filters, choose_player, prepare
from reports import ledger as ledger_report
from reports.html import render
from tests.builders import hand_record, seat_record, write_dataset

ROOM = '<i>Club</i> & "Co"'  # untrusted text: must reach the page escaped
# Heads-up: the first board scoops the second (6 points) with 15 points of royalties
# (QQ on top 7, a straight in the middle 4, a flush at the bottom 4): +21 / -21.
WINS = ("Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
LOSES = ("Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")


def _hand(
    number: int, alice: tuple[str, str, str], money: tuple[float, float], **extra: object
) -> HandRecord:
    """Alice (the hero) against Bob; ``money`` is what the room paid each."""
    alice_wins = alice == WINS
    points = 21.0 if alice_wins else -21.0
    seats = (
        seat_record(0, "Alice", *alice, hero=True, reported_points=points, reported_money=money[0]),
        seat_record(
            1,
            "Bob",
            *(LOSES if alice_wins else WINS),
            reported_points=-points,
            reported_money=money[1],
        ),
    )
    return replace(hand_record(number, seats, **extra), room=ROOM)


def _records() -> list[HandRecord]:
    usd = {"stakes": 0.5, "currency": "USD"}
    # USD, 0.5 a point: the rules give Alice 21 × 0.5 = 10.5 a hand (no rake: hands 1 and 2
    # are paid 10.5, which only a zero rake explains).  Hand 3 paid her 9.5: one dollar short.
    # EUR, 1 a point: Alice loses 21 and pays 21, as the rules say (losers pay no rake).
    # Hand 5 is Bob against Carol: not Alice's, so not in her ledger, short though it is.
    carol = (
        seat_record(0, "Carol", *WINS, reported_points=21.0, reported_money=5.0),
        seat_record(1, "Bob", *LOSES, reported_points=-21.0, reported_money=-10.5),
    )
    return [
        _hand(1, WINS, (10.5, -10.5), **usd),
        _hand(2, WINS, (10.5, -10.5), **usd),
        _hand(3, WINS, (9.5, -10.5), **usd),
        _hand(4, LOSES, (-21.0, 20.0), stakes=1.0, currency="EUR"),
        replace(hand_record(5, carol, **usd), room=ROOM),
    ]


def priced(data: Path) -> Path:
    """The dataset with its ledger priced, as `ofc-stats report` prices it first."""
    with ofc_stats.open(data) as db:
        ensure_ledger(db)
    return data


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return priced(write_dataset(tmp_path_factory.mktemp("ledger-report"), _records()))


def _key(db: ofc_stats.OfcData, number: int) -> str:
    rows = db.sql("SELECT hand_key FROM hands WHERE room_hand_id = $n", {"n": str(number)})
    return str(rows.fetchall()[0][0])


def test_the_section_shows_the_hand_computed_ledger(data: Path) -> None:
    with ofc_stats.open(data) as db:
        player = choose_player(db, None)  # the hero: Alice
        section = ledger_report.build(prepare(db, player.scope(Filters())))
        third = _key(db, 3)
    table = section.tables["ledger"].to_dict("records")
    # EUR: 1 hand, -21 by the rules, -21 paid.  USD: 3 hands, 3 × 10.5 = 31.5 by the rules,
    # 10.5 + 10.5 + 9.5 = 30.5 paid: -1, the room owes Alice a dollar, on hand 3.
    assert table == [
        {
            "room": ROOM,
            "currency": "EUR",
            "hands": 1,
            "money_by_the_rules": -21.0,
            "money_paid": -21.0,
            "money_difference": 0.0,
            "overpaid": 0.0,
            "underpaid": 0.0,
            "hands_that_differ": 0,
            "hands_not_scored": 0,
            "money_paid_not_scored": 0.0,
        },
        {
            "room": ROOM,
            "currency": "USD",
            "hands": 3,
            "money_by_the_rules": 31.5,
            "money_paid": 30.5,
            "money_difference": -1.0,
            "overpaid": 0.0,
            "underpaid": 1.0,
            "hands_that_differ": 1,
            "hands_not_scored": 0,
            "money_paid_not_scored": 0.0,
        },
    ]
    behind = section.tables["hands_behind_it"]
    assert behind["hand_key"].tolist() == [third]
    assert behind[["money_by_the_rules", "money_paid", "money_difference"]].iloc[0].tolist() == [
        10.5,
        9.5,
        -1.0,
    ]
    assert set(section.replays) == {third} and "hands_behind_it" in section.hands
    assert section.notes == [
        f"{ROOM} EUR: over 1 hand the rules give -21.00, the room paid -21.00; "
        "settled as the rules say.",
        f"{ROOM} USD: over 3 hands the rules give 31.50, the room paid 30.50; "
        "the room owes 1 USD (1 hand differs).",
    ]


def test_the_section_equals_audit_player(data: Path) -> None:
    """The same numbers as `ofc-stats audit --player`, by name and as the hero."""
    with ofc_stats.open(data) as db:
        for name in ("Alice", None):
            player = choose_player(db, name)
            section = ledger_report.build(prepare(db, player.scope(Filters())))
            shown = section.tables["ledger"].rename(
                columns={
                    "money_by_the_rules": "money_rules",
                    "money_difference": "difference",
                    "hands_that_differ": "hands_off",
                    "money_paid_not_scored": "money_not_scored",
                }
            )
            keys = ["off_hand_keys", "overpaid_hand_keys", "underpaid_hand_keys"]
            keys += [
                "net_hand_keys",
                "not_scored_hand_keys",
                "rules",
                "rules_source",
                "out_of_sample",
            ]
            book = ledger(db, ["Alice"]).drop(columns=["player", *keys])
            assert shown.to_dict("records") == book.to_dict("records")
    printed = CliRunner().invoke(main, ["audit", "--data", str(data), "--player", "Alice"])
    assert printed.exit_code == 0, printed.output
    with ofc_stats.open(data) as db:
        for line in ledger_lines(ledger(db, ["Alice"])):
            assert line in printed.output
    assert "Alice · " + ROOM + " USD: 3 hands, rules 31.5, paid 30.5, difference -1" in (
        printed.output
    )


def test_an_alias_is_one_ledger_in_the_report_and_the_audit(tmp_path: Path) -> None:
    """Alice's account and Carol's joined as "Me": USD 4 hands, rules 31.5 + 10.5 = 42,
    paid 30.5 + 5 = 35.5 (Carol's hand 5 was paid 5 of 10.5): -6.5 over 2 hands."""
    data = write_dataset(tmp_path, _records())
    runner = CliRunner()
    done = runner.invoke(main, ["players", "alias", "--data", str(data), "Me", "Alice", "Carol"])
    assert done.exit_code == 0, done.output
    with ofc_stats.open(priced(data)) as db:
        player = choose_player(db, "Me")
        section = ledger_report.build(prepare(db, player.scope(Filters())))
    usd = section.tables["ledger"].set_index("currency").loc["USD"]
    assert (usd["hands"], usd["money_by_the_rules"], usd["money_paid"]) == (4, 42.0, 35.5)
    assert (usd["money_difference"], usd["hands_that_differ"]) == (-6.5, 2)
    printed = runner.invoke(main, ["audit", "--data", str(data), "--player", "Me"])
    assert "Me · " + ROOM + " USD: 4 hands, rules 42, paid 35.5, difference -6.5" in (
        printed.output
    )


def test_the_page_escapes_the_room_and_links_the_hands(data: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    done = CliRunner().invoke(main, ["report", "--data", str(data), "--out", str(page)])
    assert done.exit_code == 0, done.output
    text = page.read_text(encoding="utf-8")
    assert '<section id="ledger">' in text and ROOM not in text
    assert html.escape(ROOM) in text
    with ofc_stats.open(data) as db:
        third = _key(db, 3)
    # The hand behind the difference links to the replayer, its key quoted as the page does.
    ledger_part = text[text.index('<section id="ledger">') :]
    ledger_part = ledger_part[: ledger_part.index("</section>")]
    assert f'<a class="hand" href="#hand={quote(third, safe="")}">' in ledger_part
    assert html.escape(third) in ledger_part


def test_no_money_is_one_line(tmp_path: Path) -> None:
    records = [
        replace(
            r,
            seats=tuple(replace(s, reported_money=None) for s in r.seats),
            currency=None,
        )
        for r in _records()
    ]
    data = write_dataset(tmp_path, records)
    with ofc_stats.open(data) as db:
        section = ledger_report.build(prepare(db, choose_player(db, None).scope(Filters())))
        page = render("Alice", "all hands", [section], [])
    assert section.notes == [ledger_report.NO_MONEY] and not section.tables
    assert html.escape(ledger_report.NO_MONEY) in page


def test_a_big_dataset_is_priced_from_the_players_hands_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above WHOLE_UP_TO money hands a report prices only its player's hands, in memory:
    the same section as the whole dataset's here (hand 5, Bob against Carol, is not
    Alice's and not priced), nothing written, and the rows say the rule was not judged
    out of sample."""
    from importlib import import_module

    from reports.ledger import money_seats

    audit_ledger = import_module("ofc_stats.audit.ledger")  # the module, not its function

    monkeypatch.setattr(audit_ledger, "WHOLE_UP_TO", 0)
    data = write_dataset(tmp_path, _records())
    with ofc_stats.open(data) as db:
        filters = choose_player(db, None).scope(Filters())
        ensure_ledger(db, money_seats(prepare(db, filters))["hand_id"].tolist())
        section = ledger_report.build(prepare(db, filters))
        priced = db.sql("SELECT count(DISTINCT hand_id), any_value(out_of_sample) FROM ledger")
        hands, verdict = priced.fetchall()[0]
    usd = section.tables["ledger"].set_index("currency").loc["USD"]
    assert (usd["hands"], usd["money_by_the_rules"], usd["money_paid"]) == (3, 31.5, 30.5)
    assert hands == 4 and verdict.startswith("not checked")
    assert not (data / "ledger_seats").exists()


def test_a_difference_no_hand_accounts_for_is_roundings_not_money_owed(tmp_path: Path) -> None:
    """Eight hands each paid a cent short: 8 × 10.49 = 83.92 against 8 × 10.5 = 84.00 by
    the rules, -0.08 in all, yet no hand differs by over the cent the ledger allows
    (0.011).  The section used to say "the room owes 0.08 USD" beside 0 hands that differ:
    nothing anyone could claim, hand by hand."""
    usd = {"stakes": 0.5, "currency": "USD"}
    records = [_hand(n, WINS, (10.49, -10.5), **usd) for n in range(1, 9)]
    data = priced(write_dataset(tmp_path, records))
    with ofc_stats.open(data) as db:
        player = choose_player(db, None)
        section = ledger_report.build(prepare(db, player.scope(Filters())))
    (row,) = section.tables["ledger"].to_dict("records")
    assert (row["money_difference"], row["hands_that_differ"]) == (pytest.approx(-0.08), 0)
    (note,) = section.notes
    assert "owes" not in note
    assert note == (
        f"{ROOM} USD: over 8 hands the rules give 84.00, the room paid 83.92; no hand differs "
        "by over a cent: the -0.08 USD is the roundings of under a cent of 8 hands, not "
        "money owed."
    )
