"""Quarantine rows a grown file's new import makes stale: the refused hand is now stored.

An export cut right after a line break inside its last object looks like a
finished file, so that object is quarantined as truncated.  When the file
has grown and is imported again, the same object, now whole, is stored at
the same byte offset: its old quarantine row no longer says anything true
and goes in the same commit as the hand (``Importer.flush``).  Only files
the ledger already names are watched, and only their own rows are read, so
an import of new files pays nothing.

A row goes only when the hand stored is the record it refused: same file,
same offset, and the stored hand's text continues the refused text (and
carries the same room hand id where the row names one).  Another hand
written at that offset by an export rewritten in place leaves the row.

A file the ledger does not name, whose earlier import refused every record
(a wrong ``--format``), is different: that import recorded nothing but its
refusals, so when the file is read again, **this import's outcome for it
replaces them** -- all its earlier rows go in the commit that holds the
file's new rows (``replace_refusals``).  Which batches hold its rows is
found from the footers' ``source_file`` ranges and, for the batches whose
range holds the name, that one column (``refused_before``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.store.dataset import Dataset

_CLIPPED = re.compile(r"\.\.\. \[\d+ more characters not kept\]$")  # importer._clip's tail


def refused_this(refused: str | None, refused_id: str | None, text: str, hand_id: str) -> bool:
    """Whether a stored hand (``text``, ``hand_id``) is the record a quarantine row refused.

    >>> refused_this('{"id": "7", "rows"', None, '{"id": "7", "rows": []}', "7")
    True
    >>> refused_this('{"id": "8"}', None, '{"id": "9"}', "9")
    False
    >>> refused_this("", None, "anything", "1")
    False
    """
    head = _CLIPPED.sub("", refused or "").strip()
    if not head or not (text or "").strip().startswith(head):
        return False
    return refused_id is None or refused_id == hand_id


def _ranges(name: str) -> list[tuple[str | None, str]]:
    """Each row group's (lowest, highest) ``source_file``; (None, "") where unknown."""
    meta = pq.ParquetFile(name).metadata
    column = meta.schema.names.index("source_file")
    out: list[tuple[str | None, str]] = []
    for group in range(meta.num_row_groups):
        stats = meta.row_group(group).column(column).statistics
        if stats is None or not stats.has_min_max:
            out.append((None, ""))
        else:
            out.append((str(stats.min), str(stats.max)))
    return out


def _names(path: Path) -> set[str]:
    """The distinct file names of one quarantine batch (a dictionary read: no row decoded)."""
    column = pq.read_table(path, columns=["source_file"], read_dictionary=["source_file"])
    names: set[str] = set()
    for chunk in column["source_file"].chunks:
        names.update(name for name in chunk.dictionary.to_pylist() if name)
    return names


