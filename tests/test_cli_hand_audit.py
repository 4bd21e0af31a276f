"""`ofc-stats hand` ends with what the audit finds in that hand, and says when it finds none.

The hands are heads-up: under pineapple-progressive Alice (QQ top 7 + straight 4 + flush
4 = 15 royalties) scoops Bob, who fouls: 6 + 15 = +21 for her, -21 for him.  Each hand
is at a table of its own (no hand follows another: no Fantasyland check) unless said.
Every finding shown is checked against the whole audit's rows for that hand.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import ofc_stats
from ofc_stats.audit.hand_findings import hand_findings
from ofc_stats.audit.ledger import price_ledger
from ofc_stats.audit.points import audit
from ofc_stats.records import HandRecord
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from tests.builders import hand_record, seat_record, write_dataset
from tests.shared_samples import APPS
from tests.test_cli import run, small_dataset
from tests.test_report_timeouts import dataset as timeout_dataset

ALICE = seat_record(0, "Alice", "Qs Qd 2c", "5h 6d 7c 8s 9h", "2h 7h Th Jh Ah")
BOB = seat_record(1, "Bo\x1b[2Jb", "Ac Kd 3s", "4c 4d 4h Js Ks", "5c 5d 6c 8d 9c")
SHOWN_BOB = "Bo\\x1b[2Jb"  # his name as a terminal shows it: the escape never sent raw


def _hand(number: int, points: tuple[float, float], money: tuple[float, float]) -> HandRecord:
    alice = replace(ALICE, reported_points=points[0], reported_money=money[0])
    bob = replace(BOB, reported_points=points[1], reported_money=money[1])
    return replace(hand_record(number, (alice, bob)), table_id=f"T{number}", stakes=1.0)


def _section(data: Path, key: str) -> list[str]:
    """The lines of the hand's audit section, as a person reads them."""
    shown = run("hand", key, "--data", str(data))
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    assert "\naudit:\n" in text
    return text.split("\naudit:\n", 1)[1].splitlines()


def _audited(data: Path) -> dict[str, set[tuple[str, int]]]:
    """hand_key -> (class, seat) of every row the whole audit lists for it."""
    with ofc_stats.open(data) as db:
        rows = audit(db).mismatches
    found: dict[str, set[tuple[str, int]]] = {}
    for row in rows.to_dict("records"):
        found.setdefault(str(row["hand_key"]), set()).add((str(row["class"]), int(row["seat"])))
    return found


def test_points_and_money_findings_and_a_clean_hand(tmp_path: Path) -> None:
    """Hands 1-4 report +21/-21 as the rules give and are paid 21 (stakes 1: the rake
    inferred from them is none).  Hand 5 reports 19/-19: Alice's middle straight pays 4
    under pineapple-progressive, 2 at bottom rates, so 21 - 2 = 19 is the royalty table
    with the middle paid at bottom rates.  Hand 6 is paid 20/-21 (points right).  Hand 7
    reports -21/+21: every sign flipped.  Hand 8 reports 13/-13: 8 apart, no rule."""
    hands = [_hand(n, (21, -21), (21, -21)) for n in range(1, 5)]
    hands += [_hand(5, (19, -19), (21, -21)), _hand(6, (21, -21), (20, -21))]
    hands += [_hand(7, (-21, 21), (21, -21)), _hand(8, (13, -13), (21, -21))]
    data = write_dataset(tmp_path, hands)
    key = "open:test:T{0}:{0}".format
    assert _section(data, key(6)) == [
        "  money: not checked here: the ledger was not priced for the stored hands "
        "(`ofc-stats recompute` prices it, as every import does)"
    ]
    audited = _audited(data)
    assert run("audit", "--data", str(data)).exit_code == 0  # prices and stores the ledger
    assert key(1) not in audited
    assert _section(data, key(1)) == ["  nothing found in this hand"]
    assert audited[key(5)] == {("royalties", 0), ("royalties", 1)}
    table = "american royalty table with the middle paid at bottom rates"
    assert _section(data, key(5)) == [
        "  royalties: seat 0 (Alice): straight 9-high on middle pays 4 under "
        f"pineapple-progressive; room paid 2 (the room's points match the {table})",
        f"  royalties: seat 1 ({SHOWN_BOB}): royalties differ on an opponent's board "
        f"(the room's points match the {table})",
    ]
    assert audited[key(6)] == {("money", 0)}
    assert _section(data, key(6)) == [
        "  money: seat 0 (Alice): the room paid +20, the rules give +21 (no rake)"
    ]
    assert audited[key(7)] == {("points", 0), ("points", 1)}
    assert _section(data, key(7)) == [
        "  points: seat 0 (Alice): room -21, recomputed +21 (42 points apart); every seat's "
        "points have the opposite sign",
        f"  points: seat 1 ({SHOWN_BOB}): room +21, recomputed -21 (42 points apart); every "
        "seat's points have the opposite sign",
    ]
    assert audited[key(8)] == {("points", 0), ("points", 1)}
    assert _section(data, key(8))[0] == (
        "  points: seat 0 (Alice): room +13, recomputed +21 (8 points apart); no single rule "
        "change explains it"
    )
    as_json = json.loads(run("hand", key(8), "--data", str(data), "--format", "json").stdout)
    assert len(as_json["audit"]) == 2 and "\x1b" in as_json["audit"][1]  # exact for a program


