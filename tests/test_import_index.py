"""The importer's key index: the hash, its exact confirmation, its rebuild, bounded state."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ofc_stats.store.chunks as chunks_module
import ofc_stats.store.importer as importer_module
import ofc_stats.store.key_index as index_module
import ofc_stats.store.known as known_module
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.key_index import INDEX, key_hashes
from parsers.open_format import dumps
from tests.handgen import random_records


def fnv1a64(text: str) -> int:
    """The definition, a byte at a time: xor the byte in, multiply by the FNV prime."""
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x100000001B3) % 2**64
    return value


def test_key_hashes_are_fnv1a_64() -> None:
    # Published FNV-1a 64 test vectors: "" is the offset basis itself; "a" is
    # (0xcbf29ce484222325 ^ 0x61) * 0x100000001b3 mod 2**64 = 0xaf63dc4c8601ec8c.
    hashed = key_hashes(pa.array(["", "a", "foobar"]))
    assert hashed.tolist() == [0xCBF29CE484222325, 0xAF63DC4C8601EC8C, 0x85944171F73967E8]
    assert fnv1a64("a") == 0xAF63DC4C8601EC8C  # the reference agrees with the vector


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.text(max_size=40), max_size=30),
    start=st.integers(0, 5),
    chunked=st.booleans(),
)
def test_key_hashes_equal_the_bytewise_definition(
    texts: list[str], start: int, chunked: bool
) -> None:
    texts = [t.encode("utf-8", "replace").decode("utf-8") for t in texts]  # no lone surrogates
    values: pa.Array | pa.ChunkedArray = pa.array(texts, pa.string()).slice(start)
    if chunked:
        values = pa.chunked_array([values[: len(values) // 2], values[len(values) // 2 :]])
    assert key_hashes(values).tolist() == [fnv1a64(t) for t in texts[start:]]


def _write(path: Path, records: list) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("columnar", [True, False])
def test_every_hash_colliding_still_dedupes_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columnar: bool
) -> None:
    """With one hash for every key each row is a hit; only the exact check tells them apart."""

    def same(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
        return np.full(len(values), 7, np.uint64)

    for module in (importer_module, chunks_module, known_module, index_module):
        monkeypatch.setattr(module, "key_hashes", same)
    records = random_records(30, seed=11)
    data = tmp_path / "data"
    first = import_paths(
        [_write(tmp_path / "a.jsonl", records[:20])], data, batch_hands=7, columnar=columnar
    )
    assert (first.stored, first.duplicates) == (20, 0)
    # 10 stored, 10 new, and the first of them twice in the same file (one duplicate).
    second = import_paths(
        [_write(tmp_path / "b.jsonl", records[10:] + records[20:21])],
        data,
        batch_hands=7,
        columnar=columnar,
    )
    assert (second.stored, second.duplicates) == (10, 11)
    keys = Dataset(data).read("hands")["hand_key"].to_pylist()
    assert sorted(keys) == sorted(r.hand_key for r in records)


def test_a_lost_or_stale_index_is_rebuilt(tmp_path: Path) -> None:
    records = random_records(12, seed=3)
    data = tmp_path / "data"
    import_paths([_write(tmp_path / "a.jsonl", records)], data, batch_hands=5)
    assert len(list((data / INDEX / "hands").glob("*.u64"))) == 3  # one per batch: 5, 5, 2
    shutil.rmtree(data / INDEX)
    again = import_paths([_write(tmp_path / "b.jsonl", records)], data, force=True)
    assert (again.stored, again.duplicates) == (0, 12)
    # A stale file (its batch rewritten since) is not trusted: here it claims no keys.
    index = sorted((data / INDEX / "hands").glob("*.u64"))[0]
    words = np.fromfile(index, np.uint64)
    words[2] += 1  # the batch file's size as recorded: no longer the file's
    words[4] = 0  # and no keys: consistent in itself, so only the stamp shows it is stale
    words[:5].tofile(index)
    third = import_paths([_write(tmp_path / "c.jsonl", records)], data, force=True)
    assert (third.stored, third.duplicates) == (0, 12)


def test_an_import_never_reads_the_stored_hands_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = random_records(40, seed=8)
    data = tmp_path / "data"
    import_paths([_write(tmp_path / "a.jsonl", records[:30])], data, batch_hands=10)
    original = Dataset.read

    def read(self: Dataset, table: str, columns: list[str] | None = None) -> pa.Table:
        assert table not in ("hands", "seats", "quarantine"), f"read {table} whole"
        return original(self, table, columns)

    monkeypatch.setattr(Dataset, "read", read)
    summary = import_paths([_write(tmp_path / "b.jsonl", records[20:])], data)
    assert (summary.stored, summary.duplicates) == (10, 10)


def test_a_hand_repeated_across_a_commit_in_one_run_is_one_hand(tmp_path: Path) -> None:
    """The first copy is committed (batches of 1) before the second is read."""
    records = random_records(3, seed=21)
    path = _write(tmp_path / "a.jsonl", [records[0], records[1], records[0], records[2]])
    for columnar in (True, False):
        data = tmp_path / f"data-{columnar}"
        summary = import_paths([path], data, batch_hands=1, columnar=columnar)
        assert (summary.stored, summary.duplicates) == (3, 1)
        assert Dataset(data).read("hands").num_rows == 3


def test_a_shorter_copy_of_a_hand_still_pending_is_a_duplicate(tmp_path: Path) -> None:
    """Whole hand first, then a copy cut short, in one file: the copy is older, not reused."""
    (whole,) = random_records(1, seed=5)
    seats = tuple(replace(seat, bottom=seat.bottom[:3]) for seat in whole.seats)
    cut = replace(whole, seats=seats, placements=())
    summary = import_paths([_write(tmp_path / "a.jsonl", [whole, cut])], tmp_path / "data")
    assert (summary.stored, summary.duplicates, summary.files[0].reused_ids) == (1, 1, 0)


def test_the_largest_hand_id_is_kept_across_processes_and_checked_by_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    import ofc_stats.store.hand_ids as hand_ids

    data = tmp_path / "data"
    import_paths([_write(tmp_path / "a.jsonl", random_records(12, seed=2))], data, batch_hands=5)
    dataset = Dataset(data)
    assert hand_ids.next_hand_id(dataset) == 12  # ids 0-11 in batches of 5, 5, 2
    monkeypatch.setattr(hand_ids, "_LARGEST", {})  # a new process: only the saved readings

    def no_footers(path: object) -> None:
        raise AssertionError("read a footer the saved readings hold")

    monkeypatch.setattr(hand_ids.pq, "read_metadata", no_footers)
    assert hand_ids.next_hand_id(dataset) == 12
    # A reading whose stamp is not the file's is read again from the footer.
    cache = data / INDEX / "hand_ids.json"
    saved = json.loads(cache.read_text())
    last = max(saved)
    saved[last] = [saved[last][0] + 1, saved[last][1], 99]  # another size, a wrong largest id
    cache.write_text(json.dumps(saved))
    monkeypatch.undo()  # footers readable again
    monkeypatch.setattr(hand_ids, "_LARGEST", {})
    assert hand_ids.next_hand_id(dataset) == 12


@pytest.mark.parametrize("columnar", [True, False])
def test_hands_still_pending_after_a_commit_are_known_to_the_next_file(
    tmp_path: Path, columnar: bool
) -> None:
    """Batches of 2: the first file's third hand is still pending when the second file,
    the same hands, is read; it must be found there, not stored twice."""
    records = random_records(3, seed=31)
    first = _write(tmp_path / "a.jsonl", records)
    second = tmp_path / "b.jsonl"
    second.write_text(first.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    data = tmp_path / "data"
    summary = import_paths([first, second], data, batch_hands=2, columnar=columnar)
    assert (summary.stored, summary.duplicates) == (3, 3)
    assert Dataset(data).read("hands").num_rows == 3
