"""Grading stored hands: the tables, increments, determinism, the CLI, the regret report."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.grade.position import read_positions
from ofc_stats.grade.run import GradeOptions, GradeSummary, grade_dataset
from ofc_stats.sim.rooms import simulate
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.rows import with_hand_keys
from ofc_stats.store.views import open_dataset
from reports import prepare, regret
from reports.filters import Filters
from tests.builders import write_dataset

# simulate's pool hands out styles in turn: careful, chaser, weak, strong, careful, ...
STYLE = {"Ana": "careful", "Bo": "chaser", "Chen": "weak", "Dara": "strong",
         "Emil": "careful", "Fay": "chaser", "Gus": "weak", "Hana": "strong"}  # fmt: skip


def heads_up(tmp: Path, hands: int, seed: int) -> Path:
    ruleset = get_ruleset("pineapple")
    records = [
        record
        for record, _ in simulate(
            hands, ruleset, seats=2, players=8, seed=seed, tables=max(hands // 5, 1),
            timeout_rate=0.0, rollouts=3,
        )
    ]  # fmt: skip
    return write_dataset(tmp, records)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = heads_up(tmp_path_factory.mktemp("small"), 8, seed=1)
    grade_dataset(data, GradeOptions(rollouts=8), workers=1)
    return data


def grades(data: Path) -> pd.DataFrame:
    with open_dataset(data) as db:
        return db.df("SELECT * FROM grades ORDER BY hand_key, seat, street")


def test_every_street_of_every_seat_is_graded(small: Path) -> None:
    frame = grades(small)
    with open_dataset(small) as db:
        normal = db.sql("SELECT count(*) FROM seats WHERE NOT in_fantasy").fetchall()[0][0]
    streets = frame[frame["kind"] == "street"]
    assert len(streets) == normal * 5  # Pineapple: five streets a hand
    assert set(streets["status"]) <= {"graded", "forced"}
    first = streets[streets["street"] == 0]
    assert (first["candidates"] == 232).all()
    assert (streets[streets["street"] > 0]["candidates"] <= 27).all()


def test_loss_is_never_below_zero_beyond_its_se(small: Path) -> None:
    frame = grades(small)
    streets = frame[frame["kind"] == "street"]
    assert (streets["loss"] >= -2 * streets["loss_se"] - 1e-9).all()
    assert (streets[streets["status"] == "forced"]["loss"] == 0).all()
    parts = streets[["loss_rows", "loss_fouls", "loss_royalties", "loss_fantasy"]].sum(axis=1)
    assert np.allclose(parts, streets["loss"])
    # A charged loss is the gap between the two; an uncharged one is within 2 SE of 0.
    gap = streets["ev_best"] - streets["ev_chosen"]
    charged = streets["loss"] > 0
    assert (gap[charged] - streets["loss"][charged]).abs().max() < 1e-9
    assert (gap[~charged] <= 2 * streets["loss_se"][~charged] + 1e-9).all()


def test_no_candidate_is_valued_above_the_best(small: Path) -> None:
    with open_dataset(small) as db:
        above = db.sql(
            "SELECT count(*) FROM grade_candidates c JOIN grades g "
            "USING (hand_key, seat, street) WHERE g.kind = 'street' AND c.ev > g.ev_best + 1e-9"
        ).fetchall()[0][0]
    assert above == 0


def test_candidates_are_stored_with_the_chosen_and_the_best(small: Path) -> None:
    with open_dataset(small) as db:
        counts = db.df(
            "SELECT hand_key, seat, street, count(*) FILTER (WHERE chosen) AS chosen, "
            "count(*) FILTER (WHERE best) AS best FROM grade_candidates GROUP BY ALL"
        )
    assert (counts["chosen"] == 1).all() and (counts["best"] == 1).all()


def test_grading_is_incremental_and_the_same_with_more_workers(small: Path, tmp_path: Path) -> None:
    again = grade_dataset(small, GradeOptions(rollouts=8), workers=1)
    assert again.up_to_date == 1 and again.batches == 0
    copy = tmp_path / "copy"
    shutil.copytree(small, copy)
    redone = grade_dataset(copy, GradeOptions(rollouts=8), workers=2, force=True)
    assert redone.batches == 1
    pd.testing.assert_frame_equal(grades(small), grades(copy))


def test_the_grades_take_the_rooms_fantasyland_values_and_say_so(small: Path) -> None:
    import json

    from ofc_stats.grade.fantasy import room_tables

    stamp = pq.read_schema(Dataset(small).files("grades")[0]).metadata
    assert stamp is not None
    values = json.loads(stamp[b"ofc_stats.grader"])["fantasy_values"]
    assert values == {name: list(table) for name, table in room_tables(small)}
    assert set(values) == {"pineapple"}


def test_the_grades_name_the_weights_their_rollouts_played_by(small: Path) -> None:
    """A retrained value file is another grader: its digest is in the stamp, so grades
    made with other weights are not taken as up to date."""
    import hashlib
    import json

    from ofc_stats.grade.train import WEIGHTS

    stamp = pq.read_schema(Dataset(small).files("grades")[0]).metadata
    assert stamp is not None
    digest = hashlib.sha256(WEIGHTS.read_bytes()).hexdigest()[:16]
    assert json.loads(stamp[b"ofc_stats.grader"])["value"] == digest


def _ungraded_copy(small: Path, tmp_path: Path) -> Path:
    """A copy of the graded dataset with its grades taken away."""
    copy = tmp_path / "copy"
    shutil.copytree(small, copy)
    for table in ("grades", "grade_candidates"):
        for path in Dataset(copy).files(table):
            Path(path).unlink()
    return copy


def test_one_player_then_another_keeps_both(small: Path, tmp_path: Path) -> None:
    copy = _ungraded_copy(small, tmp_path)
    players = grades(small)["player"].value_counts().index[:2].tolist()
    for player in players:
        grade_dataset(copy, GradeOptions(rollouts=8, player=player), workers=1)
    mine = grades(copy)
    assert set(mine["player"]) == set(players)
    theirs = grades(small)
    expected = theirs[theirs["player"].isin(players)].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine.reset_index(drop=True), expected)
    stamp = pq.read_schema(Dataset(copy).files("grades")[0]).metadata
    assert stamp is not None and all(p.encode() in stamp[b"ofc_stats.grader"] for p in players)


def test_grading_an_alias_grades_each_of_its_accounts(small: Path, tmp_path: Path) -> None:
    """`grade --player ALIAS` (as `report` and `audit` take it) grades every account the
    alias joins, each as `grade --player ACCOUNT` would: the same rows as the full grades'."""
    copy = _ungraded_copy(small, tmp_path)
    players = grades(small)["player"].value_counts().index[:2].tolist()
    runner = CliRunner()
    done = runner.invoke(main, ["players", "alias", "--data", str(copy), "Me", *players])
    assert done.exit_code == 0, done.output
    args = ["grade", "--data", str(copy), "--player", "Me", "--rollouts", "8", "--quiet"]
    result = runner.invoke(main, [*args, "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Me: an alias of 2 accounts"), result.output
    assert result.output.count("graded: ") == 2
    mine = grades(copy)
    assert set(mine["player"]) == set(players)
    theirs = grades(small)
    expected = theirs[theirs["player"].isin(players)].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine.reset_index(drop=True), expected)


