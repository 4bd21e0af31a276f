"""The report benchmark's dataset: one player with a fixed number of seats among many others.

    .venv/bin/python bench/report_data.py DIR [--hands 1000000] [--player-seats 200000]

A real player's own seats do not grow with a dataset of mined hands, so the
chosen player here has ``--player-seats`` scored seats whatever ``--hands``
is; the rest of the hands are other players'.  Built from ``--base``
simulated 3-seat Pineapple hands (9 players at the tables), imported once
into a source dataset; every batch of the benchmark dataset is a copy of
those hands under new keys (``#copy``), each copy ``span`` later in time
(so sessions and days do not pile up), with its players renamed per copy
(``name~copy``: each copy's 9 players are new people), except in the copies
spread evenly through the dataset where the base's most frequent player
keeps its name and its seats are marked as the hero's.  Two copies make one
20,000-hand batch, as an import writes them; placements are copied too, so
every table is what an import would have stored.  Then it is recomputed and its
ledger priced, as ``ofc-stats recompute`` does.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

TABLES = ("hands", "seats", "placements", "files", "quarantine")


def _suffixed(column: pa.ChunkedArray, suffix: str) -> pa.ChunkedArray:
    return pc.binary_join_element_wise(column, pa.scalar(suffix), "")


def _copy(
    source: dict[str, pa.Table], copy: int, span: np.timedelta64, chosen: str | None
) -> dict[str, pa.Table]:
    """The base's tables as copy ``copy``: new keys, later times, renamed players.

    ``chosen`` keeps its name (and is marked hero) in this copy; None renames everyone.
    """
    out = {}
    for name, table in source.items():
        if "hand_key" in table.column_names:
            index = table.schema.get_field_index("hand_key")
            table = table.set_column(index, "hand_key", _suffixed(table["hand_key"], f"#{copy}"))
        out[name] = table
    hands = out["hands"]
    shifted = pc.add(hands["played_at"], pa.scalar(span * copy, pa.duration("us")))
    out["hands"] = hands.set_column(
        hands.schema.get_field_index("played_at"), hands.schema.field("played_at"), shifted
    )
    seats = out["seats"]
    key = pc.coalesce(seats["player_id"], seats["player"])
    keep = pc.equal(key, pa.scalar(chosen)) if chosen is not None else pa.repeat(False, len(key))
    keep = pc.fill_null(keep, False)
    for column in ("player", "player_id"):
        renamed = pc.if_else(keep, seats[column], _suffixed(seats[column], f"~{copy}"))
        seats = seats.set_column(
            seats.schema.get_field_index(column), seats.schema.field(column), renamed
        )
    hero = pc.or_(keep, pc.fill_null(seats["hero"], False))
    out["seats"] = seats.set_column(
        seats.schema.get_field_index("hero"), seats.schema.field("hero"), hero
    )
    return out


def build(
    root: Path, hands: int, player_seats: int, base: int = 10_000, source: Path | None = None
) -> dict[str, object]:
    """Build the dataset at ``root`` (see the module doc); what was built, for the printout.

    The simulated base is kept in ``source`` (default: beside ``root``) for the next size.
    """
    from ofc_stats.audit.ledger import price_batches
    from ofc_stats.engine.presets import get_ruleset
    from ofc_stats.sim.rooms import write_simulation
    from ofc_stats.store.dataset import Dataset
    from ofc_stats.store.hand_ids import next_hand_id, with_hand_ids
    from ofc_stats.store.importer import BATCH_HANDS, import_paths
    from ofc_stats.store.recompute import recompute
    from ofc_stats.store.rows import with_hand_keys
    from ofc_stats.store.views import open_dataset

    started = time.perf_counter()
    work = (source or root.parent) / f"source-{base}"
    simulated = work / "base.jsonl"
    if not (work / "data" / "dataset.json").exists():
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        write_simulation(simulated, base, get_ruleset("pineapple-progressive"), seats=3, seed=7)
        import_paths([simulated], work / "data")
    src = Dataset(work / "data")
    parts: dict[str, list[pa.Table]] = {}
    for batch in src.batches():
        for name in TABLES:
            table = pq.read_table(src.batch_file(name, batch))
            if name == "placements":  # stored by hand_id (schema 5): the key back for the copy
                ids = pq.read_table(src.batch_file("hands", batch), columns=["hand_key", "hand_id"])
                table = with_hand_keys(table, ids)
            if "hand_id" in table.column_names:
                table = table.drop_columns(["hand_id"])
            parts.setdefault(name, []).append(table)
    source = {name: pa.concat_tables(tables) for name, tables in parts.items()}
    rows = source["hands"].num_rows
    keys = pc.coalesce(source["seats"]["player_id"], source["seats"]["player"])
    counts = pc.value_counts(keys).to_pylist()
    top = max(counts, key=lambda c: (c["counts"], c["values"]))
    chosen, per_copy = str(top["values"]), int(top["counts"])
    copies = math.ceil(hands / rows)
    hero_copies = min(copies, math.ceil(player_seats / per_copy))
    # the hero's copies spread evenly through the dataset, not bunched at its start
    heroic = set(np.linspace(0, copies - 1, hero_copies).round().astype(int).tolist())
    times = source["hands"]["played_at"]
    first, last = pc.min(times).as_py(), pc.max(times).as_py()
    span = np.timedelta64(int((last - first).total_seconds()) + 3600, "s").astype("m8[us]")
    shutil.rmtree(root, ignore_errors=True)
    dataset = Dataset(root)
    import_paths([], root)  # an empty dataset: folders, schema files, dataset.json
    per_batch = max(1, BATCH_HANDS // rows)
    for start in range(0, copies, per_batch):
        tables = [
            _copy(source, c, span, chosen if c in heroic else None)
            for c in range(start, min(copies, start + per_batch))
        ]
        batch = {name: pa.concat_tables([t[name] for t in tables]) for name in TABLES}
        dataset.commit(f"copy{start:06d}", with_hand_ids(batch, next_hand_id(dataset)))
    built = time.perf_counter() - started
    recompute(root)
    scored = time.perf_counter() - started - built
    with open_dataset(root) as db:  # as `ofc-stats recompute` (and so import) prices it
        price_batches(db)
    return {
        "hands": copies * rows,
        "player": chosen,
        "player_seats": hero_copies * per_copy,
        "copies": copies,
        "build_s": built,
        "recompute_s": scored,
        "ledger_s": time.perf_counter() - started - built - scored,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--player-seats", type=int, default=200_000)
    parser.add_argument("--base", type=int, default=10_000)
    args = parser.parse_args()
    print(build(args.root, args.hands, args.player_seats, args.base), file=sys.stderr)


if __name__ == "__main__":
    main()
