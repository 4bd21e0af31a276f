"""The audit read a share of the tables at a time is the audit read whole, and it names
every stage to a bar as the stage starts.

The whole-dataset passes (field verdicts, points, Fantasyland, timeouts, the reasons a
hand was not checked) read the tables a share at a time so memory follows the share
(``ofc_stats.audit.chunks``); the money check reads its seats table by table
(``money_seats``) and the holdout folds room_money's seats.  Each must give what the
one-pass reading gave: the datasets here are the apps' real hands (three rooms, five
currencies) and a simulated room with errors, short stacks and recorded timeouts,
audited once as one share and once as many (``CHUNK_HANDS`` of 40 hands).
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import pandas as pd
import pytest

from ofc_stats.audit import chunks
from ofc_stats.audit.holdout import holdout
from ofc_stats.audit.ledger import INFERRING_SAMPLE, PRICING_BATCH, PRICING_WHOLE, price_batches
from ofc_stats.audit.money import MONEY_SQL, room_money
from ofc_stats.audit.money_seats import money_seats
from ofc_stats.audit.points import AUDIT_STAGES, AUDIT_STEPS, AuditReport, audit
from ofc_stats.cli.options import stage_text
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from ofc_stats.store.views import open_dataset
from tests.test_audit import APPS

MANY = 40  # hands a share: the datasets below split into many shares
# Mismatch classes each dataset's audit finds, at least: the shares' must be found too.
FOUND = {
    "apps": {"money", "fantasy_entry", "repeat"},
    "simulated": {"money", "points", "caps", "royalties"},
}


@pytest.fixture(scope="module")
def apps(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not APPS.is_dir():
        pytest.skip("the shared app samples are not here")
    data = tmp_path_factory.mktemp("apps") / "data"
    import_paths([APPS], data)
    recompute(data)
    return data


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Apps' JSON (money, short stacks at a 14-point stack) and the open format (timeouts
    recorded) of one simulated room with a quarter of its hands corrupted."""
    folder = tmp_path_factory.mktemp("sim")
    paths = []
    for output_format, name in (("app-json", "sim.hh"), ("open", "sim.jsonl")):
        out = folder / name
        write_simulation(
            out,
            300,
            get_ruleset("pineapple-progressive"),
            output_format=output_format,
            seats=3,
            players=6,
            seed=11,
            room_errors=0.25,
            # the apps' JSON records no stack: its short stacks are the room's money stack
            stack=None if output_format == "app-json" else 14.0,
            room=RoomRules(money_stack=14.0) if output_format == "app-json" else None,
            timeout_rate=0.05,
            rollouts=2,
        )
        paths.append(out)
    data = folder / "data"
    import_paths(paths, data)
    recompute(data)
    return data


def _report(data: Path, chunk: int, monkeypatch: pytest.MonkeyPatch) -> AuditReport:
    monkeypatch.setattr(chunks, "CHUNK_HANDS", chunk)
    with open_dataset(data) as db:
        return audit(db)


