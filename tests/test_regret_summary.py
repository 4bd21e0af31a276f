"""A coach's findings on the graded report (regret and the summary):

1. The summary said "No named decision costs you more than 2 SE" while the by-decision
   table showed street 4 losing 35.76 ± 15.52 per 100 hands: named leaks are one
   decision each, none beyond 2 SE, so it named none.  It now names the three costliest,
   each "clear" or "not clear yet".
2. Decisions with no expected loss (a tie with the best play) were listed as leaks.
3. The replay table scaled a street of one seat to "-4,381.30 per 100 hands".
5. By decision's "decision" column held loss parts ("fouls"): now "mainly lost to".
6. "run `ofc-stats grade`" was the advice for hands grading had run over but could not
   grade (no discards recorded).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from ofc_stats.grade.run import GradeOptions, grade_dataset
from ofc_stats.store.views import open_dataset
from reports import NOT_GRADED_YET, UNGRADED, build_all, leak_summary, prepare, regret
from reports.base import Report
from reports.filters import Filters
from reports.regret import named_leaks, tied_decisions
from tests.test_grade_store import heads_up


def streets_frame() -> pd.DataFrame:
    """Ten graded hands: three named leaks of one decision each (none beyond 2 SE), and
    two decisions played otherwise than the best with no expected loss (ties)."""
    rows = [
        ("h1", 3, "a king placed in the top instead of the middle", 9.0),
        ("h2", 3, "a 9 or lower discarded instead of placed in the bottom", 4.0),
        ("h3", 1, "a pair QQ+ placed in the top instead of the bottom", 6.0),
        ("h4", 3, "a king placed in the top instead of the middle", 0.0),
        ("h5", 2, "a jack or ten placed in the middle instead of discarded", 0.0),
    ] + [(f"h{i}", 0, None, 0.0) for i in range(6, 11)]
    frame = pd.DataFrame(rows, columns=["hand_key", "street", "mistake", "loss"])
    return frame.assign(seat=0, hand=frame["hand_key"] + "#0")


def test_a_decision_with_no_expected_loss_is_a_tie_not_a_leak() -> None:
    streets = streets_frame()
    hands = pd.Index(streets["hand"].unique())
    leaks = named_leaks(streets, hands, None)
    assert (leaks["per_100_hands"] > 0).all()
    assert "street 3: a jack or ten placed in the middle instead of discarded" not in set(
        leaks["leak"]
    )
    king = leaks.set_index("leak").loc["street 4: a king placed in the top instead of the middle"]
    assert king["decisions"] == 1 and king["loss_per_decision"] == pytest.approx(9.0)
    assert tied_decisions(streets) == 2


def test_the_costliest_leaks_are_named_whatever_their_se() -> None:
    streets = streets_frame()
    hands = pd.Index(streets["hand"].unique())
    leaks = named_leaks(streets, hands, None)
    assert not leaks["claim_clear"].any()  # one decision each: none beyond 2 SE
    notes = [regret._leak_note(row, "over 10 graded hands") for row in leaks.to_dict("records")]
    assert [n.split(": claimed ")[0] for n in notes] == [
        "Street 4: a king placed in the top instead of the middle",
        "Street 2: a pair QQ+ placed in the top instead of the bottom",
        "Street 4: a 9 or lower discarded instead of placed in the bottom",
    ]
    assert notes[0].startswith(
        "Street 4: a king placed in the top instead of the middle: claimed 90.0 ± 90.0 "
        "expected points lost per 100 hands over 10 graded hands (1 decision, 9.00 lost)"
    )
    assert all(n.endswith("(the claim is within 2 SE; not replayed yet: `ofc-stats grade --replay`).")
               for n in notes)  # fmt: skip
    assert all(": not clear yet (" in n for n in notes)
    # The summary takes those notes, as many as there are leaks (up to three), then the
    # costliest street and loss part.
    by_decision = regret.per_100(
        streets.assign(street_name="street " + (streets["street"] + 1).astype(str)),
        hands,
        ["street_name"],
    ).assign(mainly_lost_to="fouling", clear=False)
    by_decision = by_decision.sort_values("per_100_hands", ascending=False)
    summed = regret._decision_note(by_decision.iloc[0].to_dict(), False)
    assert summed == (
        "Summed by street and what the loss was mainly to, the costliest is street 4, mainly "
        "fouling: 130.0 ± 94.3 expected points lost per 100 hands (3 decisions): not clear "
        "yet (within 2 SE, not replayed yet: `ofc-stats grade --replay`)."
    )
    report = Report(
        "regret",
        "Regret",
        tables={"by_decision": by_decision, "leaks": leaks.head(2)},
        notes=[*notes[:2], summed, "Street decisions over 10 graded hands: 13 ± 9 lost."],
    )
    assert leak_summary([report]) == [*notes[:2], summed]


def test_a_clear_leak_is_called_clear_only_with_the_replay() -> None:
    row = {
        "leak": "street 4: a king placed in the top instead of the middle",
        "per_100_hands": 40.0, "se": 10.0, "decisions": 12, "loss_per_decision": 3.8,
        "replayed_seats": 12, "claimed_per_seat": 4.1, "realised_per_seat": 3.0,
        "realised_se": 1.0, "claim_clear": True, "clear": True,
    }  # fmt: skip
    assert regret._leak_note(row, "over 100 graded hands").endswith(
        "; on the 12 hands where the advice first played otherwise here, the grader claimed "
        "4.10 lost a hand (this decision and the hand's later ones) and its advice won +3.00 "
        "± 1.00 a hand over your play on your own cards: clear (beyond 2 SE and confirmed by "
        "the replay)."
    )
    row.update(replayed_seats=0, claim_clear=False, clear=False)
    assert regret._leak_note(row, "over 100 graded hands", replayed=True).endswith(
        ": not clear yet (the claim is within 2 SE; no replayed seat had the advice first "
        "play otherwise here)."
    )
    row.update(replayed_seats=12, realised_per_seat=1.0, claim_clear=True)
    assert regret._leak_note(row, "over 100 graded hands").endswith(
        "your own cards: not clear yet (the replay does not confirm it beyond 2 SE)."
    )


def test_the_replay_table_is_per_seat() -> None:
    replays = pd.DataFrame(
        {"first_deviation": [1, None, None], "gain": [-43.813, 0.0, 0.0], "claimed": [2.0, 0, 0]}
    )
    table = regret.replay_by_street(replays).set_index("first_deviation")
    assert "realised_per_100" not in table.columns
    assert table.loc["street 2", "realised_per_seat"] == pytest.approx(-43.813)
    assert table.loc["street 2", "seats"] == 1


@pytest.fixture(scope="module")
def half_graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Heads-up hands where one player's discards were not recorded: grading runs over the
    dataset, and that player's hands (and their opponents') cannot be graded."""
    from ofc_stats.engine.presets import get_ruleset
    from ofc_stats.sim.rooms import simulate
    from tests.builders import write_dataset

    records = [
        r
        for r, _ in simulate(
            12, get_ruleset("pineapple"), seats=2, players=4, seed=1, tables=2,
            timeout_rate=0.0, rollouts=3,
        )
    ]  # fmt: skip
    hidden = records[0].seats[0].player
    edited = []
    for record in records:
        seats = {s.seat for s in record.seats if s.player == hidden}
        edited.append(
            dataclasses.replace(
                record,
                placements=tuple(
                    p
                    for p in record.placements
                    if not (p.seat in seats and p.destination == "discard")
                ),
                seats=tuple(
                    dataclasses.replace(s, discards=None) if s.seat in seats else s
                    for s in record.seats
                ),
            )
        )
    data = write_dataset(tmp_path_factory.mktemp("half"), edited)
    grade_dataset(data, GradeOptions(rollouts=4), workers=1)
    with open_dataset(data) as db:
        graded = db.sql(
            "SELECT player FROM grades WHERE status = 'graded' GROUP BY player "
            "ORDER BY count(*) DESC LIMIT 1"
        ).fetchall()[0][0]
    return data, hidden, graded


