"""Every format `import` reads, by name, and the sniffing `--format auto` does.

The formats are listed here, in sniffing order, rather than registering
themselves on import: the registry depends on the formats and no format
depends on the registry, so there is no import cycle.
"""

from __future__ import annotations

from ofc_stats.errors import UnknownFormat
from parsers.app_json import AppJsonParser
from parsers.base import Parser
from parsers.fpdb import FpdbParser
from parsers.open_format import OpenFormatParser
from parsers.swc import SwcParser
from parsers.swc_chat import SwcChatParser

FORMATS: tuple[type[Parser], ...] = (
    AppJsonParser,
    FpdbParser,
    OpenFormatParser,
    SwcParser,
    SwcChatParser,
)
REGISTRY: dict[str, type[Parser]] = {parser.name: parser for parser in FORMATS}


def known_formats() -> str:
    return ", ".join(sorted(REGISTRY))


def get_parser(name: str) -> type[Parser]:
    """The parser of a format name; an unknown name is an :class:`UnknownFormat`."""
    if name not in REGISTRY:
        raise UnknownFormat(f"unknown format {name!r}; known formats: {known_formats()}")
    return REGISTRY[name]


def detect(head: bytes, filename: str) -> type[Parser] | None:
    """The first parser that recognises this content."""
    for parser in FORMATS:
        if parser.sniff(head, filename):
            return parser
    return None
