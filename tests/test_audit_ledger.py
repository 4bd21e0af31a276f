"""The ledger: what the rules say each player should have got, against what the room paid."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit.ledger import ledger
from ofc_stats.cli.main import main
from ofc_stats.records import HandRecord
from tests.builders import hand_record, seat_record, write_dataset

# Heads-up, 0.5 USD a point: Alice scoops Bob (6) with 15 points of royalties = +21, so
# the rules give Alice 21 × 0.5 = 10.5 USD and take 10.5 from Bob.
ALICE = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah", hero=True)
BOB = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c", player_id="p-bob")


def _hand(number: int, alice_money: float) -> HandRecord:
    seats = (
        replace(ALICE, reported_points=21.0, reported_money=alice_money),
        replace(BOB, reported_points=-21.0, reported_money=-10.5),
    )
    return hand_record(number, seats, stakes=0.5, currency="USD")


def _data(tmp_path: Path) -> Path:
    # Hands 1 and 2 paid Alice 10.5; hand 3 paid her 9.5: one dollar short.
    return write_dataset(tmp_path, [_hand(1, 10.5), _hand(2, 10.5), _hand(3, 9.5)])


def test_the_ledger_sums_rules_and_payments_per_player(tmp_path: Path) -> None:
    """Alice: rules 3 × 10.5 = 31.5, paid 10.5 + 10.5 + 9.5 = 30.5, difference -1 on hand 3.
    Bob (by name or by player id): -31.5 both ways.  No rake explains hand 3 and not 1, 2."""
    data = _data(tmp_path)
    with ofc_stats.open(data) as db:
        third = db.df("SELECT hand_key FROM hands WHERE room_hand_id = '3'")["hand_key"][0]
        book = ledger(db, ["Alice", "p-bob"]).set_index("player")
        hero = ledger(db, ["hero"]).iloc[0]
        both = ledger(db, ["Alice", "Bob"], alias="the couple").iloc[0]
        nobody = ledger(db, ["Carol"])
    alice = book.loc["Alice"]
    assert (alice["room"], alice["currency"], alice["hands"]) == ("test", "USD", 3)
    assert (alice["money_rules"], alice["money_paid"], alice["difference"]) == (31.5, 30.5, -1.0)
    assert (alice["hands_off"], alice["off_hand_keys"]) == (1, [third])
    bob = book.loc["p-bob"]
    assert (bob["money_rules"], bob["money_paid"], bob["difference"], bob["hands_off"]) == (
        -31.5,
        -31.5,
        0.0,
        0,
    )
    assert (hero["player"], hero["money_paid"], hero["difference"]) == ("hero", 30.5, -1.0)
    # Alice and Bob as one person: 31.5 - 31.5 = 0 by the rules, 30.5 - 31.5 = -1 paid.
    assert (both["player"], both["hands"], both["money_rules"], both["money_paid"]) == (
        "the couple",
        3,
        0.0,
        -1.0,
    )
    assert nobody.empty


def test_audit_player_prints_the_ledger(tmp_path: Path) -> None:
    data = _data(tmp_path)
    result = CliRunner().invoke(main, ["audit", "--data", str(data), "--player", "Alice"])
    assert result.exit_code == 0, result.output
    assert (
        "Alice · test USD: 3 hands, rules 31.5, paid 30.5, difference -1 (the room owes 1 USD)"
        in result.output
    )
    assert "  1 hand paid less than the rules (1 USD): open:" in result.output


def test_the_scoped_read_prices_every_seat_as_the_whole_audit_does(tmp_path: Path) -> None:
    """A simulated room with short stacks (money stack 15, order of action, 5% rounded down):
    read for all its hands by integer id (the ledger's way), every seat's expected money,
    its short flag, the rakes and the settlements equal the dataset-wide audit's."""
    import pyarrow as pa

    from ofc_stats.audit.money import room_money
    from ofc_stats.payouts.room_rules import RoomRules
    from tests.builders import sim_records

    room = RoomRules(0.05, 0.1, "down", "action", money_stack=15)
    data = write_dataset(tmp_path, sim_records(200, 9, room=room))
    with ofc_stats.open(data) as db:
        whole = room_money(db)
        ids = db.arrow("SELECT hand_id FROM hands")
        db.connection.register("all_ids", pa.table({"hand_id": ids["hand_id"]}))
        scoped = room_money(db, hands="all_ids")
    assert whole.seats["short"].sum() > 10  # the room has short stacks to settle
    columns = ["hand_id", "seat", "expected_money", "short", "reported_money"]
    left = whole.seats[columns].sort_values(["hand_id", "seat"]).reset_index(drop=True)
    right = scoped.seats[columns].sort_values(["hand_id", "seat"]).reset_index(drop=True)
    assert left.astype(float).equals(right.astype(float))
    assert [r.describe() for r in whole.rakes] == [r.describe() for r in scoped.rakes]
    assert [s.describe() for s in whole.settlements] == [s.describe() for s in scoped.settlements]


def test_audit_player_with_an_unknown_name_is_an_error_like_report(tmp_path: Path) -> None:
    """`Alise` is no stored player: the audit fails before its summary, with exit 1 and
    the very message `report --player` gives (the closest names: Alice)."""
    data = _data(tmp_path)
    runner = CliRunner()
    audited = runner.invoke(main, ["audit", "--data", str(data), "--player", "Alise"])
    reported = runner.invoke(
        main, ["report", "--data", str(data), "--player", "Alise", "--out", str(tmp_path / "r")]
    )
    assert (audited.exit_code, reported.exit_code) == (1, 1)
    assert "closest: Alice" in audited.output
    assert audited.output == reported.output
    assert "audit against" not in audited.output


def test_a_known_player_without_money_keeps_the_ledger_message(tmp_path: Path) -> None:
    """Carol plays hand 4, where the room reported no money: a player, no ledger."""
    carol = replace(ALICE, player="Carol", hero=False, reported_points=21.0)
    records = [_hand(1, 10.5), hand_record(4, (carol, replace(BOB, reported_points=-21.0)))]
    data = write_dataset(tmp_path, records)
    result = CliRunner().invoke(main, ["audit", "--data", str(data), "--player", "Carol"])
    assert result.exit_code == 0, result.output
    assert "ledger: no seat of these players has reported money" in result.output


def test_errors_that_net_to_zero_are_not_settled(tmp_path: Path) -> None:
    """Hand 2 paid Alice 11.5 (+1 over the rules' 10.5), hand 3 paid 9.5 (-1): the net is
    0, but two hands are wrong.  The ledger once printed "settled as the rules say"."""
    data = write_dataset(tmp_path, [_hand(1, 10.5), _hand(2, 11.5), _hand(3, 9.5), _hand(4, 10.5)])
    with ofc_stats.open(data) as db:
        keys = db.df("SELECT room_hand_id, hand_key FROM hands").set_index("room_hand_id")
        alice = ledger(db, ["Alice"]).iloc[0]
    assert (alice["money_rules"], alice["money_paid"], alice["difference"]) == (42.0, 42.0, 0.0)
    assert (alice["overpaid"], alice["underpaid"], alice["hands_off"]) == (1.0, 1.0, 2)
    assert alice["overpaid_hand_keys"] == [keys.loc["2", "hand_key"]]
    assert alice["underpaid_hand_keys"] == [keys.loc["3", "hand_key"]]
    printed = CliRunner().invoke(main, ["audit", "--data", str(data), "--player", "Alice"])
    assert "difference +0 (not settled: 1 USD overpaid and 1 USD underpaid net to 0)" in (
        printed.output
    )
    assert "settled as the rules say" not in printed.output
    assert f"  1 hand paid more than the rules (1 USD): {keys.loc['2', 'hand_key']}" in (
        printed.output
    )
