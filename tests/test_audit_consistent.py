"""A room that departs from the ruleset the same way every time follows a rule of its
own: the plain audit says so, once, and points to ``--guess-rules``, which infers it.

Ppp's progressive17 tables (named pineapple-ultimate) deal 16 cards of Fantasyland
after trips on top, where the ultimate rules give 17: on the real samples the audit
flags the 5 such deals, and Ppp never dealt 17 for them (``--guess-rules``:
``fantasy.entry_cards.222 = 16: 5 hands support, 0 contradict``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import ofc_stats
from ofc_stats.audit.points import CARD_COLUMNS, audit, card_departures
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from tests.shared_samples import APPS

GUESS = "`ofc-stats audit --guess-rules` infers each room's rules"


def _cards(*rows: tuple[float, float, int]) -> pd.DataFrame:
    """Deals of room R, ruleset U: (cards the rules give, cards dealt, how many times)."""
    return pd.DataFrame([("R", "U", *row) for row in rows], columns=CARD_COLUMNS)


def test_one_departure_every_time_is_the_rooms_own_rule() -> None:
    """17 given 5 times, 16 dealt all 5; the 14s the rules give were dealt as 14."""
    cards = _cards((14, 14, 40), (17, 16, 5))
    assert card_departures(cards, "R", "U") == (
        "the same departure every time: the room dealt 16 cards all 5 times the rules give "
        f"17 — a rule of its own, not a slip; {GUESS}"
    )


def test_a_departure_the_room_does_not_always_make_is_no_rule() -> None:
    """17 given 6 times: 16 dealt 5 times, 17 once: slips (or a change), not one rule."""
    assert card_departures(_cards((17, 16, 5), (17, 17, 1)), "R", "U") == ""


def test_two_deals_are_too_few_to_call_a_rule() -> None:
    assert card_departures(_cards((17, 16, 2)), "R", "U") == ""


def test_two_different_departures_are_no_one_rule() -> None:
    """17 given: 16 dealt 4 times, 15 twice."""
    assert card_departures(_cards((17, 16, 4), (17, 15, 2)), "R", "U") == ""


@pytest.mark.skipif(not APPS.is_dir(), reason="../shared/samples/apps is not here")
def test_the_real_ppp_card_counts_point_to_guess_rules(tmp_path: Path) -> None:
    data = tmp_path / "apps"
    import_paths([APPS], data)
    recompute(data)
    with ofc_stats.open(data) as db:
        report = audit(db)
    lines = report.lines()
    at = lines.index("    fantasy_cards: 5 hands (0.4% of the fantasy-checked)")
    assert lines[at + 1] == (
        "      the same departure every time: the room dealt 16 cards all 5 times the rules "
        f"give 17 — a rule of its own, not a slip; {GUESS}"
    )
    assert sum(GUESS in line for line in lines) == 1  # the other departures are not one rule
    # The Upoker USD rake: 3% rounded up to the cent, at most 2, gives 105 of its 106
    # winning seats to the cent; rounded to the nearest, 97 (test_audit_rake_exact.py).
    rakes = {rake.room: rake for rake in report.rakes}
    upoker = rakes["Upoker USD"]
    assert (upoker.rate, upoker.tick, upoker.mode, upoker.cap) == (0.03, 0.01, "up", 2.0)
    assert (upoker.explained, upoker.winners) == (105, 106)
