"""Ruleset files are untrusted input: every defect is one RulesetError, nothing is written
outside the dataset, and no value can overflow a stored column later."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ofc_stats.cli.main import main
from ofc_stats.engine.ruleset_toml import load_ruleset, ruleset_from_text
from ofc_stats.errors import RulesetError

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sim-open.jsonl"


def test_a_royalty_too_large_for_the_stored_columns_is_refused() -> None:
    # 40,000 a row passed validation and then overflowed int16 in `score` and `import`.
    text = 'extends = "pineapple"\nname = "big"\n[royalties.middle]\nflush = 40000\n'
    with pytest.raises(RulesetError, match=r"royalties.middle.flush: 40000 is not .* 0 to 1000"):
        ruleset_from_text(text, "big.toml")


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "is empty"),
        ("a\0b", "holds a control character"),
        ("../../../victim/config", "holds a path separator"),
        ("/etc/victim", "holds a path separator"),
        (".hidden", "starts with a dot"),
        ("x" * 65, "longer than 64"),
    ],
)
def test_a_name_that_is_not_one_plain_file_name_is_refused(name: str, problem: str) -> None:
    text = f'extends = "pineapple"\nname = "{name.replace(chr(0), chr(92) + "u0000")}"\n'
    with pytest.raises(RulesetError, match=problem):
        ruleset_from_text(text, "r.toml")


def test_non_utf8_and_deeply_nested_files_are_errors(tmp_path: Path) -> None:
    latin = tmp_path / "latin.toml"
    latin.write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(RulesetError, match="not UTF-8 text"):
        load_ruleset(latin)
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 20_000 + "]" * 20_000 + "\n")
    with pytest.raises(RulesetError, match="nested too deeply"):
        load_ruleset(deep)
    with pytest.raises(RulesetError, match="cannot read"):
        load_ruleset(tmp_path / "missing" / "rules.toml")


def test_import_rules_never_writes_outside_the_dataset(tmp_path: Path) -> None:
    # A rules file named "../../victim/config" made `import --rules` overwrite
    # victim/config.toml beside the dataset; now it is one error line and exit 1.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "config.toml").write_text("mine\n")
    rules = tmp_path / "evil.toml"
    rules.write_text('extends = "pineapple"\nname = "../victim/config"\n')
    data = tmp_path / "data"
    done = CliRunner().invoke(
        main, ["import", "--quiet", "--data", str(data), "--rules", str(rules), str(SAMPLE)]
    )
    assert done.exit_code != 0 and "Traceback" not in done.output
    errors = [line for line in done.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "holds a path separator" in errors[0], done.output
    assert (victim / "config.toml").read_text() == "mine\n"
    missing = CliRunner().invoke(
        main,
        ["import", "--data", str(data), "--rules", str(tmp_path / "no" / "r.toml"), str(SAMPLE)],
    )
    assert missing.exit_code != 0 and "Traceback" not in missing.output
