"""`ofc-stats hand` says what the room paid each seat, what its money rules pay, and why a
short-stacked loser paid less than its points at the stakes.

The real hand ``210330045840-21910804-0000008-1`` (Ppp, pineapple-ultimate, 20 PHP a
point, heads-up): the hero loses 27 points, which at 20 a point are 27 × 20 = 540 PHP,
but the room took 430 from him: his stack.  The winner got 430 less the room's 3% rake,
rounded to the nearest 1: 430 × 0.03 = 12.9 -> 13, so 417.  The money rules are inferred
from the file's own ten hands.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.shared_samples import APPS
from tests.test_cli import run

FILE = APPS / "hh_nojokers2" / "20210330_005406.066.hh"
KEY = "app-json:Ppp:21910804:210330045840-21910804-0000008-1"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not FILE.is_file():
        pytest.skip("../shared samples absent")
    root = tmp_path_factory.mktemp("hand-money") / "data"
    done = run("import", str(FILE), "--data", str(root), "--quiet")  # prices the ledger too
    assert done.exit_code == 0, done.output
    return root


def test_a_short_stacked_loser_is_explained(data: Path) -> None:
    shown = run("hand", KEY, "--data", str(data))
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    rules = [line for line in lines if line.startswith("money rules")]
    assert len(rules) == 1 and "3.00% of the winnings, rounded nearest to 1" in rules[0]
    assert "short stacks" in rules[0] and "inferred from these hands" in rules[0]
    loser = lines.index("  money -430.00 PHP (room), -430.00 PHP by the rules")
    assert lines[loser + 1] == (
        "    27 points at 20 a point are 540.00 PHP: a short stack pays what it has"
    )
    assert "  money +417.00 PHP (room), +417.00 PHP by the rules" in lines
    assert sum("short stack pays" in line for line in lines) == 1  # the winner is not one


def test_the_json_carries_each_seats_money_by_the_rules(data: Path) -> None:
    shown = run("hand", KEY, "--data", str(data), "--format", "json")
    assert shown.exit_code == 0, shown.output
    ledger = json.loads(shown.stdout)["money_rules"]
    assert ledger["seats"] == {"0": -430.0, "1": 417.0}
    assert ledger["source"] == "inferred from these hands"
