"""The audit counts as matching only the hands a check looked at, and says why it
skipped the others (the trial's "108 hands, 107 match" where no points were reported)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

import ofc_stats
from ofc_stats.audit.points import audit
from ofc_stats.cli.main import main
from ofc_stats.records import HandRecord
from tests.builders import hand_record, seat_record, write_dataset

ALICE = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
BOB = seat_record(1, "Bob", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")


def _hand(number: int, points: tuple[float, float] | None, table: str) -> HandRecord:
    """Heads-up Alice +21 against Bob, each hand at a table of its own (no Fantasyland
    link between them), with the room's points or none."""
    hand = replace(hand_record(number, (ALICE, BOB)), table_id=table)
    if points is None:
        return hand
    seats = tuple(replace(s, reported_points=p) for s, p in zip(hand.seats, points, strict=True))
    return replace(hand, seats=seats)


def _dataset(tmp_path: Path) -> Path:
    """Three hands: one reported right (+21), one reported wrong (+14), one with nothing
    reported.  Two are checked (points), one match; the third no check can look at."""
    hands = [_hand(1, (21.0, -21.0), "T1"), _hand(2, (14.0, -14.0), "T2"), _hand(3, None, "T3")]
    return write_dataset(tmp_path, hands)


def test_a_hand_nothing_checked_is_not_counted_as_matching(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    with ofc_stats.open(data) as db:
        report = audit(db)
    row = report.summary.iloc[0]
    assert (row["hands"], row["checked"], row["matching"]) == (3, 2, 1)
    assert row["match_rate"] == 0.5
    assert (row["points_checked"], row["points_matching"], row["points_not_checked"]) == (2, 1, 1)
    assert (row["money_checked"], row["money_not_checked"]) == (0, 3)
    assert (row["fantasy_checked"], row["fantasy_not_checked"]) == (0, 3)
    coverage = report.coverage
    assert coverage is not None
    why = {(r.check, r.reason): r.hands for r in coverage.itertuples(index=False)}
    assert why[("points", "not reported")] == 1
    assert why[("money", "not reported")] == 3
    assert why[("fantasy", "with no earlier hand of its players at the table")] == 3
    # the royalty mismatch's rate is over the 2 hands the points check looked at
    (royalties,) = report.by_class.itertuples(index=False)
    assert (royalties.hands, royalties.rate) == (1, 0.5)


def test_the_summary_says_what_each_check_did_not_check(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    result = CliRunner().invoke(main, ["audit", "--data", str(data), "--quiet"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # (it said "3 hands, 2 checked, 1 match (50.0%); 1 hand checked by no check")
    assert (
        "test · pineapple-progressive: 3 hands: 2 checked (points, Fantasyland or money), "
        "1 of them matches the rules (50.0%); 1 could not be checked at all (points and money "
        "not reported, fantasy with no earlier hand of its players at the table)"
    ) in lines
    assert "  points: 1 of 2 checked hands match (50.0%); 1 not checked (1 not reported)" in lines
    assert "  money: no hand checked (3 not reported)" in lines
    assert any(line.startswith("  fantasy: no hand checked (3 with no earlier") for line in lines)
    assert "    royalties: 1 hand (50.0% of the points-checked)" in lines


def test_an_unscored_hand_with_reported_points_is_not_checked(tmp_path: Path) -> None:
    """A hand the room scored but whose boards the files lack (a chat-only hand): its
    points are reported, never compared, and say so."""
    partial = replace(ALICE, top=ALICE.top[:2], reported_points=8.0)
    unscored = replace(hand_record(2, (partial, replace(BOB, reported_points=-8.0))), table_id="T2")
    data = write_dataset(tmp_path, [_hand(1, (21.0, -21.0), "T1"), unscored])
    with ofc_stats.open(data) as db:
        report = audit(db)
    row = report.summary.iloc[0]
    assert (row["hands"], row["checked"], row["matching"], row["points_checked"]) == (2, 1, 1, 1)
    assert report.coverage is not None
    points = report.coverage[report.coverage["check"] == "points"]
    assert points[["reason", "hands"]].values.tolist() == [["not scored: incomplete", 1]]
