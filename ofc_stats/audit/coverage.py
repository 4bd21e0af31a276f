"""Which hands each audit check looked at, and why it could not look at the others.

A hand with no points reported was never compared with the rules' points: it
must not count as matching them.  Each check keeps the hands it looked at;
this module names a reason for every other hand of the room and ruleset
("not reported", "not scored: incomplete", "no earlier hand at the table"), so the
summary says "points: no hand checked (108 not reported)" and the
match rates are over the hands actually checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.audit.chunks import each_share, share_fantasy, table_shares
from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural

CHECKS = ("points", "fantasy", "money")
# The check each mismatch class belongs to: its rate is over that check's hands.
CLASS_CHECK = {
    "points": "points",
    "caps": "points",
    "royalties": "points",
    "foul": "points",
    "fantasy_entry": "fantasy",
    "repeat": "fantasy",
    "fantasy_cards": "fantasy",
    "money": "money",
}
COVERAGE_COLUMNS = ["room", "ruleset", "check", "reason", "hands"]
NOT_POINTS = "whose points field is not the hand's points (the field check's verdict)"
OTHER = "not checkable"

# Per hand: is the column reported on any seat, and the status of its seats when none
# is scored (what the points and money checks need: a reported value and a scored seat).
_REPORTED_SQL = """
SELECT hand_key,
       bool_or({column} IS NOT NULL) AS reported,
       bool_or(status = 'scored') AS scored,
       min(coalesce(status, 'no result')) FILTER (WHERE status IS DISTINCT FROM 'scored') AS why
FROM seat_results WHERE {share} GROUP BY hand_key
"""  # {share}: the tables read (chunks.table_shares)
# Per hand: how far the Fantasyland check got with the seats whose previous hand at the
# table leads to it (0 checked, 1 the link is not the table's next hand, 2 too long
# after or no time, 3 the previous hand not scored); no row: no earlier hand.
_FANTASY_SQL = """
SELECT next_hand_key AS hand_key,
       min(CASE WHEN status IS DISTINCT FROM 'scored' THEN 3
                WHEN seconds_to_next IS NULL OR seconds_to_next > $gap THEN 2
                WHEN next_link <> 'next' THEN 1 ELSE 0 END) AS step
FROM {fantasy} WHERE next_hand_key IS NOT NULL GROUP BY next_hand_key
"""  # {fantasy}: the fantasy view, or its rows of a share of the tables


Reasons = list[pd.Series]  # per share of the tables (chunks.table_shares): hand key -> why


def reported_reasons(
    data: OfcData, column: str, not_points: frozenset[str] | set[str] = frozenset()
) -> Reasons:
    """Why the points (``reported_points``) or money (``reported_money``) check skips a
    hand, by hand key, a share of the tables at a time: not reported, not scored, or
    (points) the room's field is not points.  Hands it can check are absent."""
    return [
        _reported_share(data, column, not_points, share)
        for share in each_share(data, table_shares(data))
    ]


def _reported_share(
    data: OfcData, column: str, not_points: frozenset[str] | set[str], share: str
) -> pd.Series:
    frame = data.df(_REPORTED_SQL.format(column=column, share=share))
    reported = frame["reported"].fillna(False).to_numpy(dtype=bool)
    scored = frame["scored"].fillna(False).to_numpy(dtype=bool)
    status = frame["why"].fillna("no result").astype(str).to_numpy()
    why = np.where(reported, "", "not reported").astype(object)
    unscored = reported & ~scored
    why[unscored] = [f"not scored: {s}" for s in status[unscored]]
    if not_points:
        rooms = data.df(f"SELECT hand_key, room FROM hands WHERE {share}")
        room = rooms.set_index("hand_key")["room"].reindex(frame["hand_key"].to_numpy())
        why[reported & scored & room.isin(not_points).to_numpy()] = NOT_POINTS
    series = pd.Series(why, index=frame["hand_key"].to_numpy(), dtype=object)
    return series[series != ""]


