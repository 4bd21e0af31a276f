"""Rust's own tests and benchmarks play two presets, `Rules::pineapple_progressive()` and
`Rules::joker_pineapple()`; they read them from a fixture written from the definition
(:func:`ofc_stats.core.rules.rule_arrays`), never from a second copy of the rules.

This test fails when the fixture and the definition differ; rewrite it with
``python -m tests.test_core_rules_fixture``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ofc_stats.core.rules import rule_arrays
from ofc_stats.engine.presets import get_ruleset

FIXTURE = Path(__file__).parent.parent / "rust/ofc-core/src/testdata/presets.json"
# The presets Rust builds, by the name of their constructor's ruleset.
PRESETS = ("pineapple-progressive", "joker-pineapple")


def runs(values: Any) -> list[list[int]]:
    """An array by class as [value, how many in a row] pairs (booleans as 0 and 1): the
    classes are in strength order, so royalties and conditions come in a few long runs."""
    out: list[list[int]] = []
    for value in np.asarray(values).astype(np.int64).tolist():
        if out and out[-1][0] == value:
            out[-1][1] += 1
        else:
            out.append([value, 1])
    return out


def fixture_text() -> str:
    """The fixture: per preset, each array as runs, each option as is, one field a line."""
    lines = ["{"]
    for p, name in enumerate(PRESETS):
        fields = rule_arrays(get_ruleset(name))
        lines.append(f"  {json.dumps(name)}: {{")
        for f, (key, value) in enumerate(fields.items()):
            if isinstance(value, np.ndarray):
                value = runs(value)
            comma = "," if f < len(fields) - 1 else ""
            lines.append(
                f"    {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}{comma}"
            )
        lines.append("  }," if p < len(PRESETS) - 1 else "  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_the_fixture_is_the_definitions_presets() -> None:
    assert FIXTURE.read_text(encoding="utf-8") == fixture_text(), (
        "rewrite it: python -m tests.test_core_rules_fixture"
    )


def test_runs_keep_every_value_in_order() -> None:
    assert runs([0, 0, 3, 3, 3, 0, True]) == [[0, 2], [3, 3], [0, 1], [1, 1]]


if __name__ == "__main__":
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(fixture_text(), encoding="utf-8")
    print(f"wrote {FIXTURE}")
