"""`ofc-stats import`: hand-history files in, the Parquet dataset out.

Idempotent (a hand is stored once, keyed by ``hand_key``; an unchanged file
is skipped by its content hash), streaming (hands are committed in bounded
batches), and lossless (what cannot be stored is quarantined with the reason,
file and line).
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, Quarantined, validate_hand
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.hand_ids import next_hand_id, with_hand_ids
from ofc_stats.store.rows import hands_table, quarantine_table
from ofc_stats.store.schema import FILES, HANDS, PLACEMENTS, SEATS
from parsers.base import SNIFF_BYTES, ColumnarHands, ParseItem, Parser
from parsers.registry import detect, get_parser, known_formats

BATCH_HANDS = 20_000
ZIP_MAX_MEMBERS = 10_000
ZIP_MAX_TOTAL = 4 << 30  # bytes uncompressed in one archive
ZIP_MAX_RATIO = 200  # uncompressed / compressed for one member


@dataclass
class FileSummary:
    path: str
    format: str
    hands_seen: int = 0
    stored: int = 0
    duplicates: int = 0
    quarantined: int = 0
    reused_ids: int = 0  # stored under a suffixed key: the room reused a hand id
    skipped: str | None = None  # why the whole file was skipped


@dataclass
class ImportSummary:
    files: list[FileSummary] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)  # one per quarantined item

    @property
    def stored(self) -> int:
        return sum(f.stored for f in self.files)

    @property
    def duplicates(self) -> int:
        return sum(f.duplicates for f in self.files)

    @property
    def quarantined(self) -> int:
        return sum(f.quarantined for f in self.files)

    @property
    def hands_seen(self) -> int:
        return sum(f.hands_seen for f in self.files)

    def lines(self) -> list[str]:
        """The closing summary a person reads."""
        skipped = [f for f in self.files if f.skipped]
        out = [
            f"files: {len(self.files)} ({len(skipped)} skipped)",
            f"hands: {self.hands_seen} seen, {self.stored} stored, "
            f"{self.duplicates} duplicates, {self.quarantined} quarantined",
        ]
        reused = sum(f.reused_ids for f in self.files)
        if reused:
            out.append(
                f"  {reused} hand(s) reused another hand's room hand id: "
                "stored under hand_key~<fingerprint>"
            )
        for f in skipped:
            out.append(f"  skipped {f.path}: {f.skipped}")
        for reason, count in self.reasons.most_common():
            out.append(f"  quarantined {count} × {reason}")
        return out


@dataclass(frozen=True)
class Source:
    """One input: a file on disk or a member of a zip archive."""

    name: str
    size: int
    modified: datetime | None
    open: Callable[[], BinaryIO]
    path: str | None = None  # a real file path, for parsers that need one


def _reason_class(reason: str) -> str:
    """Group quarantine reasons for the summary (drop card names and numbers)."""
    head = reason.split(":", 1)[0]
    if head.startswith("card ") and "appears twice" in reason:
        return "duplicate card"
    return head if len(head) < 60 else head[:57] + "..."


def expand(paths: Iterable[str | Path], summary: ImportSummary) -> Iterator[Source]:
    """Files, folders (recursively, sorted) and the members of .zip archives."""
    for given in paths:
        path = Path(given)
        if path.is_dir():
            children = sorted(p for p in path.rglob("*") if p.is_file())
            yield from expand(children, summary)
        elif path.suffix.lower() == ".zip" and zipfile.is_zipfile(path):
            yield from _zip_members(path, summary)
        elif path.is_file():
            info = path.stat()
            yield Source(
                name=str(path),
                size=info.st_size,
                modified=datetime.fromtimestamp(info.st_mtime, UTC).replace(tzinfo=None),
                open=partial(_open_binary, path),
                path=str(path),
            )
        else:
            summary.files.append(FileSummary(str(path), "-", skipped="no such file"))


def _zip_members(path: Path, summary: ImportSummary) -> Iterator[Source]:
    with zipfile.ZipFile(path) as archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
    if len(members) > ZIP_MAX_MEMBERS:
        summary.files.append(
            FileSummary(
                str(path), "zip", skipped=f"{len(members)} members; limit {ZIP_MAX_MEMBERS}"
            )
        )
        return
    total = sum(m.file_size for m in members)
    if total > ZIP_MAX_TOTAL:
        summary.files.append(
            FileSummary(
                str(path), "zip", skipped=f"unpacks to {total} bytes; limit {ZIP_MAX_TOTAL}"
            )
        )
        return
    for member in members:
        name = f"{path}!{member.filename}"
        if stat.S_ISLNK(member.external_attr >> 16):
            summary.files.append(FileSummary(name, "zip", skipped="symbolic link in archive"))
            continue
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > ZIP_MAX_RATIO and member.file_size > 1 << 20:
            summary.files.append(
                FileSummary(name, "zip", skipped=f"compression ratio {ratio:.0f}:1 (zip bomb?)")
            )
            continue

        yield Source(
            name=name,
            size=member.file_size,
            modified=datetime(*member.date_time),
            open=partial(_ZipMember, path, member),  # type: ignore[arg-type]
        )


class _ZipMember(io.RawIOBase):
    """One archive member as a stream that closes its archive when closed."""

    def __init__(self, path: Path, member: zipfile.ZipInfo) -> None:
        self.archive = zipfile.ZipFile(path)
        self.member = self.archive.open(member)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.member.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.member.close()
        self.archive.close()
        super().close()


def _open_binary(path: Path) -> BinaryIO:
    return path.open("rb")


def _sha256(source: Source) -> str:
    digest = hashlib.sha256()
    with source.open() as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class Importer:
    """One import run into one dataset, under its lock."""

    def __init__(
        self,
        dataset: Dataset,
        *,
        format_name: str = "auto",
        ruleset: Ruleset | None = None,
        batch_hands: int = BATCH_HANDS,
        on_bytes: Callable[[int], None] | None = None,
        columnar: bool = True,
    ) -> None:
        self.dataset = dataset
        self.columnar = columnar
        self.format_name = format_name
        self.ruleset = ruleset
        self.batch_hands = batch_hands
        self.on_bytes = on_bytes or (lambda n: None)
        self.summary = ImportSummary()
        self.keys = dataset.hand_keys()
        self.hashes = dataset.file_hashes()
        self.quarantine_keys = dataset.quarantine_keys()
        self.pending_hands: list[HandRecord] = []
        self.pending_columns: list[ColumnarHands] = []
        self.pending_count = 0
        self.pending_quarantine: list[Quarantined] = []
        self.pending_files: list[dict[str, object]] = []
        self._rulesets: dict[str, Ruleset] = {}

    def run(self, paths: Iterable[str | Path]) -> ImportSummary:
        for source in expand(paths, self.summary):
            self.import_source(source)
        self.flush()
        return self.summary

    def _parser(self, source: Source) -> type[Parser] | None:
        if self.format_name != "auto":
            return get_parser(self.format_name)
        with source.open() as stream:
            head = stream.read(SNIFF_BYTES)
        return detect(head, source.name)

    def import_source(self, source: Source) -> None:
        digest = _sha256(source)
        parser_type = self._parser(source)
        file = FileSummary(source.name, parser_type.name if parser_type else "unknown")
        self.summary.files.append(file)
        if digest in self.hashes:
            file.skipped = "already imported (same content)"
            self.on_bytes(source.size)
            return
        if parser_type is None:
            file.skipped = f"unknown format; known formats: {known_formats()}"
            self.on_bytes(source.size)
            self._ledger(source, digest, file)
            return
        parser = parser_type()
        # A ruleset override applies hand by hand, so it takes the record path.
        columnar = parser.columnar and self.columnar and self.ruleset is None
        if parser.needs_path:
            items = parser.parse_path(source.path or source.name, source.name)
            self.on_bytes(source.size)
            self._consume(items, file, parser)
        else:
            with source.open() as raw:
                stream = io.BufferedReader(_Counting(raw, self.on_bytes), 1 << 20)
                parse = parser.parse_columnar if columnar else parser.parse
                self._consume(parse(stream, source.name), file, parser)
        self.hashes.add(digest)
        self._ledger(source, digest, file)

    def _consume(self, items: Iterable[ParseItem], file: FileSummary, parser: Parser) -> None:
        for item in items:
            if isinstance(item, Quarantined):
                self._quarantine(file, item)
                continue
            if isinstance(item, ColumnarHands):
                self._consume_columns(item, file, parser)
                continue
            file.hands_seen += 1
            try:
                ruleset = self.ruleset or self._ruleset(item.ruleset)
                if self.ruleset is not None and item.ruleset != ruleset.name:
                    item = replace(item, ruleset=ruleset.name)
                validate_hand(item, ruleset)
            except OfcError as error:
                self._quarantine(
                    file,
                    Quarantined(
                        item.source_file,
                        str(error),
                        item.raw_text,
                        item.source_line,
                        item.source_offset,
                        item.room_hand_id,
                    ),
                    counted=True,
                )
                continue
            fingerprint = item.fingerprint
            if self.keys.get(item.hand_key, fingerprint) != fingerprint:
                # Same room hand id, other cards: a different hand, never a duplicate.
                item = replace(item, key_suffix=f"~{fingerprint[:8]}")
                file.reused_ids += 1
            if item.hand_key in self.keys:
                file.duplicates += 1
                continue
            self.keys[item.hand_key] = fingerprint
            file.stored += 1
            self.pending_hands.append(item)
            self.pending_count += 1
            if self.pending_count >= self.batch_hands:
                self.flush()

    def _consume_columns(self, chunk: ColumnarHands, file: FileSummary, parser: Parser) -> None:
        """Hands a parser laid out as tables: dedupe by key and fingerprint, keep the rest."""
        line = pa.field("source_line", pa.int64())
        chunk = ColumnarHands(
            hands=chunk.hands.cast(HANDS),
            seats=chunk.seats.cast(pa.schema([*SEATS, line])),
            placements=chunk.placements.cast(pa.schema([*PLACEMENTS, line])),
        )
        keys = chunk.hands.column("hand_key").to_pylist()
        fingerprints = chunk.hands.column("fingerprint").to_pylist()
        keep, reparse = [], []
        for index, (key, fingerprint) in enumerate(zip(keys, fingerprints, strict=True)):
            known = self.keys.get(key)
            if known is None:
                self.keys[key] = fingerprint
                keep.append(index)
            elif known == fingerprint:
                file.hands_seen += 1
                file.duplicates += 1
            else:
                reparse.append(index)  # a reused room hand id: the record path suffixes it
        file.hands_seen += len(keep)
        file.stored += len(keep)
        while keep:  # in slices, so commits keep to the batch size
            room = max(self.batch_hands - self.pending_count, 1)
            part, keep = keep[:room], keep[room:]
            hands = chunk.hands.take(part)
            lines = hands["source_line"]
            seats = chunk.seats.filter(pc.is_in(chunk.seats["source_line"], lines))
            placements = chunk.placements.filter(pc.is_in(chunk.placements["source_line"], lines))
            seats = seats.drop_columns(["source_line"])
            placements = placements.drop_columns(["source_line"])
            self.pending_columns.append(ColumnarHands(hands, seats, placements))
            self.pending_count += len(part)
            if self.pending_count >= self.batch_hands:
                self.flush()
        if reparse:
            rows = chunk.hands.take(reparse).to_pylist()
            records = [
                parser.hand_from_raw(
                    row["raw_text"], row["source_file"], row["source_line"], row["source_offset"]
                )
                for row in rows
            ]
            self._consume(records, file, parser)
        if self.pending_count >= self.batch_hands:
            self.flush()

    def _ruleset(self, name: str) -> Ruleset:
        if name not in self._rulesets:
            self._rulesets[name] = get_ruleset(name)
        return self._rulesets[name]

    def _quarantine(self, file: FileSummary, item: Quarantined, counted: bool = False) -> None:
        if not counted:
            file.hands_seen += 1
        file.quarantined += 1
        self.summary.reasons[_reason_class(item.reason)] += 1
        self.summary.messages.append(item.message())
        key = (item.source_file, item.offset, item.reason)
        if key not in self.quarantine_keys:
            self.quarantine_keys.add(key)
            self.pending_quarantine.append(item)

    def _ledger(self, source: Source, digest: str, file: FileSummary) -> None:
        self.pending_files.append(
            {
                "path": source.name,
                "size": source.size,
                "modified_at": source.modified,
                "sha256": digest,
                "format": file.format,
                "hands_seen": file.hands_seen,
                "stored": file.stored,
                "duplicates": file.duplicates,
                "quarantined": file.quarantined,
            }
        )
        if len(self.pending_files) >= 1000:
            self.flush()

    def flush(self) -> None:
        """Commit what is pending as one atomic batch."""
        if not (
            self.pending_hands
            or self.pending_columns
            or self.pending_quarantine
            or self.pending_files
        ):
            return
        batch = self.dataset.new_batch_id()
        tables = hands_table(self.pending_hands, batch)
        if self.pending_columns:
            hands = [tables["hands"]]
            for chunk in self.pending_columns:
                column = pa.array([batch] * chunk.hands.num_rows, pa.string())
                index = chunk.hands.schema.get_field_index("batch")
                hands.append(chunk.hands.set_column(index, "batch", column))
            tables["hands"] = pa.concat_tables(hands)
            for name in ("seats", "placements"):
                parts = [tables[name]] + [getattr(c, name) for c in self.pending_columns]
                tables[name] = pa.concat_tables(parts)
        tables = with_hand_ids(tables, next_hand_id(self.dataset))
        tables["quarantine"] = quarantine_table(self.pending_quarantine, batch)
        now = datetime.now(UTC).replace(tzinfo=None)
        rows = [{**f, "imported_at": now, "batch": batch} for f in self.pending_files]
        tables["files"] = pa.Table.from_pylist(rows, schema=FILES)
        self.dataset.commit(batch, tables)
        self.pending_hands, self.pending_quarantine, self.pending_files = [], [], []
        self.pending_columns, self.pending_count = [], 0


class _Counting(io.RawIOBase):
    """A read-only stream that reports bytes read (for the progress bar)."""

    def __init__(self, raw: BinaryIO, report: Callable[[int], None]) -> None:
        self.raw = raw
        self.report = report

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.raw.read(len(buffer))
        buffer[: len(data)] = data
        self.report(len(data))
        return len(data)


def import_paths(
    paths: Iterable[str | Path],
    data: str | Path = "ofc-data",
    *,
    format_name: str = "auto",
    rules: str | Ruleset | None = None,
    wait_seconds: float = 0.0,
    batch_hands: int = BATCH_HANDS,
    on_bytes: Callable[[int], None] | None = None,
    columnar: bool = True,
) -> ImportSummary:
    """Import files, folders and .zip archives into the dataset at ``data``.

    ``columnar=False`` reads every hand through its parser's record path (the
    definition) even where the parser has a faster columnar reader.
    """
    from ofc_stats.engine.ruleset_toml import resolve_ruleset

    ruleset = resolve_ruleset(rules) if isinstance(rules, str) else rules
    if format_name != "auto":
        get_parser(format_name)  # fail before touching anything
    dataset = Dataset(data)
    with dataset.locked(wait_seconds):
        importer = Importer(
            dataset,
            format_name=format_name,
            ruleset=ruleset,
            batch_hands=batch_hands,
            on_bytes=on_bytes,
            columnar=columnar,
        )
        return importer.run(paths)


def total_bytes(paths: Iterable[str | Path]) -> int:
    total = 0
    for given in paths:
        path = Path(given)
        if path.is_dir():
            total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            total += os.path.getsize(path)
    return total
