"""The fouls and Fantasyland sections' headline figures, which follow the filter bar.

The page carries, per hand, the opponents' scored normal seats and their fouls
(``f_seats``, ``f_fouls`` in :func:`reports.explore.page_data`); Python draws the
figures over every hand (:mod:`reports.live_figures`) and the page's script redraws
them for the hands the bar keeps (``tests/test_browser.py`` checks the two say the same
unfiltered, and DuckDB's counts under each filter).  Here: the figures worked out by
hand on Alice's four hands (``tests/test_reports.py``), the same counts as the fouls and
Fantasyland sections, and on the real samples the page's foul rates as a SQL count.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import ofc_stats
from ofc_stats.cli.main import main
from ofc_stats.wording import fixed, signed
from reports import Filters, fantasy, fouls, prepare, resolve_player
from reports.explore import page_data
from reports.html import plus
from reports.live_figures import fantasy_text, figures, fouls_text, percent
from reports.stats import NO_INTERVAL, wilson
from tests.builders import sim_records, write_dataset
from tests.shared_samples import APPS
from tests.test_reports import alice_hands


def rate(events: int, trials: int) -> str:
    """``33.3% (1 of 3; 95% interval …)`` from :func:`reports.stats.wilson` and Python's %."""
    share, low, high = wilson(events, trials)
    return f"{share:.1%} ({events:,} of {trials:,}; 95% interval {low:.1%} to {high:.1%})"


@pytest.fixture(scope="module")
def alice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("alice"), alice_hands())


def test_alices_figures_worked_out_by_hand(alice: Path) -> None:
    """Alice's normal hands are H1, H3 and H4: she fouls H3 (1 of 3) and earns Fantasyland
    in H1 (1 of 3).  Bob plays all four hands normally and fouls H1 only: the field fouls
    1 of 4.  H2 is her one Fantasyland hand: +1 point, too few hands for an interval."""
    with ofc_stats.open(alice) as db:
        scope = prepare(db, Filters(player=resolve_player(db, "Alice")[0]))
        live = page_data(scope)
    assert list(live["hands"]["f_seats"]) == [1, 1, 1, 1]
    assert list(live["hands"]["f_fouls"]) == [1, 0, 0, 0]
    counted = figures(live["hands"])
    assert (counted.normal, counted.fouls, counted.entries) == (3, 1, 1)
    assert (counted.field_seats, counted.field_fouls) == (4, 1)
    assert counted.fantasy_points == [1.0]
    assert fouls_text(counted) == (
        f"Your foul rate over these normal hands: {rate(1, 3)}. The field's, over your "
        f"opponents' normal hands in these hands: {rate(1, 4)}."
    )
    assert fantasy_text(counted) == (
        f"Your Fantasyland entry rate over these normal hands: {rate(1, 3)}. "
        f"1 Fantasyland hand: +1 points, +1.00 per hand ({NO_INTERVAL})."
    )
    # kept: H3 and H4 only (positions 2 and 3): no Fantasyland hand, 1 foul in 2
    kept = figures(live["hands"], [2, 3])
    assert (kept.normal, kept.fouls, kept.field_seats, kept.field_fouls) == (2, 1, 2, 0)
    assert fantasy_text(kept).endswith(" No Fantasyland hand among these hands.")


def test_the_figures_are_the_fouls_and_fantasyland_sections_counts(
    alice: Path, tmp_path: Path
) -> None:
    """Counted from the page's rows, the figures are those the sections count from the
    scope's seats (the fouls summary, the Fantasyland rates and points), for every hand:
    on Alice's hands and on 150 simulated 3-handed hands of six players; the field is the
    other seats of the player's hands, scored and not in Fantasyland, as DuckDB counts it."""
    simulated = write_dataset(tmp_path, sim_records(150, seed=4))
    for data in (alice, simulated):
        with ofc_stats.open(data) as db:
            player = (
                "Alice" if data == alice else str(db.df("SELECT min(player) FROM seats").iloc[0, 0])
            )
            scope = prepare(db, Filters(player=resolve_player(db, player)[0]))
            live = page_data(scope)
            counted = figures(live["hands"])
            foul_summary = fouls.build(scope).tables["summary"].set_index("hands")
            fl = fantasy.build(scope).tables
            field = db.sql(
                "SELECT count(*), count(*) FILTER (WHERE fouled) FROM seat_results "
                "WHERE player <> $p AND status = 'scored' AND NOT in_fantasy AND hand_id IN "
                "(SELECT hand_id FROM seat_results WHERE player = $p AND status = 'scored')",
                {"p": player},
            ).fetchall()[0]
        normal = foul_summary.loc["normal hands"]
        assert (counted.normal, counted.fouls) == (normal["count"], normal["fouls"])
        entry = fl["rates"].set_index("measure").loc["entry (of normal hands)"]
        assert (counted.entries, counted.normal) == (entry["count"], entry["of"])
        per_hand = fl["points"].set_index("measure").loc["per Fantasyland hand"]
        assert len(counted.fantasy_points) == per_hand["hands"]
        if counted.fantasy_points:
            mean = sum(counted.fantasy_points) / len(counted.fantasy_points)
            assert mean == pytest.approx(per_hand["points"])
        assert (counted.field_seats, counted.field_fouls) == field
        assert counted.normal > 0 and counted.field_seats > counted.normal  # not empty checks


