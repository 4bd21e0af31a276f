"""`ofc-stats import`: hand-history files in, the Parquet dataset out.

Idempotent (a hand is stored once, keyed by ``hand_key``; an unchanged file
is skipped by its content hash), streaming (hands are committed in bounded
batches), and lossless (what cannot be stored is quarantined with the reason,
file and line).
"""

from __future__ import annotations

import gc
import hashlib
import io
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, Partial, Quarantined, growth, validate_hand
from ofc_stats.store import chunks
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.hand_ids import next_hand_id, with_hand_ids
from ofc_stats.store.import_summary import (
    ALREADY_IMPORTED,
    FileSummary,
    ImportSummary,
    reason_class,
)
from ofc_stats.store.key_index import key_hashes
from ofc_stats.store.known import Known, KnownHands, KnownQuarantine
from ofc_stats.store.ledger import CUT_FINAL, Ledger
from ofc_stats.store.rows import hands_table, quarantine_table
from ofc_stats.store.schema import FILES, HANDS, PLACEMENTS, SEATS
from ofc_stats.store.sources import (
    READ_ERRORS,
    Counting,
    Skipped,
    Source,
    expand,
    open_utf8,
    read_head,
    read_tail,
    real_path,
    sha256_of,
    total_bytes,
)
from ofc_stats.store.superseded import Superseded
from ofc_stats.store.wrong_format import no_ofc_hands
from parsers.base import (
    BAD_INPUT,
    SNIFF_BYTES,
    ColumnarHands,
    ParseItem,
    Parser,
    reason_of,
)
from parsers.fpdb import FORMAT as FPDB
from parsers.registry import detect, get_parser, known_formats

__all__ = ["FileSummary", "ImportSummary", "Importer", "import_paths", "total_bytes"]

BATCH_HANDS = 20_000
GROUP_HANDS = 5_000  # record-path hands looked up in the key index together
KEYS = pa.dictionary(pa.int32(), pa.string())  # a chunk's hand keys, indexed per placement
MAX_RAW_TEXT = 1 << 20  # characters of a quarantined fragment kept (a 10 MB line is junk)


def _clip(text: str) -> str:
    if len(text) <= MAX_RAW_TEXT:
        return text
    return text[:MAX_RAW_TEXT] + f"... [{len(text) - MAX_RAW_TEXT} more characters not kept]"


