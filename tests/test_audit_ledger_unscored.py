"""Money the room paid on a hand that could not be scored is still counted as paid.

What the room paid is a fact; what the rules give needs a scored hand.  The
ledger (``audit --player``), the report's ledger section and its "money won"
count the paid money of every hand and say how many hands could not be
checked, instead of dropping them.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit.ledger import ensure_ledger, ledger
from ofc_stats.cli.main import main
from ofc_stats.records import HandRecord, SeatRecord
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from reports import Filters, choose_player, prepare, results
from reports import ledger as ledger_report
from tests.builders import hand_record, seat_record, write_dataset
from tests.shared_samples import APPS

# Heads-up, 0.5 USD a point: Alice scoops Bob (6) with 15 points of royalties = +21,
# so the rules give Alice 21 × 0.5 = 10.5 USD a hand.
ALICE = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah", hero=True)
BOB = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
# Bob's board with two cards missing from the bottom: the hand cannot be scored.
BOB_SHORT = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c")


def _hand(number: int, alice_money: float, bob: SeatRecord = BOB) -> HandRecord:
    """Bob pays the rules' 10.5 (he is never short: no short-stack settlement to infer)."""
    seats = (
        replace(ALICE, reported_points=21.0, reported_money=alice_money),
        replace(bob, reported_points=-21.0, reported_money=-10.5),
    )
    return hand_record(number, seats, stakes=0.5, currency="USD")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Hands 1, 2 paid Alice 10.5 (the rules' 10.5), hand 3 paid 9.5 (one dollar short);
    # hand 4 paid her 7 but Bob's board is incomplete: not scored, so not checkable.
    records = [_hand(1, 10.5), _hand(2, 10.5), _hand(3, 9.5), _hand(4, 7.0, BOB_SHORT)]
    path = write_dataset(tmp_path_factory.mktemp("unscored"), records)
    with ofc_stats.open(path) as db:
        ensure_ledger(db)  # as `ofc-stats report` prices it first
    return path


def _key(db: ofc_stats.OfcData, number: int) -> str:
    rows = db.sql("SELECT hand_key FROM hands WHERE room_hand_id = $n", {"n": str(number)})
    return str(rows.fetchall()[0][0])


def test_the_ledger_counts_the_paid_money_of_a_hand_not_scored(data: Path) -> None:
    """On the 3 scored hands the rules give 3 × 10.5 = 31.5 against 10.5 + 10.5 + 9.5 =
    30.5 paid: -1.  Hand 4 (+7 paid) is counted apart, not checked: every money column
    is over the same hands."""
    with ofc_stats.open(data) as db:
        status = db.df("SELECT DISTINCT status FROM seat_results WHERE room_hand_id = '4'")
        fourth = _key(db, 4)
        alice = ledger(db, ["Alice"]).iloc[0]
    assert status["status"].tolist() == ["incomplete"]  # the premise: hand 4 is not scored
    assert (alice["hands"], alice["money_paid"]) == (4, 30.5)
    assert (alice["money_rules"], alice["difference"], alice["hands_off"]) == (31.5, -1.0, 1)
    assert (alice["hands_not_scored"], alice["money_not_scored"]) == (1, 7.0)
    assert alice["not_scored_hand_keys"] == [fourth]


def test_audit_player_says_what_it_could_not_check(data: Path) -> None:
    result = CliRunner().invoke(main, ["audit", "--data", str(data), "--player", "Alice"])
    assert result.exit_code == 0, result.output
    with ofc_stats.open(data) as db:
        fourth = _key(db, 4)
    assert (
        "Alice · test USD: 4 hands, on the 3 scored: rules 31.5, paid 30.5, "
        "difference -1 (the room owes 1 USD)"
    ) in result.output
    assert f"  1 hand not scored (+7 USD paid, not checked): {fourth}" in result.output


def test_the_report_counts_it_in_money_won_and_the_ledger(data: Path) -> None:
    with ofc_stats.open(data) as db:
        filters = choose_player(db, None).scope(Filters())  # the hero: Alice
        summary = results.build(prepare(db, filters)).tables["summary"].set_index("measure")
        section = ledger_report.build(prepare(db, filters))
    assert summary.loc["hands", "value"] == 3  # points: the scored hands only
    assert summary.loc["money won (USD)", "value"] == 37.5  # money: every hand paid
    (row,) = section.tables["ledger"].to_dict("records")
    assert (row["hands"], row["money_paid"], row["money_by_the_rules"]) == (4, 30.5, 31.5)
    assert (row["hands_not_scored"], row["money_paid_not_scored"]) == (1, 7.0)
    assert section.notes == [
        "test USD: over the 3 scored of 4 hands the rules give 31.50, "
        "the room paid 30.50; the room owes 1 USD (1 hand differs). "
        "1 hand not scored (+7.00 USD paid, not checked)."
    ]


def test_the_csv_files_carry_the_note_on_it(data: Path, tmp_path: Path) -> None:
    """The tables hold scored hands and money won counts the unscored one too; the page
    says so in a note, and so must the CSV files, read without the page."""
    out = tmp_path / "csv"
    result = CliRunner().invoke(
        main, ["report", "--data", str(data), "--format", "csv", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    with (out / "notes.csv").open(encoding="utf-8", newline="") as stream:
        notes = list(csv.DictReader(stream))
    said = {(row["section"], row["file"], row["note"]) for row in notes}
    note = "money won (USD) counts 1 hand not scored (+7.00 USD paid), which the points leave out."
    assert ("results", "", note) in said
    assert any(row["file"] == "results-summary.csv" and "per hand" in row["note"] for row in notes)


def _raw_hero_money(folder: Path) -> dict[str, float]:
    """Hand id → the hero's ``win``, read straight from the app's files (JSON objects
    one after another), for a total independent of the parser."""
    decoder = json.JSONDecoder()
    money: dict[str, float] = {}
    for path in sorted(folder.glob("*.hh")):
        text, at = path.read_text(encoding="utf-8"), 0
        while (at := _skip_space(text, at)) < len(text):
            hand, at = decoder.raw_decode(text, at)
            for hand_id, seats in hand["handData"].items():
                for seat in seats:
                    if seat["hero"]:
                        money[hand_id] = float(seat["win"])
    return money


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


SPARTAN = APPS / "spartan_hh"


@pytest.mark.skipif(not SPARTAN.is_dir(), reason="../shared/samples/apps is not here")
def test_the_real_spartan_ledger_matches_the_raw_files(tmp_path: Path) -> None:
    """The auditor's finding: hand 338266151 (the hero's fouled Fantasyland board is
    complete, the opponents' are not) was paid -95 and dropped from "paid"."""
    raw = _raw_hero_money(SPARTAN)
    data = tmp_path / "spartan"
    import_paths([SPARTAN], data)
    recompute(data)
    with ofc_stats.open(data) as db:
        row = ledger(db, ["hero"]).set_index(["room", "currency"]).loc[("Spartan", "INR")]
        filters = choose_player(db, None).scope(Filters())
        summary = results.build(prepare(db, filters)).tables["summary"].set_index("measure")
    assert row["hands"] == len(raw)
    assert row["money_paid"] + row["money_not_scored"] == sum(raw.values())
    (unscored,) = row["not_scored_hand_keys"]
    assert unscored.endswith(":338266151")
    assert (row["hands_not_scored"], row["money_not_scored"]) == (1, raw["338266151"])
    assert summary.loc["money won (INR)", "value"] == sum(raw.values())


def test_the_sessions_tables_say_which_paid_hands_they_leave_out(data: Path) -> None:
    """Sessions, days and stakes hold scored hands (points need a score): 3 of Alice's 4;
    the note names the fourth's money (+7.00 USD) instead of dropping it unsaid."""
    from reports import sessions

    with ofc_stats.open(data) as db:
        report = sessions.build(prepare(db, Filters(player="Alice")))
    assert int(report.tables["by_currency"]["hands"].sum()) == 3
    assert any("1 hand (+7.00 USD paid)" in note for note in report.notes), report.notes
