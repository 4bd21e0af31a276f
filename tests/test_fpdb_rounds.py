"""The rounds' card lists read from their JSON text (parsers/fpdb_rounds.py) store what the record path stores.

``fpdb_fast`` keeps each round list as its raw JSON; ``fpdb_rounds`` takes
only the plain forms and refuses the rest, whose hands go to the per-row path.
Each test here fails if a refused form were read instead (or read wrongly).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_stats.engine.cards import parse_card
from ofc_stats.records import Quarantined
from parsers import fpdb_rounds
from parsers.base import ColumnarHands
from parsers.fpdb import FpdbParser
from parsers.fpdb_fast import HIDDEN, SPELLED
from tests.handgen import random_records
from tests.swcgen import fpdb_database, raw_json
from tests.test_swc_fpdb_columnar import assert_same


def _read(texts: list[bytes]) -> tuple[list[list[int]], list[bool]]:
    """Each ok list's cards (its own order), and which lists are ok."""
    ids, owner, ok = fpdb_rounds.card_lists([msgspec.Raw(t) for t in texts])
    cards: list[list[int]] = [[] for _ in texts]
    for card, list_number in zip(ids.tolist(), owner.tolist(), strict=True):
        cards[list_number].append(card)
    return [c if good else [] for c, good in zip(cards, ok.tolist(), strict=True)], ok.tolist()


def test_plain_lists_are_read_and_the_rest_refused() -> None:
    """Cards by hand: "10d" is the ten of diamonds, "--" a hidden card; odd forms refused."""
    texts = [
        b'["Ah", "10d"]',  # ", " between cards
        b"[]",
        b"null",  # hand_parts reads it as no cards
        b'["--","Kc"]',  # "," between cards
        b'[ "Ah"]',  # a space inside the brackets: not a form read here
        b'["Ah", 5]',  # a number
        b'["A\\u0068"]',  # "Ah" by an escape: json reads it, this reader does not
        b'["A;h"]',  # a ";" inside a string: the lists' bounds come from their lengths
        b'[["Ah"]]',  # a nested list
        b'["Ah" , "Kd"]',  # a space before the comma
        b'["1d"]',  # no such rank
        b'["\\"", "Ah"]',  # an escaped quote: the quotes would pair wrongly from here on
        b'["Ah"]',
    ]
    cards, ok = _read(texts)
    assert ok == [True, True, True, True] + [False] * 8 + [True]
    ace, ten, king = parse_card("Ah"), parse_card("Td"), parse_card("Kc")
    assert cards[0] == [ace, ten] and cards[3] == [HIDDEN, king] and cards[12] == [ace]
    assert cards[1] == cards[2] == []


def test_a_text_that_is_no_list_keeps_its_neighbours_cards() -> None:
    """A string, an object or a number where a list was is refused; each list's cards stay its own."""
    texts = [b'"Ah"', b'["Kd", "2c"]', b'{"a": ["Qs"]}', b'"x"', b'["Jh"]', b"7", b'["--", "3s"]']
    cards, ok = _read(texts)
    assert ok == [False, True, False, False, True, False, True]
    assert cards[1] == [parse_card("Kd"), parse_card("2c")] and cards[4] == [parse_card("Jh")]
    assert cards[6] == [HIDDEN, parse_card("3s")]


def test_no_lists() -> None:
    assert _read([]) == ([], [])


def _items(path: Path) -> list[tuple[str, int]]:
    items = FpdbParser().parse_path_columnar(str(path), "f")
    return [
        ("columns", i.hands.num_rows) if isinstance(i, ColumnarHands) else (type(i).__name__, 1)
        for i in items
    ]


def test_refused_lists_go_through_the_per_row_path(tmp_path: Path) -> None:
    """An escaped card, a spaced list, a number among cards: per row, stored alike, in order."""
    raws = [raw_json(r) for r in random_records(6, seed=41)]
    texts = [json.dumps(raw) for raw in raws]
    texts[1] = texts[1].replace('"placed": {"top": ["', '"placed": {"top": [ "', 1)
    card = raws[3]["rounds"][0]["placed"]["middle"][0]
    escaped = card[:-1] + "\\u00" + format(ord(card[-1]), "02x")  # the same card, escaped
    head, rounds = texts[3].split('"rounds": ', 1)  # (the players' rows come first)
    rounds = rounds.replace(f'"middle": ["{card}"', f'"middle": ["{escaped}"', 1)
    texts[3] = f'{head}"rounds": {rounds}'
    texts[4] = texts[4].replace('"discarded": []', '"discarded": [7]', 1)  # a bad card
    assert "\\u00" in texts[3] and json.loads(texts[3]) == raws[3]
    path = fpdb_database(tmp_path / "f.db3", texts)
    items = _items(path)
    # The chunk's other hands are laid out once and cut around the refused ones,
    # which the record path reads (hand 4 it quarantines: "7" is no card).
    assert items == [
        ("columns", 1),
        ("HandRecord", 1),
        ("columns", 1),
        ("HandRecord", 1),
        ("Quarantined", 1),
        ("columns", 1),
    ]
    counts = assert_same([[path]], tmp_path)
    assert counts["hands"] == 5 and counts["quarantine"] == 1