def _rows(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame's rows in one order (a share's rows come in the share's order)."""
    frame = frame.reset_index(drop=True)
    return frame.sort_values(list(frame.columns), kind="stable").reset_index(drop=True)


@pytest.mark.parametrize("dataset", ["apps", "simulated"])
def test_an_audit_a_share_of_the_tables_at_a_time_is_the_whole_audit(
    dataset: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = request.getfixturevalue(dataset)
    with open_dataset(data) as db:
        hands = int(db.sql("SELECT count(*) FROM hands").fetchall()[0][0])
        tables = int(db.sql("SELECT count(DISTINCT (room, table_id)) FROM hands").fetchall()[0][0])
    assert hands > 4 * MANY and tables > 4  # several shares, each of several tables
    whole = _report(data, 10**9, monkeypatch)
    shared = _report(data, MANY, monkeypatch)
    assert shared.lines() == whole.lines()
    for name in ("mismatches", "summary", "by_class", "coverage", "unchecked", "money"):
        pd.testing.assert_frame_equal(
            _rows(getattr(shared, name)), _rows(getattr(whole, name)), obj=name
        )
    assert shared.fields == whole.fields and shared.holdouts == whole.holdouts
    assert FOUND[dataset] <= set(whole.mismatches["class"])


def test_the_shares_hold_every_hand_once_and_never_split_a_table(
    simulated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chunks, "CHUNK_HANDS", MANY)
    with open_dataset(simulated) as db:
        shares = chunks.table_shares(db)
        # 600 hands at 40 a share: 15 shares
        assert len(shares) == 15
        seen = [
            db.df(f"SELECT hand_key, room, table_id FROM hands WHERE {share}") for share in shares
        ]
        every = db.df("SELECT hand_key FROM hands")
    keys = pd.concat([s["hand_key"] for s in seen], ignore_index=True)
    assert keys.is_unique and set(keys) == set(every["hand_key"])
    tables = [set(zip(s["room"], s["table_id"], strict=True)) for s in seen]
    assert sum(len(t) for t in tables) == len(set().union(*tables))


@pytest.mark.parametrize("dataset", ["apps", "simulated"])
def test_the_money_seats_read_table_by_table_are_money_sqls(
    dataset: str, request: pytest.FixtureRequest
) -> None:
    with open_dataset(request.getfixturevalue(dataset)) as db:
        read = money_seats(db)
        pd.testing.assert_frame_equal(read, db.df(MONEY_SQL), check_exact=True)
    assert len(read) and read["currency"].nunique() >= 1


def test_the_holdout_of_room_moneys_seats_is_the_holdout_read_again(apps: Path) -> None:
    with open_dataset(apps) as db:
        money = room_money(db)
        pairwise = {r.room: p for r, p in zip(money.rakes, money.pairwise, strict=True)}
        given = holdout(db, pairwise, money.seats)
        read = holdout(db, pairwise)
    assert given == read and len(read) >= 3  # Ppp AUD, PHP, USD, Spartan INR, ...


def test_the_audit_names_each_stage_as_it_starts_the_last_one_too(
    simulated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bar told each stage as it starts names every costly pass while it runs: it sat
    at 0 of 4 through the field verdicts' 14 s, and at 4 of 4 through the timeouts, the
    reasons and the summary's 16 s, at 300,000 hands, naming none of them."""
    points = import_module("ofc_stats.audit.points")
    events: list[str] = []
    passes = (
        "field_verdicts",
        "_points",
        "_fantasy",
        "room_money",
        "holdout",
        "money_rows",
        "timeout_evidence",
        "reported_reasons",
        "fantasy_reasons",
        "summarize",
    )
    for name in passes:
        work = getattr(points, name)

        def traced(*args: object, _work: object = work, _name: str = name, **kw: object) -> object:
            events.append(_name)
            return _work(*args, **kw)  # type: ignore[operator]

        monkeypatch.setattr(points, name, traced)
    steps: list[int] = []
    with open_dataset(simulated) as db:
        audit(db, progress=steps.append, stage=lambda name: events.append(f"stage {name}"))
    assert steps == [1] * AUDIT_STEPS  # the four checks' steps, as before
    # Each stage and the passes run under it, in order.
    runs: dict[str, list[str]] = {}
    for event in events:
        if event.startswith("stage "):
            runs[event.removeprefix("stage ")] = []
        else:
            runs[list(runs)[-1]].append(event)
    assert list(runs) == list(AUDIT_STAGES)
    assert list(runs.values()) == [
        [],  # scoring by the rules given: none given here
        ["field_verdicts"],
        ["_points"],
        ["_fantasy"],
        ["room_money"],
        ["holdout"],
        ["money_rows"],
        ["timeout_evidence"],
        ["reported_reasons", "fantasy_reasons", "reported_reasons"],
        ["summarize"],
    ]


def test_the_bar_names_the_stage_under_way() -> None:
    assert stage_text("auditing", AUDIT_STAGES, 0) == "auditing: scoring by the rules given"
    assert stage_text("auditing", AUDIT_STAGES, 1) == "auditing: field verdicts"
    assert stage_text("auditing", AUDIT_STAGES, len(AUDIT_STAGES)) == "auditing"


def test_the_ledgers_pricing_tells_its_steps(
    simulated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []
    with open_dataset(simulated) as db:
        assert price_batches(db, progress=said.append)
    assert said == [PRICING_WHOLE]  # 300 money hands: priced whole
    audit_ledger = import_module("ofc_stats.audit.ledger")
    monkeypatch.setattr(audit_ledger, "WHOLE_UP_TO", 0)  # a big dataset: batch by batch
    said.clear()
    # Rules inferred from a sample now, not from every hand: every batch is priced again.
    with open_dataset(simulated) as db:
        assert price_batches(db, progress=said.append)
    batches = len(Dataset(simulated).batches())
    assert said == [INFERRING_SAMPLE] + [
        PRICING_BATCH.format(number=n, batches=batches) for n in range(1, batches + 1)
    ]
