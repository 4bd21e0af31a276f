"""One interface for every hand-history format (the registry is :mod:`parsers.registry`).

A parser has a name, a content sniffer and a streaming ``parse`` that yields
:class:`HandRecord` or :class:`Quarantined` items, never raising for bad
input: whatever it cannot read becomes a quarantine entry naming the file,
line and reason.  Parsers never execute or unpickle input.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, ClassVar

import pyarrow as pa

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import OfcError
from ofc_stats.records import HandRecord, Partial, Quarantined

SNIFF_BYTES = 65_536
SNIFF_LINES = 8  # a broken first line does not hide the format of the rest
# What malformed input can make the standard library raise while a parser
# reads one hand (OfcError is a ValueError): caught per hand, so one bad hand
# is quarantined and the next is still read.  Not Exception: a bug in our own
# code must still show.
BAD_INPUT: tuple[type[BaseException], ...] = (
    ValueError,
    TypeError,
    LookupError,
    AttributeError,
    ArithmeticError,
    RecursionError,
)


def preset_name(name: str, played_under: str | None = None) -> str:
    """The preset a file's ruleset name means (RulesetError if none).

    ``played_under`` (``import --rules NAME|FILE.toml``): the ruleset every hand
    is played under instead; the file's own name is then not looked up (a
    room's custom rules have no preset), so it is not refused before it applies.
    """
    return played_under or get_ruleset(name).name


def json_message(error: json.JSONDecodeError) -> str:
    """The decoder's message, with the column its "... at" ends on.

    >>> try:
    ...     json.loads('{"a": "x' + chr(9) + 'y"}')  # a tab inside a string
    ... except json.JSONDecodeError as error:
    ...     json_message(error)
    'Invalid control character at column 9'
    """
    if error.msg.endswith(" at"):
        return f"{error.msg} column {error.colno}"
    return error.msg


def reason_of(error: BaseException) -> str:
    """A quarantine reason: our own messages as they are, others named by their kind."""
    if isinstance(error, OfcError):
        return str(error)
    if isinstance(error, RecursionError):
        return "nested too deep to read"
    text = str(error)
    if len(text) > 200:
        text = text[:197] + "..."
    return f"unreadable hand ({type(error).__name__}: {text})"


def finite_number(value: Any, name: str, error: type[OfcError]) -> float | None:
    """A JSON number field as a float (null: None), refusing what the store cannot hold.

    Booleans and strings are no numbers (``true`` is not 1 point), and a
    number past a float's range (``1e400``, a 400-digit integer) is refused
    rather than stored as infinity.

    >>> finite_number(3, "stakes", OfcError), finite_number(None, "stakes", OfcError)
    (3.0, None)
    >>> finite_number(10**400, "result", OfcError)
    Traceback (most recent call last):
    ...
    ofc_stats.errors.OfcError: result 1000000000000000000000000000000000000000 is out of range
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise error(f"{name} must be a number, not {str(value)[:40]!r}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise error(f"{name} {str(value)[:40]} is out of range")
    return number


@dataclass(frozen=True)
class ColumnarHands:
    """Hands a parser already laid out as the dataset's tables.

    Columns are named and ordered as the dataset's ``hands``, ``seats`` and
    ``placements`` tables (the importer casts them to the stored schema).  The
    hands' batch column is empty; seats and placements carry one extra last
    column, ``source_line``, that ties them to their hand row.
    """

    hands: pa.Table
    seats: pa.Table
    placements: pa.Table


ParseItem = HandRecord | Quarantined | ColumnarHands | Partial


class Parser(ABC):
    """A hand-history format.

    ``parse`` is the definition: one :class:`HandRecord` per hand.  A format
    that can also lay hands out as columns declares ``columnar = True`` and
    implements ``parse_columnar`` (and ``hand_from_raw`` for the hands the
    importer sends back through the record path); the two are proven equal.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    needs_path: ClassVar[bool] = False  # reads a file path (SQLite), not a byte stream
    columnar: ClassVar[bool] = False  # implements parse_columnar and hand_from_raw

    def __init__(self, played_under: str | None = None) -> None:
        """``played_under``: the ruleset every hand is played under (``import --rules``);
        None: each hand's own."""
        self.played_under = played_under

    @classmethod
    @abstractmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        """Whether a file starting with ``head`` is in this format."""

    @abstractmethod
    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        """Every hand of ``stream``; bad fragments come out as Quarantined."""

    def parse_columnar(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        """Like ``parse``, but most hands may come as :class:`ColumnarHands` chunks."""
        yield from self.parse(stream, source)

    def hand_from_raw(self, raw_text: str, source: str, line: int, offset: int) -> ParseItem:
        """One hand of a columnar chunk again, through the record path."""
        raise NotImplementedError(f"{self.name} has no columnar reader")

    def parse_path(self, path: str, source: str) -> Iterator[ParseItem]:
        """For formats that need a real file (databases)."""
        with open(path, "rb") as stream:
            yield from self.parse(stream, source)

    def parse_path_columnar(self, path: str, source: str) -> Iterator[ParseItem]:
        """Like ``parse_path``, but most hands may come as :class:`ColumnarHands` chunks."""
        yield from self.parse_path(path, source)


def head_lines(head: bytes, count: int = SNIFF_LINES) -> list[bytes]:
    """The first ``count`` non-blank lines of a file's head (BOM and indent dropped).

    Sniffers look at each, so one broken line at the top does not make a
    whole file of good hands "unknown format".
    """
    lines = []
    for line in head.lstrip(b"\xef\xbb\xbf").split(b"\n"):
        if line.strip():
            lines.append(line.strip())
            if len(lines) == count:
                break
    return lines
