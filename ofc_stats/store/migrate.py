"""Upgrading a dataset written by an older ofc-stats, in place, under its lock.

Each step moves files and never re-parses a hand, and it can be run again
after a kill: it finishes what is left.  ``dataset.json``'s version is
written last, so a dataset is either upgraded whole or still readable as the
old version by this module.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc_stats.store.files import COMMIT, fsync_dir, publish, write_parquet
from ofc_stats.store.schema import (
    ENGINE_KEY,
    ENGINE_VERSION,
    HAND_ID,
    STORED_HANDS,
    STORED_PLACEMENTS,
    STORED_RESULTS,
    STORED_VERSUS,
    TABLES,
)
from ofc_stats.store.schema import QUARANTINE as STORED_QUARANTINE
from ofc_stats.store.streets import recorded_bits

V2_RESULTS = ".v2-results"


def _two_to_three(root: Path) -> None:
    """v2 kept every table of a batch in ``batches/<batch>/``: one folder per table now."""
    (root / ".tmp").mkdir(exist_ok=True)
    old_results = root / V2_RESULTS
    if (root / "results").is_dir() and not old_results.exists():
        has_v2 = any(p.is_dir() for p in (root / "results").iterdir())
        if has_v2:
            os.rename(root / "results", old_results)
    batches = root / "batches"
    for folder in sorted(batches.iterdir()) if batches.is_dir() else []:
        for path in sorted(folder.glob("*.parquet")):
            target = root / path.stem
            target.mkdir(exist_ok=True)
            os.replace(path, target / f"{folder.name}.parquet")
        shutil.rmtree(folder)
    if batches.is_dir():
        batches.rmdir()
    for folder in sorted(old_results.iterdir()) if old_results.is_dir() else []:
        try:
            done = json.loads((folder / "done.json").read_text()).get("engine")
        except (OSError, ValueError, AttributeError):
            done = None
        if done == ENGINE_VERSION and (folder / "versus.parquet").is_file():
            # The same engine's results: keep them, stamped as v3 stamps them.
            stamp = {ENGINE_KEY: str(ENGINE_VERSION).encode()}
            table = pq.read_table(folder / "results.parquet").replace_schema_metadata(stamp)
            for name in ("results", "versus"):
                (root / name).mkdir(exist_ok=True)
            write_parquet(table, root / "results" / f"{folder.name}.parquet", "results")
            os.replace(folder / "versus.parquet", root / "versus" / f"{folder.name}.parquet")
        shutil.rmtree(folder)  # otherwise recompute scores the batch again
    if old_results.is_dir():
        old_results.rmdir()
    fsync_dir(root)


# dataset.py's name: it imports this module, so it cannot be imported from there.
EMPTY = "schema.parquet"


def _three_to_four(root: Path) -> None:
    """v4 gives every hand an integer ``hand_id`` and keys results and versus by it.

    ``versus`` keeps each pair of seats once (the view gives both directions).
    Ids count the hands of the batches in order, so a run after a kill gives
    the same ids; each batch's rewritten files are staged and committed
    together, as ``Dataset.commit`` does.
    """
    _finish_staged(root)  # every batch in place first, in the v3 layout
    for name, schema in TABLES.items():  # the empty tables' schemas, which the views read
        if (root / name).is_dir():
            write_parquet(schema.empty_table(), root / name / EMPTY)
    first = 0
    batches = sorted(p.stem for p in (root / "hands").glob("*.parquet") if p.name != EMPTY)
    for batch in batches:
        hands = pq.read_table(root / "hands" / f"{batch}.parquet")
        count = hands.num_rows
        changed = {}
        if "hand_id" not in hands.column_names:
            ids = pa.array(np.arange(first, first + count, dtype=np.int64))
            hands = hands.append_column(HAND_ID, ids)
            changed["hands"] = hands
        first += count
        keys = hands["hand_key"].combine_chunks()
        ids = hands["hand_id"].combine_chunks()
        for name in ("seats", "results", "versus"):
            path = root / name / f"{batch}.parquet"
            if not path.is_file():
                continue
            names = pq.read_schema(path).names
            if "hand_id" not in names if name == "seats" else "hand_key" in names:
                changed[name] = _with_hand_id(pq.read_table(path), keys, ids, name)
        if changed:
            _stage(root, batch, "v4", changed)


def _finish_staged(root: Path) -> None:
    """Roll committed staging folders forward, drop the rest (``Dataset.recover``'s rule).

    Through the dataset's own publish step: a killed import's rewrites of
    other batches and its removals are honoured, as the current version does.
    """
    tmp = root / ".tmp"
    for leftover in sorted(tmp.iterdir()) if tmp.is_dir() else []:
        if leftover.is_dir() and (leftover / COMMIT).is_file():
            publish(root, leftover, leftover.name.split("+", 1)[-1])
        elif leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink()


def _stage(root: Path, batch: str, step: str, tables: dict[str, pa.Table]) -> None:
    """Commit one batch's rewritten files as ``Dataset.commit`` does, and publish them."""
    staging = root / ".tmp" / f"{step}+{batch}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name, table in tables.items():
        write_parquet(table, staging / f"{name}.parquet", name)
    (staging / COMMIT).write_text(
        json.dumps({"tables": sorted(tables), "batches": [batch], "remove": []}) + "\n"
    )
    fsync_dir(staging)
    publish(root, staging, batch)


def _with_hand_id(table: pa.Table, keys: pa.Array, ids: pa.Array, name: str) -> pa.Table:
    """Seats gain ``hand_id``; results and versus have it in place of ``hand_key``."""
    position = pc.index_in(table["hand_key"], value_set=keys)
    table = table.filter(pc.is_valid(position))  # rows of no stored hand: none are expected
    hand_ids = pc.take(ids, pc.drop_null(position))
    if name == "seats":
        return table.append_column(HAND_ID, hand_ids)
    metadata = table.schema.metadata  # the engine stamp of the results
    index = table.schema.get_field_index("hand_key")
    table = table.set_column(index, HAND_ID, hand_ids).replace_schema_metadata(metadata)
    if name == "versus":  # once per pair of seats
        table = table.filter(pc.less(table["seat"], table["opponent"]))
        table = table.select(STORED_VERSUS.names)
    return table


def _four_to_five(root: Path) -> None:
    """v5 stores ``placements`` keyed by ``hand_id`` (the view adds ``hand_key`` back).

    Each batch's placements file is rewritten on its own (staged, then
    renamed), so a run after a kill skips the files already keyed by id.
    """
    _finish_staged(root)
    folder = root / "placements"
    if not folder.is_dir():
        return
    write_parquet(STORED_PLACEMENTS.empty_table(), folder / EMPTY)
    for path in sorted(p for p in folder.glob("*.parquet") if p.name != EMPTY):
        if "hand_key" not in pq.read_schema(path).names:
            continue
        hands_path = root / "hands" / path.name
        hands = (
            pq.read_table(hands_path, columns=["hand_key", "hand_id"])
            if hands_path.is_file()
            else STORED_HANDS.empty_table().select(["hand_key", "hand_id"])
        )
        table = pq.read_table(path)
        position = pc.index_in(table["hand_key"], value_set=hands["hand_key"].combine_chunks())
        table = table.filter(pc.is_valid(position))  # rows of no stored hand: none are expected
        ids = pc.take(hands["hand_id"].combine_chunks(), pc.drop_null(position))
        columns = [ids, *(table[name] for name in STORED_PLACEMENTS.names[1:])]
        stored = pa.Table.from_arrays(columns, schema=STORED_PLACEMENTS)
        _stage(root, path.stem, "v5", {"placements": stored})


def _five_to_six(root: Path) -> None:
    """v6 names quarantine's text id of the room's hand ``room_hand_id``, as ``hands`` does;
    ``hand_id`` is the dataset's integer key everywhere else.  Each file is renamed in
    place (written beside it, then moved over it), so a run after a kill skips the
    files already renamed."""
    folder = root / "quarantine"
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.parquet")):
        names = pq.read_schema(path).names
        if "hand_id" not in names:
            continue
        table = pq.read_table(path)
        table = table.rename_columns(["room_hand_id" if n == "hand_id" else n for n in names])
        staged = path.with_suffix(".parquet.v6")
        write_parquet(table.cast(STORED_QUARANTINE), staged, "quarantine")
        os.replace(staged, path)
    fsync_dir(folder)


def _six_to_seven(root: Path) -> None:
    """v7 stores per seat the timeouts its hand's text records (``results.recorded_timeouts``),
    read once here and at scoring, never again by a report.

    Each batch's results file gains the column, read from that batch's hands
    (staged and committed as ``Dataset.commit`` does, the engine stamp kept), so
    a run after a kill skips the files that have it.
    """
    _finish_staged(root)
    folder = root / "results"
    if not folder.is_dir():
        return
    write_parquet(STORED_RESULTS.empty_table(), folder / EMPTY)
    for path in sorted(p for p in folder.glob("*.parquet") if p.name != EMPTY):
        if "recorded_timeouts" in pq.read_schema(path).names:
            continue
        results = pq.read_table(path)
        hands_path = root / "hands" / path.name
        hands = (
            pq.read_table(hands_path, columns=["hand_id", "format", "raw_text"])
            if hands_path.is_file()
            else STORED_HANDS.empty_table().select(["hand_id", "format", "raw_text"])
        )
        position = pc.index_in(results["hand_id"], value_set=hands["hand_id"].combine_chunks())
        known = np.asarray(pc.is_valid(position).to_numpy(zero_copy_only=False), bool)
        hand_of_row = np.asarray(pc.fill_null(position, 0).to_numpy(), np.int64)
        bits = recorded_bits(
            hands["format"], hands["raw_text"], hand_of_row, results["seat"].to_numpy()
        )
        bits[~known] = 0  # a result of no stored hand (none are expected) records none
        metadata = results.schema.metadata  # the engine stamp
        table = results.append_column("recorded_timeouts", pa.array(bits, pa.int16()))
        _stage(root, path.stem, "v7", {"results": table.replace_schema_metadata(metadata)})


def _seven_to_eight(root: Path) -> None:
    """v8 keeps the ledger one file per import batch, priced batch by batch at recompute;
    v7's one file priced whole (``ledger_seats/priced.parquet``) is removed, and the
    ledger is priced again by the next recompute, audit or report."""
    _finish_staged(root)
    whole = root / "ledger_seats" / "priced.parquet"
    if whole.is_file():
        whole.unlink()
        fsync_dir(whole.parent)


MIGRATIONS: dict[object, tuple[int, Callable[[Path], None]]] = {
    2: (3, _two_to_three),
    3: (4, _three_to_four),
    4: (5, _four_to_five),
    5: (6, _five_to_six),
    6: (7, _six_to_seven),
    7: (8, _seven_to_eight),
}


def schema_version(root: Path) -> object:
    """The version dataset.json names, or None when it names none."""
    try:
        meta = json.loads((root / "dataset.json").read_text())
    except (OSError, ValueError):
        return None
    return meta.get("schema_version") if isinstance(meta, dict) else None


def upgrade(root: Path) -> list[str]:
    """Bring the dataset to the current schema version; what was done, one line a step.

    The caller holds the dataset's lock.
    """
    lines = []
    version = schema_version(root)
    while version in MIGRATIONS:
        target, step = MIGRATIONS[version]
        step(root)
        meta = root / "dataset.json"
        staged = meta.with_suffix(".json.new")
        staged.write_text(json.dumps({"schema_version": target}) + "\n")
        os.replace(staged, meta)
        lines.append(f"{root}: schema version {version} -> {target}")
        version = target
    return lines


def needs_upgrade(root: str | Path) -> bool:
    return schema_version(Path(root)) in MIGRATIONS
