"""Where a Spark recompute reads and writes: a dataset folder, or a dataset at a URI.

Both commit through the dataset's one commit path
(:func:`ofc_stats.store.files.commit`): a batch's ``results`` and ``versus``
staged under ``.tmp/results+<batch>/``, a ``COMMIT`` marker, then moved to
``results/<batch>.parquet`` and ``versus/<batch>.parquet``.  A local folder
goes through :class:`ofc_stats.store.dataset.Dataset` itself (fsync, lock,
roll-forward); a URI (``file://``, ``s3://``/``s3a://``, ``hdfs://``,
``gs://``) through the same path on a pyarrow filesystem
(:class:`ofc_stats.store.files.ArrowStorage`), since Spark's writer can
neither name a file nor stamp the engine version in its footer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from ofc_stats.errors import DatasetError
from ofc_stats.store.dataset import EMPTY, Dataset
from ofc_stats.store.files import COMMIT, ArrowStorage, commit, marker_on
from ofc_stats.store.recompute import up_to_date
from ofc_stats.store.rulesets import DatasetRulesets, kept_rulesets
from ofc_stats.store.schema import ENGINE_KEY, ENGINE_VERSION, SCHEMA_VERSION

STEP = "results"  # the staging folder's prefix, as the local recompute names it
ARROW_SCHEMES = {"s3a": "s3", "s3n": "s3"}  # Hadoop's names for what pyarrow calls s3


class Layout(Protocol):
    def batches(self) -> list[str]: ...
    def up_to_date(self, batch: str) -> bool: ...
    def spark_path(self, table: str, batch: str) -> str: ...
    def read(self, table: str, batch: str, columns: list[str]) -> pa.Table: ...
    def commit(self, batch: str, tables: dict[str, pa.Table]) -> None: ...
    def rulesets(self) -> DatasetRulesets: ...


def open_layout(root: str | Path) -> Layout:
    """A plain path is a local dataset folder; anything with ``scheme://`` is a URI."""
    text = str(root)
    if "://" in text:
        return UriLayout(text)
    return LocalLayout(str(Path(text).resolve()))


class LocalLayout:
    """A dataset folder every worker sees at the same path (one machine, or a shared mount)."""

    def __init__(self, root: str) -> None:
        self.root = root
        dataset = Dataset(root)
        if not dataset.exists():
            raise DatasetError(f"{root}: no ofc-stats dataset here")
        dataset.check_version()

    def batches(self) -> list[str]:
        return Dataset(self.root).batches()

    def up_to_date(self, batch: str) -> bool:
        return up_to_date(Dataset(self.root), batch)

    def spark_path(self, table: str, batch: str) -> str:
        # file:// so that a cluster whose default filesystem is HDFS still reads the local path
        return "file://" + str(Dataset(self.root).batch_file(table, batch))

    def read(self, table: str, batch: str, columns: list[str]) -> pa.Table:
        return pq.read_table(Dataset(self.root).batch_file(table, batch), columns=columns)

    def commit(self, batch: str, tables: dict[str, pa.Table]) -> None:
        Dataset(self.root).commit(batch, tables, step=STEP)

    def rulesets(self) -> DatasetRulesets:
        """Presets and the dataset's own ruleset files (read where they are needed)."""
        return DatasetRulesets(self.root)


class UriLayout:
    """A dataset at a URI, read by Spark under that URI and written through pyarrow."""

    def __init__(self, uri: str) -> None:
        self.uri = uri.rstrip("/")
        self._opened: tuple[pafs.FileSystem, str] | None = None
        meta = self._read_text("dataset.json")
        try:
            version = json.loads(meta).get("schema_version") if meta is not None else None
        except (ValueError, AttributeError):
            version = None
        if version != SCHEMA_VERSION:
            raise DatasetError(
                f"{self.uri}: no ofc-stats dataset of schema version {SCHEMA_VERSION} here "
                f"(run `ofc-stats migrate` on a local copy of an older one)"
            )

    def __getstate__(self) -> dict[str, object]:
        return {"uri": self.uri, "_opened": None}  # each worker opens its own filesystem

    def _fs(self) -> tuple[pafs.FileSystem, str]:
        if self._opened is None:
            self._opened = self._open()
        return self._opened

    def _open(self) -> tuple[pafs.FileSystem, str]:
        scheme, rest = self.uri.split("://", 1)
        arrow_uri = f"{ARROW_SCHEMES.get(scheme, scheme)}://{rest}"
        try:
            filesystem, base = pafs.FileSystem.from_uri(arrow_uri)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as error:
            raise DatasetError(f"{self.uri}: pyarrow cannot open this URI ({error})") from None
        return filesystem, base.rstrip("/")

    def _read_text(self, name: str) -> str | None:
        filesystem, base = self._fs()
        return ArrowStorage(filesystem).read_text(f"{base}/{name}")

    def batches(self) -> list[str]:
        """Committed batches, less those a killed writer left half published (as
        :meth:`Dataset.files` hides them until the next local lock holder finishes them)."""
        filesystem, base = self._fs()
        storage = ArrowStorage(filesystem)
        publishing = {
            name
            for staging in storage.names(f"{base}/.tmp")
            if storage.read_text(f"{base}/.tmp/{staging}/{COMMIT}") is not None
            for name in marker_on(storage, f"{base}/.tmp/{staging}").get("batches", [])
        }
        return sorted(
            name.removesuffix(".parquet")
            for name in storage.names(f"{base}/hands")
            if name.endswith(".parquet")
            and name != EMPTY
            and name.removesuffix(".parquet") not in publishing
        )

    def up_to_date(self, batch: str) -> bool:
        filesystem, base = self._fs()
        paths = [f"{base}/{table}/{batch}.parquet" for table in ("results", "versus")]
        if any(info.type != pafs.FileType.File for info in filesystem.get_file_info(paths)):
            return False
        try:
            metadata = pq.read_schema(paths[0], filesystem=filesystem).metadata or {}
        except (OSError, pa.ArrowInvalid):
            return False
        return metadata.get(ENGINE_KEY) == str(ENGINE_VERSION).encode()

    def spark_path(self, table: str, batch: str) -> str:
        return f"{self.uri}/{table}/{batch}.parquet"

    def read(self, table: str, batch: str, columns: list[str]) -> pa.Table:
        filesystem, base = self._fs()
        path = f"{base}/{table}/{batch}.parquet"
        return pq.read_table(path, columns=columns, filesystem=filesystem)

    def commit(self, batch: str, tables: dict[str, pa.Table]) -> None:
        filesystem, base = self._fs()
        commit(ArrowStorage(filesystem), base, batch, tables, step=STEP)

    def rulesets(self) -> DatasetRulesets:
        """Presets and the dataset's own ruleset files, read here once through the URI's
        filesystem (a worker's lookup cannot open them as local paths)."""
        filesystem, base = self._fs()
        return DatasetRulesets(self.uri, kept=kept_rulesets(base, ArrowStorage(filesystem)))
