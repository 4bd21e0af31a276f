"""The open format's columnar import stores exactly what the per-hand parser stores."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from parsers.open_format import OpenFormatParser, dumps
from tests.handgen import random_records


def tricky_lines() -> list[str]:
    """Ordinary hands plus every odd shape a writer may produce."""
    records = random_records(300, seed=77)
    lines = [dumps(r) for r in records[:250]]
    base = [json.loads(dumps(r)) for r in records[250:]]

    def variant(index: int, change) -> str:  # type: ignore[no-untyped-def]
        data = json.loads(json.dumps(base[index]))
        data["hand_id"] = f"odd-{index}"
        change(data)
        return json.dumps(data)

    def hide_discard(d):  # type: ignore[no-untyped-def]
        street = d["seats"][1]["streets"][1]
        street["cards"][street["to"].index("discard")] = None

    def integer_cards(d):  # type: ignore[no-untyped-def]
        from ofc_stats.engine.cards import parse_card

        d["seats"][0]["streets"][0]["cards"] = [
            parse_card(c) for c in d["seats"][0]["streets"][0]["cards"]
        ]

    def spellings(d):  # type: ignore[no-untyped-def]
        d["seats"][0]["streets"][0]["cards"] = [
            c.lower().replace("t", "10") for c in d["seats"][0]["streets"][0]["cards"]
        ]

    def rows_form(d):  # type: ignore[no-untyped-def]
        seat = d["seats"][0]
        rows = {"top": [], "middle": [], "bottom": []}
        for street in seat.pop("streets"):
            for card, to in zip(street["cards"], street["to"], strict=True):
                if to != "discard":
                    rows[to].append(card)
        seat["rows"] = rows

    changes = [
        hide_discard,
        integer_cards,
        spellings,
        rows_form,
        lambda d: d.update(played_at="2026-01-01T10:00:00+02:00"),
        lambda d: d.update(played_at="2026-01-01 10:00"),
        lambda d: d.update(stakes="lots"),
        lambda d: d["seats"][0].update(hero="yes"),
        lambda d: d["seats"][0].update(streets="none"),
        lambda d: d["seats"][0]["streets"].append(7),
        lambda d: d["seats"][1]["streets"][0]["cards"].__setitem__(
            0, d["seats"][0]["streets"][0]["cards"][0]
        ),
        lambda d: d.update(seats=d["seats"] * 2),
        lambda d: d["seats"][0]["streets"][0]["cards"].__setitem__(0, "X1"),
        lambda d: d.update(ruleset="Pineapple_Progressive"),
        lambda d: d.update(ruleset="no such rules"),
        lambda d: d.update(hand_id=12345),
        lambda d: d["seats"][0].update(result=None, stack=None, player_id=None),
        lambda d: d["seats"][0].update(result={"points": "many"}),
        lambda d: d["seats"][0]["streets"][2]["to"].__setitem__(0, None),
        lambda d: d.update(ofc_format=2),
        lambda d: d["seats"][0].update(in_fantasy=True),
        lambda d: d["seats"][0]["streets"].pop(),  # an incomplete board
    ]
    for index, change in enumerate(changes):
        lines.append(variant(index % len(base), change))
    lines.append(lines[0])  # a duplicate
    lines.append("{broken")
    lines.append("")
    lines.append(lines[3][:50])  # truncated at the end
    return lines


def snapshot(data: Path) -> dict[str, list[dict]]:  # type: ignore[type-arg]
    dataset = Dataset(data)
    out = {}
    for name, keys in (
        ("hands", ["hand_key"]),
        ("seats", ["hand_key", "seat"]),
        ("placements", ["hand_key", "seat", "street", "card"]),
        ("quarantine", ["line", "reason"]),
    ):
        table = dataset.read(name)
        drop = [
            c
            for c in ("batch", "hand_id", "room_hand_id", "quarantined_at")
            if c in table.column_names
        ]
        table = table.drop_columns(drop)
        if name == "placements":
            table = table.set_column(4, "destination", table["destination"].cast(pa.string()))
        out[name] = table.sort_by([(k, "ascending") for k in keys]).to_pylist()
    return out


def test_columnar_and_per_hand_paths_store_the_same(tmp_path: Path) -> None:
    source = tmp_path / "hands.jsonl"
    source.write_text("\n".join(tricky_lines()), encoding="utf-8")
    fast = import_paths([source], tmp_path / "fast", batch_hands=100)
    slow = import_paths([source], tmp_path / "slow", batch_hands=100, columnar=False)
    assert (fast.stored, fast.duplicates, fast.quarantined) == (
        slow.stored,
        slow.duplicates,
        slow.quarantined,
    )
    assert fast.stored > 250 and fast.quarantined >= 10
    fast_rows, slow_rows = snapshot(tmp_path / "fast"), snapshot(tmp_path / "slow")
    for name in fast_rows:
        assert len(fast_rows[name]) == len(slow_rows[name]), name
        for a, b in zip(fast_rows[name], slow_rows[name], strict=True):
            assert a == b, name


def test_most_ordinary_lines_take_the_columnar_path(tmp_path: Path) -> None:
    from parsers.base import ColumnarHands

    source = tmp_path / "hands.jsonl"
    source.write_text("\n".join(tricky_lines()), encoding="utf-8")
    with open(source, "rb") as stream:
        items = list(OpenFormatParser().parse_columnar(stream, "x"))
    columnar = sum(i.hands.num_rows for i in items if isinstance(i, ColumnarHands))
    assert columnar >= 250
