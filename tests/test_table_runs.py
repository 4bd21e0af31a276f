"""Two files' tables of one name are two tables wherever a table's hands are taken in turn.

Two simulations with bare table names (``--table-prefix ''``) both deal at T0000 and
T0001 and number their hands 0, 1, ...; the second file's hands reuse the first's keys
and are stored under ``hand_key~<fingerprint>``.  Both files start at the same time, so
ordered by time the two files' hands interleave.  The fantasy view already keeps such a
table apart per file (its run, ``table_runs``); here the report's sessions, the page's
sessions and the fields audit's running totals do too: each file's numbers in the
combined dataset are the numbers of that file imported alone.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ofc_stats
from ofc_stats.audit.fields import FIELDS_SQL
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from reports import Filters, prepare, sessions
from reports.explore import page_data
from tests.test_cli import run

# The same seed with a pool of 3 and of 4 bots: other hands at the same tables and times.
# 40 hands are two tables of 20 (T0000, T0001); Bo sits at all four of them.
SIMULATION = ("--hands", "40", "--seed", "3", "--timeouts", "0", "--table-prefix", "")
FILES = {"a.jsonl": ("--players", "3"), "b.jsonl": ("--players", "4")}
PLAYER = "Bo"


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``both``: a.jsonl then b.jsonl in one dataset; ``a.jsonl``, ``b.jsonl``: each alone."""
    folder = tmp_path_factory.mktemp("runs")
    files = []
    for name, options in FILES.items():
        out = folder / name
        result = run("simulate", *SIMULATION, *options, "--quiet", "--out", str(out))
        assert result.exit_code == 0, result.output
        files.append(out)
    out = {}
    for name, paths in (("both", files), *((f.name, [f]) for f in files)):
        data = folder / name.replace(".", "-")
        summary = import_paths(paths, data)
        assert (summary.stored, summary.duplicates) == (40 * len(paths), 0), summary.lines()
        recompute(data)
        out[name] = data
    return out


