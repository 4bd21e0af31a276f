"""open_streets: a seat's ``streets`` text read by NumPy gives the definition's cards, or none."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.engine.cards import parse_card
from ofc_stats.errors import OfcError
from parsers import open_streets
from parsers.open_columnar import _CARDS, _spellings

SPELLINGS = [str(text) for text in _spellings()[0].to_pylist()]


def definition(text: bytes) -> list[tuple[int, int, int, bool]] | None:
    """(street, card, destination, hidden) as parsers.open_format._seat reads them; None if
    it refuses the seat (or reads it in a way the fast reader never claims to)."""
    streets = json.loads(text)
    out = []
    for street, step in enumerate(streets or []):
        if not isinstance(step, dict) or list(step) != ["cards", "to"]:
            return None
        cards, to = step["cards"], step["to"]
        if not isinstance(cards, list) or not isinstance(to, list) or len(cards) != len(to):
            return None
        for value, where in zip(cards, to, strict=True):
            if where not in DESTINATIONS or not (value is None or isinstance(value, str)):
                return None
            try:
                card = -1 if value is None else parse_card(value)
            except OfcError:
                card = -1  # the reader gives -1 too: the hand is the definition's
            out.append((street, card, DESTINATIONS.index(where), value is None))
    return out


def fast(texts: list[bytes]) -> list[list[tuple[int, int, int, bool]] | None]:
    read = open_streets.read(texts, _CARDS)
    out: list[list[tuple[int, int, int, bool]] | None] = [[] for _ in texts]
    for seat, street, card, where, hidden in zip(
        read.seat, read.street, read.card, read.destination, read.hidden, strict=True
    ):
        entry = out[int(seat)]
        assert entry is not None
        entry.append((int(street), int(card), int(where), bool(hidden)))
    for seat in np.flatnonzero(read.unread):
        out[int(seat)] = None
    return out


card_text = st.one_of(st.sampled_from(SPELLINGS), st.none(), st.sampled_from(["Zz", "1", "ace"]))
street = st.integers(0, 5).flatmap(
    lambda n: st.builds(
        lambda cards, to: {"cards": cards, "to": to},  # in the writers' key order
        st.lists(card_text, min_size=n, max_size=n),
        st.lists(st.sampled_from(DESTINATIONS), min_size=n, max_size=n),
    )
)
streets = st.one_of(st.none(), st.lists(street, max_size=6))


def render(value: Any, style: int) -> bytes:
    """One writer's spelling of the JSON: compact, json's default, indented, or odd."""
    if style == 0:
        return json.dumps(value, separators=(",", ":")).encode()
    if style == 1:
        return json.dumps(value).encode()
    if style == 2:
        return json.dumps(value, indent=1).replace("\n", "\r\n\t").encode()
    if style == 3 and isinstance(value, list) and value:  # "to" before "cards"
        return json.dumps([{"to": s["to"], "cards": s["cards"]} for s in value]).encode()
    if style == 4:  # every string escaped
        return json.dumps(value, separators=(",", ":")).replace("a", "\\u0061").encode()
    return json.dumps(value, separators=(",", ":")).encode()


@settings(max_examples=300, deadline=None)
@given(seats=st.lists(st.tuples(streets, st.integers(0, 5)), min_size=1, max_size=8))
def test_a_seat_read_here_is_read_as_the_definition_reads_it(
    seats: list[tuple[Any, int]],
) -> None:
    texts = [render(value, style) for value, style in seats]
    for (_, style), text, got in zip(seats, texts, fast(texts), strict=True):
        want = definition(text)
        if got is not None:  # read here: exactly the definition's cards
            assert got == want, text
        if style in (0, 1, 2, 5):  # the writers' layouts are never left to the definition
            assert got is not None and want is not None, text


def test_the_writers_layouts_are_read_here() -> None:
    """Compact, json's default separators and indented text all take the fast way."""
    value = [{"cards": ["Ah", "10h", None, "X1"], "to": ["top", "middle", "discard", "bottom"]}]
    want = [(0, parse_card("Ah"), 0, False), (0, parse_card("Th"), 1, False)]
    want += [(0, -1, 3, True), (0, parse_card("X1"), 2, False)]
    texts = [render(value, style) for style in (0, 1, 2)] + [b"null", b"[]", b" [ ] "]
    assert fast(texts) == [want, want, want, [], [], []]


def test_other_layouts_are_left_to_the_definition() -> None:
    texts = [
        b'[{"to":["top"],"cards":["Ah"]}]',  # keys in another order
        b'[{"cards":["Ah"],"to":["top"],"x":1}]',  # a key more
        b'[{"cards":[12],"to":["top"]}]',  # a card id
        b'[{"cards":["\\u0041h"],"to":["top"]}]',  # an escape
        b'[{"cards":["Ah","Kh"],"to":["top"]}]',  # unpaired
        b'[{"cards":["A h"],"to":["top"]}]',  # a space inside a card
        b'"none"',
        b"false",
    ]
    assert fast(texts) == [None] * len(texts)
