"""Timeouts: flagged only where the format records the deal order; base rates elsewhere."""

from __future__ import annotations

from pathlib import Path

import ofc_stats
from ofc_stats.audit.timeouts import timeout_evidence
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.sim.rooms import write_simulation
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute


def _data(tmp_path: Path, output_format: str) -> Path:
    out = tmp_path / ("sim.hh" if output_format == "app-json" else "sim.jsonl")
    write_simulation(
        out, 60, get_ruleset("pineapple-ultimate"), output_format=output_format, seats=3,
        players=6, seed=9, rollouts=2, timeout_rate=0.3,
    )  # fmt: skip
    import_paths([out], tmp_path / "data")
    recompute(tmp_path / "data")
    return tmp_path / "data"


def test_the_apps_format_flags_no_street_but_keeps_the_pattern(tmp_path: Path) -> None:
    """The same simulated timeouts: in the apps' format (street digits only) the pattern
    still matches, but no street is flagged, no count is estimated (the trial printed
    '≈ 225 streets possibly timed out' by comparing other players with the hero), and the
    audit says the format does not record timeouts."""
    with ofc_stats.open(_data(tmp_path, "app-json")) as db:
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


def test_the_open_format_flags_what_matches_on_free_streets(tmp_path: Path) -> None:
    with ofc_stats.open(_data(tmp_path, "open")) as db:
        rows = db.df("SELECT forced, flaggable, pattern_match, timeout FROM streets")
        (evidence,) = timeout_evidence(db)
    assert (rows["timeout"] == (rows["pattern_match"] & rows["flaggable"])).all()
    assert (rows["flaggable"] == ~rows["forced"]).all()
    assert rows["timeout"].sum() > 20
    assert evidence.flaggable and "are flagged" in evidence.lines()[0]
