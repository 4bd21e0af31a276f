"""The core's SwC fold gives exactly the readable reader's items, hand for hand.

``SwcParser.parse`` is the definition; ``parse_columnar`` lets the core fold
the capture and, where it is unsure, stops and lets the definition go on.
Both are read here item by item (a hand as its stored rows, a quarantine
entry or a cut line as itself), in order, for generated captures damaged by
Hypothesis: lines dropped, resent, swapped, cut, broken, wrapped as fpdb-3
archive records, and fields given odd values.  The import-level comparison
of every sample, golden file and fuzz file is ``test_swc_fpdb_columnar.py``.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_stats.records import HandRecord
from ofc_stats.store.rows import hands_table
from ofc_stats.store.schema import HANDS, PLACEMENTS, SEATS
from parsers import core_lane
from parsers.base import ColumnarHands, ParseItem
from parsers.swc import SwcParser
from tests.handgen import random_records
from tests.readers import FailingAfter
from tests.swcgen import snapshots

RECORDS = random_records(6, seed=27)


def _rows(table: pa.Table, schema: pa.Schema) -> list[dict[str, Any]]:
    table = table.select(schema.names)
    if pa.types.is_dictionary(table.schema.field("hand_key").type):
        table = table.set_column(0, "hand_key", table["hand_key"].cast(pa.string()))
    rows: list[dict[str, Any]] = table.cast(schema).to_pylist()
    for row in rows:
        row.pop("batch", None)
        if "destination" in row:
            row["destination"] = str(row["destination"])
    return rows


def _hands(hands: pa.Table, seats: pa.Table, placements: pa.Table) -> list[Any]:
    """Each hand with its seats and placements, in the hands' order."""
    seat_rows, card_rows = _rows(seats, SEATS), _rows(placements, PLACEMENTS)
    out = []
    for hand in _rows(hands, HANDS):
        key = hand["hand_key"]
        out.append(
            (
                "hand",
                hand,
                [s for s in seat_rows if s["hand_key"] == key],
                [p for p in card_rows if p["hand_key"] == key],
            )
        )
    return out


