"""`ofc-stats check`: name every damaged or stray file of a dataset, and repair what can be.

What a dataset folder may hold is fixed (``ofc_stats.store.dataset``): its
``dataset.json``, one folder per table with a ``schema.parquet`` and one
``<batch id>.parquet`` per batch, and the ``.tmp``, ``.index`` and lock
files.  Anything else is a stray; a file that cannot be read (a truncated
Parquet file, one whose columns are not its table's) is damage.

``--repair`` never deletes what it cannot rebuild: strays and damaged
files are moved to ``.damaged/<time>/`` inside the dataset (their path
kept), so nothing is written outside ``--data`` and nothing is lost.

* a stray file or folder: set aside;
* a missing table folder or ``schema.parquet``: written again (no rows);
* a ``.tmp`` or ``.index`` (or a lock) that is not what it should be: set
  aside (``.index`` is a cache, rebuilt on use);
* a batch with a file that cannot be read, or whose hands file is gone:
  the whole batch is set aside (every table's file of it, its ledger rows
  too, so its files import again; ``import --force`` brings back hands
  whose ledger row another batch holds);
* ``dataset.json`` unreadable, missing or naming its version as text:
  written again when the tables show which version they are.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from ofc_stats.errors import DatasetError
from ofc_stats.store.dataset import EMPTY, LOCK, TAKEOVER, Dataset, newer_schema
from ofc_stats.store.files import write_parquet
from ofc_stats.store.migrate import MIGRATIONS, schema_version
from ofc_stats.store.schema import (
    GRADER_TABLES,
    LEDGER_TABLES,
    PLAYER_TABLES,
    SCHEMA_VERSION,
    TABLES,
)

DAMAGED = ".damaged"
BATCH = re.compile(r"^\d+-\d+$")  # Dataset.new_batch_id
# Made on first use: by `grade` (and its replay), `players alias`, `audit` (the ledger).
OPTIONAL = {**GRADER_TABLES, **PLAYER_TABLES, **LEDGER_TABLES}
# Columns that tell each table's files from another table's (read before trusting one).
NEEDED = {
    "hands": ("hand_key", "hand_id", "fingerprint", "raw_text"),
    "seats": ("hand_key", "hand_id", "seat", "player"),
    "placements": ("hand_id", "street", "card", "destination"),
    "results": ("hand_id", "seat", "status"),
    "versus": ("hand_id", "seat", "opponent"),
    "quarantine": ("source_file", "reason", "raw_text"),
    "files": ("path", "sha256", "hands_seen"),
}
KNOWN = {"dataset.json", ".tmp", ".index", DAMAGED, ".v2-results", "batches"}


CANNOT_HELP = "cannot help"  # a Damage.repair that --repair cannot mend begins so


@dataclass
class Damage:
    """One damaged or stray file: what it is and holds, and what ``--repair`` does."""

    path: Path
    what: str
    repair: str
    fix: Callable[[Path], None] | None = field(
        default=None, repr=False
    )  # arg: the set-aside folder

    def line(self, root: Path) -> str:
        try:
            name = str(self.path.relative_to(root)) or "."
        except ValueError:
            name = str(self.path)
        return f"{name}: {self.what}; --repair {self.repair}"


def _rows(path: Path) -> str:
    try:
        return f"{pq.read_metadata(path).num_rows:,} rows"
    except Exception:  # any damage: the count is unknown
        return "rows unknown"


def _has_rows(path: Path) -> bool:
    try:
        return bool(pq.read_metadata(path).num_rows > 0)
    except Exception:  # unreadable: _problem names it
        return False


def _problem(path: Path, table: str | None, full: bool) -> str | None:
    """Why a Parquet file cannot be read as ``table``'s (None: it can)."""
    try:
        if full:
            read = pq.read_table(path)
            names = read.column_names
        else:
            names = pq.read_schema(path).names
    except Exception as error:  # Arrow, OS or thrift: all "cannot read"
        first = (str(error).splitlines() or [type(error).__name__])[0]
        return f"cannot be read as Parquet ({first[:120]})"
    if table is None:
        return None
    missing = [name for name in NEEDED.get(table, ()) if name not in names]
    if missing:
        return f"has no {', '.join(missing)} column: not a {table} file"
    return None