@dataclass
class Pending:
    """What the next batch commits: hands as records or as tables, refusals, ledger rows, and
    the stored hands a newer copy replaces."""

    hands: list[HandRecord] = field(default_factory=list)
    fingerprints: list[str] = field(default_factory=list)  # one a record hand
    columns: list[ColumnarHands] = field(default_factory=list)
    count: int = 0  # hands, records and tables together
    quarantine: list[Quarantined] = field(default_factory=list)
    files: list[dict[str, object]] = field(default_factory=list)
    replacing: dict[str, set[str]] = field(default_factory=dict)  # batch -> hands to drop

    def empty(self) -> bool:
        return not (self.hands or self.columns or self.quarantine or self.files or self.replacing)


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
        force: bool = False,
        final: bool = False,
    ) -> None:
        self.dataset = dataset
        self.columnar = columnar
        self.format_name = format_name
        self.ruleset = ruleset
        self.batch_hands = batch_hands
        self.on_bytes = on_bytes or (lambda n: None)
        self.force = force
        self.final = final  # quarantine records cut off at a file's end now: it will not grow
        self.summary = ImportSummary()
        self.known = KnownHands(dataset)
        self.known_now: dict[str, Known] = {}  # the last search's hits, and hands stored since
        self.ledger = Ledger(dataset)  # the files imported, by resolved path and content hash
        self.ledger_paths = {path for path, _ in self.ledger.known}  # and this run's, added
        self.known_quarantine = KnownQuarantine(dataset)
        self.superseded = Superseded(dataset, self.ledger.paths)  # stale refusals
        self.cut_final = False  # this file left cut records and has not changed since
        self.cut_now = False  # this file's cut records are quarantined (cut_final or --final)
        self.cut_quarantined = 0  # of this file's refusals, its cut records quarantined now
        self.refused_before: set[str] = set()  # batches of this file's refusals it replaces
        self.file_quarantine: list[Quarantined] = []  # this file's, checked when it is done
        self.file_messages: list[str] = []  # this file's refusals, said once the file is done
        self.file_reasons: Counter[str] = Counter()
        self.pending = Pending()  # the next batch
        self.writing: Future[None] | None = None  # the batch being written while the next fills
        self._writer: ThreadPoolExecutor | None = None
        self._rulesets: dict[str, Ruleset] = {}

    def run(self, paths: Iterable[str | Path]) -> ImportSummary:
        """Import every source; the cyclic GC only runs between batches (it cost 30%)."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            for source in expand(paths):
                if isinstance(source, Skipped):
                    self.summary.files.append(
                        FileSummary(source.name, source.kind, skipped=source.reason)
                    )
                    continue
                self.import_source(source)
            self.flush()
            self.settle()
        finally:
            self._stop_writer()  # never leave the lock with a batch still being written
            if enabled:
                gc.enable()
        self.summary.superseded = self.superseded.dropped
        self.summary.replaced_refusals = self.superseded.replaced
        return self.summary

    def _parser(self, source: Source) -> type[Parser] | None:
        if self.format_name != "auto":
            return get_parser(self.format_name)
        with open_utf8(source) as stream:
            head = read_head(stream, SNIFF_BYTES)
        return detect(head, source.name)

    def import_source(self, source: Source) -> None:
        """Read one source; nothing in it, however broken, stops the run."""
        file = FileSummary(source.name, "unknown")
        self.summary.files.append(file)
        self._refusals_of(source.name)
        try:
            parser_type = self._parser(source)
            # a path parser's file, before the hash: a write after it is seen
            stamp = _stamp(source) if parser_type is not None and parser_type.needs_path else None
            digest = sha256_of(source) if self._hash_first(source, parser_type) else None
        except READ_ERRORS as error:
            self._unreadable(file, f"unreadable file: {error}")
            self.on_bytes(source.size)
            return
        file.format = parser_type.name if parser_type else "unknown"
        # A file that left a record cut off at its end and has not changed since is read
        # again (with or without --force), and that record is quarantined: it never grows.
        self.cut_final = digest is not None and self.ledger.left_cut(source.name, digest)
        self.cut_now = self.final or self.cut_final
        self.cut_quarantined = 0
        imported = digest is not None and self.ledger.imported(source.name, digest)
        if not self.force and not self.cut_final and imported:
            file.skipped = ALREADY_IMPORTED
            self.on_bytes(source.size)
            return
        if parser_type is None and source.size == 0:
            file.skipped = "empty file"  # no hand to lose: a file still to be written
            self.on_bytes(source.size)
            return
        if parser_type is None:
            file.skipped = f"unknown format; known formats: {known_formats()}"
            self.on_bytes(source.size)
            return
        if parser_type.name == FPDB:
            with real_path(source) as path:
                file.skipped = no_ofc_hands(path)  # an SQLite file of something else
            if file.skipped is not None:
                self.on_bytes(source.size)
                return
        # Under --rules the file's own ruleset name is not looked up (a room's
        # custom TOML rules have no preset name the parser could find).
        parser = parser_type(played_under=None if self.ruleset is None else self.ruleset.name)
        if source.name in self.superseded.imported:
            self.settle()  # its earlier refusals may be in the batch being written
        self.superseded.read_again(source.name)
        # A ruleset override applies hand by hand, so it takes the record path.
        columnar = parser.columnar and self.columnar and self.ruleset is None
        parsed = hashlib.sha256()  # of the bytes the parser read, not those hashed above
        try:
            if parser.needs_path:
                read = parser.parse_path_columnar if columnar else parser.parse_path
                with real_path(source) as path:
                    # a path the ledger cannot hold is hashed beside the parser (the other core)
                    hashing = None if digest is not None else _hash_beside(source)
                    self._consume(read(path, source.name), file, parser, source)
                self.on_bytes(source.size)
                digest = digest if hashing is None else hashing()
                same = self._unchanged(source, stamp, digest)
            else:
                with open_utf8(source, parsed) as raw:
                    stream = io.BufferedReader(Counting(raw, self.on_bytes), 1 << 20)
                    parse = parser.parse_columnar if columnar else parser.parse
                    self._consume(parse(stream, source.name), file, parser, source)
                digest, same = parsed.hexdigest(), True
        except READ_ERRORS as error:
            self._unreadable(file, f"the file could not be read to its end: {error}")
            return
        assert digest is not None  # hashed first, or as it was parsed
        if self._not_this_format(source, file, parser_type):
            return
        self._file_done(file)
        # A file whose only refusals are its cut records, quarantined as --final asked, is
        # settled: recorded, so a plain import later does not leave them for later again.
        cut_only = self.cut_quarantined == file.quarantined + file.lines_quarantined
        kept = file.stored or file.duplicates or file.partial or self.cut_final or cut_only
        if (file.quarantined or file.lines_quarantined) and not kept:
            file.refused = True  # not imported, so a later import reads it again
            return
        if same:  # a file rewritten under a path parser is read again next time
            self._ledger(source, digest, file)

    def _not_this_format(
        self, source: Source, file: FileSummary, parser_type: type[Parser]
    ) -> bool:
        """Under a forced ``--format``, a file that gave no hand of that format and does not
        look like it (its sniff says no) is skipped as not that format, as ``auto`` skips a
        file of no known format: its records were never that format's, so they are not
        quarantined one by one (the only rows it would have left in a new dataset), it is
        not recorded as imported (the right format reads it later) and earlier rows of it
        stay as they were.  A file that looks like the format keeps its refusals."""
        if self.format_name == "auto" or file.stored or file.duplicates:
            return False
        try:
            with open_utf8(source) as stream:
                head = read_head(stream, SNIFF_BYTES)
        except READ_ERRORS:
            return False
        if parser_type.sniff(head, source.name):
            return False
        looks = detect(head, source.name)
        file.not_format = parser_type.name
        file.looks_like = looks.name if looks is not None else None
        file.example = self.file_messages[0] if self.file_messages else None
        like = f"it looks like {looks.name}" if looks is not None else "no known format"
        file.skipped = f"not {parser_type.name} ({like})"
        file.hands_seen = file.quarantined = file.lines_quarantined = file.partial = 0
        self.file_quarantine, self.file_messages, self.file_reasons = [], [], Counter()
        self.refused_before = set()
        return True

    def _unchanged(self, source: Source, stamp: Stamp | None, digest: str | None) -> bool:
        """Whether a path parser's file is as it was before it was hashed: its size, times
        and inode (and its SQLite write-ahead log's) the same, which spares an fpdb
        database a second SHA-256 pass (2.4 us a hand).  A zip member, or a file written
        within :data:`RACY_NS` of its stamp (a second write in the same tick of a coarse
        clock keeps the times), is hashed again, as git treats a "racily clean" file."""
        if stamp is None or stamp.racy:
            return (stamp is None or _stamp(source) == stamp) and sha256_of(source) == digest
        return _stamp(source) == stamp

    def _hash_first(self, source: Source, parser_type: type[Parser] | None) -> bool:
        """Whether the file's hash is needed before it is parsed.

        It is, to skip a file the ledger holds (by path, or by hash alone for
        rows from before paths were resolved), and for a zip member (reading
        it whole checks its CRC before any hand is stored).  A plain file the
        ledger cannot hold is hashed once, as it is parsed (a second SHA-256
        pass cost about a microsecond a hand); a path parser's, once, on a
        thread beside the parser (:meth:`_unchanged` sees it unchanged).
        """
        if parser_type is None or source.archive is not None:
            return True
        return source.name in self.ledger_paths or bool(self.ledger.loose)

    def _unreadable(self, file: FileSummary, reason: str) -> None:
        """A whole file that cannot be read: one quarantine entry, never silence."""
        self._quarantine(file, Quarantined(file.path, reason, ""))
        file.skipped = reason
        self._file_done(file)

    def _refusals_of(self, path: str) -> None:
        """Note the earlier refusals of a file the ledger does not name: this import's
        outcome for it replaces them (``Superseded.refused_before``)."""
        if self.superseded.refusals is None:
            self.settle()  # the first look reads the quarantine files: none half rewritten
        self.refused_before = self.superseded.refused_before(path)

    def _file_done(self, file: FileSummary) -> None:
        """Later files dedupe their quarantine against this one's; itself, never.

        A file whose earlier refusals this import replaces keeps all its own
        entries (the earlier rows go in the same commit as these).
        """
        if self.refused_before:
            self.known_quarantine.new(self.file_quarantine)  # pending now, for later files
            self.pending.quarantine += self.file_quarantine
            self.superseded.replace_refusals(file.path, self.refused_before)
            self.refused_before = set()
        else:
            self.pending.quarantine += self.known_quarantine.new(self.file_quarantine)
        self.file_quarantine = []
        self.summary.messages += self.file_messages
        self.summary.reasons.update(self.file_reasons)
        self.file_messages, self.file_reasons = [], Counter()
        if len(self.pending.quarantine) >= self.batch_hands:
            self.flush()

    def _consume(
        self,
        items: Iterable[ParseItem],
        file: FileSummary,
        parser: Parser,
        source: Source | None = None,
    ) -> None:
        group: list[HandRecord] = []  # valid hands, looked up together
        for item in items:
            if isinstance(item, HandRecord):
                file.hands_seen += 1
                valid = self._validated(item, file)
                if valid is not None:
                    group.append(valid)
                    if len(group) >= GROUP_HANDS:
                        self._keep_group(group, file)
                        group = []
                continue
            if group:
                self._keep_group(group, file)
                group = []
            if isinstance(item, Quarantined):
                self._quarantine(file, item)
                continue
            if isinstance(item, Partial) and self.cut_now and source is not None:
                text = read_tail(source, item.offset, MAX_RAW_TEXT)
                reason = f"{CUT_FINAL}: {item.reason}"
                self.cut_quarantined += 1
                self._quarantine(
                    file, Quarantined(item.source_file, reason, text, item.line, item.offset)
                )
                continue
            if isinstance(item, Partial):
                file.hands_seen += 1
                file.partial += 1
                self.file_messages.append(item.message())
                continue
            if isinstance(item, ColumnarHands):
                self._consume_columns(item, file, parser)
        if group:
            self._keep_group(group, file)

    def _validated(self, item: HandRecord, file: FileSummary) -> HandRecord | None:
        """The hand under its ruleset, or None when it is quarantined."""
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
            return None
        return item

    def _keep_group(self, group: list[HandRecord], file: FileSummary) -> None:
        """Look a group of hands up at once (with the keys a reused id would get), keep each."""
        fingerprints = [item.fingerprint for item in group]  # computed once, stored as is
        keys = [item.hand_key for item in group]
        suffixed = [f"{key}~{fp[:8]}" for key, fp in zip(keys, fingerprints, strict=True)]
        probe = pa.array(keys + suffixed, pa.string())
        hashes = key_hashes(probe)
        _, self.known_now = self.known.search(probe, hashes)
        count = len(group)
        for at, item in enumerate(group):
            self._keep(item, fingerprints[at], file, (int(hashes[at]), int(hashes[count + at])))

    def _keep(
        self, item: HandRecord, fingerprint: str, file: FileSummary, hashed: tuple[int, int]
    ) -> None:
        """Store a valid hand unless it is known: dedupe, suffix or replace."""
        known = self.known_now.get(item.hand_key)
        hash_of_key = hashed[0]
        if known is not None and known.fingerprint != fingerprint:
            growth = self._growth(item, known)
            if growth == "older":  # an earlier, shorter copy of a stored hand
                file.duplicates += 1
                return
            if growth == "newer":
                file.replaced += 1
            else:
                # Same room hand id, other cards: a different hand, never a duplicate.
                item = replace(item, key_suffix=f"~{fingerprint[:8]}")
                file.reused_ids += 1
                hash_of_key = hashed[1]
            known = self.known_now.get(item.hand_key)
        if known is not None and known.fingerprint == fingerprint:
            file.duplicates += 1
            return
        complete = item.complete
        self.known_now[item.hand_key] = Known(fingerprint, complete, None)
        self.known.add_one(hash_of_key, item.hand_key, fingerprint, complete)
        file.stored += 1
        self.pending.hands.append(item)
        self.pending.fingerprints.append(fingerprint)
        self.pending.count += 1
        if self.pending.count >= self.batch_hands:
            self.flush()

    def _growth(self, item: HandRecord, known: Known) -> str:
        """:func:`~ofc_stats.records.growth` against the stored copy; a newer one replaces it."""
        key = item.hand_key
        found = growth(item, known.complete, lambda: self._stored_seats(key, known))
        if found == "newer":
            assert known.batch is not None
            self.pending.replacing.setdefault(known.batch, set()).add(key)
        return found

    def _stored_seats(self, key: str, known: Known) -> list[dict[str, object]] | None:
        if known.batch is None:
            self.flush()  # the stored copy is still pending: commit it to compare
        if known.batch is None:
            return None
        self.settle()  # the batch may still be being written
        return self.dataset.seats_of(known.batch, key)

    def _consume_columns(self, chunk: ColumnarHands, file: FileSummary, parser: Parser) -> None:
        """Hands a parser laid out as tables: dedupe by key and fingerprint, keep the rest."""
        try:
            chunk = ColumnarHands(
                hands=_cast(chunk.hands, HANDS),
                seats=_cast(chunk.seats, _keyed(chunk.seats, SEATS)),
                placements=_cast(chunk.placements, _keyed(chunk.placements, PLACEMENTS)),
            )
        except (pa.ArrowException, ValueError, OverflowError):
            # A value the columns cannot hold: every hand of the chunk takes the record path.
            self._reparse(chunk.hands, list(range(chunk.hands.num_rows)), file, parser)
            return
        decision = chunks.decide(self.known, chunk.hands)
        self.known_now = decision.known
        file.hands_seen += len(decision.kept) + decision.duplicates
        file.duplicates += decision.duplicates
        file.stored += len(decision.kept)
        room = lambda: self.batch_hands - self.pending.count  # noqa: E731 - asked per slice
        for part in chunks.slices(chunk, decision, self.known, room):
            self.pending.columns.append(part)
            self.pending.count += part.hands.num_rows
            if self.pending.count >= self.batch_hands:
                self.flush()
        if decision.reparse:
            self._reparse(chunk.hands, decision.reparse, file, parser)
        if self.pending.count >= self.batch_hands:
            self.flush()

    def _reparse(self, hands: pa.Table, rows: list[int], file: FileSummary, parser: Parser) -> None:
        items: list[ParseItem] = []
        for row in (
            hands.select(["raw_text", "source_file", "source_line", "source_offset"])
            .take(rows)
            .to_pylist()
        ):
            try:
                items.append(
                    parser.hand_from_raw(
                        row["raw_text"],
                        row["source_file"],
                        row["source_line"],
                        row["source_offset"],
                    )
                )
            except BAD_INPUT as error:
                items.append(
                    Quarantined(
                        row["source_file"],
                        reason_of(error),
                        row["raw_text"],
                        row["source_line"],
                        row["source_offset"],
                    )
                )
        self._consume(items, file, parser)

    def _ruleset(self, name: str) -> Ruleset:
        if name not in self._rulesets:
            self._rulesets[name] = get_ruleset(name)
        return self._rulesets[name]

    def _quarantine(self, file: FileSummary, item: Quarantined, counted: bool = False) -> None:
        """Count and keep one refused item; an entry an earlier import stored is not doubled.

        Entries are told apart by file, line, offset and reason, so each
        refused hand of a file has its own row.
        """
        if not item.hand:
            file.lines_quarantined += 1
        else:
            if not counted:
                file.hands_seen += 1
            file.quarantined += 1
        self.file_reasons[reason_class(item.reason)] += 1
        self.file_messages.append(item.message())
        self.file_quarantine.append(replace(item, raw_text=_clip(item.raw_text)))

    def _ledger(self, source: Source, digest: str, file: FileSummary) -> None:
        row = {
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
        if self.cut_final:  # the earlier row, its cut records now quarantined, replaces itself
            row = self.ledger.finish_cut(source.name, digest, row, file.quarantined)
        else:
            self.ledger.add(source.name, digest)
        self.ledger_paths.add(source.name)
        self.pending.files.append(row)
        if len(self.pending.files) >= 1000:
            self.flush()

    def flush(self) -> None:
        """Commit what is pending as one atomic batch (with the replaced hands' removal).

        The batch's tables are built here and written on the writer thread
        (pyarrow releases the GIL), while this thread and the decoder go on
        with the next batch; the previous batch is settled first, so one
        batch at most is being written.
        """
        pending = self.pending
        if pending.empty():
            return
        self.settle()
        batch = self.dataset.new_batch_id()
        tables = hands_table(pending.hands, batch, pending.fingerprints)
        seats, placements = [tables["seats"]], [tables["placements"]]
        hands = [tables["hands"]]
        if pending.columns and not pending.hands:  # no record part: every part keyed by
            seats, placements, hands = [], [], []  # position (an empty one was looked up by key)
        if pending.columns:
            for chunk in pending.columns:
                column = pa.repeat(pa.scalar(batch, pa.string()), chunk.hands.num_rows)
                index = chunk.hands.schema.get_field_index("batch")
                hands.append(chunk.hands.set_column(index, "batch", column))
            tables["hands"] = pa.concat_tables(hands)
            seats += [c.seats for c in pending.columns]
            placements += [c.placements for c in pending.columns]
        # placements are stored keyed by hand_id (the parts' keys may be dictionary arrays)
        tables = with_hand_ids(tables, next_hand_id(self.dataset), seats, placements, hands)
        tables["quarantine"] = quarantine_table(pending.quarantine, batch)
        now = datetime.now(UTC).replace(tzinfo=None)
        rows = [{**f, "imported_at": now, "batch": batch} for f in pending.files]
        tables["files"] = pa.Table.from_pylist(rows, schema=FILES)
        rewrites = {
            old: self.dataset.without_hands(old, keys) for old, keys in pending.replacing.items()
        }
        for old, parts in self.superseded.rewrites(tables["hands"]).items():
            rewrites[old] = {**rewrites.get(old, {}), **parts}
        for old, parts in self.ledger.rewrites().items():
            rewrites[old] = {**rewrites.get(old, {}), **parts}
        self.known.writing_batch(batch)
        self.known_quarantine.writing_batch(batch)
        for known in self.known_now.values():
            if known.batch is None:
                known.batch = batch
        self.pending = Pending()
        if self._writer is None:
            self._writer = ThreadPoolExecutor(1, thread_name_prefix="write batch")
        self.writing = self._writer.submit(self._write, batch, tables, rewrites)
        gc.collect(1)  # the batch's garbage, young objects only (the GC is off in a run)

    def _write(
        self,
        batch: str,
        tables: dict[str, pa.Table],
        rewrites: dict[str, dict[str, pa.Table | None]],
    ) -> None:
        """On the writer thread: commit the batch and index it (the importer reads neither
        until it is settled)."""
        self.dataset.commit(batch, tables, rewrites=rewrites)
        self.known.index_batch(batch, tables["hands"])
        self.known_quarantine.index_batch(batch, tables["quarantine"])

    def settle(self) -> None:
        """Wait for the batch being written (its error is raised here); then it is stored."""
        writing, self.writing = self.writing, None
        if writing is None:
            return
        writing.result()
        self.known.settled()
        self.known_quarantine.settled()

    def _stop_writer(self) -> None:
        """Wait for a batch still being written (an error is already on its way) and stop."""
        if self.writing is not None:
            wait([self.writing])
        if self._writer is not None:
            self._writer.shutdown()
            self._writer = None


RACY_NS = 2_000_000_000  # a write this close to a stamp may share its times (FAT: 2 s)


@dataclass(frozen=True)
class Stamp:
    """What any write to a file changes: its size, times and inode, and its SQLite
    write-ahead log's (a commit there leaves the database file as it was)."""

    file: tuple[int, int, int, int]
    wal: tuple[int, int, int] | None
    # written within RACY_NS of the stamp: its times cannot be trusted
    racy: bool = field(compare=False)


def _stamp(source: Source) -> Stamp | None:
    """The file's :class:`Stamp` (None: a zip member)."""
    if source.path is None or source.archive is not None:
        return None
    taken = time.time_ns()
    info = os.stat(source.path)
    try:
        log = os.stat(f"{source.path}-wal")
        wal: tuple[int, int, int] | None = log.st_size, log.st_mtime_ns, log.st_ino
    except OSError:
        wal = None
    latest = max(info.st_mtime_ns, info.st_ctime_ns, wal[1] if wal else 0)
    return Stamp(
        (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino),
        wal,
        taken - latest < RACY_NS,
    )


def _hash_beside(source: Source) -> Callable[[], str]:
    """Start :func:`sha256_of` on a daemon thread; call the result to wait for the digest.
    (Not an executor: leaving one waits for the hash, so an error or Ctrl-C in the parser
    would hang until a big file is read to its end.)"""
    done: Future[str] = Future()

    def run() -> None:
        try:
            done.set_result(sha256_of(source))
        except BaseException as error:  # raised again, in its place, by the caller
            done.set_exception(error)

    threading.Thread(target=run, name="hash", daemon=True).start()
    return done.result


def _cast(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` as ``schema``; as it is if it is already (the core's chunks are):
    ``Table.cast`` casts column by column even then, 40-odd casts a chunk."""
    return table if table.schema.equals(schema, check_metadata=True) else table.cast(schema)


def _keyed(table: pa.Table, schema: pa.Schema) -> pa.Schema:
    """``schema`` with the tie to the hand; a dictionary ``hand_key`` or ``source_line``
    (the core's: indices over the chunk's hands) stays one (no copy)."""
    fields = [*schema, pa.field("source_line", pa.int64())]
    if pa.types.is_dictionary(table.schema.field("hand_key").type):
        fields[0] = pa.field("hand_key", KEYS)
    line = table.schema.field("source_line").type
    if pa.types.is_dictionary(line):
        fields[-1] = pa.field("source_line", pa.dictionary(line.index_type, pa.int64()))
    return pa.schema(fields)


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
    force: bool = False,
    final: bool = False,
) -> ImportSummary:
    """Import files, folders and .zip archives into the dataset at ``data``.

    ``columnar=False`` reads every hand through its parser's record path (the
    definition) even where the parser has a faster columnar reader.
    ``force`` reads files again that the ledger says were imported (their
    hands are still deduplicated).  ``final`` quarantines a record cut off at
    the end of a file now (the file will not grow) instead of leaving it for
    the next import.
    """
    from ofc_stats.engine.ruleset_toml import names_a_file, resolve_ruleset
    from ofc_stats.store.rulesets import keep_ruleset

    ruleset = resolve_ruleset(rules) if isinstance(rules, str) else rules
    if format_name != "auto":
        get_parser(format_name)  # fail before touching anything
    dataset = Dataset(data)
    with dataset.locked(wait_seconds):
        if isinstance(rules, str) and names_a_file(rules):
            keep_ruleset(dataset.root, rules)  # recompute and the audit find it there later
        importer = Importer(
            dataset,
            format_name=format_name,
            ruleset=ruleset,
            batch_hands=batch_hands,
            on_bytes=on_bytes,
            columnar=columnar,
            force=force,
            final=final,
        )
        return importer.run(paths)
