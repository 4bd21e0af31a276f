"""The room ledger stored one file per import batch, priced at recompute (schema 8).

A report reads the stored ledger; it never prices a dataset's money again
unless the hands or results changed.  The fixture is test_ledger_report's
(Alice against Bob, hand-computed there): USD at 0.5 a point, no rake, so the
rules give a 21-point winner 10.5 and the loser -10.5.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from importlib import import_module
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ofc_stats.audit.ledger import ledger_is_current, price_batches, price_ledger
from ofc_stats.cli.main import main
from ofc_stats.records import HandRecord
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.migrate import upgrade
from ofc_stats.store.schema import LEDGER_SEATS
from ofc_stats.store.views import open_dataset
from parsers.open_format import dumps
from tests.test_ledger_report import ROOM, WINS, _hand, _records

PRICED = "SELECT hand_id, seat, money_paid, money_rules FROM ledger_seats ORDER BY 1, 2"


def _write(folder: Path, name: str, records: list[HandRecord]) -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text("".join(dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _import(data: Path, path: Path) -> None:
    done = CliRunner().invoke(main, ["import", str(path), "--data", str(data), "--quiet"])
    assert done.exit_code == 0, done.output


def _ledger_files(data: Path) -> dict[str, int]:
    """Each batch's ledger file and its modification time."""
    return {Path(p).stem: os.stat(p).st_mtime_ns for p in Dataset(data).files("ledger_seats")}