def test_an_ungraded_dataset_has_empty_grade_views(tmp_path: Path) -> None:
    data = heads_up(tmp_path, 2, seed=2)
    with open_dataset(data) as db:
        assert db.sql("SELECT count(*) FROM grades").fetchall()[0][0] == 0
        assert "loss_se" in db.table("grades").columns


def test_the_command_grades_and_refuses_an_unknown_player(small: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(small, copy)
    runner = CliRunner()
    result = runner.invoke(main, ["grade", "--data", str(copy), "--rollouts", "8", "--force"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("graded: ")
    result = runner.invoke(main, ["grade", "--data", str(copy), "--player", "Nobody\x1b[31m"])
    assert result.exit_code == 1 and "no player 'Nobody\\x1b[31m' in this dataset" in result.output
    assert "\x1b" not in result.output
    # the wording `report --player` gives for the same name
    report = runner.invoke(
        main, ["report", "--data", str(copy), "--player", "Nobody", "--out", str(tmp_path / "r")]
    )
    graded = runner.invoke(main, ["grade", "--data", str(copy), "--player", "Nobody"])
    assert (report.exit_code, graded.exit_code) == (1, 1)
    assert graded.output == report.output


def test_grade_prints_the_regret_reports_measure_over_the_same_hands(
    small: Path, tmp_path: Path
) -> None:
    """`grade --player P` and P's report give one figure over one count of hands: street
    decisions per 100 graded hands, Fantasyland sets apart (a set is no street decision)."""
    copy = tmp_path / "copy"
    shutil.copytree(small, copy)
    player = grades(small)["player"].value_counts().index[0]
    args = ["grade", "--data", str(copy), "--player", player, "--rollouts", "8", "--force"]
    result = CliRunner().invoke(main, [*args, "--quiet"])
    assert result.exit_code == 0, result.output
    printed = re.search(
        r"expected points lost: ([\d,.]+) ± [\d,.]+ per 100 hands on the street decisions, "
        r"over ([\d,]+) "
        r"graded seat-hands",
        result.output,
    )
    assert printed, result.output
    with open_dataset(copy) as db:
        notes = regret.build(prepare(db, Filters(player=player))).notes
    note = next(n for n in notes if n.startswith("Street decisions over "))
    shown = re.match(
        r"Street decisions over (\d+) graded hands of (\d+) normal hands: ([\d.]+) ± [\d.]+ ",
        note,
    )
    assert shown, note
    assert (shown[3], shown[1]) == (printed[1].replace(",", ""), printed[2].replace(",", ""))
    assert shown[1] == shown[2]  # every normal hand of a simulated Pineapple game is graded


def test_the_grade_summary_keeps_streets_and_sets_apart() -> None:
    """Seat a lost 1.0 + 0.5 on its streets, b 2.0: 350 / 2 = 175 per 100 hands, its SE
    100 × sd(1.5, 2.0) / √2 = 100 × 0.3536 / 1.4142 = 25; one Fantasyland set lost 0.3
    (another had no result and counts nowhere)."""
    grades = pa.table(
        {
            "hand_key": ["h1", "h1", "h2", "h3", "h4"],
            "seat": [0, 0, 1, 0, 0],
            "kind": ["street", "street", "street", "fantasy", "fantasy"],
            "loss": [1.0, 0.5, 2.0, 0.3, None],
        }
    )
    summary = GradeSummary(decisions=3, fantasy_sets=2)
    summary.count(grades)
    assert summary.lines()[1] == (
        "  expected points lost: 175.0 ± 25.0 per 100 hands on the street decisions, over 2 graded "
        "seat-hands; 0.30 per Fantasyland set, over 1 set"
    )


def test_the_share_of_optimal_sets_reads_as_a_percentage() -> None:
    from reports.html import cell

    assert cell("optimal", 1.0, False) == "100.0%" and cell("optimal", 0.922, False) == "92.2%"


def test_per_100_hands_by_hand() -> None:
    # Three hands; hand a lost 1.0 and 0.5 on street 1, hand b 2.0, hand c nothing.
    # Per hand: 1.5, 2.0, 0 -> mean 3.5/3 = 1.1667 -> 116.67 per 100 hands.
    # SD of (1.5, 2, 0) with ddof 1: mean 7/6; squares 0.1111 + 0.6944 + 1.3611 = 2.1667,
    # / 2 = 1.0833, sqrt = 1.0408; SE = 1.0408 / sqrt(3) = 0.6009 -> 60.09 per 100 hands.
    frame = pd.DataFrame(
        {"hand": ["a", "a", "b"], "street_name": ["street 1"] * 3, "loss": [1.0, 0.5, 2.0]}
    )
    table = regret.per_100(frame, pd.Index(["a", "b", "c"]), ["street_name"])
    row = table.iloc[0]
    assert row["per_100_hands"] == pytest.approx(116.667, abs=1e-3)
    assert row["se"] == pytest.approx(60.09, abs=1e-2)
    assert row["decisions"] == 3
    assert bool(row["clear"]) is False  # 116.7 < 2 x 60.1


def test_the_regret_report(small: Path) -> None:
    player = grades(small)["player"].value_counts().index[0]
    with open_dataset(small) as db:
        report = regret.build(prepare(db, Filters(player=player)))
    assert {"by_street", "by_decision", "biggest_mistakes", "loss_parts"} <= set(report.tables)
    assert len(report.tables["by_street"]) == 5
    assert report.notes[-1].endswith("against the best legal play.")
    mistakes = report.tables["biggest_mistakes"]
    assert mistakes["loss"].is_monotonic_decreasing
    # Only decisions that lost (a new user's hero had 15 rows of loss 0: "best = chosen").
    mine = grades(small)
    lost = mine[(mine["player"] == player) & (mine["loss"].fillna(0) > 0)]
    assert (mistakes["loss"] > 0).all() and len(mistakes) == min(15, len(lost))
    assert (mine.loc[mine["player"] == player, "loss"].fillna(0) == 0).any()  # the premise
    # every mistake and close call links to its hand in the replayer
    assert "biggest_mistakes" in report.hands
    calls = report.tables.get("close_calls", pd.DataFrame({"hand_key": []}))
    assert set(mistakes["hand_key"]) | set(calls["hand_key"]) == set(report.replays)


def test_the_summary_leads_with_the_costliest_graded_decisions(small: Path) -> None:
    from reports import build_all, leak_summary

    player = grades(small)["player"].value_counts().index[0]
    with open_dataset(small) as db:
        built = build_all(db, Filters(player=player))
    regret_notes = next(r for r in built if r.key == "regret").notes
    summary = leak_summary(built)
    leads = min(len(regret_notes), 3)  # fewer decision types may have lost points
    assert leads and summary[:leads] == regret_notes[:leads]
    # The costliest named leaks lead whatever their SEs, each marked clear or not clear yet.
    if "leaks" in next(r for r in built if r.key == "regret").tables:
        assert re.search(
            r"over \d+ graded hands? of \d+ normal hands \(\d+ decisions?, ", summary[0]
        )
        assert re.search(r": (clear \(|not clear yet \()", summary[0]), summary[0]
    else:
        assert summary[0].startswith("No decision of yours lost expected points"), summary[0]


def test_a_dataset_without_grades_says_so(tmp_path: Path) -> None:
    data = heads_up(tmp_path, 2, seed=3)
    with open_dataset(data) as db:
        player = db.sql("SELECT player FROM seats LIMIT 1").fetchall()[0][0]
        report = regret.build(prepare(db, Filters(player=player)))
    assert report.notes[0].startswith("No graded decisions")


def test_weaker_styles_lose_more_per_hand(tmp_path: Path) -> None:
    # Heads-up bots: weak (noisy, cheap fouls) and chaser (chases Fantasyland) against
    # careful and strong.  100 hands, every seat graded with 8 rollouts a candidate.
    data = heads_up(tmp_path, 100, seed=5)
    grade_dataset(data, GradeOptions(rollouts=8), workers=2)
    frame = grades(data)
    streets = frame[frame["kind"] == "street"]
    per_seat = streets.groupby(["hand_key", "seat", "player"])["loss"].sum().reset_index()
    per_seat["style"] = per_seat["player"].map(STYLE)
    by_style = per_seat.groupby("style")["loss"].mean()
    worse = per_seat[per_seat["style"].isin(["weak", "chaser"])]["loss"].mean()
    better = per_seat[per_seat["style"].isin(["careful", "strong"])]["loss"].mean()
    assert worse > better
    # Each style's mean loss a hand has an SE of about 0.4-0.6 here (50 seats a style).
    # At seeds 5-7 (careful/chaser/strong/weak): 3.17/3.01/1.23/3.72, 2.88/2.70/1.92/3.94,
    # 2.98/2.61/2.09/3.06: weak loses more than careful and strong, chaser more than
    # strong, at all three; careful and chaser are closer than their SEs (the bots before
    # the two-step opening: careful/chaser 2.09/2.78, 2.07/2.08, 2.66/3.13), so their
    # order is not asserted.
    for bad, good in (("weak", "careful"), ("weak", "strong"), ("chaser", "strong")):
        assert by_style[bad] > by_style[good], by_style.to_dict()


def test_a_decision_sees_nothing_of_the_future(small: Path) -> None:
    """Every decision's cards: own board and dealt cards, own discards, and opponents' cards
    placed before it in order of action; never a later card, never an opponent's discard."""
    dataset = Dataset(small)
    batch = dataset.batches()[0]
    tables = [pq.read_table(dataset.batch_file(n, batch)) for n in ("hands", "seats", "placements")]
    placements = with_hand_keys(tables[2], tables[0]).to_pylist()  # stored by hand_id
    decisions = read_positions(*tables, get_ruleset).decisions
    assert decisions
    for d in decisions:
        moves = [p for p in placements if p["hand_key"] == d.hand_key]
        mine = [p for p in moves if p["seat"] == d.seat]
        assert set(d.dealt) == {p["card"] for p in mine if p["street"] == d.street}
        before = [p for p in mine if p["street"] < d.street]
        assert set(d.dead) == {p["card"] for p in before if p["destination"] == "discard"}
        assert {c for c in d.board if c >= 0} == {
            p["card"] for p in before if p["destination"] != "discard"
        }
        for o in d.opponents:
            if o.fantasy_cards:  # a Fantasyland board is face down until the showdown
                assert set(o.board) == {-1}
                assert o.next_street == len(get_ruleset("pineapple").variant.streets)
                continue
            theirs = [p for p in moves if p["seat"] != d.seat and p["destination"] != "discard"]
            last = d.street if o.seat < d.position else d.street - 1
            assert {c for c in o.board if c >= 0} == {
                p["card"] for p in theirs if p["street"] <= last
            }
            assert o.next_street == last + 1


def test_the_hand_view_shows_each_streets_loss_and_best_play(small: Path) -> None:
    import json

    from click.testing import CliRunner

    from ofc_stats.cli.main import main

    row = grades(small).query("kind == 'street' and status == 'graded'")
    row = row.sort_values("loss", ascending=False).iloc[0]
    done = CliRunner().invoke(
        main, ["hand", row["hand_key"], "--data", str(small), "--format", "json"]
    )
    assert done.exit_code == 0, done.output
    seat = json.loads(done.stdout)["seats"][int(row["seat"])]
    grade = seat["streets"][int(row["street"])]["grade"]
    assert grade["loss"] == pytest.approx(row["loss"]) and grade["best"] == row["best_play"]
    text = CliRunner().invoke(main, ["hand", row["hand_key"], "--data", str(small)])
    assert f"expected loss {row['loss']:.2f}" in text.stdout and row["best_play"] in text.stdout
    # A street graded without loss says so in words, not as "0.00 ± 0.00".
    assert "no expected loss: the best play, or within 2 SE of it" in text.stdout
    assert "expected loss 0.00" not in text.stdout


def test_forget_takes_the_grades_of_the_hands_it_removes(tmp_path: Path) -> None:
    """A forgotten file's hands leave no grade behind; the other file's grades stay.

    Two files of four simulated hands each, imported in two batches and
    graded; forgetting the first file leaves exactly the second's hand keys in
    ``grades`` and ``grade_candidates``; forgetting the second's batch leaves none.
    """
    from ofc_stats.store.forget import forget
    from ofc_stats.store.importer import import_paths
    from parsers.open_format import dumps

    ruleset = get_ruleset("pineapple")
    records = [
        r
        for r, _ in simulate(
            8, ruleset, seats=2, players=4, seed=3, tables=2, timeout_rate=0.0, rollouts=3
        )
    ]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text("".join(dumps(r) + "\n" for r in records[:4]))
    second.write_text("".join(dumps(r) + "\n" for r in records[4:]))
    data = tmp_path / "data"
    import_paths([first], data)
    import_paths([second], data)
    grade_dataset(data, GradeOptions(rollouts=4), workers=1)

    def graded_keys(table: str) -> set[str]:
        with open_dataset(data) as db:
            return {row[0] for row in db.sql(f"SELECT DISTINCT hand_key FROM {table}").fetchall()}

    def hand_keys(where: str) -> set[str]:
        with open_dataset(data) as db:
            query = "SELECT hand_key FROM hands WHERE source_file = ?"
            return {row[0] for row in db.sql(query, params=[where]).fetchall()}

    kept = hand_keys(str(second))
    assert graded_keys("grades") == hand_keys(str(first)) | kept
    forget(data, str(first))
    assert graded_keys("grades") == kept == graded_keys("grade_candidates")
    (batch,) = {Path(p).stem for p in Dataset(data).files("hands")}
    forget(data, batch)
    assert graded_keys("grades") == set() == graded_keys("grade_candidates")


def test_a_fantasyland_set_reads_as_the_solvers_when_it_holds_the_same_cards() -> None:
    """The player set the solver's very board, placing the cards in another order: the
    stored plays are the same text, row by row high to low, and nothing is lost."""
    from ofc_stats.engine.cards import parse_cards
    from ofc_stats.engine.presets import get_ruleset
    from ofc_stats.grade.fantasy import grade_set
    from ofc_stats.grade.position import FantasyDeal
    from ofc_stats.grade.tasks import fantasy_chunk

    rules = get_ruleset("pineapple-progressive")
    cards = parse_cards("As Ah Ad Kc Kd Qs Qh Jc Jd Tc 9h 8s 7d 6c")
    deal = FantasyDeal("h", 0, "Ana", rules, cards, board=cards[:13])  # any 13 to solve
    best = grade_set(deal, 0, False).best_board
    rows = [best[0:3], best[3:8], best[8:13]]
    played = tuple(c for row in rows for c in sorted(row))  # low to high, as placed
    deal = FantasyDeal("h", 0, "Ana", rules, cards, board=played)
    solved = grade_set(deal, 0, False)
    assert not solved.missed_repeat  # no repeat here: the set's value is its royalties
    table = fantasy_chunk([deal], {("h", 0): (int(solved.best_value), False)})["grades"]
    chosen, best_text = table["chosen_play"][0].as_py(), table["best_play"][0].as_py()
    assert chosen == best_text, (chosen, best_text)
    assert table["loss"][0].as_py() == 0.0


def test_a_player_is_found_by_name_or_by_the_rooms_id(small: Path) -> None:
    """A seat is the player's by stored name or by the room's player id (one rule for the
    grade run and the stored-grade summary: ``players_seats``): naming the player by id
    reads exactly the decisions naming them by name reads, and none of another seat."""
    dataset = Dataset(small)
    batch = dataset.batches()[0]
    hands, seats, placements = (
        pq.read_table(dataset.batch_file(n, batch)) for n in ("hands", "seats", "placements")
    )
    ids = pa.array([f"id-{name}" for name in seats["player"].to_pylist()])
    seats = seats.set_column(seats.schema.get_field_index("player_id"), "player_id", ids)
    name = seats["player"][0].as_py()
    by_name = read_positions(hands, seats, placements, get_ruleset, player=name).decisions
    by_id = read_positions(hands, seats, placements, get_ruleset, player=f"id-{name}").decisions
    assert by_name and by_name == by_id
    assert {d.player for d in by_id} == {name}
    everyone = read_positions(hands, seats, placements, get_ruleset).decisions
    assert len(everyone) > len(by_id)
    assert not read_positions(hands, seats, placements, get_ruleset, player="nobody").decisions
