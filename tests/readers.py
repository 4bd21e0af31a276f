"""Reading a test file through one parser, as records."""

from __future__ import annotations

from pathlib import Path

from parsers.base import ParseItem, Parser


def records_from(parser: type[Parser], path: Path) -> list[ParseItem]:
    """Every item of ``path``, from the per-hand path (the open format's columnar path off)."""
    instance = parser()
    if hasattr(instance, "columnar"):
        instance.columnar = False  # type: ignore[attr-defined]
    with open(path, "rb") as stream:
        return list(instance.parse(stream, path.name))
