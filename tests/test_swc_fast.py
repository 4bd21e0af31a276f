"""The SwC block reader (msgspec structs) folds every capture exactly as the record path does.

Generated captures are damaged in the ways real ones are (resends, reconnects,
lines out of order or cut short, CRLF, blank lines) and in the ways where
msgspec and json could read a line differently (floats where ints were,
30-digit and non-finite numbers, deep nesting, lone surrogates, duplicate
keys, escaped letters, raw archive records).  Blocks are made small, so clean
and damaged blocks alternate and the two lanes fold one hand in turns.  The
hands, quarantine entries and partial lines both readers give must be equal,
item for item.
"""

from __future__ import annotations

import io
import json
import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.records import Partial, Quarantined
from parsers import fast_json, swc, swc_fast
from parsers.swc_fold import Hand, Seat, fold_layout
from tests.handgen import random_records
from tests.swcgen import snapshots

RECORDS = random_records(6, seed=77)


def _seat_field(name: str, value: Any) -> Any:
    """A mutation setting the first seat's ``name`` (lines already damaged stay as they are)."""

    def change(lines: list[str], index: int, chance: random.Random) -> None:
        try:
            data = json.loads(lines[index])
            data["gameState"]["s"][0][name] = value(chance) if callable(value) else value
        except (ValueError, TypeError, LookupError, RecursionError):
            return
        lines[index] = json.dumps(data)

    return change


def _replace(old: str, new: str) -> Any:
    def change(lines: list[str], index: int, chance: random.Random) -> None:
        lines[index] = lines[index].replace(old, new, 1)

    return change


MUTATIONS: dict[str, Any] = {
    "resend": lambda lines, i, r: lines.insert(i, lines[i]),
    "swap": lambda lines, i, r: lines.insert(i + 1, lines.pop(i)),
    "drop": lambda lines, i, r: lines.pop(i),
    "cut": lambda lines, i, r: lines.__setitem__(i, lines[i][: r.randrange(1, len(lines[i]))]),
    "blank": lambda lines, i, r: lines.insert(i, r.choice(["", " ", "\t", "\x0b"])),
    "crlf": lambda lines, i, r: lines.__setitem__(i, lines[i] + "\r"),
    "reconnect": _seat_field("d", ""),
    "float_gi": lambda lines, i, r: lines.__setitem__(i, re.sub(r'"gi": (\d+)', r'"gi": \1.0', lines[i], count=1)),
    "points_text": _seat_field("p", "7"),
    "points_bool": _seat_field("p", True),
    "points_float": _seat_field("p", 2.5),
    "points_huge": _replace('"p": 0', '"p": ' + "9" * 30),
    "stack_huge": _replace('"c": 10000', '"c": ' + "9" * 25),
    "stack_4400_digits": _replace('"c": 10000', '"c": ' + "9" * 4400),
    "archive_escaped_digits": lambda lines, i, r: lines.__setitem__(i, archive(lines[i].replace('"c": 10000', '"c": ' + "9" * 4400, 1)).replace("9" * 4400, "\\u0039" * 4400, 1)),
    "nan": _replace('"c": 10000', '"c": NaN'),
    "inf": _replace('"c": 10000', '"c": 1e400'),
    "deep": _replace('"m": {', '"x": ' + "[" * 450 + "]" * 450 + ', "m": {'),
    "surrogate": _replace('"n": "', '"n": "\\ud800'),
    "accent": _replace('"n": "', '"n": "\u00e9'),
    "duplicate_key": _replace('{"t": "GameState"', '{"t": "Action", "t": "GameState"'),
    "other_type": _replace('"GameState"', '"Action"'),
    "escaped_key": _replace('"gi"', '"g\\u0069"'),
    "gt_null": _replace('"gt": 74', '"gt": null'),
    "gt_classic": _replace('"gt": 74', '"gt": 70'),
    "table_text": _replace('"ti": 1', '"ti": "1"'),
    "fantasy": _replace('"events": []', '"events": [{"table-msg": "x is in fantasy land. The button will not be moved"}, 3]'),
    "fantasy_escaped": _replace('"events": []', '"events": [{"table-msg": "y \\u0069s in fantasy land"}]'),
    "events_object": _replace('"events": []', '"events": {"a": 1}'),
    "seat_null": _replace('"s": [{', '"s": [null, {'),
    "seat_zero": _replace('"s": [{', '"s": [0, {'),
    "layout_odd": _seat_field("d", lambda r: r.choice(["07;5-1-0-0", "5;5;6-1-1-0", "60;1;2-1-1-0", "1;2;3-9-9-9", "1;;2-1-0-0", "-0-0-0", "1;x-1-0-0", "4;8-1-0"])),
    "layout_number": _seat_field("d", 12),
    "archive": lambda lines, i, r: lines.__setitem__(i, archive(lines[i])),
    "archive_other": lambda lines, i, r: lines.__setitem__(i, archive(lines[i]).replace('"GameState", "captured_at"', '"Action", "captured_at"', 1)),
    "archive_null": lambda lines, i, r: lines.__setitem__(i, json.dumps({"message_type": "GameState", "payload": None})),
    "archive_prefix": lambda lines, i, r: lines.__setitem__(i, archive(lines[i]).replace("42/poker/,", "42/other/,", 1)),
    "archive_frame": lambda lines, i, r: lines.__setitem__(i, archive(lines[i], r.choice([["proxy-message", lines[i], 3], ["other", lines[i]], ["proxy-message", 5], ["proxy-message"], {"a": 1}, "[1,", ["proxy-message", "[1]"], ["proxy-message", lines[i].replace('"n": "', '"n": "\u00e9\ud800', 1)]]))),
    "captured_at": _replace('{"t"', '{"captured_at": "2026-08-14T19:02:05Z", "t"'),
    "not_object": lambda lines, i, r: lines.__setitem__(i, r.choice(["[1, 2]", "5", '"x"', "null", "{}"])),
    "long_line": _replace('"m": {', '"pad": "' + "a" * 500 + '", "m": {'),
}  # fmt: skip


