"""Reading a test file through one parser, as records."""

from __future__ import annotations

from pathlib import Path

from parsers.base import ParseItem, Parser


def records_from(parser: type[Parser], path: Path) -> list[ParseItem]:
    """Every item of ``path``, from the parser's record path (its definition)."""
    instance = parser()
    with open(path, "rb") as stream:
        return list(instance.parse(stream, path.name))
