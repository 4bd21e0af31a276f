"""SwC Poker dealer chat (fpdb-3 ``--dealer-history`` text, shared/formats/SWC.md §5).

    2026-08-14 18:41:36 table=310442 Dealer: Hand #1 finished - kestrel: +8, marlow: -8

The chat carries each hand's points per player, Fantasyland and session
totals, but no cards: its hands are stored incomplete (never scored) with the
room's reported points, so an audit can still check the totals.  A hand is
keyed by table, session start and its number in the session, because the
chat never names SwC's hand id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import BinaryIO

from ofc_stats.records import HandRecord, Partial, Quarantined, SeatRecord
from parsers.base import ParseItem, Parser, head_lines
from parsers.swc import ROOM

FORMAT = "swc-chat"
LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) table=(\S+) Dealer: (.*)$")
GAME_START = re.compile(r"^New game started \((\d+) hands\)$")
HAND_DONE = re.compile(r"^Hand #(\d+) finished - (.+)$")
HAND_DONE_START = re.compile(r"^Hand #\d+ finished")
TOTAL = re.compile(r"^TOTAL - (.+)$")
FANTASY = re.compile(r"^(.+?) is in fantasy land\. The button will not be moved$")
GAME_OVER = re.compile(r"^Game complete, (\d+) hands played$")
FOOTER = re.compile(r"^dealer_messages=(\d+)$")


def scores(text: str) -> dict[str, int] | None:
    """``"a: +8, b: -8"`` as {"a": 8, "b": -8}; None unless every item parses."""
    out = {}
    for item in text.split(", "):
        name, sep, value = item.rpartition(": ")
        if not sep or not name or not re.fullmatch(r"[+-]?\d{1,15}", value) or name in out:
            return None
        out[name] = int(value)
    return out


@dataclass
class _Table:
    session: str = ""
    fantasy_next: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)
    start_line: int = 0


class SwcChatParser(Parser):
    name = FORMAT
    description = "SwC Poker dealer chat (fpdb-3 --dealer-history text)"

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        for line in head_lines(head):
            try:
                if LINE.match(line.decode("utf-8").rstrip("\r")) is not None:
                    return True
            except UnicodeDecodeError:
                continue
        return False

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        tables: dict[str, _Table] = {}
        for number, raw in enumerate(stream, start=1):
            if raw.strip() and not raw.endswith(b"\n") and not FOOTER.match(raw.decode("latin-1")):
                # The chat is still being written: "+58" cut to "+5" reads as a
                # score, so a last line without its newline waits for the next import.
                yield Partial(source, number, None, "a line cut off at the end of the file")
                continue
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                yield Quarantined(source, f"wrong encoding: {error.reason}", repr(raw), number)
                continue
            if not text.strip() or FOOTER.match(text):
                continue
            match = LINE.match(text)
            if match is None:
                yield Quarantined(source, "not a dealer chat line", text, number)
                continue
            stamp, table_id, message = match.groups()
            try:
                played_at = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S")
            except ValueError:
                yield Quarantined(source, f"{stamp!r} is not a date and time", text, number)
                continue
            table = tables.setdefault(table_id, _Table(session=stamp))
            if GAME_START.match(message):
                table.session, table.fantasy_next = stamp, set()
            if not table.lines:
                table.start_line = number
            table.lines.append(text + "\n")
            if fantasy := FANTASY.match(message):
                table.fantasy_next.add(fantasy.group(1))
            done = HAND_DONE.match(message)
            if done is None:
                if HAND_DONE_START.match(message):
                    yield Quarantined(source, "hand result line without scores", text, number)
                    table.lines = []
                elif TOTAL.match(message) or GAME_OVER.match(message):
                    table.lines = []
                continue
            points = scores(done.group(2))
            if points is None:
                table.lines = []
                yield Quarantined(source, "hand result line with unreadable scores", text, number)
                continue
            in_fantasy, table.fantasy_next = table.fantasy_next, set()
            seats = tuple(
                SeatRecord(
                    seat=index,
                    player=name,
                    top=(),
                    middle=(),
                    bottom=(),
                    in_fantasy=name in in_fantasy,
                    reported_points=float(value),
                )
                for index, (name, value) in enumerate(points.items())
            )
            yield HandRecord(
                format=FORMAT,
                room=ROOM,
                table_id=table_id,
                room_hand_id=f"{table.session}#{done.group(1)}",
                ruleset="pineapple",
                seats=seats,
                played_at=played_at,
                source_file=source,
                source_line=table.start_line,
                raw_text="".join(table.lines),
            )
            table.lines = []
