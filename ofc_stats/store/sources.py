"""What an import reads: files, folders and zip members, opened as UTF-8 byte streams.

Kept apart from the importer so the rules for untrusted containers live in
one place: zip limits (members, total size, compression ratio), symbolic
links refused, and UTF-16/UTF-32 files (with a byte-order mark) transcoded
to UTF-8, so every parser reads one encoding.  Offsets of a transcoded
file count UTF-8 bytes; line numbers are the file's own.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import stat
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

ZIP_MAX_MEMBERS = 10_000
ZIP_MAX_TOTAL = 4 << 30  # bytes uncompressed in one archive
ZIP_MAX_RATIO = 200  # uncompressed / compressed for one member
# Longest BOM first: the UTF-32-LE mark starts with the UTF-16-LE one.
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Errors reading a container or a damaged file, as opposed to bad hands in it.
READ_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    EOFError,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    RuntimeError,  # zipfile: "File ... is encrypted, password required"
    NotImplementedError,  # zipfile: an unsupported compression method
    ValueError,  # zlib.error is not one, see below
)
try:
    import zlib

    READ_ERRORS = (*READ_ERRORS, zlib.error)
except ImportError:  # pragma: no cover
    pass


@dataclass(frozen=True)
class Source:
    """One input: a file on disk or a member of a zip archive."""

    name: str
    size: int
    modified: datetime | None
    open: Callable[[], BinaryIO]
    path: str | None = None  # a real file path, for parsers that need one
    archive: str | None = None  # the zip file a member came from
    member: zipfile.ZipInfo | None = None


@dataclass(frozen=True)
class Skipped:
    """An input read no further, and why (a zip over its limits, a missing file)."""

    name: str
    kind: str
    reason: str


def expand(paths: Iterable[str | Path]) -> Iterator[Source | Skipped]:
    """Files, folders (recursively, sorted) and the members of .zip archives.

    Every name is the absolute path (``..`` and ``.`` resolved, a link's own
    name kept): two ``raw_messages.jsonl`` in two folders are two files to the
    ledger, the quarantine and ``forget``.

    Only regular files are opened: a FIFO or a device (which would block the
    import or never end) and a dangling link are named as skipped, never read.
    """
    for given in paths:
        path = Path(given)
        try:
            info = path.stat()
            path = Path(os.path.abspath(path))  # one name per place, however it was typed
        except FileNotFoundError:
            reason = "dangling symbolic link" if path.is_symlink() else "no such file"
            yield Skipped(display_name(path), "-", reason)
            continue
        except OSError as error:
            yield Skipped(display_name(path), "-", f"cannot read: {error.strerror}")
            continue
        if stat.S_ISDIR(info.st_mode):
            yield from expand(sorted(p for p in path.rglob("*") if not p.is_dir()))
        elif not stat.S_ISREG(info.st_mode):
            kind = _SPECIAL.get(stat.S_IFMT(info.st_mode), "special file")
            yield Skipped(display_name(path), "-", f"not a regular file ({kind})")
        elif path.suffix.lower() == ".zip" and _is_zip(path):
            yield from _zip_members(path)
        elif path.suffix.lower() == ".zip" and _starts_like_zip(path):
            # A zip's directory is at its end: a copy cut short has members but no way in.
            reason = "damaged zip archive: no directory at its end (cut short?)"
            yield Skipped(display_name(path), "zip", reason)
        else:
            yield Source(
                name=display_name(path),
                size=info.st_size,
                modified=datetime.fromtimestamp(info.st_mtime, UTC).replace(tzinfo=None),
                open=partial(_open_binary, path),
                path=str(path),
            )


_SPECIAL = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def display_name(path: Path) -> str:
    """The path as text that can be stored: bytes that are not UTF-8 shown as escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _is_zip(path: Path) -> bool:
    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def _starts_like_zip(path: Path) -> bool:
    """Whether the file starts as a zip archive does (a member's local header)."""
    try:
        with path.open("rb") as file:
            return file.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def _zip_members(path: Path) -> Iterator[Source | Skipped]:
    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
    except READ_ERRORS as error:
        yield Skipped(str(path), "zip", f"unreadable archive: {error}")
        return
    if len(members) > ZIP_MAX_MEMBERS:
        yield Skipped(str(path), "zip", f"{len(members)} members; limit {ZIP_MAX_MEMBERS}")
        return
    total = sum(m.file_size for m in members)
    if total > ZIP_MAX_TOTAL:
        yield Skipped(str(path), "zip", f"unpacks to {total} bytes; limit {ZIP_MAX_TOTAL}")
        return
    for member in members:
        name = f"{display_name(path)}!{member.filename}"
        if stat.S_ISLNK(member.external_attr >> 16):
            yield Skipped(name, "zip", "symbolic link in archive")
            continue
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > ZIP_MAX_RATIO and member.file_size > 1 << 20:
            yield Skipped(name, "zip", f"compression ratio {ratio:.0f}:1 (zip bomb?)")
            continue
        try:
            modified: datetime | None = datetime(*member.date_time)
        except ValueError:
            modified = None
        yield Source(
            name=name,
            size=member.file_size,
            modified=modified,
            open=partial(_ZipMember, path, member),  # type: ignore[arg-type]
            archive=str(path),
            member=member,
        )