def test_hands_grading_could_not_grade_say_why_not_run_grade(
    half_graded: tuple[Path, str, str],
) -> None:
    data, hidden, graded = half_graded
    with open_dataset(data) as db:
        built = build_all(db, Filters(player=hidden))
        by_key = {r.key: r for r in built}
        note = by_key["regret"].notes[0]
        assert note != NOT_GRADED_YET and "run `ofc-stats grade`" not in note
        assert note.startswith("Graded, but none of these hands could be")
        assert "have no discards recorded" in note
        summary = leak_summary(built)
        assert summary[0] == note and summary[0] != UNGRADED
        for line in by_key["decisions"].notes:
            assert "run `ofc-stats grade`" not in line
            assert line.endswith("the regret section says why).")
        # A graded player's observational notes point at the graded loss, not at grading.
        mine = build_all(db, Filters(player=graded))
    for report in mine:
        if report.key == "decisions":
            for line in report.notes:
                assert "run `ofc-stats grade`" not in line
                assert line.endswith("(not a cost: the regret section gives the graded "
                                     "expected-points loss).")  # fmt: skip
        if report.key == "regret" and "by_decision" in report.tables:
            table = report.tables["by_decision"]
            assert "decision" not in table.columns
            assert set(table["mainly_lost_to"]) <= {
                "fouling", "rows lost", "royalties missed", "Fantasyland missed"
            }  # fmt: skip
            assert "clear: " in report.captions["by_decision"]
            assert "mainly lost to: " in report.captions["by_decision"]


