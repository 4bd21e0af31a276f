"""Timeouts as evidence: flag a street only where the format can tell, and say how often
a free choice matches the auto-placement pattern by chance.

A timed-out player's cards go bottom, then middle, then top, in the order
dealt (RULES.md §2).  Without the deal order a street is only compared by
counts, and a free choice such as "both cards to the bottom" matches that
too, so formats without it (:data:`ofc_stats.store.streets.DEAL_ORDER_FORMATS`)
get no flags and no count: an estimate against a base rate (the hero's own
streets) would assume every player chooses as the hero does, which nothing
in the data shows.  The audit says plainly that the format does not record
timeouts.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ofc_stats.store.views import OfcData

MIN_BASE = 30  # hero streets below this give no base rate (kept in per_street, not printed)

TIMEOUTS_SQL = """
SELECT h.format, st.street,
       count(*) FILTER (WHERE NOT coalesce(s.hero, false)) AS streets,
       count(*) FILTER (WHERE NOT coalesce(s.hero, false) AND st.pattern_match) AS matches,
       count(*) FILTER (WHERE s.hero) AS hero_streets,
       count(*) FILTER (WHERE s.hero AND st.pattern_match) AS hero_matches,
       count(*) FILTER (WHERE st.timeout) AS flagged,
       bool_or(st.flaggable) AS flaggable
FROM streets st JOIN hands h USING (hand_key) JOIN seats s USING (hand_key, seat)
WHERE NOT st.forced AND st.street > 0 AND NOT coalesce(s.in_fantasy, false)
GROUP BY ALL ORDER BY h.format, st.street
"""


@dataclass(frozen=True)
class TimeoutEvidence:
    format: str
    flaggable: bool
    per_street: pd.DataFrame  # street, streets, matches, rate, hero_streets, base_rate, flagged

    def lines(self) -> list[str]:
        frame = self.per_street
        if self.flaggable:
            flagged = int(frame["flagged"].sum())
            total = int(frame["streets"].sum() + frame["hero_streets"].sum())
            return [
                f"timeouts {self.format}: the deal order is recorded; {flagged:,} of {total:,} "
                "free streets match the auto-placement and are flagged"
            ]
        # No timer, no deal order, no disconnect: nothing in the format tells a timeout,
        # and a base rate from other players' (or the hero's) streets would assume they
        # all choose alike.  No flag, no count, no estimate.
        return [
            f"timeouts {self.format}: the format does not record timeouts (no timer, no "
            "deal order within a street, no disconnect): no street is flagged and none "
            "is estimated"
        ]


def timeout_evidence(data: OfcData) -> list[TimeoutEvidence]:
    """Per format: flags where the deal order is recorded, match and base rates elsewhere."""
    frame = data.df(TIMEOUTS_SQL)
    out = []
    for name, rows in frame.groupby("format", sort=True):
        rows = rows.copy()
        rows["rate"] = rows["matches"] / rows["streets"].where(rows["streets"] > 0)
        hero = rows["hero_streets"].where(rows["hero_streets"] >= MIN_BASE)
        rows["base_rate"] = rows["hero_matches"] / hero
        flaggable = bool(rows["flaggable"].fillna(False).any())
        out.append(TimeoutEvidence(str(name), flaggable, rows.reset_index(drop=True)))
    return out
