"""Small datasets for tests: hand records written by hand or by the simulator, imported."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa

from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.records import HandRecord, SeatRecord
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from parsers.open_format import dumps


def write_dataset(tmp_path: Path, records: list[HandRecord], name: str = "hands") -> Path:
    source = tmp_path / f"{name}.jsonl"
    source.write_text("".join(dumps(r) + "\n" for r in records), encoding="utf-8")
    data = tmp_path / "data"
    summary = import_paths([source], data)
    assert summary.stored == len(records), summary.lines()
    recompute(data)
    return data


def sim_records(hands: int, seed: int, **options: object) -> list[HandRecord]:
    from ofc_stats.sim.rooms import simulate

    ruleset = get_ruleset(str(options.pop("rules", "pineapple-progressive")))
    return [
        record
        for record, _ in simulate(
            hands, ruleset, seats=3, players=6, seed=seed, rollouts=2, **options
        )  # type: ignore[arg-type]
    ]


def seat_record(
    seat: int, player: str, top: str, middle: str, bottom: str, **extra: object
) -> SeatRecord:
    return SeatRecord(
        seat=seat,
        player=player,
        top=parse_cards(top),
        middle=parse_cards(middle),
        bottom=parse_cards(bottom),
        **extra,  # type: ignore[arg-type]
    )


def hand_record(number: int, seats: tuple[SeatRecord, ...], **extra: object) -> HandRecord:
    return HandRecord(
        format="open",
        room="test",
        table_id="T1",
        room_hand_id=str(number),
        ruleset="pineapple-progressive",
        seats=seats,
        played_at=datetime(2026, 3, 1, 20, 0) + timedelta(minutes=2 * number),
        **extra,  # type: ignore[arg-type]
    )


STORED_KEYS = {
    "hands": ["hand_key"],
    "seats": ["hand_key", "seat"],
    "placements": ["hand_key", "seat", "street", "card", "destination"],
    "quarantine": ["source_file", "line", "offset", "reason"],
}


def stored_rows(data: Path) -> dict[str, list[dict[str, Any]]]:
    """The four imported tables sorted by key, without batch ids, hand ids and times.

    What two imports of the same files (say the columnar and the record path)
    must store alike.
    """
    dataset = Dataset(data)
    out = {}
    for name, keys in STORED_KEYS.items():
        table = dataset.read(name)
        drop = [
            c
            for c in ("batch", "hand_id", "room_hand_id", "quarantined_at")
            if c in table.column_names
        ]
        table = table.drop_columns(drop)
        if name == "placements":
            index = table.schema.get_field_index("destination")
            table = table.set_column(index, "destination", table["destination"].cast(pa.string()))
        out[name] = table.sort_by([(k, "ascending") for k in keys]).to_pylist()
    return out


def assert_stored_alike(one: Path, other: Path) -> dict[str, int]:
    """Both datasets store the same rows (:func:`stored_rows`); rows per table.

    Row by row, so a failure names the table and shows the first pair that differs.
    """
    mine, theirs = stored_rows(one), stored_rows(other)
    for name in STORED_KEYS:
        assert len(mine[name]) == len(theirs[name]), name
        for a, b in zip(mine[name], theirs[name], strict=True):
            assert a == b, name
    return {name: len(rows) for name, rows in mine.items()}
