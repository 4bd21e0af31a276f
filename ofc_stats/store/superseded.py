"""Quarantine rows a grown file's new import makes stale: the refused hand is now stored.

An export cut right after a line break inside its last object looks like a
finished file, so that object is quarantined as truncated.  When the file
has grown and is imported again, the same object, now whole, is stored at
the same byte offset: its old quarantine row no longer says anything true
and goes in the same commit as the hand (``Importer.flush``).  Only files
the ledger already names are watched, and only their own rows are read, so
an import of new files pays nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ofc_stats.store.dataset import Dataset


class Superseded:
    """The earlier quarantine rows (file, offset) of the files this import reads again."""

    def __init__(self, dataset: Dataset, imported: Iterable[str | None]) -> None:
        """``imported``: the paths the ledger (``files``) names."""
        self.dataset = dataset
        self.imported = {path for path in imported if path}
        self.watch: dict[tuple[str, int], set[str]] = {}  # (file, offset) -> batches with rows
        self.dropped = 0  # rows the rewrites took out, for the summary

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
        """The quarantine files without the rows of hands this batch stores, by batch."""
        if not self.watch or hands.num_rows == 0:
            return {}
        stored = set(
            zip(
                hands["source_file"].to_pylist(),
                hands["source_offset"].to_pylist(),
                strict=True,
            )
        ) & set(self.watch)
        batches: dict[str, set[tuple[str, int]]] = {}
        for key in stored:
            for batch in self.watch.pop(key):
                batches.setdefault(batch, set()).add(key)
        out: dict[str, dict[str, pa.Table | None]] = {}
        for batch, keys in batches.items():
            path = self.dataset.batch_file("quarantine", batch)
            table = pq.read_table(path)
            pairs = zip(table["source_file"].to_pylist(), table["offset"].to_pylist(), strict=True)
            keep = pa.array([pair not in keys for pair in pairs], pa.bool_())
            kept = table.filter(keep)
            self.dropped += table.num_rows - kept.num_rows
            out[batch] = {"quarantine": kept}
        return out