def fantasy_reasons(data: OfcData, gap_minutes: float) -> Reasons:
    """Why the Fantasyland check skips a hand, a share of the tables at a time: the room's
    decision shows in the hand that follows a player's previous one, so a hand with none
    (or none it can use) is not checked.  Checked hands are absent."""
    words = {
        1: "after a hand the player sat out or one missing from the files",
        2: f"more than {gap_minutes:g} minutes after the previous hand (or no time)",
        3: "after a hand not scored",
    }
    none = "with no earlier hand of its players at the table"
    out = []
    for share in each_share(data, table_shares(data)):
        steps = data.df(
            _FANTASY_SQL.format(fantasy=share_fantasy(share)), {"gap": gap_minutes * 60}
        ).set_index("hand_key")["step"]
        keys = data.df(f"SELECT hand_key FROM hands WHERE {share}")["hand_key"].to_numpy()
        step = steps.reindex(keys)
        why = step.map(words).where(step.notna(), none)
        out.append(why[why.notna()].astype(object))
    return out


Checked = list[pa.Array]  # per share of the tables: the ids of the hands a check looked at
_COUNTS = ["hands", *(f"{c}_{n}" for c in CHECKS for n in ("checked", "bad")), "checked", "bad"]


@dataclass
class _Counts:
    """What one share of the tables adds to the summary: per room and ruleset, the hands,
    checked and bad per check and by any; the skipped hands by check and reason; the hands
    no check looked at by their reasons' words; the room and ruleset of the mismatches'."""

    groups: pd.DataFrame  # room, ruleset, _COUNTS
    skipped: pd.DataFrame  # check, room, ruleset, reason, hands
    never: pd.DataFrame  # room, ruleset, why, n
    rooms: pd.DataFrame  # hand_key, room, ruleset of the share's mismatched hands


