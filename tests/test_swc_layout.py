"""The SwC seat ``d`` string reader, against the plain reading it was first written as."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.swc import parse_layout


def plain_layout(text: Any) -> tuple[list[list[int]], list[int]] | None:
    """The first version of parse_layout (SWC.md §3.5): split, drop non-cards, slice."""
    if not isinstance(text, str) or not text:
        return None
    parts = text.split("-")
    try:
        ids = [int(item) for item in parts[0].split(";") if item != ""]
        counts = [int(p) for p in parts[1:4]] if len(parts) >= 4 else None
    except ValueError:
        return None
    if not ids:
        return None
    if counts is None:
        return [[], [], []], [i for i in ids if 0 <= i < 52]
    rows, position = [], 0
    for count in counts:
        rows.append([i for i in ids[position : position + count] if 0 <= i < 52])
        position += count
    return rows, [i for i in ids[position:] if 0 <= i < 52]


PIECES = ["0", "1", "5", "9", "12", "51", "52", "99", "-1", "-", ";", "", " ", "+3", "_", "٣", "x"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16))
def test_any_text_reads_as_the_plain_reading(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert parse_layout(text) == plain_layout(text)


def test_worked_examples() -> None:
    # 42 = Qh on top, 19 6s and 16 6c in the middle, 14 5h and 13 5d at the bottom (SWC.md §3.4)
    assert parse_layout("42;19;16;14;13-1-2-2") == ([[42], [19, 16], [14, 13]], [])
    # five dealt, none placed: all active
    assert parse_layout("38;6;45;16;9-0-0-0") == ([[], [], []], [38, 6, 45, 16, 9])
    # an unknown id (-1 splits as a dash; 60 is not a card) is dropped, as SWC.md §3.4 says
    assert parse_layout("60;5-1-0-0") == ([[], [], []], [5])
    assert parse_layout("") is None and parse_layout(7) is None and parse_layout("x-1-1-1") is None