def test_never_graded_still_says_run_grade(tmp_path: Path) -> None:
    data = heads_up(tmp_path, 2, seed=3)
    with open_dataset(data) as db:
        player = db.sql("SELECT player FROM seats LIMIT 1").fetchall()[0][0]
        report = regret.build(prepare(db, Filters(player=player)))
    assert report.notes == [NOT_GRADED_YET]


def test_the_replay_line_of_advice_that_never_deviated_says_so() -> None:
    """The busiest hero of the real samples read "realised +0 ± 0 points per 100 hands
    against your play, where it claims 0 ± 0 lost": the advice had played as he did on
    every seat.  One seat that deviated: realised -43.81 / 3 seats = -14.60 a seat, SE of
    (-43.81, 0, 0) = 14.60, claimed 2 / 3 = 0.67 (SE 0.67), per 100 hands."""
    never = pd.DataFrame({"first_deviation": [None, None], "gain": [0.0, 0.0], "claimed": [0, 0]})
    assert regret.replay_note(regret.replay_by_street(never)) == (
        "Replayed on your own cards over 2 hands, the grader's advice never played otherwise "
        "than you: no gain to realise."
    )
    once = pd.DataFrame(
        {"first_deviation": [1, None, None], "gain": [-43.81, 0.0, 0.0], "claimed": [2.0, 0, 0]}
    )
    assert regret.replay_note(regret.replay_by_street(once)) == (
        "Replayed on your own cards over 3 hands, the grader's advice realised -1,460 ± 1,460 "
        "points per 100 hands against your play, where it claims 67 ± 67 lost."
    )
    # A loss of 0.13 per 100 hands rounds to 0, which has no sign (it printed "-0").
    small = pd.DataFrame(
        {"first_deviation": [1] + [None] * 99, "gain": [-0.13] + [0.0] * 99, "claimed": [0.0] * 100}
    )
    assert "advice realised 0 ± 0 points per 100 hands" in regret.replay_note(
        regret.replay_by_street(small)
    )
