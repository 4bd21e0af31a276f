"""Timeouts: flagged only where the format records them; the simulator records its own."""

from __future__ import annotations

import json
from pathlib import Path

import ofc_stats
from ofc_stats.audit.timeouts import timeout_evidence
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute


def _data(tmp_path: Path, output_format: str, rate: float, hands: int = 60) -> Path:
    out = tmp_path / ("sim.hh" if output_format == "app-json" else "sim.jsonl")
    write_simulation(
        out, hands, get_ruleset("pineapple-ultimate"), output_format=output_format, seats=3,
        players=6, seed=9, rollouts=2, timeout_rate=rate,
    )  # fmt: skip
    import_paths([out], tmp_path / "data")
    recompute(tmp_path / "data")
    return tmp_path / "data"


def _planted(path: Path) -> set[tuple[str, int, int]]:
    """(room hand id and table, seat, street) of every street the simulator timed out,
    read from the file it wrote (the writer marks them ``"timeout": true``)."""
    planted = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        hand = json.loads(line)
        for seat, entry in enumerate(hand["seats"]):
            for street, step in enumerate(entry.get("streets", [])):
                if step.get("timeout"):
                    planted.add((f"{hand['table']}/{hand['hand_id']}", seat, street))
    return planted


def test_the_apps_format_flags_no_street_but_keeps_the_pattern(tmp_path: Path) -> None:
    """The same simulated timeouts: in the apps' format (street digits only) the pattern
    still matches, but no street is flagged, no count is estimated (the trial printed
    '≈ 225 streets possibly timed out' by comparing other players with the hero), and the
    audit says the format does not record timeouts."""
    with ofc_stats.open(_data(tmp_path, "app-json", 0.3)) as db:
        counts = db.df(
            "SELECT count(*) FILTER (WHERE pattern_match) AS matches, "
            "count(*) FILTER (WHERE timeout) AS flagged, bool_or(flaggable) AS any_flaggable "
            "FROM streets"
        ).iloc[0]
        (evidence,) = timeout_evidence(db)
    assert counts["matches"] > 20 and counts["flagged"] == 0 and not counts["any_flaggable"]
    assert not evidence.flaggable
    (line,) = evidence.lines()
    assert "the format does not record timeouts" in line and "none is estimated" in line
    assert "possibly timed out" not in line and "base rate" not in line


def test_timeout_free_simulated_hands_flag_no_street(tmp_path: Path) -> None:
    """`--timeouts 0`: the demo's kind of data once had 22% of its free streets flagged
    (3,809 of 17,038) because free choices match the auto-placement; now none, while the
    pattern still matches many streets the players chose."""
    with ofc_stats.open(_data(tmp_path, "open", 0.0)) as db:
        rows = db.df("SELECT pattern_match, timeout, forced FROM streets WHERE street > 0")
        (evidence,) = timeout_evidence(db)
    free = rows[~rows["forced"]]
    assert rows["timeout"].sum() == 0 and free["pattern_match"].sum() > 20
    assert "0 of" in evidence.lines()[0] and "recorded as timed out" in evidence.lines()[0]


def test_flags_recover_the_planted_timeouts(tmp_path: Path) -> None:
    """`--timeouts 0.05` on the open format (it records the deal order and each timeout):
    the flagged streets against the simulator's planted ones, free streets only (a forced
    street is no decision): precision and recall at least 0.9 (the goal); every recorded
    timeout follows the auto-placement rule."""
    data = _data(tmp_path, "open", 0.05, hands=150)
    planted = _planted(tmp_path / "sim.jsonl")
    with ofc_stats.open(data) as db:
        rows = db.df(
            "SELECT h.table_id || '/' || h.room_hand_id AS hand, st.seat, st.street, "
            "st.timeout, st.forced, st.pattern_match FROM streets st JOIN hands h USING (hand_key)"
        )
        (evidence,) = timeout_evidence(db)
    free = rows[~rows["forced"]]
    flagged = {(h, int(s), int(t)) for h, s, t, f in free[["hand", "seat", "street", "timeout"]]
               .itertuples(index=False) if f}  # fmt: skip
    truth = {key for key in planted if key in set(zip(free["hand"], free["seat"], free["street"],
                                                          strict=True))}  # fmt: skip
    assert len(truth) > 20
    hits = len(flagged & truth)
    assert hits / len(flagged) >= 0.9 and hits / len(truth) >= 0.9
    assert free.loc[free["timeout"], "pattern_match"].all()
    assert evidence.flaggable and "placed as the auto-placement rule says" in evidence.lines()[0]


def test_streets_join_the_results_on_the_integer_hand_id(tmp_path: Path) -> None:
    """An analyst's find: `streets` had only `hand_key`, so joining it to `results`
    (whose key is `hand_id`, as the docs say of every view) failed with "Referenced column
    hand_id not found".  Each street row now carries its hand's `hand_id`: the join finds
    every street row a seat, one seat's result per street."""
    with ofc_stats.open(_data(tmp_path, "app-json", 0.0)) as db:
        joined, streets = db.df(
            "SELECT (SELECT count(*) FROM streets JOIN results USING (hand_id, seat)) AS j, "
            "(SELECT count(*) FROM streets) AS s"
        ).iloc[0]
    assert joined == streets > 0