def test_a_room_whose_points_field_is_not_points_is_said_so_once(tmp_path: Path) -> None:
    """20 hands (MIN_HANDS) whose field holds 5 and 3: never the points (+21/-21), never
    zero-sum: the audit does not read it as points and lists no points row."""
    hands = [_hand(n, (5, 3), (21, -21)) for n in range(1, 21)]
    data = write_dataset(tmp_path, hands)
    assert not any(c == "points" for found in _audited(data).values() for c, _ in found)
    lines = _section(data, "open:test:T1:1")
    assert lines[0] == (
        "  points: the room's points differ from the rules on 2 seat(s), but test's `result` "
        "field is not this hand's points (it agrees on 0.0% of its seats): the audit leaves "
        "it out"
    )


def test_fantasyland_not_dealt_is_found_in_the_next_hand(tmp_path: Path) -> None:
    """Two hands two minutes apart at one table: Alice's QQ top earns Fantasyland in hand 1,
    and hand 2 deals her a normal hand: hand 2 shows it, hand 1 shows nothing."""
    data = small_dataset(tmp_path)
    assert _audited(data)["open:test:T1:2"] == {("fantasy_entry", 0)}
    assert _section(data, "open:test:T1:1") == ["  nothing found in this hand"]
    assert _section(data, "open:test:T1:2") == [
        "  Fantasyland: seat 0 (Alice): pair of Qs on top in open:test:T1:1 earns 14 cards "
        "of Fantasyland under pineapple-progressive; the room dealt a normal hand"
    ]


def test_a_recorded_timeout_is_listed_with_its_street(tmp_path: Path) -> None:
    """The open copy of tests.test_report_timeouts' hand records Alice's fourth street as
    timed out, placed as the auto-placement gives; the app copy records none."""
    data = timeout_dataset(tmp_path, ("open", "app-json"))
    with ofc_stats.open(data) as db:
        keys = dict(db.sql("SELECT format, hand_key FROM hands").fetchall())
    assert _section(data, keys["open"]) == [
        "  timeout: seat 0 (Alice): street 4 recorded as timed out; placed as the "
        "auto-placement rule says"
    ]
    assert _section(data, keys["app-json"]) == ["  nothing found in this hand"]


FANTASY_CLASSES = ("fantasy_entry", "repeat", "fantasy_cards")


@pytest.mark.skipif(not APPS.is_dir(), reason="../shared/samples/apps is not here")
def test_on_the_real_samples_each_hand_shows_what_the_whole_audit_lists(tmp_path: Path) -> None:
    """About 2,000 real hands: for each hand the audit lists (its 31 rows: money and
    Fantasyland) and every 40th other hand, the hand's findings name the same seats and
    checks.  Spartan's `result` is not its points (the audit leaves it out): a hand of it
    whose field differs says so once, as a line about the room, not a seat."""
    data = tmp_path / "apps"
    import_paths([APPS], data)
    recompute(data)
    with ofc_stats.open(data) as db:
        rows = audit(db).mismatches
        price_ledger(db)  # as `ofc-stats audit` does: the money findings read it
        listed: dict[str, set[tuple[str, int | None]]] = {}
        for row in rows.to_dict("records"):
            check = "Fantasyland" if row["class"] in FANTASY_CLASSES else str(row["class"])
            listed.setdefault(str(row["hand_key"]), set()).add((check, int(row["seat"])))
        keys = [str(k) for (k,) in db.sql("SELECT hand_key FROM hands ORDER BY 1").fetchall()]
        sample = sorted(set(listed) | set(keys[::40]))
        shown = {key: hand_findings(db, key) for key in sample}
    assert len(listed) >= 20 and len(sample) >= 60
    for key in sample:
        seats = {(f.check, f.seat) for f in shown[key] if f.seat is not None}
        assert seats == listed.get(key, set()), key
        about_room = [f.line() for f in shown[key] if f.seat is None]
        assert all("Spartan's `result` field is not this hand's points" in x for x in about_room), (
            about_room
        )