class Superseded:
    """The earlier quarantine rows (file, offset) of the files this import reads again."""

    def __init__(self, dataset: Dataset, imported: Iterable[str | None]) -> None:
        """``imported``: the paths the ledger (``files``) names."""
        self.dataset = dataset
        self.imported = {path for path in imported if path}
        self.watch: dict[tuple[str, int], set[str]] = {}  # (file, offset) -> batches with rows
        self.dropped = 0  # rows the rewrites took out, for the summary
        self.refusals: dict[str, set[str]] | None = None  # batch -> its files, read lazily
        self.ranges: dict[str, list[tuple[str | None, str]]] = {}  # batch -> names' ranges
        self.before = {Path(name).stem for name in dataset.files("quarantine")}  # not this run's
        self.replacing: dict[str, set[str]] = {}  # batch -> files whose rows go at next commit
        self.replaced = 0  # earlier refusals replaced by this import's, for the summary

    def refused_before(self, path: str) -> set[str]:
        """The batches holding quarantine rows of ``path``, a file the ledger does not name.

        A batch is read only when its row groups' ``source_file`` range (the
        Parquet footer's statistics, read once) holds ``path``, and then its
        ``source_file`` column alone, as a dictionary (its distinct names),
        once.  The batches this run writes are not looked at, so their rows
        never go.
        """
        if path in self.imported:
            return set()
        if self.refusals is None:
            self.refusals = {}
            for name in self.dataset.files("quarantine"):
                batch = Path(name).stem
                if batch in self.before:
                    self.ranges[batch] = _ranges(name)
        found = set()
        for batch, ranges in self.ranges.items():
            if not any(low is None or low <= path <= high for low, high in ranges):
                continue
            if batch not in self.refusals:
                self.refusals[batch] = _names(self.dataset.batch_file("quarantine", batch))
            if path in self.refusals[batch]:
                found.add(batch)
        return found

    def replace_refusals(self, path: str, batches: set[str]) -> None:
        """The next commit takes every earlier quarantine row of ``path`` out of ``batches``."""
        for batch in batches:
            self.replacing.setdefault(batch, set()).add(path)
            if self.refusals is not None:
                self.refusals.get(batch, set()).discard(path)  # read again: nothing left

    def read_again(self, path: str) -> None:
        """``path`` is about to be read: note its quarantine rows with an offset, if any."""
        if path not in self.imported:
            return
        for name in self.dataset.files("quarantine"):
            rows = pq.read_table(
                name, columns=["source_file", "offset"], filters=[("source_file", "=", path)]
            )
            for offset in rows["offset"].to_pylist():
                if offset is not None:
                    self.watch.setdefault((path, int(offset)), set()).add(Path(name).stem)

    def rewrites(self, hands: pa.Table) -> dict[str, dict[str, pa.Table | None]]:
        """The quarantine files without the rows of hands this batch stores and without the
        replaced refusals, by batch."""
        replacing, self.replacing = self.replacing, {}
        out: dict[str, dict[str, pa.Table | None]] = {}
        for batch, files in sorted(replacing.items()):
            path = self.dataset.batch_file("quarantine", batch)
            if not path.is_file():
                continue
            table = pq.read_table(path)
            keep = pc.invert(pc.is_in(table["source_file"], pa.array(sorted(files), pa.string())))
            kept = table.filter(keep.fill_null(True))
            if kept.num_rows < table.num_rows:
                self.replaced += table.num_rows - kept.num_rows
                out[batch] = {"quarantine": kept}
        return self._stale(hands, out)

    def _stale(
        self, hands: pa.Table, out: dict[str, dict[str, pa.Table | None]]
    ) -> dict[str, dict[str, pa.Table | None]]:
        """``out`` and the quarantine files without the rows of hands this batch stores."""
        if not self.watch or hands.num_rows == 0:
            return out
        at = {
            (name, offset): row
            for row, (name, offset) in enumerate(
                zip(
                    hands["source_file"].to_pylist(),
                    hands["source_offset"].to_pylist(),
                    strict=True,
                )
            )
        }
        stored = {key: at[key] for key in set(at) & set(self.watch)}
        if not stored:
            return out
        rows = hands.select(["raw_text", "room_hand_id"]).take(sorted(stored.values()))
        texts = dict(zip(sorted(stored.values()), rows.to_pylist(), strict=True))
        batches: set[str] = set()
        for key in stored:
            batches.update(self.watch[key])
        for batch in sorted(batches):
            path = self.dataset.batch_file("quarantine", batch)
            before = out.get(batch, {}).get("quarantine")
            table = before if before is not None else pq.read_table(path)
            keep = []
            for name, offset, raw, hand_id in zip(
                table["source_file"].to_pylist(),
                table["offset"].to_pylist(),
                table["raw_text"].to_pylist(),
                table["room_hand_id"].to_pylist(),
                strict=True,
            ):
                row = stored.get((name, offset))
                hand = texts[row] if row is not None else None
                keep.append(
                    hand is None
                    or not refused_this(raw, hand_id, hand["raw_text"], hand["room_hand_id"])
                )
            kept = table.filter(pa.array(keep, pa.bool_()))
            if kept.num_rows < table.num_rows:
                self.dropped += table.num_rows - kept.num_rows
                out[batch] = {"quarantine": kept}
        return out