def test_import_prices_each_batch_and_a_report_reads_it_stored(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _import(data, _write(tmp_path, "first", _records()))
    _import(
        data,
        _write(
            tmp_path, "second", [replace(_hand(6, WINS, (10.5, -10.5)), stakes=0.5, currency="USD")]
        ),
    )
    batches = Dataset(data).batches()
    assert len(batches) == 2 and sorted(_ledger_files(data)) == batches
    with open_dataset(data) as db:
        assert ledger_is_current(db)
        stored = db.sql(PRICED).fetchall()
        whole = price_ledger(db)  # priced whole, as before schema 8: the same rows
    assert stored == sorted(
        zip(
            *(whole[c].to_pylist() for c in ("hand_id", "seat", "money_paid", "money_rules")),
            strict=True,
        )
    )
    # hand 6 (the second batch): 21 points x 0.5 = 10.5 to Alice, -10.5 to Bob, no rake
    last = [row for row in stored if row[0] == max(r[0] for r in stored)]
    assert [(seat, rules) for _, seat, _, rules in last] == [(0, 10.5), (1, -10.5)]


def test_a_big_dataset_prices_batch_by_batch_and_only_new_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above WHOLE_UP_TO money hands the rules come from a sample of each room's hands and
    each batch is priced from its own files: the same money as pricing whole under the
    same rules (the sample here holds every hand); a new batch leaves the others' files."""
    audit_ledger = import_module("ofc_stats.audit.ledger")
    data = tmp_path / "data"
    _import(data, _write(tmp_path, "first", _records()))
    with open_dataset(data) as db:
        whole = price_ledger(db)
    expected = dict(
        zip(
            zip(whole["hand_id"].to_pylist(), whole["seat"].to_pylist(), strict=True),
            whole["money_rules"].to_pylist(),
            strict=True,
        )
    )
    monkeypatch.setattr(audit_ledger, "WHOLE_UP_TO", 0)
    with open_dataset(data) as db:
        assert price_batches(db)
        rows = db.sql(PRICED).fetchall()
        words = db.sql("SELECT DISTINCT out_of_sample FROM ledger_seats").fetchall()
    assert {(h, s): r for h, s, _, r in rows} == expected
    # USD hands 1-3: Alice won 21 points at 0.5 a point, no rake: 10.5 each
    assert [r for h, s, _, r in rows if s == 0][:3] == [10.5, 10.5, 10.5]
    assert all(w[0].startswith("not checked (inferred from a sample of") for w in words)
    before = _ledger_files(data)
    _import(
        data,
        _write(
            tmp_path, "second", [replace(_hand(6, WINS, (10.5, -10.5)), stakes=0.5, currency="USD")]
        ),
    )
    after = _ledger_files(data)
    assert len(after) == 2 and all(after[b] == t for b, t in before.items())  # untouched
    with open_dataset(data) as db:
        assert ledger_is_current(db)


def test_version_7s_ledger_priced_whole_is_removed_by_the_upgrade(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _import(data, _write(tmp_path, "first", _records()))
    whole = data / "ledger_seats" / "priced.parquet"
    for path in (data / "ledger_seats").glob("0*.parquet"):
        path.unlink()
    pq.write_table(LEDGER_SEATS.empty_table(), whole)
    (data / "dataset.json").write_text(json.dumps({"schema_version": 7}) + "\n")
    assert upgrade(data) == [f"{data}: schema version 7 -> 8"]
    assert not whole.exists()
    with open_dataset(data) as db:
        assert not ledger_is_current(db)  # priced again by the next recompute or report


def test_check_sets_a_damaged_ledger_file_aside_alone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _import(data, _write(tmp_path, "first", _records()))
    (batch,) = Dataset(data).batches()
    (data / "ledger_seats" / f"{batch}.parquet").write_bytes(b"not parquet")
    found = CliRunner().invoke(main, ["check", "--data", str(data)])
    assert found.exit_code != 0 and f"the ledger_seats file of batch {batch}" in found.output
    repaired = CliRunner().invoke(main, ["check", "--repair", "--data", str(data)])
    assert repaired.exit_code == 0, repaired.output
    assert Dataset(data).batches() == [batch]  # the hands stay
    done = CliRunner().invoke(main, ["recompute", "--data", str(data), "--quiet"])
    assert done.exit_code == 0, done.output
    with open_dataset(data) as db:
        assert ledger_is_current(db)


def test_forgetting_a_batch_takes_its_ledger_file_and_the_rest_stays_current(
    tmp_path: Path,
) -> None:
    """The second import forgotten (as a file and as a batch id): its ledger file goes with
    its hands, so the first batch's stored ledger is still the current one, as it was
    before that import (a left-over file would make every money line 'not checked')."""
    for how in ("file", "batch"):
        data = tmp_path / how / "data"
        _import(data, _write(tmp_path, "first", _records()))
        second = _write(
            tmp_path, "second", [replace(_hand(6, WINS, (10.5, -10.5)), stakes=0.5, currency="USD")]
        )
        _import(data, second)
        first, last = Dataset(data).batches()
        target = str(second) if how == "file" else last
        done = CliRunner().invoke(main, ["forget", target, "--data", str(data)])
        assert done.exit_code == 0, done.output
        assert sorted(_ledger_files(data)) == Dataset(data).batches() == [first]
        with open_dataset(data) as db:
            assert ledger_is_current(db)


def _quiet_room(money_hands: int, hands: int) -> list[HandRecord]:
    """Room "Quiet" in USD at 0.5 a point: ``hands`` hands, of which only the first
    ``money_hands`` have money reported (Alice wins 21 points: 21 x 0.5 = 10.5, paid in
    full, no rake; Bob pays 10.5)."""
    out = []
    for n in range(hands):
        money = (10.5, -10.5) if n < money_hands else (None, None)
        hand = _hand(100 + n, WINS, money, stakes=0.5, currency="USD")  # type: ignore[arg-type]
        out.append(replace(hand, room="Quiet"))
    return out


def test_a_room_of_few_money_hands_among_many_gets_its_rules_from_the_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above WHOLE_UP_TO money hands each room's rules come from a hashed share of its
    hands: a room of 60 hands with money on only 3 (RULES_SAMPLE 5: a share of 5/60 of its
    hands, so about 0.25 money hand, here none) got no sampled money hand, no rules, and
    its scored seats were counted "not scored".  Every room with money hands keeps at
    least RULES_MINIMUM of them (all 3 here) in the sample: priced 10.5 / -10.5."""
    audit_ledger = import_module("ofc_stats.audit.ledger")
    data = tmp_path / "data"
    _import(data, _write(tmp_path, "first", _records() + _quiet_room(3, 60)))
    monkeypatch.setattr(audit_ledger, "WHOLE_UP_TO", 0)
    monkeypatch.setattr(audit_ledger, "RULES_SAMPLE", 5)
    with open_dataset(data) as db:
        assert price_batches(db)
        quiet = db.sql(
            "SELECT seat, money_paid, money_rules, rules FROM ledger_seats "
            "WHERE room = 'Quiet' ORDER BY hand_id, seat"
        ).fetchall()
    assert quiet == [(0, 10.5, 10.5, "no rake"), (1, -10.5, -10.5, "no rake")] * 3
    # A minimum under the room's money hands keeps that many of them (its lowest hashes).
    monkeypatch.setattr(audit_ledger, "RULES_MINIMUM", 2)
    with open_dataset(data) as db:
        db.connection.register("sampled", audit_ledger._sample(db))
        rooms = db.sql(
            "SELECT room, count(*) FROM hands WHERE hand_id IN (SELECT hand_id FROM sampled) "
            "GROUP BY room ORDER BY room"
        ).fetchall()
    # the Club's 5 money hands in 5 hands are kept whole (a share of 5/5); Quiet's 2 of 3
    assert rooms == [(ROOM, 5), ("Quiet", 2)]


def test_a_second_import_writes_only_its_own_ledger_file_when_the_rules_hold(
    tmp_path: Path,
) -> None:
    """Priced whole (at most WHOLE_UP_TO money hands), the second import's hand 6 (USD:
    21 x 0.5 = 10.5 paid to Alice, no rake, as hands 1, 2, 7 and 8) leaves each room's
    rules and their out-of-sample verdict as they were, so its recompute writes the new
    batch's ledger file only: the first batch's file keeps its time and its rows."""
    data = tmp_path / "data"
    usd = {"stakes": 0.5, "currency": "USD"}
    paid = [_hand(n, WINS, (10.5, -10.5), **usd) for n in (7, 8)]
    _import(data, _write(tmp_path, "first", _records() + paid))
    with open_dataset(data) as db:
        verdicts = db.sql("SELECT DISTINCT out_of_sample FROM ledger_seats ORDER BY 1").fetchall()
    with open_dataset(data) as db:
        rules_before = db.sql("SELECT DISTINCT room, currency, rules FROM ledger_seats").fetchall()
    before = _ledger_files(data)
    _import(
        data,
        _write(
            tmp_path, "second", [replace(_hand(6, WINS, (10.5, -10.5)), stakes=0.5, currency="USD")]
        ),
    )
    after = _ledger_files(data)
    (first,) = before
    assert len(after) == 2 and after[first] == before[first]
    with open_dataset(data) as db:
        assert ledger_is_current(db)
        rules_after = db.sql("SELECT DISTINCT room, currency, rules FROM ledger_seats").fetchall()
        now = db.sql("SELECT DISTINCT out_of_sample FROM ledger_seats ORDER BY 1").fetchall()
        assert now == verdicts
        last = "WHERE hand_id = (SELECT max(hand_id) FROM ledger_seats) ORDER BY"
        new = db.sql(PRICED.replace("ORDER BY", last)).fetchall()
    assert sorted(rules_after) == sorted(rules_before)
    assert new == [(7, 0, 10.5, 10.5), (7, 1, -10.5, -10.5)]  # hand 6 is id 7 (after 1-5, 7, 8)


def test_batch_pricing_settles_short_stacks_pair_by_pair_as_pricing_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A simulated three-seat room whose short stacks are settled pair by pair ("rules":
    each loser pays each winner by their pair's points until his stack runs out; money
    stack 15, 5% rake rounded down to 0.1).  The batch's versus file holds each pair once
    (seat < opponent); read so, half of each hand's pairs were missing and short hands were
    priced otherwise than whole.  Batch by batch (every hand in the sample) each seat gets
    what pricing whole gives it, short hands included."""
    from ofc_stats.payouts.room_rules import RoomRules
    from tests.builders import sim_records, write_dataset

    audit_ledger = import_module("ofc_stats.audit.ledger")
    room = RoomRules(0.05, 0.1, "down", "rules", money_stack=15)
    data = write_dataset(tmp_path, sim_records(200, 9, room=room))
    with open_dataset(data) as db:
        whole = price_ledger(db)
        short = db.sql(
            "SELECT count(DISTINCT hand_id) FROM seats WHERE reported_money < 0 "
            "AND hand_id IN (SELECT hand_id FROM seats GROUP BY 1 HAVING count(*) = 3)"
        ).fetchall()
    assert short[0][0] > 10  # three-seat hands with losers to settle
    expected = dict(
        zip(
            zip(whole["hand_id"].to_pylist(), whole["seat"].to_pylist(), strict=True),
            whole["money_rules"].to_pylist(),
            strict=True,
        )
    )
    monkeypatch.setattr(audit_ledger, "WHOLE_UP_TO", 0)
    with open_dataset(data) as db:
        assert price_batches(db)
        settlements = db.sql("SELECT DISTINCT rules FROM ledger_seats").fetchall()
        rows = db.sql(PRICED).fetchall()
    assert any("short stacks" in r[0] for r in settlements), settlements
    got = {(h, s): r for h, s, _, r in rows}
    assert got.keys() == expected.keys()
    assert all(
        (got[k] is None and expected[k] is None) or abs(got[k] - expected[k]) < 1e-9
        for k in expected
    )


def test_a_hands_money_is_checked_from_its_own_batchs_ledger_file(tmp_path: Path) -> None:
    """Batch 1: the Club's hands 1-5, 7 and 8 (USD hands 1, 2, 7, 8 paid Alice 10.5 =
    21 x 0.5: no rake; hand 3 paid her 9.5).  Batch 2: hand 6, paid her 9.5 where the
    rules give 10.5.  Batch 1's ledger file gone (stale), hand 6 is still checked from
    batch 2's file; hand 3 says it is not checked (its batch's file is missing)."""
    from ofc_stats.audit.hand_findings import hand_findings

    data = tmp_path / "data"
    usd = {"stakes": 0.5, "currency": "USD"}
    paid = [_hand(n, WINS, (10.5, -10.5), **usd) for n in (7, 8)]
    _import(data, _write(tmp_path, "first", _records() + paid))
    _import(data, _write(tmp_path, "second", [_hand(6, WINS, (9.5, -10.5), **usd)]))
    first, _ = Dataset(data).batches()
    Dataset(data).batch_file("ledger_seats", first).unlink()
    with open_dataset(data) as db:
        assert not ledger_is_current(db)
        key = {
            n: db.sql(
                "SELECT hand_key FROM hands WHERE room_hand_id = $n", {"n": str(n)}
            ).fetchall()[0][0]
            for n in (3, 6)
        }
        found = {
            n: [f.line() for f in hand_findings(db, key[n]) if f.check == "money"] for n in key
        }
    assert found[6] == ["money: seat 0 (Alice): the room paid +9.5 USD, the rules give +10.5 USD "
                        "(no rake)"]  # fmt: skip
    assert found[3] == [
        "money: not checked here: the ledger was not priced for the stored hands "
        "(`ofc-stats recompute` prices it, as every import does)"
    ]


def test_the_ledgers_money_shows_no_binary_noise(tmp_path: Path) -> None:
    """An analyst's find: `difference <> 0` counted 683 seats of the real samples where 20
    differ.  At 0.9 a point Alice's 21 points are 21 × 0.9 = 18.900000000000002 as a
    double; the room paid 18.9 (and -18.9): the ledger shows 18.9 and a difference of 0."""
    data = tmp_path / "data"
    hands = [replace(_hand(n, WINS, (18.9, -18.9)), stakes=0.9, currency="USD") for n in (1, 2, 3)]
    _import(data, _write(tmp_path, "noisy", hands))
    with open_dataset(data) as db:
        stored = db.sql("SELECT money_rules FROM ledger_seats ORDER BY hand_id, seat").fetchall()
        shown = db.sql(
            "SELECT money_rules, difference FROM ledger ORDER BY hand_id, seat"
        ).fetchall()
    assert stored[0] == (21 * 0.9,) and 21 * 0.9 != 18.9  # the premise: the noise is stored
    assert shown == [(18.9, 0.0), (-18.9, 0.0)] * 3
