"""The block fold (swc_block, swc_vector, swc_columns) gives the tables the line fold gives.

The columnar reader is run twice over the same capture, once with the block
fold and once with it turned off (every block folded line by line, the lane
``tests/test_swc_fast.py`` proves equal to the record path), and the hands,
seats and placements each lane would store are compared hand for hand; the
record path's are compared too.  Captures are damaged as in test_swc_fast
and cut into small blocks, so hands cross block ends and both lanes meet.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, validate_hand
from ofc_stats.store.rows import hands_table
from parsers import swc_block, swc_fast, swc_vector
from parsers.base import ColumnarHands
from parsers.swc import SwcParser
from parsers.swc_columns import Piece
from parsers.swc_fold import Hand, Seat
from tests.shared_samples import SWC
from tests.test_swc_fast import MUTATIONS, archive, capture_lines


def _plain(table: pa.Table) -> list[dict[str, Any]]:
    """Rows with dictionary columns decoded and the columns only one side has dropped."""
    for name in table.column_names:
        if pa.types.is_dictionary(table.schema.field(name).type):
            index = table.schema.get_field_index(name)
            table = table.set_column(index, name, table[name].cast(pa.string()))
    drop = [c for c in ("batch", "hand_id", "source_line") if c in table.column_names]
    return table.drop_columns(drop).to_pylist()


def _hands(hands: pa.Table, seats: pa.Table, placements: pa.Table) -> list[Any]:
    by_key: dict[str, tuple[list[Any], list[Any]]] = {}
    rows = _plain(hands)
    for row in rows:
        by_key[row["hand_key"]] = ([], [])
    for row in _plain(seats):
        by_key[row["hand_key"]][0].append(row)
    for row in _plain(placements):
        by_key[row["hand_key"]][1].append(row)
    return [(row, *by_key[row["hand_key"]]) for row in rows]


def stored(items: list[Any]) -> tuple[list[Any], list[Any]]:
    """What the importer would store of these items: hands (in order) and quarantine entries
    (sorted: a reader may send one before the hands of a chunk it still gathers)."""
    hands, quarantined = [], []
    for item in items:
        if isinstance(item, ColumnarHands):
            hands += _hands(item.hands, item.seats, item.placements)
        elif isinstance(item, HandRecord):
            try:
                validate_hand(item, get_ruleset(item.ruleset))
            except OfcError as error:
                quarantined.append(("refused", item.source_line, str(error)))
                continue
            tables = hands_table([item], "")
            hands += _hands(tables["hands"], tables["seats"], tables["placements"])
        else:
            quarantined.append(item)
    return hands, sorted(quarantined, key=repr)


@contextlib.contextmanager
def line_fold_only() -> Iterator[None]:
    """The columnar reader with every block folded line by line."""
    original = swc_block.plan
    swc_block.plan = lambda tables, block: None  # type: ignore[assignment]
    try:
        yield
    finally:
        swc_block.plan = original


@contextlib.contextmanager
def blocks_of(size: int) -> Iterator[None]:
    original = swc_fast.BLOCK_BYTES
    swc_fast.BLOCK_BYTES = size
    try:
        yield
    finally:
        swc_fast.BLOCK_BYTES = original


def lanes(data: bytes) -> tuple[Any, Any, Any]:
    """(block fold, line fold, record path) as stored."""
    fast = stored(list(SwcParser().parse_columnar(io.BytesIO(data), "x")))
    with line_fold_only():
        lines = stored(list(SwcParser().parse_columnar(io.BytesIO(data), "x")))
    record = stored(list(SwcParser().parse(io.BytesIO(data), "x")))
    return fast, lines, record


def pieces(data: bytes) -> int:
    """How many hands the block fold takes."""
    items = swc_read(data)
    return sum(item.stop - item.start for item in items if isinstance(item, Piece))


def swc_read(data: bytes) -> list[Any]:
    from parsers import fast_json, swc

    return list(swc._read(io.BytesIO(data), "x", fast_json.loads, fast=True, vector=True))


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    tables=st.integers(1, 3),
    damage=st.lists(st.sampled_from(sorted(MUTATIONS)), max_size=5),
    block=st.sampled_from([3000, 9000, 40_000, 1 << 20]),
    archived=st.booleans(),
)
@example(
    seed=110, tables=2, damage=["layout_odd", "accent", "float_gi"], block=3000, archived=False
)
def test_block_fold_stores_what_the_line_fold_stores(
    seed: int, tables: int, damage: list[str], block: int, archived: bool
) -> None:
    """(The example: two tables' hands close out of first-line order, and a hand the
    record path reads cuts the chunk; cutting it by first lines lost a hand's placements.)"""
    chance = random.Random(seed)
    lines = capture_lines(seed, tables)
    if archived:
        lines = [archive(line) for line in lines]
    for name in damage:
        MUTATIONS[name](lines, chance.randrange(len(lines) - 1), chance)
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    with blocks_of(block):
        fast, by_line, record = lanes(data)
    assert fast == by_line
    assert fast[0] == record[0]


def many_hands(count: int, tables: int, seed: int) -> bytes:
    from tests.handgen import random_records
    from tests.swcgen import snapshots

    streams = [
        snapshots(record, gi=500 + index, ti=index % tables + 1)
        for index, record in enumerate(random_records(count, seed=seed))
    ]
    lines: list[str] = []
    for start in range(0, len(streams), tables):
        group = streams[start : start + tables]
        for row in range(max(len(s) for s in group)):
            lines += [s[row] for s in group if row < len(s)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("tables", [1, 3])
def test_clean_captures_fold_by_blocks(tables: int) -> None:
    """Most hands of an undamaged capture are folded by blocks, and store alike."""
    data = many_hands(60, tables, seed=4)
    with blocks_of(100_000):  # some dozen hands a block
        assert pieces(data) >= 40
        fast, by_line, record = lanes(data)
    assert fast == by_line and len(fast[0]) == 60
    assert fast[0] == record[0]


def test_a_block_too_large_for_the_dense_fold_is_folded_by_lines() -> None:
    """Past ``MAX_CELLS`` seats x steps (a seat of thousands of layouts) the block fold
    declines the block, so its tables stay small; the lines store the same."""
    data = many_hands(60, 3, seed=4)
    original = swc_vector.MAX_CELLS
    swc_vector.MAX_CELLS = 10  # any block of these hands is past it
    try:
        with blocks_of(100_000):
            assert pieces(data) == 0
            fast, by_line, record = lanes(data)
    finally:
        swc_vector.MAX_CELLS = original
    assert fast == by_line and len(fast[0]) == 60
    assert fast[0] == record[0]


@pytest.mark.parametrize("name", sorted(p.name for p in SWC.iterdir() if p.suffix != ".md"))
def test_shared_samples_fold_alike(name: str) -> None:
    data = (SWC / name).read_bytes()
    for size in (2_000, 1 << 20):
        with blocks_of(size):
            fast, by_line, _ = lanes(data)
        assert fast == by_line


def state(
    gi: int, seats: list[tuple[str, str, int]], ts: int = 2, hc: str | None = None, chips: int = 100
) -> str:
    """One GameState line: seats as (name, d, points)."""
    game: dict[str, Any] = {
        "gi": gi,
        "gt": 74,
        "ti": 7,
        "ts": ts,
        "d": {"c": "", "p": 0},
        "s": [{"n": n, "c": chips, "b": 0, "p": p, "d": d} for n, d, p in seats],
    }
    if hc is not None:
        game["ss"] = {"hc": hc}
    return json.dumps({"t": "GameState", "gameState": game, "events": []})


def test_a_hand_built_by_hand() -> None:
    """Two players' Pineapple hand, its placements worked out from SWC.md §3.5 by hand.

    ann (the viewer) is dealt 38 6 45 16 9 (all active: ``-0-0-0``) and sets
    38 on top, 45 16 in the middle, 9 6 at the bottom (``-1-2-2``).  Placed
    cards that were active go in the order they were dealt, so her street 0
    is 38 top, 6 bottom, 45 middle, 16 middle, 9 bottom.  On street 1 she is
    dealt 51 50 49, puts 51 top and 50 bottom; 49 leaves without a row: a
    discard, on street 1 (7 cards placed: (7 - 4) // 2 = 1).  A row grows at
    its end, so her top is 38 51 and her bottom 9 6 50 whatever order the
    text lists them in.  bob's cards are never active: his five show in rows
    at once, in the text's order (street 0), then 7 in the middle (6 placed:
    street 1).  A resend of the third line changes nothing; the settlement
    line reports the points.
    """
    lines = [
        state(9, [("ann", "38;6;45;16;9-0-0-0", 0), ("bob", "", 0)]),
        state(9, [("ann", "38;45;16;9;6-1-2-2", 0), ("bob", "", 0)]),
        state(9, [("ann", "38;45;16;9;6-1-2-2", 0), ("bob", "1;2;3;4;5-1-2-2", 0)]),
        state(9, [("ann", "38;45;16;9;6-1-2-2", 0), ("bob", "1;2;3;4;5-1-2-2", 0)]),
        state(9, [("ann", "38;45;16;9;6;51;50;49-1-2-2", 0), ("bob", "1;2;3;4;5-1-2-2", 0)]),
        state(9, [("ann", "51;38;45;16;50;9;6-2-2-3", 0), ("bob", "1;2;3;4;5-1-2-2", 0)]),
        state(9, [("ann", "51;38;45;16;50;9;6-2-2-3", 0), ("bob", "1;7;2;3;4;5-1-3-2", 0)]),
        state(
            9, [("ann", "51;38;45;16;50;9;6-2-2-3", 4), ("bob", "1;7;2;3;4;5-1-3-2", -4)], 0, "x"
        ),
        state(10, [("ann", "", 0), ("bob", "", 0)]),  # the next hand closes this one
    ]
    data = ("\n".join(lines) + "\n").encode()
    items = [i for i in swc_read(data) if isinstance(i, Piece)]
    assert len(items) == 1 and items[0].stop - items[0].start == 1
    inner = items[0].inner
    assert inner.player == ["ann", "bob"] and inner.hero.tolist() == [True, False]
    assert inner.points.to_pylist() == [4.0, -4.0]
    names = ("top", "middle", "bottom", "discard")
    placed = sorted(
        zip(
            inner.card_seat.tolist(),
            inner.move.tolist(),
            inner.street.tolist(),
            inner.card.tolist(),
            [names[d] for d in inner.destination.tolist()],
            strict=True,
        )
    )
    assert [p[2:] for p in placed if p[0] == 0] == [
        (0, 38, "top"),  # active order 38, 6, 45, 16, 9
        (0, 6, "bottom"),
        (0, 45, "middle"),
        (0, 16, "middle"),
        (0, 9, "bottom"),
        (1, 51, "top"),
        (1, 50, "bottom"),
        (1, 49, "discard"),
    ]
    assert [p[2:] for p in placed if p[0] == 1] == [
        (0, 1, "top"),
        (0, 2, "middle"),
        (0, 3, "middle"),
        (0, 4, "bottom"),
        (0, 5, "bottom"),
        (1, 7, "middle"),
    ]
    # Row order: a row grows as cards reach it (within a step, in the layout's order).
    rows = [(s, names[d], c) for s, d, c in zip(inner.card_seat.tolist(), inner.destination.tolist(), inner.card.tolist(), strict=True)]  # fmt: skip
    assert [c for s, d, c in rows if s == 0 and d == "bottom"] == [9, 6, 50]
    assert [c for s, d, c in rows if s == 1 and d == "middle"] == [2, 3, 7]
    fast, by_line, record = lanes(data)
    assert fast == by_line and fast[0] == record[0] and len(fast[0]) == 1  # 10: no cards


# Layout sequences of one seat, as a deal makes them, with some odd texts slipped in.
def _deal(chance: random.Random, pineapple: bool) -> list[str]:
    deck = list(range(52))
    chance.shuffle(deck)
    rows: list[list[int]] = [[], [], []]
    texts = []
    for dealt in [5] + ([3] * 4 if pineapple else [1] * 8):
        active = [deck.pop() for _ in range(dealt)]
        texts.append(_text(chance, rows, active))
        keep = dealt if dealt == 5 else (2 if pineapple else 1)
        for card in chance.sample(active, keep):
            free = [i for i, size in enumerate((3, 5, 5)) if len(rows[i]) < size]
            rows[chance.choice(free)].append(card)
        texts.append(_text(chance, rows, []))
    return texts


def _text(chance: random.Random, rows: list[list[int]], active: list[int]) -> str:
    ids = [c for row in rows for c in sorted(row, reverse=chance.random() < 0.5)] + active
    return ";".join(map(str, ids)) + "-{}-{}-{}".format(*map(len, rows))


ODD = ["07;5-1-0-0", "5;5;6-1-1-0", "1;2;3-1-1-1", "3;4-1-1-0", "9;8;7-0-0-0", "-0-0-0",
       "1;2-3-0-0", "51;50;49;48;47;46-6-0-0", "1;;2-1-0-0", "60;1-1-0-0", "1;2-1-1", "x"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 4), st.floats(0, 1), st.booleans())
def test_vector_fold_is_fold(seed: int, seats: int, noise: float, drop: bool) -> None:
    """swc_vector folds each ordinary seat as swc_fast.fold does, layout after layout."""
    chance = random.Random(seed)
    sequences, codes = [], []
    for _ in range(seats):
        pineapple = chance.random() < 0.6
        texts = _deal(chance, pineapple)
        if drop:
            texts = [t for t in texts if chance.random() < 0.8] or texts[:1]
        for _ in range(int(noise * 4) if noise < 0.75 else 0):
            texts.insert(chance.randrange(len(texts) + 1), chance.choice([*ODD, *texts]))
        if noise >= 0.75:  # two cards trade places: one leaves its row for another
            at = chance.randrange(len(texts))
            ids, _, counts = texts[at].partition("-")
            items = ids.split(";")
            if len(items) > 1:
                items[0], items[-1] = items[-1], items[0]
                texts.insert(at + 1, ";".join(items) + "-" + counts)
        texts = [t for i, t in enumerate(texts) if i == 0 or t != texts[i - 1]]
        sequences.append(texts)
        codes.append(74 if pineapple else 70)
    flat = [t for texts in sequences for t in texts]
    seat = np.repeat(np.arange(seats), [len(t) for t in sequences])
    layouts = swc_vector.parse(pa.array(flat, pa.string()))
    folded = swc_vector.fold(layouts, seat, seats, np.array([c == 74 for c in codes]))
    names = ("top", "middle", "bottom", "discard")
    for index, texts in enumerate(sequences):
        hand = Hand("1", "t", codes[index], 1, None, [])
        hand.snapshots = 2
        expected = Seat("p")
        for text in texts:
            swc_fast.fold(hand, expected, text)
        if folded.odd[index]:
            continue
        mine = folded.seat == index
        destination, card = folded.destination[mine], folded.card[mine]
        assert [card[destination == r].tolist() for r in range(3)] == expected.rows
        assert card[destination == 3].tolist() == expected.discards
        moves = sorted(zip(folded.move[mine].tolist(), folded.street[mine].tolist(), card.tolist(), destination.tolist(), strict=True))  # fmt: skip
        assert [(s, c, names[d]) for _, s, c, d in moves] == expected.placements
        assert folded.fantasy[index] == expected.fantasy
        assert folded.seen_active[index] == expected.seen_active
        assert folded.placed[index] == expected.placed
        assert folded.active[index] == len(expected.active)


def test_a_card_that_changes_rows_is_odd() -> None:
    """5 goes from top to middle, 6 the other way: the fold keeps both in both rows (never a
    stored hand), so the closed form leaves the seat to it."""
    layouts = swc_vector.parse(pa.array(["5;6;7-1-1-0", "6;5;7-1-1-0", "8;9;7-1-1-1"]))
    folded = swc_vector.fold(layouts, np.array([0, 0, 1]), 2, np.ones(2, bool))
    assert folded.odd.tolist() == [True, False]


def test_ordinary_deals_are_never_odd() -> None:
    """The closed form covers every deal made as a room makes it (so it is the usual lane)."""
    chance = random.Random(5)
    sequences = [_deal(chance, chance.random() < 0.5) for _ in range(300)]
    flat = [t for texts in sequences for t in texts]
    seat = np.repeat(np.arange(300), [len(t) for t in sequences])
    folded = swc_vector.fold(swc_vector.parse(pa.array(flat)), seat, 300, np.ones(300, bool))
    assert not folded.odd.any()


@pytest.mark.parametrize(
    ("text", "odd"),
    [("38;6;45;16;9-0-0-0", False), ("51-1-0-0", False), ("0;10-0-1-1", False),
     ("07;5-1-0-0", True), ("52-1-0-0", True), ("5;5-1-1-0", True), ("1;;2-1-0-0", True),
     (";1-1-0-0", True), ("1;-1-0-0", True), ("123-1-0-0", True), ("1-4-0-0", True),
     ("1-0-6-0", True), ("1;2-1-1-1", True), ("1-1-0", True), ("1-1-0-0-0", True),
     ("-0-0-0", True), ("1 ;2-1-1-0", True), ("1;2-1-1-0 ", True), ("", True)],
)  # fmt: skip
def test_layout_texts_read_or_flagged(text: str, odd: bool) -> None:
    layouts = swc_vector.parse(pa.array(["5;6-1-1-0", text, "7-0-0-1"]))
    assert layouts.odd.tolist() == [False, odd, False]
    assert layouts.card[layouts.text == 0].tolist() == [5, 6]
    assert layouts.card[layouts.text == 2].tolist() == [7]
    if not odd:
        head = text.rsplit("-", 3)[0]
        assert layouts.card[layouts.text == 1].tolist() == [int(i) for i in head.split(";")]


def test_a_state_seen_before_is_passed_over() -> None:
    """A snapshot whose key (not its points: they are not in it) an earlier one of the hand
    had is not folded again, even after another: ann's third line, the first again with
    new points, leaves her points at 3 and her active cards as the second line left them."""
    first = [("ann", "38;6;45;16;9-0-0-0", 3), ("bob", "1;2;3;4;5-1-2-2", 0)]
    second = [("ann", "38;45;16;9;6-1-2-2", 3), ("bob", "1;2;3;4;5-1-2-2", 0)]
    again = [("ann", "38;6;45;16;9-0-0-0", 8), ("bob", "1;2;3;4;5-1-2-2", 0)]
    settle = [("ann", "38;45;16;9;6-1-2-2", 3), ("bob", "1;2;3;4;5-1-2-2", -3)]
    lines = [state(9, first), state(9, second), state(9, again), state(9, settle, 0, "x")]
    lines.append(state(10, [("ann", "", 0), ("bob", "", 0)]))
    data = ("\n".join(lines) + "\n").encode()
    (piece,) = [i for i in swc_read(data) if isinstance(i, Piece)]
    assert piece.inner.points.to_pylist() == [3.0, -3.0]
    assert piece.inner.odd.tolist() == [False]
    assert len(piece.inner.card) == 10  # five placed each, nothing discarded
    fast, by_line, record = lanes(data)
    assert fast == by_line and fast[0] == record[0]
    # Other chips (in the key, not in the hash of ts, hc and layouts), the text as long: a
    # new state, whose points count.
    again = [("ann", "38;45;16;9;6-1-2-2", 9), ("bob", "1;2;3;4;5-1-2-2", -9)]
    lines[4:4] = [state(9, again, 0, "x", chips=200)]
    assert len(lines[4]) == len(lines[3])
    data = ("\n".join(lines) + "\n").encode()
    (piece,) = [i for i in swc_read(data) if isinstance(i, Piece)]
    assert piece.inner.points.to_pylist() == [9.0, -9.0]
    fast, by_line, record = lanes(data)
    assert fast == by_line and fast[0] == record[0]


def test_an_open_hands_late_lines_are_passed_over() -> None:
    """A hand open at a block's end, closed by the next hand in the next block, then a late
    line of it and more hands: the late line is passed over, as the line fold does (hand 9's
    long names make its two lines the first block)."""
    long = [("ann" + "n" * 900, "38;6;45;16;9-1-2-2", 0), ("bob" + "b" * 900, "", 0)]
    other = [("ann", "40;7;46;17;10-1-2-2", 0), ("bob", "11;12;13;14;15-1-2-2", 0)]
    lines = [state(9, long)] * 2 + [state(10, other), state(9, other), state(11, other)]
    lines += [state(12, other), state(13, other)]
    data = ("\n".join(lines) + "\n").encode()
    for size in (len(lines[0]) * 2 + 3, 1 << 20):
        with blocks_of(size):
            fast, by_line, record = lanes(data)
        assert fast == by_line and fast[0] == record[0]
        assert [hand[0]["room_hand_id"] for hand in fast[0]] == ["9", "10", "11", "12", "13"]
