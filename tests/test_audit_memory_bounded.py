"""What `ofc-stats audit` keeps for the whole run is a few bytes a hand, never a hand's key
as text; what it reads for a few hands reads those hands, not a view joining every hand;
the ledger it stores is committed a batch at a time.

Memory bounded by the batch, never by the dataset: at 100,000 simulated hands the audit's
checks held each hand's key (about 40 bytes of text) three times over, the priced seats as
a frame of three 8-byte columns, every ruleset's verdict of ``--guess-rules`` as a frame
of keys, and the first audit's ledger (190 bytes a row) whole before writing it.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ofc_stats.audit import money
from ofc_stats.audit.guess import EXPLAINED, FANTASY_OK, LOOKED, POINTS_OK, explained_hands
from ofc_stats.audit.money_seats import SEAT_KEY
from ofc_stats.audit.points import _Check, _fantasy, _MoneySeen, _points, looked_at
from ofc_stats.store import importer
from ofc_stats.store.views import open_dataset
from tests.test_audit_shares import simulated  # noqa: F401  (the fixture)

LEDGER = import_module("ofc_stats.audit.ledger")  # (the package's `ledger` is the function)


def test_a_check_keeps_each_hand_as_its_id_and_room_code() -> None:
    frame = pd.DataFrame(
        {"hand_key": ["a:1", "a:1", "b:7"], "hand_id": [5, 5, 9], "room": ["Ppp", "Ppp", None]}
    )
    kept = looked_at(frame)
    # once a hand, 8 bytes of id and a 4-byte code of its room: no key's text
    assert kept.column_names == ["hand_id", "room"]
    assert kept["hand_id"].to_pylist() == [5, 9]
    assert pa.types.is_int64(kept.schema.field("hand_id").type)
    assert pa.types.is_dictionary(kept.schema.field("room").type)
    assert kept["room"].to_pylist() == ["Ppp", None]
    # a room left out drops its hands only (a hand of no room is no room's)
    check = _Check("points", [kept], pd.DataFrame(columns=["room"]))
    assert check.without({"Ppp"}).keys()[0].to_pylist() == [9]


def test_the_audits_checks_hold_ids_not_keys(simulated: Path) -> None:  # noqa: F811
    with open_dataset(simulated) as db:
        ids = set(db.df("SELECT hand_id FROM hands")["hand_id"])
        for check in (_points(db, None), _fantasy(db, 15.0)):
            assert check.checked and all(
                t.column_names == ["hand_id", "room"] for t in check.checked
            )
            looked = {i for table in check.checked for i in table["hand_id"].to_pylist()}
            assert looked and looked <= ids


def test_the_priced_seats_are_kept_as_16_bytes_a_seat() -> None:
    """The ledger's money a seat: its (hand id, seat) as one integer and the money."""
    seen = _MoneySeen()
    shares = [
        pd.DataFrame(
            {
                "hand_id": [7, 7, 3, 3],
                "seat": [1, 0, 0, 1],
                "room": ["R"] * 4,
                "hand_key": ["k7", "k7", "k3", "k3"],
                "reported_money": [1.0, -1.0, 2.0, -2.0],
                "expected_money": [0.97, -1.0, 1.94, -2.0],
                "owed": [1.0, -1.0, 2.0, -2.0],
            }
        ),
        pd.DataFrame(
            {
                "hand_id": [4, 4],
                "seat": [0, 1],
                "room": ["R"] * 2,
                "hand_key": ["k4", "k4"],
                "reported_money": [0.5, -0.5],
                "expected_money": [0.485, -0.5],
                "owed": [0.5, -0.5],
            }
        ),
    ]
    for share in shares:
        seen.add(share)
    held = sum(a.nbytes for a in seen.keys) + sum(a.nbytes for a in seen.priced)
    assert held == 16 * 6
    assert seen.keys[0].tolist() == [7 * SEAT_KEY + 1, 7 * SEAT_KEY, 3 * SEAT_KEY, 3 * SEAT_KEY + 1]
    expected = seen.expected()
    assert expected["hand_id"].tolist() == [3, 3, 4, 4, 7, 7]  # by hand id, then seat
    assert expected["seat"].tolist() == [0, 1, 0, 1, 0, 1]
    assert expected["expected_money"].tolist() == [1.94, -2.0, 0.485, -0.5, -1.0, 0.97]
    assert [str(t) for t in expected.dtypes] == ["int64", "int64", "float64"]


def test_a_full_import_batch_of_the_ledger_is_committed_on_its_own() -> None:
    """The ledger's rows are committed once COMMIT_ROWS are priced: at most one import
    batch's paid seats (a money hand pays two seats at least), so pricing never gathers
    several full batches (at a million rows every batch of 100,000 hands was held)."""
    assert 2 * importer.BATCH_HANDS >= LEDGER.COMMIT_ROWS > 0


