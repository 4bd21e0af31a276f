"""A loser who paid less than he owed because the room got his points wrong is no short
stack: where the room's ``result`` is the hand's points (its field verdict), the
shortfall is the room's points error, and the winners are owed what the rules give.

The bundled sample has no stacks, yet its planted royalty errors were explained as
short stacks, so ``audit --player`` said the room owed nothing on them.

Hand ``open:ofc-stats-sim:T0034:0`` of ``data/sim-open.jsonl``, 1 PTS a point, worked
out by hand (pineapple-progressive: 1 a row, 3 for a scoop, AA on top 9):

* Fay: top Ad Ac Qc (aces: 9), middle 6s 6h 3c Tc Td (two pair), bottom 5s 5d Jc Js 7h
  (two pair, jacks over middle's tens): no foul, royalties 9.
* Emil: top Qd 3s Jh, middle 3d 2h 9s 4c 3h (threes), bottom Qs 8d 7d Kd 4d (king
  high): bottom below middle, fouled.
* Ivo: top 2c Qh 6c, middle Kh As 9h 8s 8c (eights), bottom Jd Ts Kc Ks 9c (kings):
  no royalties.

Fay scoops Emil (fouled) 6 + 9 = 15 and Ivo (all three rows) 6 + 9 = 15: +30; Ivo scoops
Emil 6: -15 + 6 = -9; Emil -15 - 6 = -21.  The room scored the royalties from a table
without top-row royalties: Fay 6 + 6 = +12, Ivo -6 + 6 = 0, Emil -12, and paid that
money.  Both losers paid less than they owe (12 of 21, 0 of 9), and the winner got what
they paid: read as short stacks, the hand was settled.  But the room's points are
its `result`, and theirs are wrong: the rules owe Fay 30 - 12 = 18 PTS.
"""

from __future__ import annotations

from functools import partial
from importlib import import_module
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from ofc_stats.audit.money import Rake, after_rake, expected_money
from ofc_stats.cli.main import main
from ofc_stats.payouts.settle import explained_short

ROOT = Path(__file__).resolve().parents[1]
HAND = '"table":"T0034","hand_id":"0",'
LEDGER = import_module("ofc_stats.audit.ledger")  # (the package's `ledger` is the function)
NO_RAKE = Rake("R", 0.0, 0.01, "nearest", 0, 0)


def _hand_file(tmp_path: Path) -> Path:
    """The one hand, in the open format, as the sample holds it."""
    lines = (ROOT / "data" / "sim-open.jsonl").read_text(encoding="utf-8").splitlines()
    (line,) = [text for text in lines if HAND in text]
    path = tmp_path / "hand.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    return path


def _imported(tmp_path: Path) -> Path:
    """The hand imported (and its ledger priced) into a fresh dataset."""
    data = tmp_path / "data"
    args = ["import", "--quiet", "--data", str(data), str(_hand_file(tmp_path))]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    return data


@pytest.fixture(params=["whole", "batch by batch"])
def pricing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The ledger priced whole (a small dataset), or as a big one is: its rules from a
    sample (``room_money(hands=...)``), then each batch from its own files."""
    if request.param == "batch by batch":
        monkeypatch.setattr(LEDGER, "WHOLE_UP_TO", 0)
    return str(request.param)


def test_a_royalty_error_paid_by_the_rooms_points_is_owed_to_the_winner(
    tmp_path: Path, pricing: str
) -> None:
    data = _imported(tmp_path)
    runner = CliRunner()
    done = runner.invoke(main, ["audit", "--data", str(data), "--player", "Fay"])
    assert done.exit_code == 0, done.output
    assert (
        "Fay · ofc-stats-sim PTS: 1 hand, rules 30, paid 12, difference -18 "
        "(the room owes 18 PTS)" in done.output
    ), done.output
    assert "short stacks" not in done.output  # no short-stack settlement to name


def test_the_audits_money_rows_follow_the_points_not_a_short_stack(tmp_path: Path) -> None:
    """Every seat's money is off by the royalty error (-12 / +12 / 0 paid against -21 /
    +30 / -9): three money rows, each following the hand's points rows."""
    data = _imported(tmp_path)
    runner = CliRunner()
    out = tmp_path / "rows.csv"
    done = runner.invoke(main, ["audit", "--data", str(data), "--quiet", "--out", str(out)])
    assert done.exit_code == 0, done.output
    rows = pd.read_csv(out)
    money = rows[rows["class"] == "money"].sort_values("seat")
    assert money["room_value"].tolist() == [-12.0, 12.0, 0.0]
    assert money["recomputed_value"].tolist() == [-21.0, 30.0, -9.0]
    assert set(money["cause"]) == {"follows the room's points"}
    assert "no short-stacked loser" in done.output


def _frame(points: list[float], reported: list[float], money: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "hand_key": "h",
            "seat": list(range(len(points))),
            "net_capped": points,
            "reported_points": reported,
            "stakes": 1.0,
            "reported_money": money,
        }
    )


def _short(frame: pd.DataFrame, points_field: bool) -> bool:
    priced = expected_money(frame, points_field=points_field)
    return bool(explained_short(priced, partial(after_rake, rake=NO_RAKE)).any())


def test_only_a_points_field_tells_a_points_error_from_a_short_stack() -> None:
    """The hand above: where the room's `result` is not its points (Spartan's is not), a
    reported -12 says nothing, and the losers' 12 shared by the winner is still a short
    stack; where it is, the losers paid by their wrong points."""
    hand = _frame([-21, 30, -9], [-12, 12, 0], [-12, 12, 0])
    assert _short(hand, points_field=False)
    assert not _short(hand, points_field=True)


def test_a_short_stack_whose_points_the_room_got_right_stays_one() -> None:
    """Heads-up, +10 / -10 and reported so; the loser had 6 and the winner got 6 (no
    rake): a short stack in a points room too (as the real Ppp and Upoker hands are)."""
    hand = _frame([10, -10], [10, -10], [6, -6])
    assert _short(hand, points_field=True)
