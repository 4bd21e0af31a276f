"""The named rulesets ranked per room and rule string, by the hands that can tell them apart.

Three rules keep the ranking honest: a deck the data never shows is ruled
out (no joker seen, no joker deck; jokers seen, no 52-card deck); a hand
counts only where it can confirm or refute, i.e. it has points or a traced
Fantasyland decision and not every candidate gives the same verdict on it;
and rulesets that explain as many hands share a rank (``tied``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa

from ofc_stats.audit.chunks import each_share, table_shares
from ofc_stats.audit.fields import FieldVerdict, field_verdicts
from ofc_stats.audit.points import _Check, _fantasy_share, points_share, share_results
from ofc_stats.engine.presets import PRESETS
from ofc_stats.engine.rules import Deck
from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural

# Per room and rule string, hands and hands with a joker on a board or in the discards,
# counted in the query (a row a group, never a row a hand); a group of no room or rule
# string is no group's.
JOKERS_SQL = """
WITH per_hand AS (
  SELECT h.hand_key, h.room, coalesce(h.rules_text, h.ruleset) AS rules_text,
         coalesce(bool_or(list_max(list_concat(s.top, s.middle, s.bottom, s.discards)) >= 52),
                  false) AS joker
  FROM hands h JOIN seats s USING (hand_key) GROUP BY ALL
)
SELECT room, rules_text, count(*) AS hands, count_if(joker) AS joker_hands
FROM per_hand WHERE room IS NOT NULL AND rules_text IS NOT NULL
GROUP BY ALL ORDER BY ALL
"""


def joker_groups(data: OfcData) -> pd.DataFrame:
    """Per room and rule string: hands, and hands with a joker on a board or in the discards."""
    return data.df(JOKERS_SQL)


# What a ruleset's checks say of one hand, as bits of one byte (explained_hands).
LOOKED, POINTS_OK, FANTASY_OK = 1, 2, 4
EXPLAINED = LOOKED | POINTS_OK | FANTASY_OK


def explained_hands(
    data: OfcData, ids: npt.NDArray[np.int64], points: _Check, fantasy: _Check
) -> npt.NDArray[np.uint8]:
    """Per hand of ``ids`` (sorted): whether a check looked at it (:data:`LOOKED`), and of
    one looked at, no points mismatch (:data:`POINTS_OK`) and no Fantasyland mismatch
    (:data:`FANTASY_OK`).  A byte a hand: the verdicts of every named ruleset are kept at
    once (the telling hands are those they disagree on), not a frame of keys each."""
    looked = [table["hand_id"] for table in (*points.checked, *fantasy.checked)]
    out = np.zeros(len(ids), np.uint8)
    for column in looked:
        out[_positions(ids, column.to_numpy())] = LOOKED | POINTS_OK | FANTASY_OK
    for check, bit in ((points, POINTS_OK), (fantasy, FANTASY_OK)):
        if len(check.mismatches):
            bad = _positions(ids, _key_ids(data, check.mismatches["hand_key"].unique()))
            out[bad] &= ~np.uint8(bit)
    out[(out & LOOKED) == 0] = 0
    return out


def _positions(ids: npt.NDArray[np.int64], wanted: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
    """Where each of ``wanted`` (all of them among ``ids``, which is sorted) stands in it."""
    return np.searchsorted(ids, np.asarray(wanted, np.int64))


def _key_ids(data: OfcData, keys: Iterable[object]) -> npt.NDArray[np.int64]:
    """The ids of the hands of these keys (a few: the mismatched hands)."""
    data.connection.register(
        "guess_keys", pa.table({"hand_key": pa.array([str(k) for k in keys], pa.string())})
    )
    try:
        found = data.arrow(
            "SELECT hand_id FROM hands WHERE hand_key IN (SELECT hand_key FROM guess_keys)"
        )
    finally:
        data.connection.unregister("guess_keys")
    return np.asarray(found["hand_id"].to_numpy(), np.int64)


def guess_rulesets(
    data: OfcData,
    *,
    max_gap_minutes: float = 15.0,
    progress: Callable[[int], None] | None = None,
    fields: Sequence[FieldVerdict] | None = None,
) -> pd.DataFrame:
    """Every named ruleset ranked by the telling hands whose points and Fantasyland it explains.

    ``fields``: the dataset's field verdicts when the caller has them (read again else).

    Columns: room, room_rules, ruleset, hands (telling hands), explained,
    points_ok, fantasy_ok, explained_rate, rank, tied, ruled_out (why, or "").
    """
    hands = data.arrow(
        "SELECT hand_id, room, coalesce(rules_text, ruleset) AS rules_text FROM hands "
        "ORDER BY hand_id"
    )
    ids = np.asarray(hands["hand_id"].to_numpy(), np.int64)
    rooms, room_codes = _codes(hands["room"])
    texts, text_codes = _codes(hands["rules_text"])
    del hands
    fields = field_verdicts(data) if fields is None else fields
    not_points = {v.room for v in fields if not v.measures}
    decks = joker_groups(data)
    verdicts: dict[str, npt.NDArray[np.uint8]] = {}
    shares = table_shares(data)
    for name, candidate in PRESETS.items():
        # A share of the tables at a time, scored under the ruleset and checked, each
        # share's checks kept as the byte of each of its hands (a hand is in one share):
        # the results of every hand, and a wrong preset's explained mismatch rows, grew
        # with the dataset.
        bits = np.zeros(len(ids), np.uint8)
        for share in each_share(data, shares):
            with data.rescored(share_results(data, share, candidate)) as scored:
                points = points_share(scored, candidate, share)
                if not_points:
                    points = points.without(not_points)
                fantasy = _fantasy_share(scored, max_gap_minutes, share)
            bits |= explained_hands(data, ids, points, fantasy)
            del points, fantasy, scored
        verdicts[name] = bits
        if progress:
            progress(1)
    if not verdicts:
        return pd.DataFrame()
    # A hand tells the rulesets apart when they do not all explain it (one not looked at
    # does not); only the hands a ruleset looked at count for it.
    explained = [(bits == EXPLAINED) for bits in verdicts.values()]
    telling = np.logical_or.reduce(explained) & ~np.logical_and.reduce(explained)
    rows = []
    for name, bits in verdicts.items():
        deck = PRESETS[name].deck
        counted = telling & ((bits & LOOKED) > 0)
        for group in decks.to_dict("records"):
            room, text = str(group["room"]), str(group["rules_text"])
            jokers, hands_in = int(group["joker_hands"]), int(group["hands"])
            mine = (
                counted & (room_codes == rooms.get(room, -1)) & (text_codes == texts.get(text, -1))
            )
            checked = bits[mine]
            ruled_out = ""
            if deck is Deck.JOKER54 and jokers == 0:
                ruled_out = f"no joker in {plural(hands_in, 'hand')}"
            elif deck is Deck.STANDARD52 and jokers > 0:
                ruled_out = f"jokers in {plural(jokers, 'hand')}"
            rows.append(
                {
                    "room": room,
                    "room_rules": text,
                    "ruleset": name,
                    "hands": len(checked),
                    "explained": int((checked == EXPLAINED).sum()),
                    "points_ok": int(((checked & POINTS_OK) > 0).sum()),
                    "fantasy_ok": int(((checked & FANTASY_OK) > 0).sum()),
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


def _codes(column: pa.ChunkedArray) -> tuple[dict[str, int], npt.NDArray[np.int32]]:
    """A text column's values by code, and each row's code (-2 for null: no group's)."""
    encoded = column.combine_chunks().dictionary_encode()
    values = {str(v): at for at, v in enumerate(encoded.dictionary.to_pylist())}
    codes = np.asarray(encoded.indices.fill_null(-2).to_numpy(), np.int32)
    return values, codes