def summarize(
    data: OfcData,
    mismatches: pd.DataFrame,
    checked: dict[str, Checked],
    reasons: dict[str, Reasons],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Per room and ruleset: the summary, the mismatch classes and the not-checked reasons.

    ``checked[check]`` holds the ids of the hands a check looked at; ``reasons[check]`` why it
    skipped the others, each a share of the tables at a time (:func:`table_shares`), and
    counted so: the summary holds counts, never a row per hand.  Every hand is counted
    by its own room and ruleset, checked or not checked, so the two add up to the hands;
    ``matching`` counts the hands checked by at least one check with no mismatch.
    """
    shares = table_shares(data)
    counts = []
    for index, share in enumerate(each_share(data, shares)):
        hand_rooms = data.df(f"SELECT hand_key, hand_id, room, ruleset FROM hands WHERE {share}")
        mine = mismatches[mismatches["hand_key"].isin(hand_rooms["hand_key"])]
        counts.append(
            _share_counts(
                hand_rooms,
                mine,
                {check: checked[check][index] for check in CHECKS},
                {check: reasons[check][index] for check in CHECKS},
            )
        )
    return _summed(counts, mismatches)


def _share_counts(
    hand_rooms: pd.DataFrame,
    mismatches: pd.DataFrame,
    checked: dict[str, pa.Array],
    reasons: dict[str, pd.Series],
) -> _Counts:
    keys = ["room", "ruleset"]
    frame = hand_rooms[keys].assign(hands=1)
    bad_keys = set(mismatches["hand_key"])
    any_checked = np.zeros(len(hand_rooms), dtype=bool)
    skipped = []
    for check in CHECKS:
        looked = is_in(hand_rooms["hand_id"], checked[check])
        bad = hand_rooms["hand_key"].isin(_check_bad(mismatches, check)).to_numpy() & looked
        frame[f"{check}_checked"] = looked.astype(np.int64)
        frame[f"{check}_bad"] = bad.astype(np.int64)
        any_checked |= looked
        rows = hand_rooms[~looked]
        why = reasons[check].reindex(rows["hand_key"].to_numpy())
        rows = rows.assign(reason=why.fillna(OTHER).replace("", OTHER).to_numpy())
        part = rows.groupby([*keys, "reason"]).size().rename("hands").reset_index()
        skipped.append(part.assign(check=check))
    frame["checked"] = any_checked.astype(np.int64)
    bad_any = hand_rooms["hand_key"].isin(bad_keys).to_numpy() & any_checked
    frame["bad"] = bad_any.astype(np.int64)
    groups = frame.groupby(keys)[_COUNTS].sum().reset_index()
    never = hand_rooms[~any_checked]
    found = never.assign(why=_never_words(never["hand_key"].to_numpy(), reasons))
    counted = found.groupby([*keys, "why"]).size().rename("n").reset_index()
    rooms = hand_rooms[hand_rooms["hand_key"].isin(bad_keys)]
    return _Counts(groups, pd.concat(skipped, ignore_index=True), counted, rooms)


def _summed(
    counts: list[_Counts], mismatches: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The shares' counts added: the summary, the classes and the coverage table."""
    keys = ["room", "ruleset"]
    groups = pd.concat([c.groups for c in counts], ignore_index=True)
    summed = groups.groupby(keys)[_COUNTS].sum().reset_index()
    summed = summed.sort_values(keys).reset_index(drop=True)
    hands = summed[[*keys, "hands"]].copy()
    for check in CHECKS:
        looked, bad = summed[f"{check}_checked"], summed[f"{check}_bad"]
        hands[f"{check}_checked"] = looked.astype(int).to_numpy()
        hands[f"{check}_matching"] = (looked - bad).astype(int).to_numpy()
        hands[f"{check}_not_checked"] = hands["hands"] - hands[f"{check}_checked"]
    hands["checked"] = summed["checked"].astype(int).to_numpy()
    hands["matching"] = (summed["checked"] - summed["bad"]).astype(int).to_numpy()
    nevers = pd.concat([c.never for c in counts], ignore_index=True)
    hands["never_checked"] = _never_checked(nevers.groupby([*keys, "why"])["n"].sum(), hands[keys])
    hands["match_rate"] = (hands["matching"] / hands["checked"].where(hands["checked"] > 0)).fillna(
        0.0
    )
    skipped = pd.concat([c.skipped for c in counts], ignore_index=True)
    coverage = []
    for check in CHECKS:  # each check's reasons by room, ruleset and reason, as counted whole
        mine = skipped[skipped["check"] == check]
        part = mine.groupby([*keys, "reason"])["hands"].sum().reset_index()
        coverage.append(part.assign(check=check))
    table = pd.concat(coverage, ignore_index=True).reindex(columns=COVERAGE_COLUMNS)
    table["order"] = table["check"].map(CHECKS.index)
    table = table.sort_values([*keys, "order", "hands"], ascending=[True, True, True, False])
    table = table.drop(columns="order").reset_index(drop=True)
    hand_rooms = pd.concat([c.rooms for c in counts], ignore_index=True)
    return hands, _by_class(mismatches, hand_rooms, hands), table


def is_in(ids: pd.Series, values: pa.Array) -> npt.NDArray[np.bool_]:
    """Whether each of the hand ``ids`` is one of ``values``."""
    found = pc.is_in(pa.array(ids, pa.int64()), value_set=values.cast(pa.int64()))
    return np.asarray(found.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def _never_words(keys: npt.NDArray[Any], reasons: dict[str, pd.Series]) -> list[str]:
    """Each hand's reasons, no check having looked at it (:func:`_why_none`)."""
    per_check = {
        check: reasons[check].reindex(keys).fillna(OTHER).replace("", OTHER).to_numpy()
        for check in CHECKS
    }
    return [_why_none({c: str(per_check[c][i]) for c in CHECKS}) for i in range(len(keys))]


def _never_checked(never: pd.Series, groups: pd.DataFrame) -> list[str]:
    """Per group (``groups``' rows), why its hands that no check looked at were skipped by
    each check: 'points and money not reported, fantasy with no earlier hand …', the most
    common combination first, each with its count when there are several.  ``never``:
    the hands by room, ruleset and their reasons' words."""
    if never.empty:
        return [""] * len(groups)
    rows = never.rename("n").reset_index().sort_values("n", ascending=False, kind="stable")
    found: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for room, ruleset, reason, n in rows.itertuples(index=False):
        found.setdefault((str(room), str(ruleset)), []).append((int(n), str(reason)))
    texts = {
        key: items[0][1] if len(items) == 1 else "; ".join(f"{n:,}: {w}" for n, w in items)
        for key, items in found.items()
    }
    return [texts.get((str(r), str(g)), "") for r, g in groups.itertuples(index=False)]


def _why_none(reasons: Mapping[str, str]) -> str:
    """One hand's reasons, checks of the same reason together:
    'points and money not reported, fantasy with no earlier hand of its players at the table'.
    """
    together: dict[str, list[str]] = {}
    for check, reason in reasons.items():
        together.setdefault(reason, []).append(check)
    return ", ".join(f"{' and '.join(checks)} {reason}" for reason, checks in together.items())


def empty_coverage() -> pd.DataFrame:
    """No hand left unchecked (a report built without coverage)."""
    return pd.DataFrame(columns=COVERAGE_COLUMNS)


def _check_bad(mismatches: pd.DataFrame, check: str) -> set[str]:
    classes = [k for k, v in CLASS_CHECK.items() if v == check]
    return set(mismatches.loc[mismatches["class"].isin(classes), "hand_key"])


def _by_class(
    mismatches: pd.DataFrame, hand_rooms: pd.DataFrame, hands: pd.DataFrame
) -> pd.DataFrame:
    """Hands per mismatch class; the rate is over the hands its check looked at."""
    keys = ["room", "ruleset"]
    per_class = mismatches[["hand_key", "class"]].merge(hand_rooms, on="hand_key")
    by_class = (
        per_class[[*keys, "class", "hand_key"]]
        .drop_duplicates()
        .groupby([*keys, "class"])
        .size()
        .rename("hands")
        .reset_index()
    )
    if by_class.empty:
        return pd.DataFrame(columns=[*keys, "class", "hands", "rate"])
    by_class = by_class.merge(hands, on=keys, suffixes=("", "_all"))
    checked = [row[f"{CLASS_CHECK[row['class']]}_checked"] for row in by_class.to_dict("records")]
    by_class["rate"] = by_class["hands"] / pd.Series(checked, index=by_class.index).clip(lower=1)
    by_class["order"] = by_class["class"].map(list(CLASS_CHECK).index)
    by_class = by_class.sort_values([*keys, "order"])
    return by_class[[*keys, "class", "hands", "rate"]].reset_index(drop=True)


def group_lines(
    row: Mapping[str, Any],
    coverage: pd.DataFrame,
    by_class: pd.DataFrame,
    money_basis: str = "",
    notes: Mapping[str, str] | None = None,
) -> list[str]:
    """The lines of one room and ruleset (a summary row): hands checked and matching, then
    each check with what it checked and why it skipped the rest, then the mismatch classes,
    each with its ``notes`` line (by class), if any."""
    get = row.__getitem__
    hands, checked, matching = int(get("hands")), int(get("checked")), int(get("matching"))
    never = str(row.get("never_checked", "") or "")
    never = f" ({never})" if never else ""
    head = f"{get('room')} · {get('ruleset')}: {plural(hands, 'hand')}: "
    if checked:
        verb = "matches" if matching == 1 else "match"
        head += (
            f"{checked:,} checked (points, Fantasyland or money), {matching:,} of them {verb} "
            f"the rules ({matching / checked:.1%})"
        )
    else:
        head += f"none could be checked{never}"
    if 0 < checked < hands:
        head += f"; {hands - checked:,} could not be checked at all{never}"
    out = [head]
    mine = coverage[(coverage["room"] == get("room")) & (coverage["ruleset"] == get("ruleset"))]
    for check in CHECKS:
        looked = int(get(f"{check}_checked"))
        skipped = mine[mine["check"] == check]
        why = _reasons(skipped)
        if looked:
            ok = int(get(f"{check}_matching"))
            share = f"{ok / looked:.1%}"
            line = f"  {check}: {ok:,} of {plural(looked, 'checked hand')} match ({share})"
            if why:
                line += f"; {int(skipped['hands'].sum()):,} not checked ({why})"
            if check == "money" and money_basis:
                line += f"; {money_basis}"
        else:
            line = f"  {check}: no hand checked ({why})"
        out.append(line)
        unchecked = int(row.get(f"{check}_unchecked", 0))
        if unchecked:
            out.append(
                f"  {check}: {plural(unchecked, 'decision')} not checkable (the player sat out "
                "the table's next hand, or it is missing from the files)"
            )
    classes = by_class[(by_class["room"] == get("room")) & (by_class["ruleset"] == get("ruleset"))]
    for item in classes.to_dict("records"):
        name = str(item["class"])
        out.append(
            f"    {name}: {plural(int(item['hands']), 'hand')} "
            f"({float(item['rate']):.1%} of the {CLASS_CHECK.get(name, name)}-checked)"
        )
        note = (notes or {}).get(name, "")
        if note:
            out.append(f"      {note}")
    return out


def _reasons(skipped: pd.DataFrame) -> str:
    """'96 not reported, 1 not scored: incomplete'."""
    pairs = zip(skipped["hands"].astype(int).tolist(), skipped["reason"].tolist(), strict=True)
    return ", ".join(f"{hands:,} {reason}" for hands, reason in pairs)