def test_the_short_stack_pairs_are_read_by_hand_id_from_the_stored_versus(
    simulated: Path,  # noqa: F811
) -> None:
    """The keyed ``versus`` view joins every hand of the dataset for its key: the pairs of
    the few short-stack hands are read from the stored pairs by id instead.  Emptied, the
    view changes nothing."""
    with open_dataset(simulated) as db:
        seats = money.money_seats(db)
        frame = money.expected_money(seats)
        short = frame[frame["short"]]
        assert len(short)
        whole = money._pairwise(db, short, 1.0)
        db.connection.sql("CREATE OR REPLACE VIEW versus AS SELECT * FROM versus WHERE false")
        again = money._pairwise(db, short, 1.0)
        stored = db.df("SELECT hand_id, seat, opponent, points FROM versus_stored")
    assert list(again) == list(whole) and len(whole) == short["hand_key"].nunique()
    key = str(short["hand_key"].iloc[0])
    hand_id = int(short["hand_id"].iloc[0])
    pairs = stored[stored["hand_id"] == hand_id]
    stakes = float(short["stakes"].fillna(1.0).iloc[0])
    for row in pairs.itertuples():  # seat owes opponent points × stakes, and back
        assert again[key][row.seat, row.opponent] == pytest.approx(row.points * stakes)
        assert again[key][row.opponent, row.seat] == pytest.approx(-row.points * stakes)
    for mine in whole:
        assert np.array_equal(again[mine], whole[mine])


def test_each_rulesets_verdicts_are_a_byte_a_hand(simulated: Path) -> None:  # noqa: F811
    with open_dataset(simulated) as db:
        ids = np.sort(db.df("SELECT hand_id FROM hands")["hand_id"].to_numpy(np.int64))
        points, fantasy = _points(db, None), _fantasy(db, 15.0)
        bits = explained_hands(db, ids, points, fantasy)
        keys = db.df("SELECT hand_id, hand_key FROM hands").set_index("hand_key")["hand_id"]
    assert bits.dtype == np.uint8 and len(bits) == len(ids)
    looked = {i for t in (*points.checked, *fantasy.checked) for i in t["hand_id"].to_pylist()}
    at = {int(i): n for n, i in enumerate(ids)}
    assert {i for i in ids.tolist() if bits[at[i]] & LOOKED} == looked
    bad_points = {int(keys[k]) for k in points.mismatches["hand_key"]}
    bad_fantasy = {int(keys[k]) for k in fantasy.mismatches["hand_key"]}
    assert bad_points and bad_fantasy  # a quarter of the hands corrupted
    for hand in looked:
        assert bool(bits[at[hand]] & POINTS_OK) == (hand not in bad_points)
        assert bool(bits[at[hand]] & FANTASY_OK) == (hand not in bad_fantasy)
    explained = looked - bad_points - bad_fantasy
    assert {i for i in ids.tolist() if bits[at[i]] == EXPLAINED} == explained
    assert all(bits[at[i]] == 0 for i in set(ids.tolist()) - looked)


def test_guessing_the_rules_prices_no_seat(
    simulated: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--guess-rules reads each room's rake and settlement only: its two room_money calls
    priced and kept every seat of the dataset (a frame a seat) for no use."""
    from ofc_stats.audit import infer

    asked: list[bool] = []
    real = infer.room_money

    def room_money(*args: object, **kwargs: object) -> money.RoomMoney:
        asked.append(bool(kwargs.get("seats", True)))
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        assert found.seats.empty or asked[-1]
        return found

    monkeypatch.setattr(infer, "room_money", room_money)
    monkeypatch.setattr(infer, "guess_rulesets", lambda *a, **k: pd.DataFrame())
    with open_dataset(simulated) as db:
        inferred = infer.infer_rules(db)
    assert asked == [False, False]
    assert any(e.option == "room.settlement" for g in inferred.groups for e in g.evidence)


def test_the_audit_runs_on_arrow_s_jemalloc_pool(tmp_path: Path) -> None:
    """Arrow's default pool (mimalloc) kept what the audit's shares freed: 380 MB at
    100,000 hands against 323 at 30,000 (ratio 1.18); on jemalloc 320 against 282 (1.14),
    the same CPU (bench/audit_memory.py, one run).  The command sets it for its process."""
    from click.testing import CliRunner

    from ofc_stats.cli.main import main

    if "jemalloc" not in pa.supported_memory_backends():
        pytest.skip("this pyarrow has no jemalloc")
    before = pa.default_memory_pool()
    try:
        pa.set_memory_pool(pa.system_memory_pool())
        result = CliRunner().invoke(main, ["audit", "--data", str(tmp_path / "none"), "--quiet"])
        assert pa.default_memory_pool().backend_name == "jemalloc", result.output
    finally:
        pa.set_memory_pool(before)
