"""``--rules FILE`` reads its file once: the ruleset, the ``[room]`` table and the
refusal of an empty file all come from that one read (the option read it three times:
to load the ruleset, its room table, and to refuse it empty)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from ofc_stats.cli.options import ruleset_option


def _counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    read_bytes, read_text = Path.read_bytes, Path.read_text

    def counted_bytes(self: Path) -> bytes:
        reads.append(str(self))
        return read_bytes(self)

    def counted_text(self: Path, *args: object, **kwargs: object) -> str:
        reads.append(str(self))
        return read_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_bytes", counted_bytes)
    monkeypatch.setattr(Path, "read_text", counted_text)
    return reads


def test_a_rules_file_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "home.toml"
    path.write_text('extends = "classic"\n[room]\nroom = "Home"\nrake_rate = 0.05\n')
    reads = _counting_reads(monkeypatch)
    ruleset = ruleset_option(str(path))
    assert (ruleset.name, str(ruleset.variant)) == ("home", "classic")
    assert reads == [str(path)]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("# nothing set\n", 'empty: a ruleset file sets at least extends = "NAME"'),
        ('extends = "classic"\n[room]\nrooms = "Home"\n', "room: unknown key 'rooms'"),
        ("extends = [\n", "not valid TOML"),
    ],
)
def test_a_rules_file_read_once_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, words: str
) -> None:
    path = tmp_path / "home.toml"
    path.write_text(text)
    reads = _counting_reads(monkeypatch)
    with pytest.raises(
        click.BadParameter, match="^" + str(path) + ": .*" + words.replace("[", r"\[")
    ):
        ruleset_option(str(path))
    assert reads == [str(path)]


def test_a_preset_reads_no_file(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = _counting_reads(monkeypatch)
    assert ruleset_option("pineapple").name == "pineapple"
    assert reads == []