class _ZipMember(io.RawIOBase):
    """One archive member as a stream that closes its archive when closed."""

    def __init__(self, path: Path, member: zipfile.ZipInfo) -> None:
        self.archive = zipfile.ZipFile(path)
        try:
            self.member = self.archive.open(member)
        except BaseException:
            self.archive.close()
            raise

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.member.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self.member.close()
            self.archive.close()
        super().close()


def _open_binary(path: Path) -> BinaryIO:
    return path.open("rb")


def bom_encoding(head: bytes) -> str | None:
    """The UTF-16/32 encoding a byte-order mark announces (None: UTF-8 or no mark)."""
    for mark, encoding in BOMS:
        if head.startswith(mark):
            return encoding
    return None


class _Transcoded(io.RawIOBase):
    """A UTF-16/32 stream read as UTF-8 bytes (the mark dropped, bad units replaced)."""

    def __init__(self, raw: BinaryIO, encoding: str, skip: int) -> None:
        self.raw = raw
        self.raw.read(skip)
        self.decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self.buffer = b""
        self.done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self.buffer and not self.done:
            data = self.raw.read(1 << 16)
            self.done = not data
            text = self.decoder.decode(data, final=self.done)
            self.buffer = text.encode("utf-8", "surrogatepass")
        size = min(len(buffer), len(self.buffer))
        buffer[:size] = self.buffer[:size]
        self.buffer = self.buffer[size:]
        return size

    def close(self) -> None:
        self.raw.close()
        super().close()


def open_utf8(source: Source, digest: Any = None) -> BinaryIO:
    """The source's bytes, transcoded to UTF-8 when it starts with a UTF-16/32 mark.

    ``digest`` (a hashlib object) is fed every byte of the file as the
    reader takes it, so the ledger records the hash of the bytes parsed.
    """
    raw = source.open()
    try:
        head = raw.read(4)
        encoding = bom_encoding(head)
        raw.close()
        raw = source.open()
        if digest is not None:
            raw = io.BufferedReader(_Hashing(raw, digest), 1 << 16)
        if encoding is None:
            return raw
        mark = next(len(m) for m, e in BOMS if e == encoding)
        return io.BufferedReader(_Transcoded(raw, encoding, mark), 1 << 16)
    except BaseException:
        raw.close()
        raise


def read_head(stream: BinaryIO, size: int, limit: int = 1 << 30) -> bytes:
    """``size`` bytes from the first non-blank byte: blank padding does not hide the format."""
    skipped = 0
    while skipped < limit:
        chunk = stream.read(size)
        if not chunk:
            return b""
        text = chunk.lstrip(b" \t\r\n")
        if text:
            return text + stream.read(size - len(text))
        skipped += len(chunk)
    return b""


@contextmanager
def real_path(source: Source) -> Iterator[str]:
    """A file path for parsers that need one: the file itself, or a zip member extracted."""
    if source.path is not None:
        yield source.path
        return
    with tempfile.TemporaryDirectory(prefix="ofc-import-") as folder:
        target = Path(folder) / "member"
        with source.open() as stream, target.open("wb") as out:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                out.write(chunk)
        yield str(target)


def total_bytes(paths: Iterable[str | Path]) -> int:
    total = 0
    for given in paths:
        path = Path(given)
        if path.is_dir():
            total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            total += os.path.getsize(path)
    return total


def sha256_of(source: Source) -> str:
    """The content hash, which also reads every byte (a zip member's CRC is checked here)."""
    digest = hashlib.sha256()
    with source.open() as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class _Hashing(io.RawIOBase):
    """A read-only stream that feeds every byte read to a hash."""

    def __init__(self, raw: BinaryIO, digest: Any) -> None:
        self.raw = raw
        self.digest = digest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        """Straight into the caller's buffer (a copy a layer cost 5% of a big import)."""
        count = self.raw.readinto(buffer) or 0  # type: ignore[attr-defined]
        with memoryview(buffer) as view:
            self.digest.update(view[:count])
        return count

    def close(self) -> None:
        self.raw.close()
        super().close()


def read_tail(source: Source, offset: int | None, limit: int) -> str:
    """Up to ``limit`` bytes of the source from ``offset`` (a cut record's text)."""
    if offset is None:
        return ""
    with open_utf8(source) as stream:
        left = offset
        while left > 0:
            chunk = stream.read(min(left, 1 << 20))
            if not chunk:
                return ""
            left -= len(chunk)
        return stream.read(limit).decode("utf-8", "replace")


class Counting(io.RawIOBase):
    """A read-only stream that reports bytes read (for the progress bar)."""

    def __init__(self, raw: BinaryIO, report: Callable[[int], None]) -> None:
        self.raw = raw
        self.report = report

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        count = self.raw.readinto(buffer) or 0  # type: ignore[attr-defined]
        self.report(count)
        return count
