"""Issue 30, item 16: a damaged dataset is one line naming the damage and its repair.

Each kind of damage is made on a copy of a small dataset (two import
batches, scored); every command then exits non-zero with one line (or
succeeds, where the damage is harmless), never a traceback; ``check`` names
the file; ``check --repair`` leaves a dataset every command reads.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.store.check import DAMAGED, scan
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.importer import import_paths
from ofc_stats.store.recompute import recompute
from parsers.open_format import dumps
from tests.builders import sim_records


def _batch(data: Path, table: str, which: int = 0) -> Path:
    return Path(Dataset(data).files(table)[which])


def _truncate(table: str) -> Callable[[Path], None]:
    def damage(data: Path) -> None:
        path = _batch(data, table)
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    return damage


def _plain_file(name: str) -> Callable[[Path], None]:
    def damage(data: Path) -> None:
        target = data / name
        if target.is_dir():
            shutil.rmtree(target)
        target.write_text("not a folder\n")

    return damage


def _plain_folder(name: str) -> Callable[[Path], None]:
    def damage(data: Path) -> None:
        (data / name).unlink(missing_ok=True)
        (data / name).mkdir()

    return damage


def _meta(text: str) -> Callable[[Path], None]:
    return lambda data: (data / "dataset.json").write_text(text)


def _remove(relative: str) -> Callable[[Path], None]:
    def damage(data: Path) -> None:
        path = data / relative
        shutil.rmtree(path) if path.is_dir() else path.unlink()

    return damage


def _stray_parquet(data: Path) -> None:
    shutil.copy(_batch(data, "hands"), data / "hands" / "._x.parquet")


def _wrong_table(data: Path) -> None:
    """A seats file where the batch's hands file goes."""
    shutil.copy(_batch(data, "seats"), _batch(data, "hands"))


def _orphan(data: Path) -> None:
    _batch(data, "hands", 1).unlink()  # its seats, placements and results stay


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated hands": _truncate("hands"),
    "truncated seats": _truncate("seats"),
    "truncated placements": _truncate("placements"),
    "truncated results": _truncate("results"),
    "truncated versus": _truncate("versus"),
    "truncated quarantine": _truncate("quarantine"),
    "truncated files": _truncate("files"),
    "empty hands file": lambda data: _batch(data, "hands").write_bytes(b""),
    "hands file of seats": _wrong_table,
    "hands file gone": _orphan,
    "missing hands folder": _remove("hands"),
    "missing results folder": _remove("results"),
    "missing schema.parquet": _remove("seats/schema.parquet"),
    "truncated schema.parquet": lambda data: (data / "hands" / "schema.parquet").write_bytes(
        b"PAR1"
    ),
    "stray ._x.parquet": _stray_parquet,
    "stray folder in a table": lambda data: (data / "seats" / "junk").mkdir(),
    ".tmp a plain file": _plain_file(".tmp"),
    ".index a plain file": _plain_file(".index"),
    "hands folder a plain file": _plain_file("hands"),
    "schema version as text": _meta('{"schema_version": "5"}\n'),
    "dataset.json garbage": _meta("{not json"),
    "dataset.json missing": _remove("dataset.json"),
    ".lock a folder": _plain_folder(".lock"),
}


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("damage")
    records = sim_records(6, seed=3)
    for part, chunk in (("a", records[:3]), ("b", records[3:])):
        text = "".join(dumps(r) + "\n" for r in chunk) + "{cut\n"  # one refused line each
        (folder / f"{part}.jsonl").write_text(text)
        import_paths([folder / f"{part}.jsonl"], folder / "data")
    recompute(folder / "data")
    return folder


def _commands(folder: Path, data: Path) -> list[list[str]]:
    out = folder / "out"
    return [
        ["sql", "--data", str(data), "SELECT count(*) FROM hands"],
        ["sql", "--data", str(data), "SELECT count(*) FROM boards"],
        ["players", "--data", str(data)],
        ["report", "--data", str(data), "--out", str(out / "r.html")],
        ["audit", "--data", str(data), "--quiet"],
        ["recompute", "--data", str(data), "--quiet"],
        ["import", "--quiet", "--data", str(data), str(folder / "a.jsonl")],
        ["forget", "--data", str(data), str(folder / "b.jsonl")],
    ]


