"""Timeouts as evidence: a street is flagged only where the format records the timeout.

A timed-out player's cards go bottom, then middle, then top, in the order
dealt (RULES.md §2).  That pattern is no evidence by itself, even with the
deal order: a free choice such as "both cards to the bottom" matches it too
(22% of the free streets of the simulator's timeout-free hands did).  So a
street is flagged only where the format records the timeout itself (the open
format's street ``"timeout": true``, ``ofc_stats.store.streets.TIMEOUT_FORMATS``),
and each recorded timeout is checked against the auto-placement rule.  How
often a player's own free choices look like a timeout is measured on that
player's own streets, never by assuming one player plays like another; a
format that records no timeout gets no flag, no count and no estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ofc_stats.audit.chunks import each_share, table_shares
from ofc_stats.store.streets import STREETS_SQL
from ofc_stats.store.views import RESULTS_BY_ID, OfcData

# Per format and player: free streets, those recorded as timeouts, how many of those the
# auto-placement explains, and the player's other streets that match the pattern anyway.
TIMEOUTS_SQL = """
SELECT h.format, coalesce(s.player_id, s.player) AS player_key,
       bool_or(records_timeouts(h.format)) AS records,
       count(*) AS streets,
       count(*) FILTER (WHERE st.timeout) AS flagged,
       count(*) FILTER (WHERE st.timeout AND st.pattern_match) AS flagged_as_ruled,
       count(*) FILTER (WHERE NOT st.timeout) AS chosen,
       count(*) FILTER (WHERE NOT st.timeout AND st.pattern_match) AS chosen_like_timeout
FROM {streets} st JOIN {hands} h USING (hand_key) JOIN {seats} s USING (hand_key, seat)
WHERE NOT st.forced AND st.street > 0 AND NOT coalesce(s.in_fantasy, false) AND {share}
GROUP BY ALL ORDER BY h.format, player_key
"""  # {streets}, {hands}, {seats}: the views, or their rows of the share of the tables {share}
# reads (each relation cut to the share: a join's hash table holds the share, not the dataset)
# A table stored by hand_id (placements, results) keyed by the hands of a share of the
# tables only ({of_hands}: the share's predicate on the hands): the streets of a share are
# the view's rows of its hands (its groups and windows stay within a hand).  Not the keyed
# views: those join every hand of the dataset for its key, a join no share filter reaches.
SHARE_KEYED = """(SELECT h.hand_key, t.* FROM {source} t
  JOIN (SELECT hand_id, hand_key FROM hands WHERE {of_hands}) h ON h.hand_id = t.hand_id)"""
COUNTS = ["streets", "flagged", "flagged_as_ruled", "chosen", "chosen_like_timeout"]
MIN_OWN = 30  # a player's own streets below this give no rate of his own


@dataclass(frozen=True)
class TimeoutEvidence:
    format: str
    flaggable: bool  # the format records a timeout itself
    per_player: pd.DataFrame  # player_key, streets, flagged, flagged_as_ruled, chosen, ...

    def lines(self) -> list[str]:
        frame = self.per_player
        if not self.flaggable:
            # No timer, no timeout field, no disconnect: nothing in the format tells a
            # timeout, and a rate from other players' streets would assume they all choose
            # alike.  No flag, no count, no estimate.
            return [
                f"timeouts {self.format}: the format does not record timeouts (no timer, no "
                "timeout field, no disconnect): no street is flagged and none is estimated"
            ]
        flagged, ruled = int(frame["flagged"].sum()), int(frame["flagged_as_ruled"].sum())
        total = int(frame["streets"].sum())
        line = (
            f"timeouts {self.format}: the format records each timeout; {flagged:,} of "
            f"{total:,} free streets are recorded as timed out"
        )
        if flagged:
            line += f", {ruled:,} of them placed as the auto-placement rule says"
            if ruled < flagged:
                line += f" ({flagged - ruled:,} not: the room's placement or its record is wrong)"
        own = frame[frame["chosen"] >= MIN_OWN]
        looks = int(frame["chosen_like_timeout"].sum())
        line += (
            f"; {looks:,} streets players chose themselves happen to match the auto-placement "
            "pattern (not timeouts: the pattern alone is no evidence, so none is flagged"
        )
        if len(own):
            rates = own["chosen_like_timeout"] / own["chosen"]
            line += (
                f"; each player's own share, over his {MIN_OWN}+ chosen streets: "
                f"{rates.min():.0%} to {rates.max():.0%}, {len(own)} players"
            )
        line += ")"
        return [line]


def _share_sql(share: str, of_hands: str) -> str:
    """TIMEOUTS_SQL over the hands of one share of the tables (``share``: a predicate on h,
    ``of_hands`` the same on the hands unaliased)."""
    placements = SHARE_KEYED.format(source="placements_stored", of_hands=of_hands)
    ids = f"hand_id IN (SELECT hand_id FROM hands WHERE {of_hands})"
    hands = f"(SELECT * FROM hands WHERE {of_hands})"
    results = SHARE_KEYED.format(source=RESULTS_BY_ID, of_hands=of_hands)
    streets = "(" + STREETS_SQL.format(placements=placements, hands=hands, results=results) + ")"
    seats = f"(SELECT * FROM seats WHERE {ids})"
    return TIMEOUTS_SQL.format(streets=streets, hands=hands, seats=seats, share=share)


def _summed(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The shares' counts added per format and player, as one TIMEOUTS_SQL would give them
    (``records``: true if any share's is, null if none says)."""
    frame = pd.concat(parts, ignore_index=True)
    if frame.empty:
        return frame
    keys = ["format", "player_key"]
    groups = frame.groupby(keys, sort=True, dropna=False)
    summed = groups[COUNTS].sum().reset_index()
    told = frame["records"].notna()
    said = frame.assign(records=frame["records"].where(told, False).astype(bool))
    records = said.groupby(keys, sort=True, dropna=False)["records"].any().to_numpy()
    known = told.groupby([frame[k] for k in keys], sort=True, dropna=False).any().to_numpy()
    said_all = pd.Series(records) if known.all() else pd.Series(records, dtype=object)
    summed.insert(2, "records", said_all.where(known, None))
    return summed[frame.columns]


def timeout_evidence(data: OfcData) -> list[TimeoutEvidence]:
    """Per format: recorded timeouts and, per player, his own choices that look like one."""
    shares = table_shares(data, "h.")
    if len(shares) == 1:
        sql = TIMEOUTS_SQL.format(streets="streets", hands="hands", seats="seats", share="true")
        frame = data.df(sql)
    else:
        unaliased = table_shares(data)
        frame = _summed(
            [
                data.df(_share_sql(*pair))
                for pair in each_share(data, zip(shares, unaliased, strict=True))
            ]
        )
    out = []
    for name, rows in frame.groupby("format", sort=True):
        flaggable = bool(rows["records"].fillna(False).any())
        out.append(TimeoutEvidence(str(name), flaggable, rows.reset_index(drop=True)))
    return out