def _respaced(text: str, rng: random.Random) -> str:
    """The text with some of its list and object punctuation written another way."""
    forms = [", ", ",", " , ", ": ", ":", "[ ", " ]", "\\u0041", "\n"]
    pieces = re.split(r"(, |: |\[|\]|A)", text)
    out = []
    for piece in pieces:
        if piece in (", ", ": ", "[", "]", "A") and rng.random() < 0.05:
            form = rng.choice(forms)
            if piece == "A":
                form = form if form == "\\u0041" else "A"
            elif piece == "[":
                form = "[ " if form == "[ " else "["
            elif piece == "]":
                form = " ]" if form == " ]" else "]"
            elif piece == ", ":
                form = form if form in (", ", ",", " , ", "\n") else ", "
            else:
                form = form if form in (": ", ":", "\n") else ": "
            out.append(form)
        else:
            out.append(piece)
    respaced = "".join(out)
    try:
        json.loads(respaced)
    except ValueError:
        return text  # "A" stood in a spot where "\\u0041" is not JSON (no: json says)
    return respaced


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1))
def test_respaced_rounds_store_alike(tmp_path_factory: Any, seed: int) -> None:
    """Lists spaced, compacted, escaped or broken over lines: both paths store the same."""
    rng = random.Random(seed)
    raws = [raw_json(r) for r in random_records(5, seed=seed % 997)]
    texts = [_respaced(json.dumps(raw), rng) for raw in raws]
    folder = tmp_path_factory.mktemp("fpdb")
    assert_same([[fpdb_database(folder / "f.db3", texts)]], folder)


def test_runs_between_refused_hands_keep_their_rows_order(tmp_path: Path) -> None:
    """A card twice on a board (first, middle, last hand): the runs between are cut in order."""
    raws = [raw_json(r) for r in random_records(7, seed=43)]
    for index in (0, 3, 6):
        top = raws[index]["players"][1]["top"]
        top[1] = top[0]
    path = fpdb_database(tmp_path / "f.db3", [json.dumps(raw) for raw in raws])
    parsed = list(FpdbParser().parse_path_columnar(str(path), "f"))
    kinds = [type(i).__name__ for i in parsed]
    assert kinds == ["HandRecord", "ColumnarHands", "HandRecord", "ColumnarHands", "HandRecord"]
    lines = [
        i.hands["source_line"].to_pylist() if isinstance(i, ColumnarHands) else [i.source_line]
        for i in parsed
    ]
    assert lines == [[1], [2, 3], [4], [5, 6], [7]]
    seats = [i.seats.num_rows for i in parsed if isinstance(i, ColumnarHands)]
    assert seats == [len(raws[1]["players"]) + len(raws[2]["players"]),
                     len(raws[4]["players"]) + len(raws[5]["players"])]  # fmt: skip
    counts = assert_same([[path]], tmp_path)
    assert counts["hands"] == 4 and counts["quarantine"] == 3


_SPELLINGS = [*sorted(SPELLED), "--"]
_ODD = ["", "A", "1h", "Ahh", 'a"b', "a\\b", "A;h", "\u00e9s", " As", "Zz", 5, None, [], ["Ah"], {}]


@settings(max_examples=200, deadline=None)
@given(
    cards=st.lists(st.sampled_from(_SPELLINGS), max_size=6),
    odd=st.lists(st.tuples(st.integers(0, 6), st.sampled_from(_ODD)), max_size=2),
    separator=st.sampled_from([", ", ",", " , ", ",\t", ",\n ", ",  "]),
    padded=st.booleans(),
)
def test_a_list_read_here_is_what_json_reads(
    cards: list[str], odd: list[tuple[int, Any]], separator: str, padded: bool
) -> None:
    """Whatever card_lists takes, json.loads reads as the same cards; plain lists it takes."""
    values: list[Any] = list(cards)
    for at, value in odd:
        values.insert(min(at, len(values)), value)
    text = "[" + separator.join(json.dumps(v) for v in values) + "]"
    text = text.replace("[", "[ ", 1) if padded else text
    neighbours = [b'["Kd"]', text.encode(), b'["2c", "--"]']  # its bounds must hold, too
    read, ok = _read(neighbours)
    assert ok[0] and ok[2] and read[0] == [parse_card("Kd")]
    assert read[2] == [parse_card("2c"), HIDDEN]
    one_byte = separator in (", ", ",", ",\t")  # a comma and at most one blank
    plain = not odd and not padded and (len(values) < 2 or one_byte)
    assert ok[1] == plain
    if ok[1]:
        expected = [HIDDEN if c == "--" else parse_card(c) for c in json.loads(text)]
        assert read[1] == expected


def test_a_number_where_a_card_list_belongs_is_refused_in_the_parser_s_words(
    tmp_path: Path,
) -> None:
    """ "discarded": 7 (not [7]) is the hand's refusal, on both paths alike: never a Python
    error let through as the reason ('unreadable hand (TypeError ...)')."""
    texts = [json.dumps(raw_json(r)) for r in random_records(3, seed=43)]
    texts[1] = texts[1].replace('"discarded": []', '"discarded": 7', 1)
    assert '"discarded": 7' in texts[1]
    path = fpdb_database(tmp_path / "f.db3", texts)
    reasons = [
        i.reason
        for i in FpdbParser().parse_path_columnar(str(path), "f")
        if isinstance(i, Quarantined)
    ]
    assert reasons == ["cards '7' are not a list"]
    counts = assert_same([[path]], tmp_path)
    assert counts["hands"] == 2 and counts["quarantine"] == 1