def archive(line: str, frame: Any = None) -> str:
    """A line as fpdb-3's raw archive keeps it (the frame inside a Socket.IO text)."""
    frame = ["proxy-message", line] if frame is None else frame
    payload = frame if isinstance(frame, str) else json.dumps(frame)
    record = {"site": "SealsWithClubs", "message_type": "GameState",
              "captured_at": "2026-08-14T19:02:05.212004Z", "payload": "42/poker/," + payload}  # fmt: skip
    return json.dumps(record)


def capture_lines(seed: int, tables: int) -> list[str]:
    """The generated hands' lines, ``tables`` tables interleaved line by line."""
    streams = [
        snapshots(record, gi=100 + index, ti=index % tables + 1)
        for index, record in enumerate(RECORDS)
    ]
    lines: list[str] = []
    for start in range(0, len(streams), tables):
        group = streams[start : start + tables]
        for row in range(max(len(s) for s in group)):
            lines += [s[row] for s in group if row < len(s)]
    return lines


def described(items: list[Any]) -> list[Any]:
    """Reader output as plain values: a hand as its parts (or the error they raise)."""
    out = []
    for item in items:
        if isinstance(item, Hand):
            try:
                parts: Any = swc._parts(item)
            except Exception as error:  # the error is what is compared
                parts = repr(error)
            out.append((item.gi, item.ti, item.code, item.start_line, item.captured_at,
                        item.raw_text(), item.settled, item.started_late,
                        sorted(item.fantasy_names), parts))  # fmt: skip
        elif isinstance(item, Quarantined | Partial):
            out.append(item)
        else:
            raise AssertionError(item)
    return out


def both_readers(data: bytes) -> tuple[list[Any], list[Any]]:
    slow = described(list(swc._read(io.BytesIO(data), "x", json.loads)))
    fast = described(list(swc._read(io.BytesIO(data), "x", fast_json.loads, fast=True)))
    return slow, fast


@settings(max_examples=250, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    tables=st.integers(1, 3),
    damage=st.lists(st.sampled_from(sorted(MUTATIONS)), max_size=6),
    block=st.sampled_from([200, 700, 3000, 1 << 20]),
    final_newline=st.booleans(),
    archived=st.booleans(),
)
def test_block_reader_folds_as_the_record_path(
    seed: int, tables: int, damage: list[str], block: int, final_newline: bool, archived: bool
) -> None:
    chance = random.Random(seed)
    lines = capture_lines(seed, tables)
    if archived:
        lines = [archive(line) for line in lines]
    for name in damage:
        MUTATIONS[name](lines, chance.randrange(len(lines) - 1), chance)
    text = "\n".join(lines) + ("\n" if final_newline else "")
    original = swc_fast.BLOCK_BYTES
    swc_fast.BLOCK_BYTES = block
    try:
        slow, fast = both_readers(text.encode("utf-8", "surrogatepass"))
    finally:
        swc_fast.BLOCK_BYTES = original
    assert fast == slow


