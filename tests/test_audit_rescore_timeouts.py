"""The audit's "what if these rules" passes copy each seat's recorded timeouts from the
stored results, read once from the hand's text by recompute: they read no hand text.

The timeouts a text records (``results.recorded_timeouts``) do not depend on the rules,
so a rescoring that parsed the text again would only spend time on the largest column.
The tests score simulated open-format hands (the simulator marks its planted timeouts
``"timeout": true``), then rewrite every stored text so that it marks none: a rescoring
that reads the text finds no timeout, one that copies the stored bits finds them all.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import ofc_stats
from ofc_stats.audit.evidence import scored
from ofc_stats.audit.points import audit, ruleset_results
from ofc_stats.audit.rules_book import RulesBook, book_results, lookup_results
from ofc_stats.engine.presets import get_ruleset
from ofc_stats.store import recompute
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.recompute import HAND_COLUMNS, score_batch_files, stored_timeouts
from ofc_stats.store.rescore import score_tables
from ofc_stats.store.schema import ENGINE_KEY
from tests.test_audit_timeouts import _data

OTHER = "pineapple-progressive"  # not the simulated hands' own (pineapple-ultimate)


@pytest.fixture(scope="module")
def timed_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 open-format hands with planted timeouts, imported and scored (read only)."""
    return _data(tmp_path_factory.mktemp("timeouts"), "open", 0.1, hands=40)


def _copy(data: Path, tmp_path: Path) -> Path:
    """A copy of the shared dataset, for a test that rewrites its files."""
    shutil.copytree(data, tmp_path / "copy")
    return tmp_path / "copy"


def _stored(data: Path) -> list[tuple[int, int, int]]:
    table = Dataset(data).read("results", ["hand_id", "seat", "recorded_timeouts"])
    return sorted(tuple(row.values()) for row in table.to_pylist())


def _unmark_texts(data: Path) -> None:
    """Rewrite every stored hand text so it records no timeout (``"timeout"`` renamed)."""
    dataset = Dataset(data)
    for batch in dataset.batches():
        path = dataset.batch_file("hands", batch)
        hands = pq.read_table(path)
        texts = pc.replace_substring(hands["raw_text"], '"timeout"', '"waited"')
        index = hands.schema.get_field_index("raw_text")
        pq.write_table(hands.set_column(index, hands.schema.field(index), texts), path)


def _bits(results: pa.Table) -> list[tuple[int, int, int]]:
    rows = results.select(["hand_id", "seat", "recorded_timeouts"]).to_pylist()
    return sorted(tuple(row.values()) for row in rows)


def test_the_simulated_hands_record_timeouts(timed_out: Path) -> None:
    """The data the other tests rely on: several seats with recorded timeouts."""
    assert sum(1 for *_, bits in _stored(timed_out) if bits) >= 5


def test_rescoring_keeps_the_stored_timeouts_when_the_text_no_longer_marks_them(
    timed_out: Path, tmp_path: Path
) -> None:
    data = _copy(timed_out, tmp_path)
    stored = _stored(data)
    _unmark_texts(data)
    dataset = Dataset(data)
    for hand_key in (True, False):
        scored = [
            score_batch_files(dataset, b, ruleset=get_ruleset(OTHER), hand_key=hand_key)["results"]
            for b in dataset.batches()
        ]
        assert _bits(pa.concat_tables(scored)) == stored
    with ofc_stats.open(data) as db:
        assert _bits(ruleset_results(db, get_ruleset(OTHER))) == stored
        assert _bits(book_results(db, RulesBook.load(OTHER))) == stored
        assert _bits(lookup_results(db, lambda name: get_ruleset(OTHER))) == stored