def test_numbers_are_written_as_the_pages_script_writes_them() -> None:
    """Half away from zero on the exact value, as Intl.NumberFormat and toFixed round
    (``f"{1.125:.2f}"`` is 1.12: half to even); a sign on every figure but zero."""
    assert f"{1.125:.2f}" == "1.12" and fixed(1.125, 2) == "1.13"  # 1.125 is exact in binary
    assert fixed(-1.125, 2) == "-1.13" and fixed(2.5, 0) == "3"
    # 1.005 is 1.00499999999999989… in binary: Intl rounds its shortest decimal, 1.005;
    # toFixed (the percentages) the exact value
    assert (
        fixed(1.005, 2) == "1.01" and percent(3 / 2000) == "0.1%"
    )  # 100 * 3 / 2000: 0.15 less a hair
    assert fixed(1234567.891, 2) == "1,234,567.89"
    assert signed(1234.5, 0) == "+1,235" and signed(-0.3, 2) == "-0.30"
    assert signed(0.004, 2) == signed(-0.004, 2) == "0.00"
    assert percent(427 / 1403) == "30.4%" and percent(1.0) == "100.0%"
    assert plus("1.19", 1.19) == "+1.19" and plus("-0.00", -0.001) == "0.00"
    assert plus("–", None) == "–" and plus("-2", -2) == "-2"


@pytest.mark.skipif(not APPS.is_dir(), reason="the shared real samples are not here")
def test_the_samples_foul_rate_is_a_sql_count(tmp_path: Path) -> None:
    """On the real samples (the hero's 1,864 scored hands, every seat of his accounts
    marked hero and none of them meeting another): counted by SQL over ``seat_results``,
    his normal hands are 1,403 with 427 fouls, 427 / 1,403 = 30.4%; the other seats of
    his scored hands, scored and not in Fantasyland, are 1,896 with 620 fouls,
    620 / 1,896 = 32.7%; he earned Fantasyland from 367 normal hands (26.2%) and played
    461 Fantasyland hands.  The page says those counts."""
    data, out = tmp_path / "data", tmp_path / "report.html"
    runner = CliRunner()
    done = runner.invoke(main, ["import", "--quiet", "--data", str(data), str(APPS)])
    assert done.exit_code == 0, done.output
    done = runner.invoke(main, ["report", "--data", str(data), "--out", str(out)])
    assert done.exit_code == 0, done.output
    query = (
        "WITH mine AS (SELECT * FROM seat_results WHERE hero AND status = 'scored') "
        "SELECT (SELECT count(*) FROM mine WHERE NOT in_fantasy) AS normal, "
        "(SELECT count(*) FROM mine WHERE NOT in_fantasy AND fouled) AS fouls, "
        "(SELECT count(*) FROM mine WHERE NOT in_fantasy AND fantasy_entry > 0) AS entries, "
        "(SELECT count(*) FROM mine WHERE in_fantasy) AS fantasy, "
        "count(*) AS field_seats, count(*) FILTER (WHERE fouled) AS field_fouls "
        "FROM seat_results WHERE NOT hero AND status = 'scored' AND NOT in_fantasy "
        "AND hand_id IN (SELECT hand_id FROM mine)"
    )
    done = runner.invoke(main, ["sql", "--data", str(data), "--format", "csv", query])
    assert done.exit_code == 0, done.output
    lines = done.output.strip().splitlines()
    assert lines[0] == "normal,fouls,entries,fantasy,field_seats,field_fouls"
    normal, fouled, entries, played, field_seats, field_fouls = map(int, lines[1].split(","))
    assert (normal, fouled, field_seats, field_fouls) == (1403, 427, 1896, 620)
    assert (entries, played) == (367, 461)
    page = out.read_text(encoding="utf-8")
    said = {
        key: html.unescape(re.search(f'<p class="card live-figure" id="{key}">(.*?)</p>', page)[1])
        for key in ("live-fouls", "live-fantasy")
    }
    assert said["live-fouls"] == (
        f"Your foul rate over these normal hands: {rate(fouled, normal)}. The field's, over "
        f"your opponents' normal hands in these hands: {rate(field_fouls, field_seats)}."
    )
    assert said["live-fouls"].startswith(
        "Your foul rate over these normal hands: 30.4% (427 of 1,403;"
    )
    assert "in these hands: 32.7% (620 of 1,896;" in said["live-fouls"]
    assert said["live-fantasy"].startswith(
        f"Your Fantasyland entry rate over these normal hands: {rate(entries, normal)}. "
        f"{played:,} Fantasyland hands: "
    )


def test_the_field_never_holds_the_players_own_accounts(tmp_path: Path) -> None:
    """Two accounts of one person that met at a table: the hand counts once, and neither
    account's seat is the field's (a person does not foul against themselves); with
    ``--self-play skip`` those hands are left out of the field too."""
    data = write_dataset(tmp_path, sim_records(150, seed=4))
    with ofc_stats.open(data) as db:
        keys = [r[0] for r in db.sql("SELECT DISTINCT player FROM seats ORDER BY 1").fetchall()]
        pair = (keys[0], keys[1])
        for choice in ("once", "skip"):
            live = page_data(prepare(db, Filters(accounts=pair, self_play=choice)))
            counted = figures(live["hands"])
            mine = (
                "SELECT hand_id FROM seat_results WHERE status = 'scored' "
                "AND list_contains($a, player_key)"
            )
            met = f"SELECT hand_id FROM ({mine}) GROUP BY hand_id HAVING count(*) > 1"
            field = db.sql(
                "SELECT count(*), count(*) FILTER (WHERE fouled) FROM seat_results "
                "WHERE NOT list_contains($a, player_key) AND status = 'scored' "
                f"AND NOT in_fantasy AND hand_id IN ({mine}) "
                + (f"AND hand_id NOT IN ({met})" if choice == "skip" else ""),
                {"a": list(pair)},
            ).fetchall()[0]
            assert (counted.field_seats, counted.field_fouls) == field, choice
            assert db.sql(f"SELECT count(*) FROM ({met})", {"a": list(pair)}).fetchall()[0][0]
