"""Dealer-chat hands that repeat a capture's hand: the same hand stored twice.

SwC's dealer chat (``swc-chat``) names no hand id, so its hands are keyed by
table, session start and number, and never deduplicate against a browser
capture or an fpdb-3 database of the same table: a player who imports both
counts the hand twice.  A chat hand *repeats* a captured one when both are
at the same table with the same players and every player's reported points
equal, and the capture's time (when it has one: decoded captures have none)
within an hour of the chat's; hands alike in that are paired one to one, in
order (the chat's by time, the captures' by hand id), so two chat hands never
claim one capture.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ofc_stats.store.views import open_dataset

CHAT_FORMAT = "swc-chat"
CAPTURE_FORMATS = ("swc", "fpdb")  # SwC's own hand ids: a browser capture, an fpdb-3 database
SWC_FORMATS = (CHAT_FORMAT, *CAPTURE_FORMATS)
NEAR_SECONDS = 3600  # a capture with a time this far from the chat's is another hand
_PAIRS = """
WITH sig AS (
    SELECT h.hand_key, h.format, h.table_id, h.source_file, h.played_at, h.room_hand_id,
           list(struct_pack(p := s.player, pts := s.reported_points) ORDER BY s.player)
               AS signature
    FROM hands h JOIN seats s USING (hand_key)
    WHERE list_contains($formats, h.format)
      AND h.table_id IN (SELECT table_id FROM hands WHERE format = $chat)
    GROUP BY ALL
),
chat AS (
    SELECT *, row_number() OVER (
        PARTITION BY table_id, signature ORDER BY played_at, hand_key) AS nth
    FROM sig WHERE format = $chat
),
captured AS (
    SELECT *, row_number() OVER (
        PARTITION BY table_id, signature
        ORDER BY TRY_CAST(room_hand_id AS BIGINT) NULLS LAST, hand_key) AS nth
    FROM sig WHERE format <> $chat
)
SELECT chat.hand_key, captured.hand_key, chat.source_file, captured.played_at IS NOT NULL
FROM chat JOIN captured USING (table_id, signature, nth)
WHERE captured.played_at IS NULL
   OR abs(epoch(captured.played_at) - epoch(chat.played_at)) <= $near
ORDER BY chat.source_file, chat.played_at, chat.hand_key
"""


@dataclass(frozen=True)
class Repeat:
    chat_key: str
    capture_key: str
    chat_file: str
    timed: bool  # the capture has a time, within NEAR_SECONDS of the chat's


def chat_repeats(root: str | Path) -> list[Repeat]:
    """Each chat hand that a stored capture (or fpdb) hand repeats, paired one to one."""
    with open_dataset(root) as db:
        params = {"chat": CHAT_FORMAT, "formats": list(SWC_FORMATS), "near": NEAR_SECONDS}
        rows = db.sql(_PAIRS, params=params).fetchall()
    return [Repeat(*row) for row in rows]


def repeat_lines(repeats: list[Repeat]) -> list[str]:
    """The import's warning: how many, how sure, and from which chat files.

    >>> two = [Repeat("c1", "k1", "a.txt", True), Repeat("c2", "k2", "a.txt", False)]
    >>> for line in repeat_lines(two):
    ...     print(line)
      2 dealer-chat hands look like captured ones (same table, players and points;
      1 without a capture time to confirm it): both copies are stored and counted
      (docs/import.md: swc-chat); 2 from a.txt
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
        f"  {sure}): both copies are stored and counted",
        f"  (docs/import.md: swc-chat); {where}",
    ]