def _run(args: list[str]) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(main, args)
    crash = result.exception if not isinstance(result.exception, SystemExit) else None
    return result.exit_code, result.output, crash


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_every_command_on_damage_is_one_line_and_check_repairs_it(
    whole: Path, tmp_path: Path, kind: str
) -> None:
    data = tmp_path / "data"
    shutil.copytree(whole / "data", data)
    shutil.copy(whole / "a.jsonl", tmp_path / "a.jsonl")
    shutil.copy(whole / "b.jsonl", tmp_path / "b.jsonl")
    DAMAGE[kind](data)
    found = scan(data)
    assert found, kind  # check names it
    code, output, crash = _run(["check", "--data", str(data)])
    assert crash is None and code == 1, output
    problems = f"{len(found)} problem" + ("" if len(found) == 1 else "s")  # never "problem(s)"
    assert f"{problems}; `ofc-stats check --repair --data {data}` repairs them" in output
    for args in _commands(tmp_path, data):
        code, output, crash = _run(args)
        assert crash is None, (kind, args[0], repr(crash))
        if code != 0:
            errors = [line for line in output.splitlines() if line.startswith("Error:")]
            assert len(errors) == 1, (kind, args[0], output)
        if code != 0 and args[0] in ("sql", "players"):  # readers name the damage
            assert "check --repair" in output or "dataset.json" in output, (kind, output)
    # Repaired: whole, and every command reads it.
    shutil.rmtree(data)
    shutil.copytree(whole / "data", data)
    DAMAGE[kind](data)
    code, output, crash = _run(["check", "--repair", "--data", str(data)])
    assert crash is None and code == 0, (kind, output)
    assert f"repaired {problems}; the dataset reads whole" in output
    assert scan(data) == []
    commands = _commands(tmp_path, data)
    for args in [commands[5], *commands[:5]]:  # recompute first: a results file set aside
        code, output, crash = _run(args)  # a batch set aside may leave no hands to report
        assert crash is None and "damaged" not in output, (kind, args[0], output)
        assert code == 0 or output.startswith("Error: the dataset has no hands"), output
    if any(d.fix is not None for d in found) and (data / DAMAGED).exists():
        assert any((data / DAMAGED).rglob("*"))  # set aside, never deleted


def test_a_whole_dataset_checks_clean(whole: Path) -> None:
    code, output, crash = _run(["check", "--data", str(whole / "data")])
    assert (code, crash) == (0, None), output
    assert "nothing damaged or stray" in output


def test_the_products_own_tables_check_clean(whole: Path, tmp_path: Path) -> None:
    """The tables made on first use (the ledger by audit, grades and replays by grade,
    aliases) are the dataset's own: check names none of them, and --repair moves none."""
    data = tmp_path / "data"
    shutil.copytree(whole / "data", data)
    player = pq.read_table(Dataset(data).files("seats")[0], columns=["player"])[0][0].as_py()
    for args in (
        ["audit", "--data", str(data), "--quiet"],
        ["grade", "--data", str(data), "--player", player, "--replay", "--quiet"],
        ["players", "alias", "--data", str(data), "Me", player],
    ):
        code, output, crash = _run(args)
        assert (code, crash) == (0, None), (args, output)
    made = {p.name for p in data.iterdir() if p.is_dir()}
    assert {"ledger_seats", "grades", "grade_candidates", "replays", "aliases"} <= made, made
    code, output, crash = _run(["check", "--data", str(data)])
    assert (code, crash) == (0, None), output
    code, output, crash = _run(["check", "--repair", "--data", str(data)])
    assert (code, crash) == (0, None), output
    assert not (data / DAMAGED).exists()


def test_check_knows_every_table_of_the_schema() -> None:
    """A table added to the schema is known to check (else --repair would move it aside)."""
    from ofc_stats.store import check, schema

    tables = {
        name
        for attribute, value in vars(schema).items()
        if attribute.endswith("_TABLES") and isinstance(value, dict)
        for name in value
    }
    assert tables and tables <= set(check.TABLES) | set(check.OPTIONAL), tables


def test_schema_version_as_text_says_so(whole: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(whole / "data", data)
    (data / "dataset.json").write_text(json.dumps({"schema_version": "5"}))
    code, output, _ = _run(["sql", "--data", str(data), "SELECT 1"])
    assert code == 1
    assert 'the text "5", not the number 5' in output
    assert "reads version 5" not in output