def scan(root: str | Path, *, full: bool = True) -> list[Damage]:
    """Every damaged or stray file of the dataset at ``root`` (``full``: read every row)."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: no dataset folder here")
    found: list[Damage] = []
    set_aside = _set_aside(root)
    found += _meta(root)
    for name in (".tmp", ".index"):
        path = root / name
        if path.exists() and not path.is_dir():
            found.append(
                Damage(
                    path,
                    f"a plain file where the {name} folder goes",
                    "sets it aside",
                    set_aside(path),
                )
            )
    for name in (LOCK, TAKEOVER):
        path = root / name
        if path.is_dir():
            found.append(
                Damage(path, "a folder where the lock file goes", "sets it aside", set_aside(path))
            )
    batches: dict[str, dict[str, Path]] = {}
    for table in [*TABLES, *OPTIONAL]:
        folder = root / table
        required = table in TABLES
        if folder.exists() and not folder.is_dir():
            found.append(
                Damage(
                    folder,
                    f"a plain file where the {table} table's folder goes",
                    "sets it aside" + (" and makes the folder" if required else ""),
                    _chain(set_aside(folder), _make_table(root, table) if required else None),
                )
            )
            continue
        if not folder.is_dir():
            if required:
                found.append(
                    Damage(
                        folder,
                        f"the {table} table's folder is missing",
                        "makes it (no rows)",
                        _make_table(root, table),
                    )
                )
            continue
        found += _table(root, table, folder, full, batches, set_aside)
    # An older version's files lack columns the current one has: only their bytes are read.
    current = schema_version(root) == SCHEMA_VERSION
    found += _batches(root, batches, full, set_aside, current)
    found += _strays(root, set_aside)
    return found


def _meta(root: Path) -> list[Damage]:
    meta = root / "dataset.json"
    current = lambda _: _write_meta_version(root, SCHEMA_VERSION)  # noqa: E731
    try:
        version = json.loads(meta.read_text()).get("schema_version")
    except FileNotFoundError:
        return [Damage(meta, "missing", f"writes it (version {SCHEMA_VERSION})", current)]
    except (OSError, ValueError, AttributeError) as error:
        what = f"unreadable ({type(error).__name__})"
        set_aside = _set_aside(root)(meta)
        fix = _chain(set_aside, current)
        return [Damage(meta, what, f"sets it aside, writes version {SCHEMA_VERSION}", fix)]
    if isinstance(version, str) and version.strip().isdigit():
        number = int(version)
        if number == SCHEMA_VERSION or number in MIGRATIONS:
            return [
                Damage(
                    meta,
                    f'names schema_version as the text "{version}", not the number {number}',
                    f"writes the number {number}",
                    lambda _: _write_meta_version(root, number),
                )
            ]
    if newer_schema(version):
        return [
            Damage(
                meta,
                f"names schema version {version}, newer than this ofc-stats reads "
                f"({SCHEMA_VERSION}): a newer ofc-stats wrote it",
                f"{CANNOT_HELP}: upgrade ofc-stats to read it",
            )
        ]
    if version != SCHEMA_VERSION and version not in MIGRATIONS:
        return [
            Damage(
                meta,
                f"names schema version {version!r}, which no ofc-stats wrote",
                f"{CANNOT_HELP}: import the files into a new --data folder",
            )
        ]
    return []


def _write_meta_version(root: Path, version: int) -> None:
    staged = root / "dataset.json.new"
    staged.write_text(json.dumps({"schema_version": version}) + "\n")
    os.replace(staged, root / "dataset.json")


def _table(
    root: Path,
    table: str,
    folder: Path,
    full: bool,
    batches: dict[str, dict[str, Path]],
    set_aside: Callable[[Path], Callable[[Path], None]],
) -> list[Damage]:
    found: list[Damage] = []
    empty = folder / EMPTY
    if not empty.exists():
        found.append(
            Damage(
                empty,
                f"the {table} table's schema file is missing",
                "writes it again",
                _write_empty(table, empty),
            )
        )
    elif _problem(empty, None, full):
        found.append(
            Damage(
                empty,
                f"the {table} table's schema file {_problem(empty, None, full)}",
                "writes it again",
                _chain(set_aside(empty), _write_empty(table, empty)),
            )
        )
    for path in sorted(folder.iterdir()):
        if path.name == EMPTY:
            continue
        if path.is_dir() or path.suffix != ".parquet" or not BATCH.match(path.stem):
            holds = "a folder" if path.is_dir() else "not a batch"
            if path.is_file() and path.suffix == ".parquet":
                holds = _rows(path)
            what = f"a stray {'folder' if path.is_dir() else 'file'} in the {table} table ({holds})"
            found.append(Damage(path, what, "sets it aside", set_aside(path)))
            continue
        batches.setdefault(path.stem, {})[table] = path
    return found


def _batches(
    root: Path,
    batches: dict[str, dict[str, Path]],
    full: bool,
    set_aside: Callable[[Path], Callable[[Path], None]],
    current: bool,
) -> list[Damage]:
    found = []
    for batch, files in sorted(batches.items()):
        problems = []
        for table, path in sorted(files.items()):
            problem = _problem(path, table if current else None, full)
            if problem and table in LEDGER_TABLES:  # derived: priced again, the batch kept
                what = f"the {table} file of batch {batch} {problem}"
                fix = "sets it aside (the next recompute prices the batch again)"
                found.append(Damage(path, what, fix, set_aside(path)))
            elif problem:
                problems.append(f"its {table} file {problem}")
        hand_tables = {"seats", "placements", "results", "versus"} & set(files)
        if hand_tables and "hands" not in files:
            problems.append(f"it has {', '.join(sorted(hand_tables))} but no hands file")
        hands = files.get("hands")
        if (
            hands is not None
            and not {"seats", "placements"} <= set(files)
            and not _problem(hands, "hands", False)
            and _has_rows(hands)
        ):
            gone = sorted({"seats", "placements"} - set(files))
            problems.append(f"its hands have no {' or '.join(gone)} file")
        if problems:
            held = ", ".join(f"{t} ({_rows(p)})" for t, p in sorted(files.items()))
            fixes = [set_aside(p) for p in files.values()]
            found.append(
                Damage(
                    root / f"*/{batch}.parquet",
                    f"batch {batch} is broken: {'; '.join(problems)}; it holds {held}",
                    "sets the whole batch aside (its files import again; "
                    "`import --force` restores hands another batch's ledger row covers)",
                    _chain(*fixes),
                )
            )
    return found


def _strays(root: Path, set_aside: Callable[[Path], Callable[[Path], None]]) -> list[Damage]:
    found = []
    for path in sorted(root.iterdir()):
        name = path.name
        if name in KNOWN or name in TABLES or name in OPTIONAL or name.startswith(LOCK):
            continue
        if name.startswith("dataset.json"):  # a staged version change
            continue
        kind = "folder" if path.is_dir() else "file"
        found.append(
            Damage(path, f"a stray {kind} in the dataset folder", "sets it aside", set_aside(path))
        )
    return found


def _chain(*fixes: Callable[[Path], None] | None) -> Callable[[Path], None]:
    def run(aside: Path) -> None:
        for fix in fixes:
            if fix is not None:
                fix(aside)

    return run


def _set_aside(root: Path) -> Callable[[Path], Callable[[Path], None]]:
    def mover(path: Path) -> Callable[[Path], None]:
        def move(aside: Path) -> None:
            target = aside / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() or path.is_symlink():
                os.replace(path, target)

        return move

    return mover


def _make_table(root: Path, table: str) -> Callable[[Path], None]:
    def make(aside: Path) -> None:
        (root / table).mkdir(exist_ok=True)
        write_parquet(TABLES[table].empty_table(), root / table / EMPTY)

    return make


def _write_empty(table: str, path: Path) -> Callable[[Path], None]:
    schema = TABLES.get(table) or OPTIONAL[table]

    def write(aside: Path) -> None:
        write_parquet(schema.empty_table(), path)

    return write


@contextmanager
def _held(root: Path, wait_seconds: float) -> Iterator[None]:
    """The dataset's lock alone: no upgrade or recovery, which damage could stop."""
    with Dataset(root).held(wait_seconds):
        yield


def repair(root: str | Path, *, wait_seconds: float = 0.0) -> tuple[list[Damage], Path | None]:
    """Repair what can be repaired, under the lock; (what was found, where strays went)."""
    root = Path(root)
    found = scan(root)
    if not found:
        return found, None
    aside = root / DAMAGED / time.strftime("%Y%m%dT%H%M%S")
    for damage in found:  # a folder where the lock goes: no one can hold it, so no lock
        if damage.path.name in (LOCK, TAKEOVER) and damage.fix is not None:
            damage.fix(aside)
    with _held(root, wait_seconds):
        for damage in scan(root):
            if damage.fix is not None:
                damage.fix(aside)
    return found, aside if aside.exists() else None


def first_damage(root: str | Path) -> tuple[Damage, int] | None:
    """The first damage a quick scan finds (file footers only), and how many it found."""
    try:
        found = scan(root, full=False)
    except Exception:  # asked while reporting another error
        return None
    return (found[0], len(found)) if found else None