def flat(items: list[ParseItem]) -> list[Any]:
    """Items as comparable values: hands as rows, the others as themselves."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, ColumnarHands):
            out += _hands(item.hands, item.seats, item.placements)
        elif isinstance(item, HandRecord):
            try:
                tables = hands_table([item], "")
            except (pa.ArrowException, ValueError, OverflowError):
                out.append(("record", item))  # not storable: the core never takes such a hand
                continue
            out += _hands(tables["hands"], tables["seats"], tables["placements"])
        else:
            out.append(item)
    return out


def both(data: bytes, block: int = 1 << 22) -> tuple[list[Any], list[Any], int]:
    """(the definition's items, the core lane's reading ``block`` bytes at a time, hands
    the core folded)."""
    definition = list(SwcParser().parse(io.BytesIO(data), "x.jsonl"))
    saved = core_lane.BLOCK_BYTES
    core_lane.BLOCK_BYTES = block
    try:
        lane = list(SwcParser().parse_columnar(io.BytesIO(data), "x.jsonl"))
    finally:
        core_lane.BLOCK_BYTES = saved
    folded = sum(i.hands.num_rows for i in lane if isinstance(i, ColumnarHands))
    return flat(definition), flat(lane), folded


def capture(count: int, tables: int, gt: int = 74) -> list[str]:
    """Lines of ``count`` generated hands on ``tables`` tables, interleaved line by line."""
    streams = [
        snapshots(record, gi=100 + i, ti=i % tables + 1, gt=gt)
        for i, record in enumerate(RECORDS[:count])
    ]
    lines: list[str] = []
    for start in range(0, len(streams), tables):
        group = streams[start : start + tables]
        for row in range(max(map(len, group))):
            lines += [s[row] for s in group if row < len(s)]
    return lines


def archived(line: str, sequence: int) -> str:
    """A decoded message as an fpdb-3 raw archive record (SWC.md §2.3)."""
    frame = "42/poker/," + json.dumps(["proxy-message", line])
    record = {
        "site": "SealsWithClubs",
        "captured_at": f"2026-08-14T19:02:{sequence % 60:02d}.212004Z",
        "message_type": "GameState",
        "sequence": sequence,
        "payload": frame,
    }
    return json.dumps(record)


ODD = st.sampled_from(
    [None, True, False, 0, -0.0, 1.5, "", "x", "76", 76, 99, 70, [], [1], {}, {"a": 1}, 10**30]
)
FIELDS = st.sampled_from(
    ["gi", "ti", "gt", "ts", "s", "ss", "d", "n", "p", "c", "seat_d", "hc", "events"]
)


def _mutate_field(line: str, name: str, value: Any, seat: int) -> str:
    try:
        message = json.loads(line)
        state = message["gameState"]
        seats = state["s"]
    except (ValueError, KeyError, TypeError):
        return line
    # a line whose "s" an earlier mutation made odd (True, [1]) has no seat to change
    seated = isinstance(seats, list) and seats and isinstance(seats[seat % len(seats)], dict)
    if name in ("n", "p", "c") and seated:
        seats[seat % len(seats)][name] = value
    elif name == "seat_d" and seated:
        seats[seat % len(seats)]["d"] = value if not isinstance(value, str) else value + "9;-1-0-0"
    elif name == "hc":
        state["ss"] = {"hc": value}
    elif name == "events":
        message["events"] = [{"table-msg": f"{value} is in fantasy land"}, value]
    else:
        state[name] = value
    return json.dumps(message)


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    lines = capture(
        draw(st.integers(1, 5)), draw(st.integers(1, 3)), draw(st.sampled_from([74, 70, 76]))
    )
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["drop", "resend", "swap", "junk", "field", "field", "field"]))
        if kind == "drop" and len(lines) > 1:
            del lines[at]
        elif kind == "resend":
            lines.insert(draw(st.integers(at, len(lines))), lines[at])
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "junk":
            lines.insert(
                at,
                draw(
                    st.sampled_from(
                        [
                            "{broken",
                            "",
                            "   ",
                            "[1, 2]",
                            '{"t": 5}',
                            '{"t": "GameState", "gameState": 5}',
                            "\xff",
                        ]
                    )
                ),
            )
        else:
            lines[at] = _mutate_field(lines[at], draw(FIELDS), draw(ODD), draw(st.integers(0, 3)))
    if draw(st.booleans()):
        lines = [archived(line, n) for n, line in enumerate(lines)]
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
    cut = draw(st.sampled_from([None, None, "end", "any"]))
    if cut == "end":
        data = data[:-1]
    elif cut == "any":
        data = data[: draw(st.integers(0, len(data)))]
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(), st.sampled_from([100, 1000, 1 << 22]))
def test_damaged_captures_read_alike(data: bytes, block: int) -> None:
    definition, lane, _ = both(data, block)
    assert lane == definition


def test_ordinary_captures_are_folded_by_the_core() -> None:
    """A clean capture of five hands on two tables: every hand from the core."""
    lines = capture(5, 2)
    for data in (
        "\n".join(lines) + "\n",
        "\n".join(archived(x, n) for n, x in enumerate(lines)) + "\n",
    ):
        definition, lane, folded = both(data.encode())
        assert lane == definition
        assert folded == 5


def test_a_refused_hand_hands_the_rest_to_the_definition() -> None:
    """Hand 102 is OFC/P 2-7 (gt 76, refused): the core stops before the line that closes
    it (hand 103's first) and the definition quarantines it and reads hand 103; hands 100
    and 101, closed before, come from the core."""
    lines = capture(2, 1)
    lines += snapshots(RECORDS[2], gi=102, ti=1, gt=76) + snapshots(RECORDS[3], gi=103, ti=1)
    definition, lane, folded = both(("\n".join(lines) + "\n").encode())
    assert lane == definition
    assert folded == 2
    assert any(getattr(item, "reason", "").startswith("game type 76") for item in lane)


def test_a_snapshot_part_that_is_not_an_object_is_refused_by_name() -> None:
    """The fuzz corpus's ``ss: [1, [2, [3]]]`` (and ``d: [1]``) were read as objects and
    quarantined as "unreadable hand (AttributeError ...)", a Python error for a reason.
    Now the hand is refused with the field named, the same way on both paths."""
    for name, value in (("ss", [1, [2, [3]]]), ("d", [1])):
        lines = capture(2, 1)
        lines[3] = _mutate_field(lines[3], name, value, 0)
        definition, lane, _ = both(("\n".join(lines) + "\n").encode())
        assert lane == definition
        reasons = [getattr(item, "reason", "") for item in lane if hasattr(item, "reason")]
        assert any(f"gameState.{name} is not an object" in r for r in reasons), reasons
        assert not any("unreadable hand" in r for r in reasons), reasons


def test_a_seat_list_that_is_no_list_or_points_past_a_float_are_refused_by_name() -> None:
    """Fuzz seeds 7 and 12 (``bench/fuzz.py``): ``s: 7`` was quarantined as "unreadable
    hand (TypeError: 'int' object is not iterable)" and a seat's ``p`` of 10**400 as
    "unreadable hand (OverflowError ...)": Python errors for reasons.  Now the snapshot
    is refused with the field named, the same way on both paths, and both hands are still
    stored from their other snapshots (each later one shows the board so far)."""
    for name, value, reason in (
        ("s", 7, "gameState.s is not a list of seats"),
        ("p", 10**400, "points 1" + "0" * 39 + " is out of range"),
    ):
        lines = capture(2, 1)
        at = next(n for n, line in enumerate(lines) if '"gi": 101' in line or '"gi":101' in line)
        lines[at + 1] = _mutate_field(lines[at + 1], name, value, 0)
        definition, lane, _ = both(("\n".join(lines) + "\n").encode())
        assert lane == definition
        reasons = [getattr(item, "reason", "") for item in lane if hasattr(item, "reason")]
        assert any(reason in r for r in reasons), reasons
        assert not any("unreadable hand" in r for r in reasons), reasons
        assert sum(item[0] == "hand" for item in lane if isinstance(item, tuple)) == 2


# Text a seat's ``d`` may be given: most lines differ from the line before only inside one
# ``d`` string, which the core folds from that line without decoding it again, so the bytes
# there must be read exactly as a full decode would (escapes, quotes, control characters).
D_TEXT = st.text(st.sampled_from(list('0123456789;-;-x+ "\\\t\n\u00e9\u2028')), max_size=12)


@st.composite
def seat_strings_edited(draw: st.DrawFn) -> bytes:
    lines = capture(draw(st.integers(1, 4)), draw(st.integers(1, 2)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(lines) - 1))
        try:
            message = json.loads(lines[at])
            seats = message["gameState"]["s"]
        except (ValueError, KeyError, TypeError):
            continue
        seat = seats[draw(st.integers(0, len(seats) - 1))]
        old = seat["d"]
        cut = draw(st.integers(0, len(old)))
        seat["d"] = old[:cut] + draw(D_TEXT) + old[cut + draw(st.integers(0, 3)) :]
        if draw(st.booleans()):  # the same text spelled with an escape
            seat["d"] = seat["d"].replace("1", "\x01", 1)
        lines[at] = json.dumps(message, ensure_ascii=draw(st.booleans()))
        if draw(st.integers(0, 4)) == 0:  # raw text after a d: the seat's name given again
            end = lines[at].find('"', lines[at].find('"d": "') + 6)
            lines[at] = lines[at][:end] + '-x", "n": "zz' + lines[at][end:]
        if draw(st.booleans()):  # the edit repeated on the next line: a change the core folds
            lines.insert(at + 1, lines[at].replace("-", "-0", 1))
    if draw(st.booleans()):
        lines = [archived(line, n) for n, line in enumerate(lines)]
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seat_strings_edited())
def test_edited_seat_strings_read_alike(data: bytes) -> None:
    definition, lane, _ = both(data)
    assert lane == definition


# An archive record's payload is found without serde reading its escaped text, and the
# record read with the payload left out: what lies around the payload must be read as a
# decode of the whole line reads it (keys given twice or with escapes, the key's text inside
# another string, fields after the payload, nesting, a broken record, a bad payload string).
DEEP = "[" * 101 + "]" * 101
D_KEY = json.dumps(json.dumps('"d": "')[1:-1])[1:-1]  # a seat's "d" as a record spells it
RECORD_EDITS = st.sampled_from(
    [
        ('"payload": ', '"payload": "42/poker/,x", "payload": '),
        ('"payload": ', '"payload" :\t '),
        ('"payload": "', '"pay\\u006coad": "'),
        ('"site": "SealsWithClubs"', '"site": "\\"payload\\": \\"42/poker/,"'),
        ('"GameState"', '"GameSt\\u0061te"'),
        ('"GameState"', '"Other"'),
        ('"message_type": "GameState", ', ""),
        ('"captured_at": ', '"captured_at": 5, "x": '),
        ('"sequence": ', '"sequence": 0'),
        ('"site"', '"x": ' + DEEP + ', "site"'),
        ('"site"', '"x": ' + DEEP[1:-1] + ', "site"'),
        ('"}', '", "t": 5}'),
        ('"}', '", "gameState": 5}'),
        ('"}', '", }'),
        ('"}', '"'),
        ('"}', '"} x'),
        (D_KEY, D_KEY + "\t"),
        (D_KEY, D_KEY + "\\q"),
        (D_KEY, D_KEY + "\\\\"),
        ('"payload": "', '"nested": {"payload": "'),
    ]
)


@st.composite
def records_edited(draw: st.DrawFn) -> bytes:
    lines = capture(draw(st.integers(1, 3)), draw(st.integers(1, 2)))
    lines = [archived(line, n) for n, line in enumerate(lines)]
    for _ in range(draw(st.integers(1, 4))):  # an edit on a run of lines: most fold by delta
        at, (old, new) = draw(st.integers(0, len(lines) - 1)), draw(RECORD_EDITS)
        for i in range(at, min(at + draw(st.integers(1, 4)), len(lines))):
            if old == '"}' and lines[i].endswith(old):
                lines[i] = lines[i][: -len(old)] + new
            elif new.startswith('"nested"'):
                lines[i] = lines[i].replace(old, new, 1)[:-1] + "}}"
            else:
                lines[i] = lines[i].replace(old, new, 1)
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records_edited())
def test_edited_archive_records_read_alike(data: bytes) -> None:
    definition, lane, _ = both(data)
    assert lane == definition


def test_a_line_near_the_last_is_folded_from_it() -> None:
    """Lines that differ from their hand's last line only inside one ``d`` string: a
    placement (``5;6;7;9;10-1-2-2`` to ``5;6;7;9;10;8-1-2-3``: 8 (4c), the sixth card,
    reaches the bottom on street 1 of classic OFC), an exact resend, and a ``d`` spelled
    with an escape (``\\u0038`` is "8": the same snapshot, so no card moves) give the
    definition's hand, folded by the core."""
    head = '{"t": "GameState", "gameState": {"gi": 5, "gt": 70, "ti": 1, "s": [{"n": "a", "d": "'
    tail = '"}, {"n": "b", "d": "20;21;22;23;24-1-2-2"}]}}'
    lines = [head + d + tail for d in ("5;6;7;9;10-1-2-2", "5;6;7;9;10;8-1-2-3")]
    lines += [lines[-1], head + "5;6;7;9;10;\\u0038-1-2-3" + tail]
    definition, lane, folded = both(("\n".join(lines) + "\n").encode())
    assert lane == definition
    assert folded == 1
    placed = next(row for row in lane if row[0] == "hand")[3]
    last = [(p["card"], p["destination"], p["street"]) for p in placed if p["seat"] == 0][-1]
    assert last == (8, "bottom", 1)
    # A quote in the change gives the seat a second "n" (json keeps the last, so seat a
    # is skipped and 11 is not placed): that line is decoded in full, and left to the
    # definition.
    lines[3] = head + '5;6;7;9;10;8;11-1-2-4-x", "n": "zz' + tail
    definition, lane, folded = both(("\n".join(lines) + "\n").encode())
    assert lane == definition
    placed = next(row for row in lane if row[0] == "hand")[3]
    assert 11 not in [p["card"] for p in placed]


def test_a_read_error_comes_after_the_hands_of_the_reads_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lane decodes several reads as one block; a read that fails part way through a
    block still leaves the reads before it decoded (they were read whole), then the error.
    Reads of a third of the file: two read whole, the third fails (at 90% of the file)."""
    data = ("\n".join(capture(5, 1)) + "\n").encode()
    monkeypatch.setattr(core_lane, "BLOCK_BYTES", len(data) // 3)
    lane: list[ParseItem] = []
    with pytest.raises(OSError, match="read error"):
        stream = io.BufferedReader(FailingAfter(data, len(data) * 9 // 10), 1 << 16)
        for item in SwcParser().parse_columnar(stream, "x.jsonl"):
            lane.append(item)
    # the hands whose lines all lie in the first two reads, as the definition reads them
    whole = data[: data.rfind(b"\n", 0, 2 * (len(data) // 3)) + 1]
    complete = flat(list(SwcParser().parse(io.BytesIO(whole), "x.jsonl")))
    assert flat(lane) and flat(lane) == complete[: len(flat(lane))]
