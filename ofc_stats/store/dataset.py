"""The Parquet dataset: tables, atomic batch commits, the import lock.

A dataset is a folder::

    ofc-data/
      dataset.json                 {"schema_version": 2}
      batches/<batch id>/          one committed import batch, renamed into place whole
        hands.parquet  seats.parquet  placements.parquet  files.parquet  quarantine.parquet
      .tmp/                        batches being written (never read)
      .lock                        held by the running import

A batch directory is written under ``.tmp`` and renamed into ``batches`` in
one ``rename``: an import killed at any moment leaves each batch either
entirely present or absent, and readers only ever see ``batches/*``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.engine.board import DESTINATIONS
from ofc_stats.errors import DatasetLocked, OfcError
from ofc_stats.records import HandRecord, Quarantined

SCHEMA_VERSION = 2  # 2: seats.board_streets
CARDS = pa.list_(pa.int8())
DESTINATION = pa.dictionary(pa.int8(), pa.string())

HANDS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("format", pa.string()),
        ("room", pa.string()),
        ("table_id", pa.string()),
        ("room_hand_id", pa.string()),
        ("played_at", pa.timestamp("us")),
        ("rules_text", pa.string()),
        ("ruleset", pa.string()),
        ("seat_count", pa.int8()),
        ("complete", pa.bool_()),
        ("stakes", pa.float64()),
        ("currency", pa.string()),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
        ("source_offset", pa.int64()),
        ("raw_text", pa.string()),
        ("fingerprint", pa.string()),
        ("batch", pa.string()),
    ]
)
SEATS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("player_id", pa.string()),
        ("hero", pa.bool_()),
        ("in_fantasy", pa.bool_()),
        ("fantasy_cards", pa.int8()),
        ("top", CARDS),
        ("middle", CARDS),
        ("bottom", CARDS),
        ("board", pa.binary(13)),  # top+middle+bottom card ids as 13 bytes; null if incomplete
        ("board_streets", pa.binary(13)),  # street of each board card, 255 = unknown; null if none
        ("discards", CARDS),
        ("reported_points", pa.float64()),
        ("reported_money", pa.float64()),
        ("stack", pa.float64()),
    ]
)
PLACEMENTS = pa.schema(
    [
        ("hand_key", pa.string()),
        ("seat", pa.int8()),
        ("street", pa.int8()),
        ("card", pa.int8()),
        ("destination", DESTINATION),
    ]
)
FILES = pa.schema(
    [
        ("path", pa.string()),
        ("size", pa.int64()),
        ("modified_at", pa.timestamp("us")),
        ("sha256", pa.string()),
        ("format", pa.string()),
        ("hands_seen", pa.int64()),
        ("stored", pa.int64()),
        ("duplicates", pa.int64()),
        ("quarantined", pa.int64()),
        ("imported_at", pa.timestamp("us")),
        ("batch", pa.string()),
    ]
)
QUARANTINE = pa.schema(
    [
        ("source_file", pa.string()),
        ("line", pa.int64()),
        ("offset", pa.int64()),
        ("hand_id", pa.string()),
        ("reason", pa.string()),
        ("raw_text", pa.string()),
        ("quarantined_at", pa.timestamp("us")),
        ("batch", pa.string()),
    ]
)
TABLES = {
    "hands": HANDS,
    "seats": SEATS,
    "placements": PLACEMENTS,
    "files": FILES,
    "quarantine": QUARANTINE,
}


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def hands_table(hands: Sequence[HandRecord], batch: str) -> dict[str, pa.Table]:
    """The hands, seats and placements rows of some hand records."""
    h: dict[str, list[Any]] = {name: [] for name in HANDS.names}
    s: dict[str, list[Any]] = {name: [] for name in SEATS.names}
    p: dict[str, list[Any]] = {name: [] for name in PLACEMENTS.names}
    for hand in hands:
        key = hand.hand_key
        streets_of: dict[int, dict[int, int]] = {}
        discard_street: dict[tuple[int, int], int] = {}
        for placement in hand.placements:
            if placement.destination != "discard":
                streets_of.setdefault(placement.seat, {})[placement.card] = placement.street
            else:
                discard_street[(placement.seat, placement.card)] = placement.street
        hand_row: dict[str, Any] = dict(
            hand_key=key,
            format=hand.format,
            room=hand.room,
            table_id=hand.table_id,
            room_hand_id=hand.room_hand_id,
            played_at=hand.played_at,
            rules_text=hand.rules_text,
            ruleset=hand.ruleset,
            seat_count=len(hand.seats),
            complete=hand.complete,
            stakes=hand.stakes,
            currency=hand.currency,
            source_file=hand.source_file,
            source_line=hand.source_line,
            source_offset=hand.source_offset,
            raw_text=hand.raw_text,
            fingerprint=hand.fingerprint,
            batch=batch,
        )
        for name, value in hand_row.items():
            h[name].append(value)
        for seat in hand.seats:
            board = seat.top + seat.middle + seat.bottom
            seat_row: dict[str, Any] = dict(
                hand_key=key,
                seat=seat.seat,
                player=seat.player,
                player_id=seat.player_id,
                hero=seat.hero,
                in_fantasy=seat.in_fantasy,
                fantasy_cards=seat.fantasy_cards,
                top=list(seat.top),
                middle=list(seat.middle),
                bottom=list(seat.bottom),
                board=bytes(board) if seat.complete else None,
                board_streets=_board_streets(board, streets_of.get(seat.seat)),
                discards=_street_order(seat.seat, seat.discards, discard_street),
                reported_points=seat.reported_points,
                reported_money=seat.reported_money,
                stack=seat.stack,
            )
            for name, value in seat_row.items():
                s[name].append(value)
        for placement in hand.placements:
            p["hand_key"].append(key)
            p["seat"].append(placement.seat)
            p["street"].append(placement.street)
            p["card"].append(placement.card)
            p["destination"].append(DESTINATIONS.index(placement.destination))
    destinations = pa.DictionaryArray.from_arrays(
        pa.array(p.pop("destination"), pa.int8()), pa.array(DESTINATIONS)
    )
    placements = pa.table(
        {
            **{k: pa.array(v, PLACEMENTS.field(k).type) for k, v in p.items()},
            "destination": destinations,
        },
        schema=PLACEMENTS,
    )
    return {
        "hands": pa.table(h, schema=HANDS),
        "seats": pa.table(s, schema=SEATS),
        "placements": placements,
    }


def _street_order(
    seat: int, discards: tuple[int, ...] | None, streets: dict[tuple[int, int], int]
) -> list[int] | None:
    """Discards in the order of their streets (as the columnar import stores them)."""
    if discards is None:
        return None
    return sorted(discards, key=lambda card: streets.get((seat, card), 99))


def _board_streets(board: tuple[int, ...], streets: dict[int, int] | None) -> bytes | None:
    """The street each board card was placed on (255 where unknown); None without placements."""
    if streets is None or len(board) != 13:
        return None
    return bytes(min(streets.get(card, 255), 255) for card in board)


def quarantine_table(entries: Sequence[Quarantined], batch: str) -> pa.Table:
    now = _now()
    return pa.table(
        {
            "source_file": [q.source_file for q in entries],
            "line": [q.line for q in entries],
            "offset": [q.offset for q in entries],
            "hand_id": [q.hand_id for q in entries],
            "reason": [q.reason for q in entries],
            "raw_text": [q.raw_text for q in entries],
            "quarantined_at": [now] * len(entries),
            "batch": [batch] * len(entries),
        },
        schema=QUARANTINE,
    )


class Dataset:
    """A dataset folder: read its tables, commit batches under its lock."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def batches_dir(self) -> Path:
        return self.root / "batches"

    def exists(self) -> bool:
        return (self.root / "dataset.json").is_file()

    def create(self) -> None:
        self.batches_dir.mkdir(parents=True, exist_ok=True)
        (self.root / ".tmp").mkdir(exist_ok=True)
        meta = self.root / "dataset.json"
        if not meta.exists():
            meta.write_text(json.dumps({"schema_version": SCHEMA_VERSION}) + "\n")
        self._check_version()

    def _check_version(self) -> None:
        meta = json.loads((self.root / "dataset.json").read_text())
        if meta.get("schema_version") != SCHEMA_VERSION:
            raise OfcError(
                f"{self.root}: dataset schema version {meta.get('schema_version')}, "
                f"this ofc-stats reads version {SCHEMA_VERSION}; import the files again "
                "into a new --data folder"
            )

    def check_version(self) -> None:
        """Refuse a dataset written by another schema version, saying what to do."""
        self._check_version()

    def batches(self) -> list[Path]:
        if not self.batches_dir.is_dir():
            return []
        return sorted(p for p in self.batches_dir.iterdir() if p.is_dir())

    def files(self, table: str) -> list[str]:
        """Parquet files of one table, committed batches only."""
        return [
            str(b / f"{table}.parquet") for b in self.batches() if (b / f"{table}.parquet").exists()
        ]

    def read(self, table: str, columns: list[str] | None = None) -> pa.Table:
        schema = TABLES[table]
        paths = self.files(table)
        if not paths:
            return schema.empty_table() if columns is None else schema.empty_table().select(columns)
        parts = [pq.read_table(path, columns=columns) for path in paths]
        return pa.concat_tables(parts)

    def hand_keys(self) -> dict[str, str]:
        """hand_key -> fingerprint of every stored hand."""
        table = self.read("hands", ["hand_key", "fingerprint"])
        return dict(zip(table.column(0).to_pylist(), table.column(1).to_pylist(), strict=True))

    def file_hashes(self) -> set[str]:
        return set(self.read("files", ["sha256"]).column(0).to_pylist())

    def quarantine_keys(self) -> set[tuple[str, int | None, str]]:
        table = self.read("quarantine", ["source_file", "offset", "reason"])
        return set(zip(*(table.column(i).to_pylist() for i in range(3)), strict=True))

    @contextmanager
    def locked(self, wait_seconds: float = 0.0) -> Iterator[None]:
        """Hold the dataset's import lock; wait up to ``wait_seconds`` for it."""
        self.create()
        with open(self.root / ".lock", "a+") as handle:
            deadline = time.monotonic() + wait_seconds
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        handle.seek(0)
                        holder = handle.read().strip() or "another process"
                        raise DatasetLocked(
                            f"{self.root} is being imported into by {holder}; "
                            "wait for it to finish or pass --wait SECONDS"
                        ) from None
                    time.sleep(0.2)
            handle.seek(0)
            handle.truncate()
            handle.write(f"pid {os.getpid()}")
            handle.flush()
            try:
                yield
            finally:
                handle.seek(0)
                handle.truncate()
                fcntl.flock(handle, fcntl.LOCK_UN)

    def new_batch_id(self) -> str:
        return f"{time.time_ns():020d}-{os.getpid()}"

    def commit(self, batch: str, tables: dict[str, pa.Table]) -> Path:
        """Write a batch's tables and publish them with one rename."""
        staging = self.root / ".tmp" / batch
        staging.mkdir(parents=True)
        try:
            for name, table in tables.items():
                if table.num_rows == 0 and name != "files":
                    continue
                path = staging / f"{name}.parquet"
                pq.write_table(table, path, compression="zstd")
                with open(path, "rb") as handle:
                    os.fsync(handle.fileno())
            final = self.batches_dir / batch
            os.rename(staging, final)
            directory = os.open(self.batches_dir, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
            return final
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def clean_staging(self) -> None:
        """Remove batches left half-written by a killed import (never published)."""
        tmp = self.root / ".tmp"
        if tmp.is_dir():
            for leftover in tmp.iterdir():
                shutil.rmtree(leftover, ignore_errors=True)
