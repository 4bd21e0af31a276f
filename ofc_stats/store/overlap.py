"""Dealer-chat hands that repeat a capture's hand: the same hand stored twice.

SwC's dealer chat (``swc-chat``) names no hand id, so its hands are keyed by
table, session start and number, and never deduplicate against a browser
capture or an fpdb-3 database of the same table: a player who imports both
counts the hand twice.  A chat hand *repeats* a captured one when both are
at the same table with the same players and every player's reported points
equal; hands alike in that are paired one to one, in order (the chat's by
time, the captures' by hand id), so two chat hands never claim one capture.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ofc_stats.store.views import open_dataset

CHAT_FORMAT = "swc-chat"
_PAIRS = """
WITH sig AS (
    SELECT h.hand_key, h.format, h.table_id, h.source_file, h.played_at, h.room_hand_id,
           list(struct_pack(p := s.player, pts := s.reported_points) ORDER BY s.player)
               AS signature
    FROM hands h JOIN seats s USING (hand_key)
    WHERE h.format IN ($chat, 'swc', 'fpdb')
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
    FROM sig WHERE format IN ('swc', 'fpdb')  -- SwC's own hand ids: a browser capture, fpdb-3
)
SELECT chat.hand_key, captured.hand_key, chat.source_file
FROM chat JOIN captured USING (table_id, signature, nth)
ORDER BY chat.source_file, chat.played_at, chat.hand_key
"""


@dataclass(frozen=True)
class Repeat:
    chat_key: str
    capture_key: str
    chat_file: str


def chat_repeats(root: str | Path) -> list[Repeat]:
    """Each chat hand that a stored capture (or fpdb) hand repeats, paired one to one."""
    with open_dataset(root) as db:
        rows = db.sql(_PAIRS, params={"chat": CHAT_FORMAT}).fetchall()
    return [Repeat(*row) for row in rows]


def repeat_lines(repeats: list[Repeat]) -> list[str]:
    """The import's warning: how many, and from which chat files.

    >>> for line in repeat_lines([Repeat("c1", "k1", "a.txt"), Repeat("c2", "k2", "a.txt")]):
    ...     print(line)
      2 dealer-chat hands repeat a captured hand (same table, players and points):
      both copies are stored and counted (README: swc-chat); 2 from a.txt
    """
    if not repeats:
        return []
    files = Counter(r.chat_file for r in repeats)
    where = ", ".join(f"{count} from {name}" for name, count in sorted(files.items()))
    return [
        f"  {len(repeats)} dealer-chat hand{'s' if len(repeats) > 1 else ''} repeat"
        f"{'' if len(repeats) > 1 else 's'} a captured hand (same table, players and points):",
        f"  both copies are stored and counted (README: swc-chat); {where}",
    ]
