"""Mobile-app JSON (`.hh`): Pokerrrr 2, Upoker, Spartan.

The format and its record path (the definition) are in
:mod:`parsers.app_records`; the import lane (:mod:`parsers.core_lane`) has the
core decode most hands straight into columns and this definition read the
rest.  Here: the parser the registry lists, and the writer the simulator and
the tests use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from ofc_stats.records import HandRecord, Partial, Quarantined
from parsers import core_lane
from parsers.app_records import (
    DEFAULT_APP,
    FORMAT,
    Splitter,
    hand_from_object,
    record_item,
    ruleset_for,
)
from parsers.base import ParseItem, Parser

__all__ = [
    "DEFAULT_APP",
    "FORMAT",
    "AppJsonParser",
    "dumps_app",
    "hand_from_object",
    "hand_to_app_object",
    "ruleset_for",
]


class AppJsonParser(Parser):
    name = FORMAT
    description = "Pokerrrr 2 / Upoker / Spartan app exports (.hh, JSON objects one after another)"

    @classmethod
    def sniff(cls, head: bytes, filename: str) -> bool:
        # JSON objects one after another, each starting on its own line; the first
        # object's opening line may be the broken one, so any object's start counts
        starts = (
            line.lstrip(b" \t").startswith(b"{")
            for line in head.lstrip(b"\xef\xbb\xbf").split(b"\n")
        )
        return b'"handData"' in head and any(starts)

    def parse(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        reader = AppReader(source, self.played_under)
        yield from reader.feed(core_lane.numbered(stream))
        yield from reader.end()

    columnar = True

    def parse_columnar(self, stream: BinaryIO, source: str) -> Iterator[ParseItem]:
        resolve = core_lane.resolving(lambda text: ruleset_for(text, self.played_under))
        reader = AppReader(source, self.played_under)
        yield from core_lane.read(stream, source, FORMAT, reader, resolve)

    def hand_from_raw(self, raw_text: str, source: str, line: int, offset: int) -> ParseItem:
        return record_item(line, offset, json.loads(raw_text), raw_text, source, self.played_under)


class AppReader:
    """The record path line by line: the splitter's objects, each read as a hand."""

    def __init__(self, source: str, played_under: str | None = None) -> None:
        self.source, self.played_under = source, played_under
        self.splitter = Splitter(source)

    @property
    def idle(self) -> bool:
        return self.splitter.idle

    def feed(self, lines: Iterable[core_lane.Line]) -> Iterator[ParseItem]:
        for number, offset, raw in lines:
            for item in self.splitter.line(number, offset, raw):
                yield self._item(item)

    def end(self) -> Iterator[ParseItem]:
        for item in self.splitter.end():
            yield self._item(item)

    def _item(self, item: tuple[int, int, Any, str] | Quarantined | Partial) -> ParseItem:
        if isinstance(item, Quarantined | Partial):
            return item
        return record_item(*item, self.source, self.played_under)


APP_RULES = {
    "pineapple-ultimate": "progressive17_nojokers",
    "pineapple-progressive-16": "progressive16_refant14_nojokers",
}


def hand_to_app_object(hand: HandRecord) -> dict[str, Any]:
    """A hand as the apps write it (cards carry their street digit)."""
    from ofc_stats.engine.cards import format_card

    def cards(seat: int, destination: str) -> str:
        placed = [p for p in hand.placements if p.seat == seat and p.destination == destination]
        return " ".join(f"{format_card(p.card)}{p.street}" for p in placed)

    seats = []
    for seat in hand.seats:
        entry: dict[str, Any] = {
            "inFantasy": seat.in_fantasy,
            "playerName": seat.player,
            "orderIndex": seat.seat,
            "hero": seat.hero,
            "dead": cards(seat.seat, "discard") if seat.discards is not None else "",
            "rows": "/".join(cards(seat.seat, row) for row in ("top", "middle", "bottom")),
            "playerId": seat.player_id or seat.player,
        }
        if seat.reported_points is not None:
            entry["result"] = seat.reported_points
        if seat.reported_money is not None:
            entry["win"] = seat.reported_money
        seats.append(entry)
    out: dict[str, Any] = {
        "stakes": hand.stakes if hand.stakes is not None else 1,
        "handData": {hand.room_hand_id: seats},
        "joined": True,
        "clubId": "0",
        "rules": hand.rules_text or APP_RULES.get(hand.ruleset, hand.ruleset),
        "appName": hand.room,
        "roomId": hand.table_id,
    }
    if hand.played_at is not None:
        out["endDateTime"] = hand.played_at.strftime("%Y-%m-%d %H:%M:%S")
    if hand.currency and hand.stakes is not None:
        out["price"] = f"{hand.stakes:g}{hand.currency}"
    return out


def dumps_app(hand: HandRecord) -> str:
    """One pretty-printed app object followed by the blank-line separator."""
    return json.dumps(hand_to_app_object(hand), indent=4, ensure_ascii=False) + "\n\n\n"
