"""The named rulesets ranked per room and rule string, by the hands that can tell them apart.

Three rules keep the ranking honest: a deck the data never shows is ruled
out (no joker seen, no joker deck; jokers seen, no 52-card deck); a hand
counts only where it can confirm or refute, i.e. it has points or a traced
Fantasyland decision and not every candidate gives the same verdict on it;
and rulesets that explain as many hands share a rank (``tied``).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pyarrow as pa

from ofc_stats.audit.fields import field_verdicts
from ofc_stats.audit.points import _Check, _fantasy, _points, ruleset_results
from ofc_stats.engine.presets import PRESETS
from ofc_stats.engine.rules import Deck
from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural

JOKERS_SQL = """
SELECT h.hand_key, h.room, coalesce(h.rules_text, h.ruleset) AS rules_text,
       coalesce(bool_or(list_max(list_concat(s.top, s.middle, s.bottom, s.discards)) >= 52),
                false) AS joker
FROM hands h JOIN seats s USING (hand_key) GROUP BY ALL
"""


def joker_groups(data: OfcData) -> pd.DataFrame:
    """Per room and rule string: hands, and hands with a joker on a board or in the discards."""
    hands = data.df(JOKERS_SQL)
    grouped = hands.groupby(["room", "rules_text"], sort=True)["joker"]
    return grouped.agg(hands="size", joker_hands="sum").reset_index()


def explained_hands(points: _Check, fantasy: _Check) -> pd.DataFrame:
    """Per checked hand: no points mismatch, no Fantasyland mismatch, both."""
    looked: pd.DataFrame = pa.concat_tables([*points.checked, *fantasy.checked]).to_pandas()
    hands = looked.drop_duplicates("hand_key")
    bad_points = set(points.mismatches["hand_key"]) if len(points.mismatches) else set()
    bad_fantasy = set(fantasy.mismatches["hand_key"]) if len(fantasy.mismatches) else set()
    hands = hands.copy()
    hands["points_ok"] = ~hands["hand_key"].isin(bad_points)
    hands["fantasy_ok"] = ~hands["hand_key"].isin(bad_fantasy)
    hands["ok"] = hands["points_ok"] & hands["fantasy_ok"]
    return hands


def guess_rulesets(
    data: OfcData,
    *,
    max_gap_minutes: float = 15.0,
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """Every named ruleset ranked by the telling hands whose points and Fantasyland it explains.

    Columns: room, room_rules, ruleset, hands (telling hands), explained,
    points_ok, fantasy_ok, explained_rate, rank, tied, ruled_out (why, or "").
    """
    rule_texts = data.df("SELECT hand_key, coalesce(rules_text, ruleset) AS rules_text FROM hands")
    not_points = {v.room for v in field_verdicts(data) if not v.measures}
    decks = joker_groups(data)
    verdicts: dict[str, pd.DataFrame] = {}
    for name, candidate in PRESETS.items():
        with data.rescored(ruleset_results(data, candidate)) as scored:
            points = _points(scored, candidate)
            if not_points:
                points = points.without(not_points)
            fantasy = _fantasy(scored, max_gap_minutes)
        verdicts[name] = explained_hands(points, fantasy).merge(rule_texts, on="hand_key")
        if progress:
            progress(1)
    if not verdicts:
        return pd.DataFrame()
    wide = pd.concat(
        {name: frame.set_index("hand_key")["ok"] for name, frame in verdicts.items()}, axis=1
    ).fillna(False)
    telling = wide.index[wide.nunique(axis=1) > 1]
    rows = []
    for name, frame in verdicts.items():
        frame = frame[frame["hand_key"].isin(telling)]
        deck = PRESETS[name].deck
        for group in decks.to_dict("records"):
            room, text = str(group["room"]), str(group["rules_text"])
            jokers, hands = int(group["joker_hands"]), int(group["hands"])
            checked = frame[(frame["room"] == room) & (frame["rules_text"] == text)]
            ruled_out = ""
            if deck is Deck.JOKER54 and jokers == 0:
                ruled_out = f"no joker in {plural(hands, 'hand')}"
            elif deck is Deck.STANDARD52 and jokers > 0:
                ruled_out = f"jokers in {plural(jokers, 'hand')}"
            rows.append(
                {
                    "room": room,
                    "room_rules": text,
                    "ruleset": name,
                    "hands": len(checked),
                    "explained": int(checked["ok"].sum()),
                    "points_ok": int(checked["points_ok"].sum()),
                    "fantasy_ok": int(checked["fantasy_ok"].sum()),
                    "ruled_out": ruled_out,
                }
            )
    if not rows:  # no hand stored (every one quarantined): nothing to rank
        return pd.DataFrame()
    ranking = pd.DataFrame(rows)
    ranking["explained_rate"] = ranking["explained"] / ranking["hands"].where(ranking["hands"] > 0)
    ranking["explained_rate"] = ranking["explained_rate"].fillna(0.0).round(4)
    ranking["score"] = ranking["explained"].where(ranking["ruled_out"] == "", -1)
    ranking = ranking.sort_values(
        ["room", "room_rules", "score", "ruleset"], ascending=[True, True, False, True]
    )
    by_group = ranking.groupby(["room", "room_rules"])["score"]
    ranking["rank"] = by_group.rank(method="min", ascending=False).astype(int)
    ranking["tied"] = (
        ranking.groupby(["room", "room_rules", "score"])["score"].transform("size") > 1
    )
    return ranking.drop(columns="score").reset_index(drop=True)
