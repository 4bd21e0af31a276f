"""Small datasets for tests: hand records written by hand or by the simulator, imported."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.records import HandRecord, SeatRecord
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
