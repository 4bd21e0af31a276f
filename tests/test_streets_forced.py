"""The ``streets`` view's ``forced`` flag equals the engine's definition,
:func:`ofc_stats.engine.timeout.forced_street`, on random placements.

The view computes it in SQL (``store.streets.STREETS_SQL``) from the placements
table, the rows each street found filled before it; the core's timeout mask
(``rust/ofc-core/src/timeout.rs``, proven equal to the engine by
``test_core_timeout``) knows the same rule.  Seats here deal a variant's plan or
not (other card counts, streets past the plan), show their discards or hide them
(most rooms hide opponents' discards): on every street the view lists, its flag
is what the definition says of the cards recorded on it.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.engine.board import DISCARD, ROW_SIZES, ROWS
from ofc_stats.engine.presets import PRESETS
from ofc_stats.engine.timeout import forced_street
from ofc_stats.store.streets import STREETS_SQL, rule_tables

NAMES = ["pineapple", "classic", "turbo"]


def _seat(rng: np.random.Generator, name: str) -> list[list[str]]:
    """One seat's streets, each its cards' destinations as recorded.

    Mostly the plan's cards (placed ones into rows with room, the rest
    discarded), else any count; now and then a street past the plan.
    """
    plan = PRESETS[name].variant.streets
    room = list(ROW_SIZES)
    streets = []
    for number in range(int(rng.integers(1, len(plan) + 3))):
        if number < len(plan) and rng.random() < 0.8:
            dealt, placed = plan[number]
        else:
            dealt = int(rng.integers(1, 15))
            placed = int(rng.integers(0, dealt + 1))
        destinations = []
        for _ in range(placed):
            open_rows = [r for r in range(3) if room[r] > 0]
            if not open_rows:
                break
            row = int(rng.choice(open_rows))
            room[row] -= 1
            destinations.append(ROWS[row])
        destinations += [DISCARD] * (dealt - len(destinations))
        streets.append(list(rng.permutation(destinations)))
    return streets


def _expected(name: str, streets: list[list[str]]) -> dict[int, bool]:
    """The definition's verdict on each street that has a placement recorded."""
    variant = PRESETS[name].variant
    filled = [0, 0, 0]
    out = {}
    for number, destinations in enumerate(streets):
        if destinations:
            out[number] = forced_street(variant, number, tuple(filled), len(destinations))
        for destination in destinations:
            if destination != DISCARD:
                filled[ROWS.index(destination)] += 1
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_views_forced_streets_are_the_definitions(seed: int) -> None:
    rng = np.random.default_rng(seed)
    placements: dict[str, list[object]] = {
        "hand_key": [],
        "seat": [],
        "street": [],
        "card": [],
        "destination": [],
    }
    hands: dict[str, list[object]] = {"hand_key": [], "hand_id": [], "format": [], "ruleset": []}
    want = {}
    for hand in range(40):
        key, name = f"h{hand}", str(rng.choice(NAMES))
        hands["hand_key"].append(key)
        hands["hand_id"].append(hand)
        hands["format"].append("open")
        hands["ruleset"].append(name)
        for seat in range(int(rng.integers(1, 4))):
            streets = _seat(rng, name)
            if rng.random() < 0.5:  # the room hides this seat's discards
                streets = [[d for d in street if d != DISCARD] for street in streets]
            for number, destinations in enumerate(streets):
                for card, destination in enumerate(destinations):
                    placements["hand_key"].append(key)
                    placements["seat"].append(seat)
                    placements["street"].append(number)
                    placements["card"].append(card)
                    placements["destination"].append(destination)
            for number, forced in _expected(name, streets).items():
                want[(key, seat, number)] = forced
    results = pa.table(
        {
            "hand_key": pa.array([], pa.string()),
            "seat": pa.array([], pa.int8()),
            "timeout_streets": pa.array([], pa.int16()),
            "recorded_timeouts": pa.array([], pa.int16()),
        }
    )
    with duckdb.connect() as con:
        con.register("p", pa.table(placements))
        con.register("h", pa.table(hands))
        con.register("x", results)
        rule_tables(con, Path("/nonexistent-dataset"))  # presets only
        sql = STREETS_SQL.format(placements="p", hands="h", results="x")
        rows = con.sql(f"SELECT hand_key, seat, street, forced FROM ({sql})").fetchall()
    got = {(key, int(seat), int(street)): bool(forced) for key, seat, street, forced in rows}
    assert got == want
