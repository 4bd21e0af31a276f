"""A dealer chat beside a capture of the same table: the repeated hands are named at import.

The chat names no hand id, so its hands never deduplicate against a capture:
both are stored, the import says how many chat hands repeat a captured one,
and ``players`` and the report count each such pair once, as the capture.  The shared SwC samples are one session on table 310442: the
chat's hands #1 (+8/-8) and #2 (+19/-19) are the captures 298331001 and
298331002; its #3 (-4/+4) was not captured.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.store.importer import import_paths
from ofc_stats.store.overlap import chat_repeats
from tests.shared_samples import SWC

pytestmark = pytest.mark.skipif(not SWC.is_dir(), reason="../shared/samples absent")
CHAT = SWC / "dealer_chat_session.txt"
FIRST, SECOND = SWC / "http_pineapple_2p_hand.jsonl", SWC / "http_fantasyland_2p_hand.jsonl"


def test_the_chat_hands_a_capture_holds_are_paired_with_it(tmp_path: Path) -> None:
    import_paths([CHAT, FIRST, SECOND], tmp_path)
    pairs = {(r.chat_key.rsplit("#", 1)[1], r.capture_key) for r in chat_repeats(tmp_path)}
    assert pairs == {("1", "swc:SwC:310442:298331001"), ("2", "swc:SwC:310442:298331002")}


def test_two_chat_hands_alike_claim_one_capture_only_once(tmp_path: Path) -> None:
    """Hands #1 and #2 both +8/-8: one capture of a +8/-8 hand repeats one of them."""
    text = CHAT.read_text().replace("kestrel: +19, marlow: -19", "kestrel: +8, marlow: -8")
    chat = tmp_path / "chat.txt"
    chat.write_text(text)
    import_paths([chat, FIRST], tmp_path / "data")
    repeats = chat_repeats(tmp_path / "data")
    assert [(r.chat_key.rsplit("#", 1)[1], r.capture_key) for r in repeats] == [
        ("1", "swc:SwC:310442:298331001")  # the earlier chat hand, in order
    ]


def test_a_timed_capture_far_from_the_chat_is_another_hand(tmp_path: Path) -> None:
    """The archive's hand 298331050 (+6... at 19:02) against a chat of the same table, players
    and points two days later: not paired; the same chat the same evening is."""
    from ofc_stats.store.dataset import Dataset

    archive = SWC / "http_3p_foul_raw_messages.jsonl"
    import_paths([archive], tmp_path / "probe")
    seats = Dataset(tmp_path / "probe").read("seats", ["player", "reported_points"]).to_pylist()
    scores = ", ".join(f"{s['player']}: {int(s['reported_points']):+d}" for s in seats)
    for day, paired in (("2026-08-16", 0), ("2026-08-14", 1)):
        chat = tmp_path / f"chat-{day}.txt"
        chat.write_text(
            f"{day} 19:00:00 table=310587 Dealer: New game started (1 hands)\n"
            f"{day} 19:02:30 table=310587 Dealer: Hand #1 finished - {scores}\n"
        )
        data = tmp_path / f"data-{day}"
        import_paths([chat, archive], data)
        assert [r.timed for r in chat_repeats(data)] == [True] * paired, day


def test_the_import_says_how_many_chat_hands_repeat_a_capture(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["import", "--quiet", "--no-recompute", "--data", str(tmp_path)]
    alone = runner.invoke(main, [*args, str(CHAT)])
    assert "dealer-chat" not in alone.stdout  # nothing captured yet
    both = runner.invoke(main, [*args, str(FIRST), str(SECOND)])
    assert both.exit_code == 0, both.output
    assert (
        "  2 dealer-chat hands look like captured ones (same table, players and points;\n"
        "  2 without a capture time to confirm it): both are stored, counted once as the\n"
        f"  capture (docs/import.md: swc-chat); 2 from {CHAT}\n"
    ) in both.stdout


def test_players_count_a_repeated_hand_once(tmp_path: Path) -> None:
    """kestrel played three hands: #1 and #2 (captured too) and #3 (in the chat alone), so
    5 stored seats are 3 hands; marlow likewise."""
    import ofc_stats

    import_paths([CHAT, FIRST, SECOND], tmp_path)
    with ofc_stats.open(tmp_path) as db:
        hands = dict(db.sql("SELECT player, hands FROM players ORDER BY player").fetchall())
        stored = db.sql("SELECT count(*) FROM seats WHERE player = 'kestrel'").fetchall()
    assert hands == {"kestrel": 3, "marlow": 3}
    assert stored == [(5,)]  # both copies are kept: the view counts them once


def test_the_report_names_the_chat_hand_no_capture_holds(tmp_path: Path) -> None:
    """kestrel's report scores the two captured hands (+8, +19) and says that the points
    leave out #3, the chat's alone (-4): the two chat hands the captures repeat are not
    counted again."""
    import ofc_stats
    from ofc_stats.store.recompute import recompute
    from reports import Filters, choose_player, prepare, results

    import_paths([CHAT, FIRST, SECOND], tmp_path)
    recompute(tmp_path)
    with ofc_stats.open(tmp_path) as db:
        scope = prepare(db, choose_player(db, "kestrel").scope(Filters()))
        report = results.build(scope)
    summary = report.tables["summary"].set_index("measure")["value"]
    assert (summary["hands"], summary["net points"]) == (2, 27.0)
    assert report.notes[0] == (
        "The points leave out 1 hand not scored (no board to score: a dealer chat's, or left "
        "incomplete), where the room reported -4 points."
    )
