"""Dealer-chat hands that repeat a capture's hand: the same hand stored twice.

SwC's dealer chat (``swc-chat``) names no hand id, so its hands are keyed by
table, session start and number, and never deduplicate against a browser
capture or an fpdb-3 database of the same table: a player who imports both
has the hand stored twice.  The view ``chat_repeats``
(:data:`ofc_stats.store.views.CHAT_REPEATS_VIEW`, where the rule is) pairs each
such chat hand with its capture; ``players`` and the reports count the pair
once, as the capture (which has the cards), and the import names the pairs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ofc_stats.store.views import CAPTURE_FORMATS, CHAT_FORMAT, open_dataset

SWC_FORMATS = (CHAT_FORMAT, *CAPTURE_FORMATS)
_PAIRS = "SELECT * FROM chat_repeats ORDER BY chat_file, chat_key"


@dataclass(frozen=True)
class Repeat:
    chat_key: str
    capture_key: str
    chat_file: str
    timed: bool  # the capture has a time, within an hour of the chat's


def chat_repeats(root: str | Path) -> list[Repeat]:
    """Each chat hand that a stored capture (or fpdb) hand repeats, paired one to one."""
    with open_dataset(root) as db:
        rows = db.sql(_PAIRS).fetchall()
    return [Repeat(*row) for row in rows]


def repeat_lines(repeats: list[Repeat]) -> list[str]:
    """The import's warning: how many, how sure, and from which chat files.

    >>> two = [Repeat("c1", "k1", "a.txt", True), Repeat("c2", "k2", "a.txt", False)]
    >>> for line in repeat_lines(two):
    ...     print(line)
      2 dealer-chat hands look like captured ones (same table, players and points;
      1 without a capture time to confirm it): both are stored, counted once as the
      capture (docs/import.md: swc-chat); 2 from a.txt
    """
    if not repeats:
        return []
    files = Counter(r.chat_file for r in repeats)
    where = ", ".join(f"{count} from {name}" for name, count in sorted(files.items()))
    untimed = sum(not r.timed for r in repeats)
    sure = f"{untimed} without a capture time to confirm it" if untimed else "timed within an hour"
    hands = (
        "hand looks like a captured one" if len(repeats) == 1 else "hands look like captured ones"
    )
    return [
        f"  {len(repeats)} dealer-chat {hands} (same table, players and points;",
        f"  {sure}): both are stored, counted once as the",
        f"  capture (docs/import.md: swc-chat); {where}",
    ]
