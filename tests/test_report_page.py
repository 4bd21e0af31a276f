"""The report page's replayer data: packed (reports/replay.py pack), gzipped in base64, every
text from the hands still escaped inside it; the page's script unpacks it (tests/test_browser.py
checks that in Chromium against hand_details)."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

import ofc_stats
from reports.html import hand_index, hand_page, script_json
from reports.replay import PACKED_VERSION, hand_details, pack
from tests.builders import write_dataset
from tests.test_reports import HOSTILE, alice_hands, hostile_page


def carried(page: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The page's hand data as written (the inflated JSON text), parsed, and its index."""
    found = re.search(r'<script type="application/gzip-base64" id="hand-data">(.*?)</script>', page)
    index = re.search(r'<script type="application/json" id="hand-index">(.*?)</script>', page)
    assert found is not None and index is not None
    text = gzip.decompress(base64.b64decode(found.group(1))).decode()
    return text, json.loads(text), json.loads(index.group(1))


def test_the_page_carries_its_hands_packed_gzipped_and_escaped(tmp_path: Path) -> None:
    data, page = hostile_page(tmp_path)
    text, packed, index = carried(page)
    # Inflated, the JSON still cannot end a script element or start markup.
    assert not re.search("[<>&]", text) and "\\u003cscript\\u003e" in text
    assert packed["v"] == PACKED_VERSION and HOSTILE in packed["s"]  # the name, written once
    with ofc_stats.open(data) as db:
        keys = [str(k) for (k,) in db.sql("SELECT hand_key FROM hands").fetchall()]
        details = hand_details(db, keys)
    assert pack({h[0]: details[h[0]] for h in packed["h"]}) == packed  # the hands, all of them
    assert len(packed["h"]) == 4
    # Every hand is Alice's, so the index names them as positions in the live data's keys.
    order = live_data(page)["hands"]["key"]
    assert index == {"at": [[0, 4]], "keys": []} and sorted(order) == sorted(keys)


def live_data(page: str) -> dict[str, Any]:
    """The filter bar's data as the page carries it: packed (reports.explore.pack), gzipped,
    in base64; its JSON still cannot end a script element or start markup."""
    found = re.search(r'<script type="application/gzip-base64" id="live-data">(.*?)</script>', page)
    assert found is not None
    text = gzip.decompress(base64.b64decode(found.group(1))).decode()
    assert not re.search("[<>&]", text)
    packed: dict[str, Any] = json.loads(text)
    hands = packed["hands"]
    whole = set(hands["key_whole"])
    names = zip(hands["fmt"], hands["room"], hands["table"], strict=True)
    hands["key"] = [
        rest
        if at in whole
        else f"{packed['formats'][f]}:{packed['rooms'][r]}:{packed['tables'][t]}:{rest}"
        for at, (rest, (f, r, t)) in enumerate(zip(hands["key"], names, strict=True))
    ]
    return packed


def test_the_page_carries_the_filter_bars_rows_packed_and_gzipped(tmp_path: Path) -> None:
    """The live data: gzipped, escaped, hand keys written after their format, room and
    table (the columns name those), times as steps, opponents as counts."""
    from reports.explore import PACKED_VERSION as LIVE_VERSION
    from reports.explore import page_data

    data, page = hostile_page(tmp_path)
    assert 'id="live-data"' in page and HOSTILE not in page.replace("\\u003c", "<")
    packed = live_data(page)
    assert packed["v"] == LIVE_VERSION and "opp_at" not in packed["hands"]
    with ofc_stats.open(data) as db:
        from reports import Filters, prepare, resolve_player

        scope = prepare(db, Filters(player=resolve_player(db, HOSTILE)[0]))
        live = json.loads(script_json(page_data(scope), plain=True))
    assert packed["hands"]["key"] == live["hands"]["key"] and packed["hands"]["key_whole"] == []
    assert sum(packed["hands"]["opp_n"]) == live["hands"]["opp_at"][-1]


def test_the_index_names_the_carried_hands_as_runs() -> None:
    hands = ["d", "z", "a", "c"]
    assert hand_index(hands, ["a", "b", "c", "d", "e"]) == {"at": [[0, 1], [2, 4]], "keys": ["z"]}
    assert hand_index(hands, ()) == {"at": [], "keys": ["d", "z", "a", "c"]}


def test_a_single_hands_page_carries_it_as_packed_json(tmp_path: Path) -> None:
    data = write_dataset(tmp_path, alice_hands(HOSTILE))
    with ofc_stats.open(data) as db:
        (key,) = db.sql("SELECT hand_key FROM hands LIMIT 1").fetchall()[0]
        hand = hand_details(db, [key])[key]
    page = hand_page(hand)
    found = re.search(r'<script type="application/json" id="hand-data">(.*?)</script>', page)
    assert found is not None and HOSTILE not in page.replace("\\u003c", "<")
    assert json.loads(found.group(1)) == json.loads(json.dumps(pack({key: hand})))


def test_a_card_of_another_width_is_refused_not_misread() -> None:
    seat = {
        "seat": 0,
        "player": "p",
        "account": "p",
        "hero": False,
        "in_fantasy": False,
        "fantasy_cards": None,
        "rows": {"top": ["10h"], "middle": [], "bottom": []},
        "names": {"top": None, "middle": None, "bottom": None},
        "streets": [],
        "discards": [],
    }
    hand = {"key": "k", "room": None, "table": None, "ruleset": None, "seats": [seat]}
    with pytest.raises(ValueError, match="two characters"):
        pack({"k": hand})
