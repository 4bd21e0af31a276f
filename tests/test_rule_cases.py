"""Hand-derived rule cases (tests/rules/*.jsonl), each with its derivation in ``why``,
run through the scalar engine, the batch engine and `ofc-stats score` alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.core.scoring import score_batch
from ofc_stats.engine.board import Board
from ofc_stats.engine.ruleset_toml import resolve_ruleset
from ofc_stats.engine.scoring import score_hand

CASES = [
    json.loads(line)
    for path in sorted((Path(__file__).parent / "rules").glob("*.jsonl"))
    for line in path.read_text(encoding="utf-8").splitlines()
    if line.strip()
]


def expected(case: dict[str, Any]) -> dict[str, list[Any]]:
    want = dict(case["expect"])
    want.setdefault("net_capped", want["net"])
    return want


def boards_of(case: dict[str, Any]) -> list[Board]:
    return [Board.parse(b["top"], b["middle"], b["bottom"]) for b in case["hand"]["boards"]]


def test_every_case_says_why() -> None:
    assert len(CASES) >= 15
    for case in CASES:
        assert len(case["why"]) > 40, case["name"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_scalar_engine(case: dict[str, Any]) -> None:
    hand = case["hand"]
    result = score_hand(
        boards_of(case),
        resolve_ruleset(case["rules"]),
        stacks=hand.get("stacks"),
        in_fantasy=hand.get("in_fantasy"),
        fantasy_cards=hand.get("fantasy_cards"),
    )
    got = {
        "net": list(result.net),
        "net_capped": list(result.net_capped),
        "fouled": [b.fouled for b in result.boards],
        "royalties": [b.royalties.total for b in result.boards],
        "entry": [b.fantasyland.cards if b.fantasyland.qualifies else None for b in result.boards],
        "repeat": [
            b.fantasyland.repeat_cards if b.fantasyland.stays else None for b in result.boards
        ],
    }
    assert got == expected(case), case["why"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_batch_engine(case: dict[str, Any]) -> None:
    hand = case["hand"]
    seats = len(hand["boards"])
    cards = [hand.get("fantasy_cards") or [None] * seats]
    result = score_batch(
        np.array([[b.cards for b in boards_of(case)]], dtype=np.int8),
        resolve_ruleset(case["rules"]),
        in_fantasy=None if "in_fantasy" not in hand else [hand["in_fantasy"]],
        fantasy_cards=[[c or 0 for c in cards[0]]],
        stacks=None if "stacks" not in hand else [hand["stacks"]],
    )
    stays = result.fantasy_stays[0]
    got = {
        "net": result.net[0].tolist(),
        "net_capped": result.net_capped[0].tolist(),
        "fouled": result.fouled[0].tolist(),
        "royalties": result.royalty_total[0].tolist(),
        "entry": [int(c) or None for c in result.fantasy_cards[0]],
        "repeat": [
            int(c) if s else None for c, s in zip(result.repeat_cards[0], stays, strict=True)
        ],
    }
    assert got == expected(case), case["why"]


@pytest.mark.parametrize("rules", sorted({c["rules"] for c in CASES}))
def test_score_command(rules: str, tmp_path: Path) -> None:
    cases = [c for c in CASES if c["rules"] == rules]
    source = tmp_path / "hands.jsonl"
    source.write_text("".join(json.dumps(c["hand"]) + "\n" for c in cases), encoding="utf-8")
    done = CliRunner().invoke(main, ["score", "--rules", rules, str(source)])
    assert done.exit_code == 0, done.output
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == len(cases)
    for case, out in zip(cases, lines, strict=True):
        fl = [b["fantasyland"] for b in out["boards"]]
        got = {
            "net": out["net"],
            "net_capped": out["net_capped"],
            "fouled": [b["fouled"] for b in out["boards"]],
            "royalties": [b["royalties"]["total"] for b in out["boards"]],
            "entry": [f["cards"] if f["qualifies"] else None for f in fl],
            "repeat": [f["repeat_cards"] if f["stays"] else None for f in fl],
        }
        assert got == expected(case), case["name"] + ": " + case["why"]
