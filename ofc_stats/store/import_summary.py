"""What one import did, per file and in total: the summary a person reads.

Every hand an import sees is accounted for: stored, a duplicate,
quarantined, or (cut off at the end of a file still being written) left for
the next import; ``FileSummary.accounted`` equals ``hands_seen``.  The
summary names only quarantine rows this import wrote or kept.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass, field

from ofc_stats.store.wrong_format import wrong_format_lines

ALREADY_IMPORTED = "already imported (same content)"  # FileSummary.skipped of a known file


@dataclass
class FileSummary:
    path: str
    format: str
    hands_seen: int = 0
    stored: int = 0
    duplicates: int = 0
    quarantined: int = 0
    partial: int = 0  # records cut off at the end: left for the next import
    lines_quarantined: int = 0  # quarantined fragments that hold no hand (capture lines, databases)
    replaced: int = 0  # stored hands that were incomplete, replaced by their whole version
    reused_ids: int = 0  # stored under a suffixed key: the room reused a hand id
    skipped: str | None = None  # why the whole file was skipped
    refused: bool = False  # every hand quarantined: left out of the ledger, read again next time
    not_format: str | None = None  # skipped: not the --format given (nothing read from it)
    looks_like: str | None = None  # ... and the format it looks like (None: no known format)
    example: str | None = None  # ... and its first refusal under the --format given

    @property
    def accounted(self) -> int:
        """Hands stored, duplicate, quarantined or left for later: equals hands_seen."""
        return self.stored + self.duplicates + self.quarantined + self.partial


@dataclass
class ImportSummary:
    files: list[FileSummary] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)  # one per quarantined item
    superseded: int = 0  # earlier quarantine rows of hands a grown file now stored
    replaced_refusals: int = 0  # rows of files refused earlier, replaced by this import's

    @property
    def stored(self) -> int:
        return sum(f.stored for f in self.files)

    @property
    def duplicates(self) -> int:
        return sum(f.duplicates for f in self.files)

    @property
    def quarantined(self) -> int:
        return sum(f.quarantined for f in self.files)

    @property
    def lines_quarantined(self) -> int:
        return sum(f.lines_quarantined for f in self.files)

    @property
    def partial(self) -> int:
        return sum(f.partial for f in self.files)

    @property
    def hands_seen(self) -> int:
        return sum(f.hands_seen for f in self.files)

    def lines(self, verbose: bool = False, data: str | None = None) -> list[str]:
        """The closing summary a person reads (file names are untrusted: print it terminal-safe).

        Files skipped as already imported are counted in one line (a second
        import of a folder skips them all); ``verbose`` names each.  ``data``,
        the dataset's folder, goes into the commands the summary suggests.
        """
        skipped = [f for f in self.files if f.skipped]
        out = [
            f"files: {len(self.files):,} ({len(skipped):,} skipped)",
            f"hands: {self.hands_seen:,} seen, {self.stored:,} stored, "
            f"{self.duplicates:,} duplicates, {self.quarantined:,} quarantined",
        ]
        if self.lines_quarantined:
            out.append(
                f"  {self.lines_quarantined:,} more quarantined that hold no hand (an unreadable "
                "capture line, a database that cannot be read), so not counted above"
            )
        where = f" --data {shlex.quote(data)}" if data is not None else ""
        cut = [f for f in self.files if f.partial]
        if len(cut) == 1:
            name = shlex.quote(cut[0].path)
            out.append(
                f"  the last hand of {cut[0].path} is cut short: left for the next import, "
                f"when the file has grown; `ofc-stats import --final{where} {name}` "
                "quarantines it now"
            )
        elif cut:
            out.append(
                f"  the last hand of {len(cut)} files is cut short: left for the next import, "
                "when the files have grown; `ofc-stats import --final` quarantines them now"
            )
        if self.superseded:
            out.append(
                f"  {self.superseded} quarantine row(s) of an earlier import removed: "
                "the grown file's hand is now stored"
            )
        if self.replaced_refusals:
            out.append(
                f"  {self.replaced_refusals} quarantine row(s) of an earlier import replaced: "
                "it refused every record of the file(s) read again"
            )
        replaced = sum(f.replaced for f in self.files)
        if replaced:
            out.append(f"  {replaced} incomplete hand(s) replaced by their whole version")
        reused = sum(f.reused_ids for f in self.files)
        if reused:
            listed = (
                "SELECT hand_key, source_file, source_line FROM hands WHERE hand_key LIKE '%~%'"
            )
            out.append(
                f"  {reused} hand(s) reused another hand's room hand id: each is stored under "
                f"its key with '~' and its fingerprint added (`ofc-stats sql{where} "
                f'"{listed}"` lists them)'
            )
        again = [f for f in skipped if f.skipped == ALREADY_IMPORTED]
        if len(again) > 1 and not verbose:
            out.append(f"  {len(again)} files {ALREADY_IMPORTED}, skipped (--verbose names them)")
        for f in skipped:
            if f.not_format and not verbose:
                continue  # summed up below
            if verbose or len(again) < 2 or f.skipped != ALREADY_IMPORTED:
                out.append(f"  skipped {f.path}: {f.skipped}")
        out += wrong_format_lines([f for f in self.files if f.not_format])
        for f in self.files:
            if f.refused:
                out.append(
                    f"  every record of {f.path} was refused: it is not recorded as imported "
                    "(wrong --format? importing it again replaces its quarantine rows; "
                    f"`ofc-stats forget{where} {shlex.quote(f.path)}` clears them now)"
                )
        for reason, count in self.reasons.most_common():
            out.append(f"  quarantined {count} × {reason}")
        return out


# A leading place inside the hand ("seat 2: ", "seat 1 street 3: "); reasons name the file
# and line nowhere (the quarantine row does), and a player's name only after the kind.
_SEAT_PLACE = re.compile(r"^seat \d+(?: street \d+)?: ")
_NUMBERED = re.compile(r"\b(seat|street|orderIndex) \d+\b")


def reason_class(reason: str) -> str:
    """Group quarantine reasons for the summary (drop the place, card names and numbers).

    The quarantine rows keep every reason whole; the summary counts kinds, so
    the seat and street a reason starts with are dropped, as is whatever
    follows its first colon after them (a player's name, what was expected).

    >>> reason_class("seat 0: bad card 'Zz': expected rank and suit like 'As'")
    "bad card 'Zz'"
    >>> reason_class("seat 1: card id 52 is not in a 52-card deck")
    'card id 52 is not in a 52-card deck'
    >>> reason_class("seat 0: top row has 4 cards: player 'x:12: (y)'")
    'top row has 4 cards'
    >>> reason_class("seat 3 street 1: cards and to must pair up")
    'cards and to must pair up'
    >>> reason_class("seat 4 has no rows")
    'seat N has no rows'
    """
    head = _SEAT_PLACE.sub("", reason, count=1).split(":", 1)[0]
    if head.startswith("card ") and "appears twice" in reason:
        return "duplicate card"
    head = _NUMBERED.sub(lambda match: f"{match.group(1)} N", head)
    return head if len(head) < 60 else head[:57] + "..."
