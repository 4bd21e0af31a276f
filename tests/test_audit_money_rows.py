"""The audit's money rows: plain words, and said against what they are judged."""

from __future__ import annotations

from ofc_stats.audit.explain import money_text, plural, points_text
from ofc_stats.audit.money import Rake

NO_RAKE = Rake("room PTS", 0.0, 0.01, "nearest", 10, 10)


def test_losses_and_point_counts_read_as_people_write_them() -> None:
    """'lost 5 points' (not 'lost -5 points'), '1 point apart' (not '1 points apart')."""
    short = dict(
        owed=-5.0, reported_money=-4.0, expected_money=-5.0, currency="PTS",
        net_capped=-5.0, stakes=1.0, short_paid=True,
    )  # fmt: skip
    text = money_text(short, NO_RAKE)
    assert text.startswith("lost 5 points × 1 = 5 PTS; the room took only 4 PTS")
    assert "-" not in text
    charged = dict(short, reported_money=-8.0, expected_money=-7.0, owed=-7.0, short_paid=False)
    assert money_text(charged, NO_RAKE) == "lost 7 PTS by points × stakes; the room charged 8 PTS"
    won = dict(short, owed=1.0, reported_money=0.0, expected_money=1.0, net_capped=1.0)
    assert money_text(won, NO_RAKE).startswith("won 1 point × 1, 1 PTS after")
    seat = {"reported_points": 8.0, "net_capped": 7.0}
    assert "(1 point apart)" in points_text(seat, "")
    assert "(3 points apart)" in points_text({"reported_points": 10.0, "net_capped": 7.0}, "")
    assert plural(1409, "hand") == "1,409 hands" and plural(1.0, "hand") == "1 hand"
    assert plural(0.5, "point") == "0.5 points"
