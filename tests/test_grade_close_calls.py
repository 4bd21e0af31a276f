"""Close calls in the regret report: what a coach looks at for a player with no leak.

The hero with the most hands on the real samples lost expected points on none of 570
decisions, so the leak section said nothing useful.  A close call is a decision with no
expected loss where another play came within the rollouts' noise of the one made
(grader version 7 stores each candidate's measured gap), named like the leaks, the
one nearest to a leak first, never called a leak.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ofc_stats.grade.run import GradeOptions, grade_chunk, grade_dataset
from ofc_stats.store.views import open_dataset
from reports import build_all, leak_summary, prepare, regret
from reports.base import Report
from reports.filters import Filters
from reports.html import render
from tests.test_grade import BOTTOM, DISCARD, MIDDLE, flush
from tests.test_grade_store import heads_up

TWIN_OF_KEEP = (BOTTOM, DISCARD, MIDDLE)  # 9h to the bottom, 2c thrown, 5s to the middle


def decision(key: str, street: int, edge: float, se: float) -> dict[str, object]:
    """One row as CLOSE_SQL gives it: the play made (Ks top) and its rival (Ks bottom)."""
    return {
        "hand_key": key, "played_at": pd.Timestamp("2026-01-01"), "street": street,
        "chosen_play": "top Ks | middle 9h | discard 2c",
        "rival_play": "middle 9h | bottom Ks | discard 2c",
        "rival_mistake": "a king placed in the top instead of the bottom",
        "ev_chosen": 1.5, "rival_edge": edge, "rival_se": se,
    }  # fmt: skip


def test_close_calls_are_named_measured_and_nearest_to_a_leak_first() -> None:
    frame = pd.DataFrame(
        [
            decision("a", 1, 0.5, 0.5),  # the rival measured 0.5 above, SE 0.5: 1 SE
            decision("b", 2, 1.8, 1.0),  # 1.8 SE: the nearest to a leak
            decision("c", 0, -0.6, 2.0),  # measured below the play made: -0.3 SE
        ]
    )
    calls = regret.named_close_calls(frame)
    assert calls["hand_key"].tolist() == ["b", "a", "c"]
    assert calls["ses"].tolist() == pytest.approx([1.8, 1.0, -0.3])
    assert calls["other_minus_yours"].tolist() == pytest.approx([1.8, 0.5, -0.6])
    assert calls["se"].tolist() == pytest.approx([1.0, 0.5, 2.0])
    # the other play's value as measured: yours (1.5) plus the difference
    assert calls["other_value"].tolist() == pytest.approx([3.3, 2.0, 0.9])
    assert calls["close_call"].tolist() == [
        "street 3: a king placed in the top instead of the bottom",
        "street 2: a king placed in the top instead of the bottom",
        "street 1: a king placed in the top instead of the bottom",
    ]
    note = regret._close_note(calls, 40)
    assert note == (
        "Close calls, within the rollouts' noise and not leaks: on 3 decisions of your 40 "
        "graded street decisions another play came within 2 SE of yours. The nearest to a "
        "leak, street 3: a king placed in the top instead of the bottom (top Ks | middle 9h | "
        "discard 2c): the rollouts measured the other play (middle 9h | bottom Ks | discard "
        "2c) 1.80 ± 1.00 points above yours (the close calls table lists 3)."
    )


def test_a_tied_best_names_the_play_the_rollouts_measured_highest_beside_it() -> None:
    # The flush draw kept (9h bottom, 5s middle, 2c thrown): the race cannot tell it from
    # its twin (2c middle, 5s thrown), which the rollouts measured above it.
    rows = grade_chunk([flush(TWIN_OF_KEEP)], GradeOptions(rollouts=32, seed=0), threads=1)
    grade = rows["grades"].to_pylist()[0]
    candidates = rows["grade_candidates"].to_pylist()
    assert grade["loss"] == 0.0 and grade["mistake"] is None
    twin = next(r for r in candidates if r["play"] == "middle 2c | bottom 9h | discard 5s")
    assert grade["rival_play"] == twin["play"]
    assert grade["rival_mistake"] == "which 9 or lower goes in the middle and which is discarded"
    assert grade["rival_edge"] == -twin["gap"] > 0
    assert grade["rival_se"] == twin["gap_se"] and grade["rival_within_noise"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = heads_up(tmp_path_factory.mktemp("close"), 12, seed=2)
    grade_dataset(data, GradeOptions(rollouts=16), workers=1)
    return data


def test_each_decisions_rival_is_the_best_or_the_nearest_within_the_noise(graded: Path) -> None:
    with open_dataset(graded) as db:
        grades = db.df(
            "SELECT * FROM grades WHERE kind = 'street' AND status = 'graded' "
            "ORDER BY hand_key, seat, street"
        )
        candidates = db.df("SELECT * FROM grade_candidates WHERE gap IS NOT NULL")
    by_decision = dict(list(candidates.groupby(["hand_key", "seat", "street"])))
    within = 0
    for row in grades.itertuples():
        here = by_decision[(row.hand_key, row.seat, row.street)]
        made = here[here["chosen"]].iloc[0]
        others = here[~here["chosen"] & (here["best"] | here["within_noise"])]
        if others.empty:
            assert pd.isna(row.rival_play) and pd.isna(row.rival_edge)
            continue
        rival = others.sort_values(["best", "gap", "candidate"], ascending=[False, True, True])
        rival = rival.iloc[0]
        # one of the two is the best play (gap 0): the difference and its SE are the other's
        other = rival if made["best"] else made
        assert row.rival_play == rival["play"]
        assert row.rival_edge == pytest.approx(made["gap"] - rival["gap"], abs=1e-12)
        assert row.rival_se == other["gap_se"]
        assert row.rival_within_noise == other["within_noise"]
        within += bool(row.rival_within_noise)
        if not made["best"]:
            assert row.rival_mistake == row.mistake  # the best play's name
    assert within, "some decision has a rival within the noise"


def test_the_close_calls_are_the_decisions_without_loss_with_a_rival_within_noise(
    graded: Path,
) -> None:
    with open_dataset(graded) as db:
        player = db.sql(
            "SELECT player FROM grades WHERE kind = 'street' GROUP BY 1 ORDER BY count(*) DESC"
        ).fetchall()[0][0]
        calls = regret.close_calls(prepare(db, Filters(player=player)).data)
        grades = db.df(
            "SELECT * FROM grades WHERE kind = 'street' AND status = 'graded' AND player = $p",
            {"p": player},
        )
    want = grades[
        (grades["loss"] == 0) & grades["rival_within_noise"].fillna(False).astype(bool)
        & (grades["rival_se"] > 0)
    ]  # fmt: skip
    assert len(calls) == len(want) > 0
    assert sorted(calls["hand_key"]) == sorted(want["hand_key"])
    assert (calls["ses"].abs() <= 2 + 1e-9).all()
    assert calls["ses"].is_monotonic_decreasing


def test_a_player_without_a_leak_is_shown_the_close_calls(graded: Path, tmp_path: Path) -> None:
    # The bots lose points; as for the real samples' hero, no decision loses here: the
    # stored losses are set to 0 (the candidates' gaps stay as measured).
    import shutil

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    data = tmp_path / "no-leak"
    shutil.copytree(graded, data)
    for path in (data / "grades").glob("*.parquet"):
        table = pq.read_table(path)
        for name in ("loss", "loss_rows", "loss_fouls", "loss_royalties", "loss_fantasy"):
            column = table[name]
            zero = pc.if_else(pc.is_valid(column), pa.scalar(0.0), column)
            table = table.set_column(table.schema.get_field_index(name), name, zero)
        pq.write_table(table, path)
    with open_dataset(data) as db:
        player = db.sql(
            "SELECT player FROM grades WHERE kind = 'street' GROUP BY 1 ORDER BY count(*) DESC"
        ).fetchall()[0][0]
        built = build_all(db, Filters(player=player))
    report = next(r for r in built if r.key == "regret")
    assert "leaks" not in report.tables
    calls = report.tables["close_calls"]
    assert 0 < len(calls) <= regret.CLOSE_CALLS
    assert "not leaks" in report.captions["close_calls"]
    assert set(calls["hand_key"]) <= set(report.replays)  # each opens its hand
    assert "close_calls" in report.hands
    first = report.notes[0]
    assert first.startswith("No decision of yours lost expected points")
    assert "Close calls, within the rollouts' noise and not leaks: on " in first
    assert f"The nearest to a leak, {calls['close_call'].iloc[0]} " in first
    assert leak_summary(built)[0] == first  # the summary carries them


def test_a_player_with_leaks_gets_the_close_calls_as_a_note(graded: Path) -> None:
    with open_dataset(graded) as db:
        player = db.sql(
            "SELECT player FROM grades WHERE kind = 'street' GROUP BY 1 ORDER BY count(*) DESC"
        ).fetchall()[0][0]
        report = regret.build(prepare(db, Filters(player=player)))
    assert "leaks" in report.tables and "close_calls" in report.tables
    notes = [n for n in report.notes if n.startswith("Close calls, within the rollouts' noise")]
    assert len(notes) == 1


def test_the_page_escapes_the_close_calls() -> None:
    hostile = "<script>alert(1)</script>"
    calls = pd.DataFrame(
        [
            {
                "close_call": "street 1: a king placed in the top instead of the bottom",
                "hand_key": hostile,
                "played_at": pd.Timestamp("2026-01-01"),
                "your_play": hostile,
                "other_play": "top Ks",
                "your_value": 1.0,
                "other_value": 1.5,
                "other_minus_yours": 0.5,
                "se": 0.5,
                "ses": 1.0,
            }
        ]
    )
    report = Report(
        "regret", "Regret", tables={"close_calls": calls}, notes=[f"Close calls: {hostile}"],
        captions={"close_calls": regret.CLOSE_MEANS}, hands={"close_calls"},
    )  # fmt: skip
    page = render("me", "all hands", [report], [f"Close calls: {hostile}"])
    assert hostile not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_grades_older_than_version_7_list_no_close_calls(graded: Path, tmp_path: Path) -> None:
    # A dataset graded by version 6 has no rival columns: the report says nothing of close
    # calls rather than failing (grading again adds them).
    import shutil

    import pyarrow.parquet as pq

    old = tmp_path / "old"
    shutil.copytree(graded, old)
    rival = ["rival_play", "rival_mistake", "rival_edge", "rival_se", "rival_within_noise"]
    for path in (old / "grades").glob("*.parquet"):
        table = pq.read_table(path)
        pq.write_table(table.drop_columns(rival), path)
    with open_dataset(old) as db:
        player = db.sql("SELECT player FROM grades LIMIT 1").fetchall()[0][0]
        scope = prepare(db, Filters(player=player))
        assert regret.close_calls(scope.data).empty
        report = regret.build(scope)
    assert "close_calls" not in report.tables
    assert np.isfinite(report.tables["by_street"]["per_100_hands"]).all()


def test_the_replayer_values_a_close_call_as_the_close_calls_table_does(graded: Path) -> None:
    """A player's find: the close calls table gave the other play 17.76 and the replayer,
    one click away, 11.23 (the stored `ev`, capped at the best's).  The replayer shows the
    measured value (the best's minus the signed gap) and flags it above the best."""
    from reports.replay import hand_details

    with open_dataset(graded) as db:
        player = db.sql(
            "SELECT player FROM grades WHERE kind = 'street' GROUP BY 1 ORDER BY count(*) DESC"
        ).fetchall()[0][0]
        calls = regret.close_calls(prepare(db, Filters(player=player)).data)
        above = calls[calls["other_minus_yours"] > 0]
        assert len(above) > 0, "some close call measured the other play above"
        details = hand_details(db, above["hand_key"].tolist())
    shown_to = 0.005 + 1e-9  # the replayer carries values to the 2 decimals the page shows
    for call in above.itertuples():
        seats = details[call.hand_key]["seats"]
        streets = [st for seat in seats if seat["player"] == player for st in seat["streets"]]
        # the close call's street, and its candidates in the replayer
        street = next(st for st in streets if call.close_call.startswith(f"street {st['street']}:"))
        shown = {c["play"]: c for c in street["grade"]["candidates"]}
        assert shown[call.your_play]["ev"] == pytest.approx(call.your_value, abs=shown_to)
        if call.other_play in shown:  # among the few candidates the replayer carries
            other = shown[call.other_play]
            assert other["ev"] == pytest.approx(call.other_value, abs=shown_to)
            assert other["ev"] >= shown[call.your_play]["ev"]  # (equal once rounded at most)
            # the best play itself, or one the rollouts put above the best within the noise
            assert other["best"] != other["above_best"]


def test_one_hand_carries_every_candidate_the_rollouts_valued(graded: Path) -> None:
    """`ofc-stats hand` shows every play the rollouts valued on a graded street (the issue:
    "every candidate's value"), where the report's page of many hands carries the few
    highest: per street, as many as `grade_candidates` holds with a value, plus the play
    made and the best when they have none."""
    from reports.replay import EVERY_CANDIDATE, TOP_CANDIDATES, hand_details

    with open_dataset(graded) as db:
        key = db.sql(
            "SELECT hand_key FROM grade_candidates GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
        ).fetchall()[0][0]
        counts = dict(
            db.sql(
                "SELECT seat || ':' || street, count(*) FILTER (WHERE ev IS NOT NULL "
                "OR chosen OR best) FROM grade_candidates WHERE hand_key = $k GROUP BY 1",
                {"k": key},
            ).fetchall()
        )
        every = hand_details(db, [key], top=EVERY_CANDIDATE)[key]
        few = hand_details(db, [key])[key]
    shown = {
        f"{seat['seat']}:{street['street'] - 1}": len(street["grade"]["candidates"])
        for seat in every["seats"]
        for street in seat["streets"]
        if street.get("grade")
    }
    assert shown == counts
    assert max(counts.values()) > TOP_CANDIDATES + 2  # a street with more than the few
    for seat in few["seats"]:
        for street in seat["streets"]:
            if street.get("grade"):
                assert len(street["grade"]["candidates"]) <= TOP_CANDIDATES + 2
