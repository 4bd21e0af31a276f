"""The hands index's merged run answers exactly as the batch indexes one by one.

A search asks every batch file "which of these hashes do you hold?".  With the merged run
the covered batches are answered from one sorted array; these tests hold that the answer
is the same as asking each batch's own index, through batches added, rewritten (new keys
under the same name) and removed between searches, with rebuilds cut into tiny chunks and
groups so the chunked merge and the stepwise rebuild are exercised.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ofc_stats.store.key_index as index_module
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.key_index import INDEX, RUN, KeyIndex, hand_keys_of, key_hashes
from parsers.open_format import dumps
from tests.handgen import random_records

# one step: ("add"|"rewrite"|"remove", batch number, seed of its keys), then a search;
# batches share keys (a pool of 40), so a hash sits in several batches and across blocks
STEPS = st.lists(
    st.tuples(st.sampled_from(["add", "rewrite", "remove"]), st.integers(0, 9), st.integers(0, 99)),
    min_size=1,
    max_size=14,
)


def _write_batch(folder: Path, number: int, seed: int) -> None:
    """A hands file of 1-12 keys drawn from a small pool, so batches share some keys."""
    rng = np.random.default_rng(seed)
    keys = [f"k{value}" for value in rng.choice(40, size=int(rng.integers(1, 13)), replace=False)]
    path = folder / f"b{number:02d}.parquet"
    temporary = folder / f".b{number:02d}.tmp"
    pq.write_table(pa.table({"hand_key": pa.array(keys, pa.string())}), temporary)
    os.replace(temporary, path)  # a new inode: the stamp changes, as a rewrite's does


def _answers(index: KeyIndex, hashes: np.ndarray) -> dict[str, list[bool]]:
    return {batch: mask.tolist() for batch, mask in index.candidates(hashes)}


@settings(max_examples=40, deadline=None)
@given(steps=STEPS, query_seed=st.integers(0, 1000))
def test_the_merged_run_answers_as_every_batch_index_does(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, int]], query_seed: int
) -> None:
    root = tmp_path_factory.mktemp("run")
    folder = root / "hands"
    folder.mkdir()

    def files() -> list[str]:
        return sorted(str(p) for p in folder.glob("*.parquet"))

    merged = KeyIndex(root, "hands", files, ["hand_key"], hand_keys_of, merge_after=1)
    plain = KeyIndex(root, "plain", files, ["hand_key"], hand_keys_of)
    rng = np.random.default_rng(query_seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_module, "MERGE_CHUNK", 5)  # rounds of a few hashes
        patch.setattr(index_module, "MERGE_GROUP", 2)  # rebuilds in steps of two batches
        patch.setattr(index_module, "FENCE", 3)  # blocks of three: hashes across their ends
        for action, number, seed in steps:
            path = folder / f"b{number:02d}.parquet"
            if action == "remove":
                path.unlink(missing_ok=True)
            else:
                _write_batch(folder, number, seed)
            pool = [f"k{value}" for value in range(45)]  # k40..k44 are never stored
            asked = pa.array(list(rng.choice(pool, size=int(rng.integers(1, 30)))), pa.string())
            hashes = key_hashes(asked)
            assert _answers(merged, hashes) == _answers(plain, hashes)
        merged.merge([Path(p) for p in files()])  # a last rebuild, then asked again
        hashes = key_hashes(pa.array([f"k{value}" for value in range(45)]))
        assert _answers(merged, hashes) == _answers(plain, hashes)


def test_a_rebuild_covers_every_batch_in_steps_and_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven batches, rebuilt two at a time in rounds of three hashes: the run holds every
    batch's hashes sorted, each with its batch (here every key is stored once)."""
    monkeypatch.setattr(index_module, "MERGE_CHUNK", 3)
    monkeypatch.setattr(index_module, "MERGE_GROUP", 2)
    monkeypatch.setattr(index_module, "FENCE", 4)
    folder = tmp_path / "hands"
    folder.mkdir()
    keys = {f"b{n:02d}": [f"h{n}-{i}" for i in range(n + 1)] for n in range(7)}
    for batch, names in keys.items():
        pq.write_table(
            pa.table({"hand_key": pa.array(names, pa.string())}), folder / f"{batch}.parquet"
        )
    paths = sorted(folder.glob("*.parquet"))
    index = KeyIndex(
        tmp_path,
        "hands",
        lambda: [str(p) for p in paths],
        ["hand_key"],
        hand_keys_of,
        merge_after=0,
    )
    index.merge(paths)
    path = tmp_path / INDEX / "hands" / RUN
    run = index_module._read_run(path)
    assert run is not None
    batches = run.batches
    hashes, ordinals = index_module._run_reader(path, run)(0, run.hashes)
    assert sorted(batches) == sorted(keys)
    assert np.array_equal(hashes, np.sort(hashes))
    owner = {h: batches[o] for h, o in zip(hashes.tolist(), ordinals.tolist(), strict=True)}
    expected = {
        int(h): batch for batch, names in keys.items() for h in key_hashes(pa.array(names)).tolist()
    }
    assert owner == expected  # 28 hashes, each with its own batch


def test_an_import_finds_its_duplicates_through_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve batches of five hands; the run is built once more than two are uncovered (at
    the next import's first search).  The same hands again (forced) and a file half old,
    half new: exactly the old ones are duplicates, answered from the run alone."""
    import ofc_stats.store.known as known_module

    monkeypatch.setattr(known_module, "MERGE_AFTER", 2)
    records = random_records(90, seed=31)
    data = tmp_path / "data"
    first = tmp_path / "first.jsonl"
    first.write_text("".join(dumps(r) + "\n" for r in records[:60]), encoding="utf-8")
    assert import_paths([first], data, batch_hands=5).stored == 60  # searched nothing stored
    again = import_paths([first], data, batch_hands=5, force=True)  # builds the run
    assert (again.stored, again.duplicates) == (0, 60)
    run = index_module._read_run(data / INDEX / "hands" / RUN)
    assert run is not None
    uncovered = set(Dataset(data).batches()) - set(run.batches)  # written after the run
    assert len(run.batches) >= 12 and len(uncovered) <= 2
    loads: list[str] = []
    load = KeyIndex.load

    def counted(index: KeyIndex, path: Path) -> np.ndarray:
        loads.append(path.stem)
        return load(index, path)

    monkeypatch.setattr(KeyIndex, "load", counted)
    third = import_paths([first], data, batch_hands=5, force=True)
    assert (third.stored, third.duplicates) == (0, 60)
    assert set(loads) <= uncovered  # the run answered for the rest: their indexes not opened
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(dumps(r) + "\n" for r in records[30:90]), encoding="utf-8")
    summary = import_paths([mixed], data, batch_hands=5)
    assert (summary.stored, summary.duplicates) == (30, 30)