def test_no_rescoring_reads_the_hand_text(timed_out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every read of a ``hands`` file the audit's rescorings make, with the columns it
    asks for: none asks for raw_text (nor reads the whole file)."""
    asked: list[tuple[str, Any]] = []
    columns_read, read_table = recompute.read_columns, pq.read_table

    def logged_columns(path: Path, columns: list[str], *args: Any) -> pa.Table:
        asked.append((str(path), columns))
        return columns_read(path, columns, *args)

    def logged_read_table(source: Any, columns: Any = None, **kwargs: Any) -> Any:
        asked.append((str(source), columns))
        return read_table(source, columns=columns, **kwargs)

    monkeypatch.setattr(recompute, "read_columns", logged_columns)
    monkeypatch.setattr(pq, "read_table", logged_read_table)
    with ofc_stats.open(timed_out) as db:
        ruleset_results(db, get_ruleset(OTHER))
        book_results(db, RulesBook.load(OTHER))
        lookup_results(db, lambda name: get_ruleset(OTHER))
        for batch in Dataset(timed_out).batches():  # the options' evidence, a batch at a time
            scored(Dataset(timed_out), batch, lambda name: get_ruleset(OTHER))
    hands = [columns for path, columns in asked if "hands" in Path(path).parts]
    assert len(hands) >= 4 * len(Dataset(timed_out).batches())  # each pass reads every batch
    assert all(columns is not None and "raw_text" not in columns for columns in hands), hands


def test_timeout_lines_under_other_rules_say_what_the_stored_results_say(
    timed_out: Path, tmp_path: Path
) -> None:
    """``audit --rules`` (a preset for every hand, or a rules book) reports the same
    timeouts as the audit under each hand's own ruleset, with the texts unmarked too."""
    data = _copy(timed_out, tmp_path)
    with ofc_stats.open(data) as db:
        own = [line for e in audit(db).timeouts for line in e.lines()]
    assert any("recorded as timed out" in line for line in own)
    assert not any(line.startswith("0 of") for line in own), own
    _unmark_texts(data)
    with ofc_stats.open(data) as db:
        preset = [
            line for e in audit(db, ruleset=get_ruleset(OTHER)).timeouts for line in e.lines()
        ]
        book = [line for e in audit(db, book=RulesBook.load(OTHER)).timeouts for line in e.lines()]
    assert preset == own and book == own


def test_results_another_engine_version_wrote_have_the_text_read_again(
    timed_out: Path, tmp_path: Path
) -> None:
    """Stale stored results are no source: the bits come from the text, as recompute's.
    With the text unmarked that gives none, which shows the text was read."""
    data = _copy(timed_out, tmp_path)
    stored = _stored(data)
    dataset = Dataset(data)
    for batch in dataset.batches():
        path = dataset.batch_file("results", batch)
        table = pq.read_table(path)
        pq.write_table(table.replace_schema_metadata({ENGINE_KEY: b"0"}), path)
    rescored = [score_batch_files(dataset, b)["results"] for b in dataset.batches()]
    assert _bits(pa.concat_tables(rescored)) == stored
    _unmark_texts(data)
    rescored = [score_batch_files(dataset, b)["results"] for b in dataset.batches()]
    assert {bits for *_, bits in _bits(pa.concat_tables(rescored))} == {0}


def test_scores_without_the_text_leave_the_recorded_timeouts_unread(timed_out: Path) -> None:
    """Hands read without format and raw_text get null bits, not a claim of no timeout;
    :func:`stored_timeouts` then puts the stored ones in."""
    dataset = Dataset(timed_out)
    batch = dataset.batches()[0]
    results = score_batch_files(dataset, batch, timeouts=False)["results"]
    assert results["recorded_timeouts"].null_count == results.num_rows
    filled = stored_timeouts(dataset, batch, results)
    stored = pq.read_table(dataset.batch_file("results", batch))
    assert _bits(filled) == _bits(stored)
    reversed_rows = results.take(pa.array(range(results.num_rows - 1, -1, -1)))
    assert _bits(stored_timeouts(dataset, batch, reversed_rows)) == _bits(stored)


def test_recompute_still_reads_the_text(timed_out: Path) -> None:
    """score_tables given format and raw_text parses the marks (recompute's input)."""
    dataset = Dataset(timed_out)
    batch = dataset.batches()[0]
    hands = pq.read_table(dataset.batch_file("hands", batch), columns=HAND_COLUMNS)
    seats = pq.read_table(dataset.batch_file("seats", batch))
    scored = score_tables(hands, seats, get_ruleset)
    bits = _bits(scored.results)
    assert bits == _bits(pq.read_table(dataset.batch_file("results", batch)))
    assert any(b for *_, b in bits)