@pytest.mark.parametrize("archived", [False, True])
def test_clean_blocks_take_the_struct_lane(archived: bool) -> None:
    """An undamaged capture is read without one line through the per-line reader."""
    lines = capture_lines(1, 2)
    if archived:
        lines = [archive(line) for line in lines]
    data = ("\n".join(lines) + "\n").encode()
    pieces = list(swc_fast.blocks(io.BytesIO(data)))
    assert pieces and all(isinstance(p, swc_fast.Block) for p in pieces)
    assert all(swc_fast.archived(m) is not None for p in pieces for m in p.messages) or not archived
    slow, fast = both_readers(data)
    assert fast == slow and len(fast) == len(RECORDS)


@pytest.mark.parametrize(
    "text", ['{"t": "GameState"}\n{"a": 1} {"b": 2}\n{"c": 3}\n', '{"t": 1}\n{"a":\n1}\n{"b": 2}\n']
)
def test_a_line_holding_more_or_less_than_one_value_is_read_on_its_own(text: str) -> None:
    """msgspec would return one value too many (or one line's value spanning two)."""
    pieces = list(swc_fast.blocks(io.BytesIO(text.encode())))
    alone = [p[0] for p in pieces if not isinstance(p, swc_fast.Block)]
    assert 2 in alone


def test_one_odd_line_leaves_the_rest_of_its_block_to_the_struct_lane() -> None:
    lines = capture_lines(3, 1)
    lines[40] = lines[40].replace('"c": 10000', '"c": 1.5', 1)  # a float msgspec's types refuse
    data = ("\n".join(lines) + "\n").encode()
    pieces = list(swc_fast.blocks(io.BytesIO(data)))
    alone = [p[0] for p in pieces if not isinstance(p, swc_fast.Block)]
    assert 41 in alone and len(alone) <= len(lines) / 2**swc_fast.SPLITS + 1
    slow, fast = both_readers(data)
    assert fast == slow


LAYOUT = st.one_of(
    st.builds(
        lambda ids, counts: ";".join(map(str, ids)) + "-" + "-".join(map(str, counts)),
        st.lists(st.integers(0, 53), max_size=16),
        st.tuples(st.integers(0, 4), st.integers(0, 6), st.integers(0, 6)),
    ),
    st.sampled_from(
        ["07;5-1-0-0", "1;;2-1-0-0", "1;2", "-0-0-0", "3;4-1-1", "5-1-0-0-9", " 5-1-0-0"]
    ),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LAYOUT, min_size=1, max_size=8), st.sampled_from([70, 74, 76]))
def test_fold_is_fold_layout(layouts: list[str], code: int) -> None:
    """The table-driven fold leaves a seat exactly as fold_layout does, text after text."""
    hands = [Hand("1", "t", code, 1, None, []) for _ in range(2)]
    seats = [Seat("p"), Seat("p")]
    for step, d in enumerate(layouts):
        for hand in hands:
            hand.snapshots = step + 1
        fold_layout(hands[0], seats[0], d)
        swc_fast.fold(hands[1], seats[1], d)
        assert seats[1] == seats[0], d
        assert hands[1].started_late == hands[0].started_late


@pytest.mark.parametrize(
    "data",
    [
        b'{"t": "GameState", "x": "' + b"a" * 3_000_000 + b'"}\n{"t": 1}\n{"tail": 1',
        b"x" * 2_500_000,
        b"\n" * 5 + b"y" * 2_500_000 + b"\n" + b"z",
    ],
)
def test_blocks_split_lines_as_iterating_the_stream_does(data: bytes) -> None:
    """Lines longer than a block (read in pieces, joined once) keep their text and number."""
    lines, numbers = [], []
    for piece in swc_fast.blocks(io.BytesIO(data)):
        if isinstance(piece, swc_fast.Block):
            start = 0
            for offset, end in enumerate(piece.ends):
                lines.append(piece.line(start, end).encode())
                numbers.append(piece.first + offset)
                start = end
        else:
            numbers.append(piece[0])
            lines.append(piece[1])
    assert lines == list(io.BytesIO(data))
    assert numbers == list(range(1, len(lines) + 1))