def test_the_second_files_hands_reuse_the_first_files_keys(datasets: dict[str, Path]) -> None:
    with ofc_stats.open(datasets["both"]) as db:
        rows = db.sql(
            "SELECT source_file, table_id, count(*), count(*) FILTER (WHERE contains(hand_key, '~')),"
            " min(played_at), max(played_at) FROM hands GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        # The two files' hands interleave at each table when ordered by time.
        interleaved = db.sql(
            "SELECT list(source_file ORDER BY played_at, room_hand_id, hand_key)[1:4] "
            "FROM hands WHERE table_id = 'T0000'"
        ).fetchall()[0][0]
    assert [(Path(f).name, t, n, r) for f, t, n, r, *_ in rows] == [
        ("a.jsonl", "T0000", 20, 0),
        ("a.jsonl", "T0001", 20, 0),
        ("b.jsonl", "T0000", 20, 20),
        ("b.jsonl", "T0001", 20, 20),
    ]
    assert len({(first, last) for *_, first, last in rows}) == 1  # the same times in both
    assert [Path(f).name for f in interleaved] == ["a.jsonl", "b.jsonl"] * 2


def test_table_runs_names_each_hand_of_a_reused_table_by_its_file(
    datasets: dict[str, Path],
) -> None:
    with ofc_stats.open(datasets["both"]) as db:
        runs = db.sql(
            "SELECT h.source_file = r.run, count(*) FROM hands h "
            "LEFT JOIN table_runs r USING (hand_id) GROUP BY ALL"
        ).fetchall()
    assert runs == [(True, 80)]
    with ofc_stats.open(datasets["a.jsonl"]) as db:  # no id reused: no run
        assert db.sql("SELECT count(*) FROM table_runs").fetchall() == [(0,)]


def _sessions(data: Path) -> list[tuple[object, ...]]:
    with ofc_stats.open(data) as db:
        listed = sessions.build(prepare(db, Filters(player=PLAYER))).tables["sessions"]
    return [
        (str(r.start), float(r.minutes), r.room, r.table, int(r.hands), round(r.net_points, 6))
        for r in listed.itertuples()
    ]


def test_each_files_table_is_a_session_of_its_own(datasets: dict[str, Path]) -> None:
    """Bo's 80 hands are four tables' 20, 90 s apart (19 gaps of 1.5 minutes plus one: 29.5
    minutes a session); one table's two files made one session of 40 hands before."""
    both = _sessions(datasets["both"])
    alone = _sessions(datasets["a.jsonl"]) + _sessions(datasets["b.jsonl"])
    assert [hands for *_, hands, _ in both] == [20] * 4
    assert Counter(both) == Counter(alone)
    assert {minutes for _, minutes, *_ in both} == {19 * 1.5 + 1}


def test_the_pages_sessions_split_a_reused_table_by_file(datasets: dict[str, Path]) -> None:
    """The page's script (sessionsOf) starts a session where format, room or table change:
    the page's table codes tell the two files' T0000 apart, each named T0000."""
    with ofc_stats.open(datasets["both"]) as db:
        live = page_data(prepare(db, Filters(player=PLAYER)))
        files = dict(db.sql("SELECT hand_key, source_file FROM hands").fetchall())
    hands = live["hands"]
    codes = zip(hands["fmt"], hands["room"], np.asarray(hands["table"]).tolist(), strict=True)
    groups: dict[tuple[int, int, int], list[str]] = {}
    for key, code in zip(hands["key"], codes, strict=True):
        groups.setdefault(code, []).append(Path(files[key]).name)
    named = sorted(
        (live["tables"][t], sorted(Counter(f).items())) for (_, _, t), f in groups.items()
    )
    assert named == [
        ("T0000", [("a.jsonl", 20)]),
        ("T0000", [("b.jsonl", 20)]),
        ("T0001", [("a.jsonl", 20)]),
        ("T0001", [("b.jsonl", 20)]),
    ]


FIELD_RUNS = ["running_total", "field_change", "previous_points"]


def _field_runs(data: Path) -> pd.DataFrame:
    with ofc_stats.open(data) as db:
        frame = db.df(FIELDS_SQL.format(share="true"))
        files = db.df("SELECT hand_key, source_file FROM hands")
    frame = frame.merge(files, on="hand_key")
    frame["file"] = frame["source_file"].map(lambda f: Path(f).name)
    index = ["file", "table_id", "room_hand_id", "seat"]
    return frame.set_index(index)[["player_key", "net_capped", *FIELD_RUNS]].sort_index()


def test_the_fields_running_totals_stay_in_their_file(datasets: dict[str, Path]) -> None:
    """A running total of a player's points at a table, the change of the field since his
    last hand and his last hand's points: in the combined dataset what each file alone
    gives (across files, a running total summed both files' hands in turn)."""
    both = _field_runs(datasets["both"])
    alone = pd.concat([_field_runs(datasets["a.jsonl"]), _field_runs(datasets["b.jsonl"])])
    assert len(both) == 4 * 20 * 3
    pd.testing.assert_frame_equal(both, alone.sort_index())
    # A player's running total after his last hand of a file's table is his points there.
    by_table = both.reset_index().sort_values("room_hand_id", key=lambda s: s.astype(int))
    player = by_table.groupby(["file", "table_id", "player_key"])
    ends = player["running_total"].last()
    pd.testing.assert_series_equal(ends, player["net_capped"].sum(), check_names=False)


def test_the_button_evidence_stays_in_its_file(datasets: dict[str, Path]) -> None:
    """The rules inference's "did the button move after a Fantasyland hand" rows: each
    hand's next is its own file's next hand at the table, so the combined dataset's rows
    are the two files' rows alone, together (they interleaved across files before)."""
    from ofc_stats.audit.infer import BUTTON_SQL

    def rows(data: Path) -> Counter[tuple[object, ...]]:
        with ofc_stats.open(data) as db:
            return Counter(tuple(row) for row in db.sql(BUTTON_SQL).fetchall())

    alone = rows(datasets["a.jsonl"]) + rows(datasets["b.jsonl"])
    assert sum(alone.values()) > 10  # enough hands followed by the same table to tell
    assert rows(datasets["both"]) == alone
