"""Reading a test file through one parser, as records; a stream that fails part way."""

from __future__ import annotations

import io
from pathlib import Path

from parsers.base import ParseItem, Parser


def records_from(parser: type[Parser], path: Path) -> list[ParseItem]:
    """Every item of ``path``, from the parser's record path (its definition)."""
    instance = parser()
    with open(path, "rb") as stream:
        return list(instance.parse(stream, path.name))


class FailingAfter(io.RawIOBase):
    """``data``'s first ``good`` bytes, then a disk error (a read failing part way through)."""

    def __init__(self, data: bytes, good: int) -> None:
        self.data = io.BytesIO(data[:good])

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        count = self.data.readinto(buffer)
        if count == 0:
            raise OSError("read error")
        return count
