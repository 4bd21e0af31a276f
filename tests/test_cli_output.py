"""What the commands print, exactly: seat numbers, escapes, and the short forms a person reads."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli import run, small_dataset


def test_hand_numbers_seats_as_every_table_does(tmp_path: Path) -> None:
    """Alice (stored seat 0): QQ top 7 + 9-high straight 4 + A-high flush 4 = 15
    royalties, Bob fouled: 6 for the scoop + 15 = +21; she is seat 0 here as in sql."""
    data = str(small_dataset(tmp_path))
    text = run("hand", "open:test:T1:1", "--data", data)
    assert text.exit_code == 0, text.output
    assert text.stdout == (
        "hand open:test:T1:1 (room id 1)\n"
        "test · table T1 · 2026-03-01 20:02:00 · pineapple-progressive\n"
        "\n"
        "seat 0: Alice\n"
        "  streets: unknown (final board only)\n"
        "  top    Qs Qd 2c        pair of Qs\n"
        "  middle 5h 6d 7c 8s 9h  straight 9-high\n"
        "  bottom 2h 7h Th Jh Ah  flush A-high\n"
        "  royalties 15 (top 7, middle 4, bottom 4)\n"
        "  points +21 (engine)\n"
        "  against seat 1: +21\n"
        "  earns Fantasyland (14 cards)\n"
        "\n"
        "seat 1: Bob\n"
        "  streets: unknown (final board only)\n"
        "  top    Ac Kd 3s        A-high\n"
        "  middle 4c 4d 4h Js Ks  three 4s\n"
        "  bottom 5c 5d 6c 8d 9c  pair of 5s\n"
        "  fouled: no royalties\n"
        "  points -21 (engine)\n"
        "  against seat 0: -21\n"
    )
    stored = run(
        "sql",
        "SELECT seat, player FROM seats WHERE hand_key = $k ORDER BY seat",
        "-p",
        "k=open:test:T1:1",
        "--data",
        data,
        "--format",
        "csv",
    )
    assert stored.stdout == "seat,player\n0,Alice\n1,Bob\n"
    hand = json.loads(run("hand", "open:test:T1:1", "--data", data, "--format", "json").stdout)
    assert [(s["seat"], s["player"], s["versus"]) for s in hand["seats"]] == [
        (0, "Alice", {"1": 21.0}),
        (1, "Bob", {"0": -21.0}),
    ]
