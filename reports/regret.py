"""Regret: the expected points the player's decisions lost, from the stored grades.

Reads the ``grades`` view (written by ``ofc-stats grade``) for the player's
seats under the filters.  A rate is points lost per 100 graded hands: each
hand contributes the losses of its decisions in the group (0 if it has none),
so the SE (the spread of those per-hand sums over the root of the hands)
includes both the cards' variation and the rollouts' noise.

Beside each claim stands what the grader's advice *realised* on the player's
own cards (the ``replays`` view, ``ofc-stats grade --replay``): the bot's
points minus the player's, per 100 hands, grouped by the street where the
advice first played otherwise.  A leak is named by the decision
(:mod:`ofc_stats.grade.mistakes`: "a pair QQ+ placed in the middle instead of
the top") and called clear only when its claimed loss exceeds twice its SE
*and* the replay confirms it: the seats where the advice first deviated at
that decision gained, beyond twice their SE.  Fantasyland sets are judged by
the exact solver, per set and by card count.

A player with no leak still has *close calls* (:func:`close_calls`): decisions
with no expected loss where another play came within the rollouts' noise of
the one made (``grade_candidates.gap``, grader version 7), named like the
leaks, the nearest to a leak (the other play favoured by the most SEs) first.
They are not leaks: the grader cannot tell the two plays apart.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, cast

import numpy as np
import pandas as pd

from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural, signed
from reports.base import SEATS, Report, Scope
from reports.replay import hand_details
from reports.stats import Z95

CLEAR = 2.0  # a leak is clear when its loss exceeds this many SEs
MISTAKES = 15
CLOSE_CALLS = 10  # close calls listed: those where the rollouts favoured the other play most
GRADE_COLUMNS = (
    "g.hand_key, g.seat, g.street, g.kind, g.decision, g.status, g.loss, g.loss_se, "
    "g.chosen_play, g.best_play, g.ev_chosen, g.ev_best, g.fantasy_cards, g.missed_repeat, "
    "g.loss_rows, g.loss_fouls, g.loss_royalties, g.loss_fantasy, g.mistake, s.played_at"
)
REPLAY_COLUMNS = "r.hand_key, r.seat, r.first_deviation, r.gain, r.claimed"
PART_COLUMNS = ("loss_rows", "loss_fouls", "loss_royalties", "loss_fantasy")
# The by-decision table's groups: the part of the expected loss that dominated each decision.
LOST_TO = {
    "fouls": "fouling",
    "rows": "rows lost",
    "royalties": "royalties missed",
    "fantasy": "Fantasyland missed",
}


def _grades(data: OfcData) -> pd.DataFrame:
    """The grades of the report's seats (its scope holds the player and the filters)."""
    return data.df(
        f"SELECT {GRADE_COLUMNS} FROM grades g JOIN {SEATS} s USING (hand_key, seat) "
        "ORDER BY s.played_at, g.hand_key, g.street"
    )


def _replays(data: OfcData) -> pd.DataFrame:
    """The replayed seats of the report's scope (``ofc-stats grade --replay``)."""
    return data.df(
        f"SELECT {REPLAY_COLUMNS} FROM replays r JOIN {SEATS} s USING (hand_key, seat) "
        "WHERE r.claimed IS NOT NULL"
    )


# The graded street decisions with no expected loss whose rival (the best play where the
# grader names another, else the play within the noise the rollouts measured highest; the
# grader stores it) is within the noise, measured by rollouts (an exact tie is no call).
CLOSE_SQL = f"""
SELECT g.hand_key, s.played_at, g.street, g.chosen_play, g.rival_play, g.rival_mistake,
       g.ev_chosen, g.rival_edge, g.rival_se
FROM grades g JOIN {SEATS} s USING (hand_key, seat)
WHERE g.kind = 'street' AND g.status = 'graded' AND g.loss = 0 AND g.rival_within_noise
  AND g.rival_se > 0
"""
CLOSE_COLUMNS = [
    "close_call", "hand_key", "played_at", "your_play", "other_play", "your_value",
    "other_value", "other_minus_yours", "se", "ses",
]  # fmt: skip
CLOSE_MEANS = (
    "close calls, within the rollouts' noise and not leaks: decisions with no expected loss "
    "where another play came within 2 SE of yours (the best play, when the grader names "
    "another, else the one of those the rollouts measured highest); other minus "
    "yours: the other play's value minus yours as the rollouts measured them, on the same "
    "deals, ± its SE (se); ses: that difference in SEs (2 or more would be beyond the "
    "noise); other value: yours plus that difference. Plays valued exactly (nothing left "
    "to deal) are not close calls"
)


def close_calls(data: OfcData) -> pd.DataFrame:
    """Every close call of the report's seats, nearest to a leak first (no rows: none, or
    grades older than grader version 7, which hold no gaps).

    A decision is a close call when it lost no expected points and its rival (the best
    play where the grader names another, else the other play within the noise the
    rollouts measured highest) is within the noise of the play made, measured by
    rollouts (a tie of exact values is no call): not a leak, the grader cannot tell
    the two apart, but what a coach would look at for a player with no leak.
    """
    columns = data.sql("SELECT * FROM grades LIMIT 0").columns
    if "rival_edge" not in columns:  # graded before version 7: `ofc-stats grade` grades again
        return pd.DataFrame(columns=CLOSE_COLUMNS)
    return named_close_calls(data.df(CLOSE_SQL))


def named_close_calls(frame: pd.DataFrame) -> pd.DataFrame:
    """:data:`CLOSE_SQL`'s rows as the report lists them: named like the leaks, nearest to
    a leak (the other play favoured by the most SEs; 2 would be beyond the noise) first: in
    points, a first street's noise would lead the list."""
    if frame.empty:
        return pd.DataFrame(columns=CLOSE_COLUMNS)
    edge = frame["rival_edge"].astype(np.float64)
    names = frame["rival_mistake"].fillna("another play")
    frame = frame.assign(
        close_call="street " + (frame["street"].astype(int) + 1).astype(str) + ": " + names,
        your_play=frame["chosen_play"],
        other_play=frame["rival_play"],
        your_value=frame["ev_chosen"].astype(np.float64),
        other_value=frame["ev_chosen"].astype(np.float64) + edge,
        other_minus_yours=edge,
        se=frame["rival_se"].astype(np.float64),
        ses=edge / frame["rival_se"].astype(np.float64),
    )
    ordered = frame.sort_values(
        ["ses", "other_minus_yours", "hand_key", "street"],
        ascending=[False, False, True, True],
        kind="stable",
    )
    return ordered[CLOSE_COLUMNS].reset_index(drop=True)


def _close_note(calls: pd.DataFrame, decisions: int) -> str:
    """The close calls in words: how many, and the one the rollouts favoured the other most."""
    top = calls.iloc[0]
    return (
        f"Close calls, within the rollouts' noise and not leaks: on "
        f"{plural(len(calls), 'decision')} of your {decisions:,} graded street decisions another "
        f"play came within 2 SE of yours. The nearest to a leak, {top['close_call']} "
        f"({top['your_play']}): the rollouts measured the other play ({top['other_play']}) "
        f"{abs(top['other_minus_yours']):.2f} ± {top['se']:.2f} points "
        f"{'above' if top['other_minus_yours'] >= 0 else 'below'} yours "
        f"(the close calls table lists {min(len(calls), CLOSE_CALLS)})."
    )


def _mean_se(values: pd.Series) -> tuple[float, float]:
    """Mean and its SE (NaN under two values)."""
    x = values.to_numpy(dtype=np.float64)
    if not len(x):
        return float("nan"), float("nan")
    se = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")
    return float(x.mean()), se


def confirmed(realised: float, se: float) -> bool:
    """The replay confirms a claim: the advice's gain on the player's cards is beyond 2 SE."""
    return bool(se == se and realised > CLEAR * se)


def replay_note(table: pd.DataFrame) -> str:
    """The summary's line on the replay (:func:`replay_by_street`'s table): claimed against
    realised over every replayed seat; where the advice never played otherwise, that, not
    "+0 ± 0 … claims 0 ± 0 lost"."""
    every = table.iloc[0]
    over = f"Replayed on your own cards over {plural(int(every['seats']), 'hand')}, "
    never = table.loc[table["first_deviation"] == "never deviated", "seats"]
    if int(never.iloc[0]) == int(every["seats"]):
        return over + "the grader's advice never played otherwise than you: no gain to realise."
    return (
        f"{over}the grader's advice realised {signed(100 * every['realised_per_seat'], 0)} ± "
        f"{100 * every['realised_se']:,.0f} points per 100 hands against your play, where it "
        f"claims {100 * every['claimed_per_seat']:,.0f} ± {100 * every['claimed_se']:,.0f} lost."
    )


def replay_by_street(replays: pd.DataFrame) -> pd.DataFrame:
    """Claimed against realised, per replayed seat (one hand), by the street the advice first
    deviated (every replayed seat, and those where it never did).

    Per seat, not per 100 hands: a street where the advice first deviated on one seat
    would read "-4,381 per 100 hands" scaled up from a single hand.
    """
    rows = []
    groups = [("all seats", replays)]
    first = replays["first_deviation"]
    for street in sorted(first.dropna().unique()):
        groups.append((f"street {int(street) + 1}", replays[first == street]))
    groups.append(("never deviated", replays[first.isna()]))
    for label, part in groups:
        claimed, claimed_se = _mean_se(part["claimed"])
        gain, gain_se = _mean_se(part["gain"])
        rows.append(
            {
                "first_deviation": label,
                "seats": len(part),
                "claimed_per_seat": claimed,
                "claimed_se": claimed_se,
                "realised_per_seat": gain,
                "realised_se": gain_se,
                "confirmed": confirmed(gain, gain_se),
            }
        )
    return pd.DataFrame(rows)


def named_leaks(
    streets: pd.DataFrame, hands: pd.Index, replays: pd.DataFrame | None
) -> pd.DataFrame:
    """Each named mistake with an expected loss: its claimed cost per 100 hands and per
    decision, and what the advice realised on the seats where it first played otherwise at
    that decision.

    A decision played otherwise than the grader's best with no expected loss (the grader
    stores 0 where the played option is the best or within 2 SE of it) is a tie, not a
    leak, so it is left out (:func:`tied_decisions` counts them).
    """
    named = streets[streets["mistake"].notna() & (streets["loss"] > 0)]
    if named.empty:
        return pd.DataFrame()
    table = per_100(named, hands, ["street", "mistake"])
    per_decision = named.groupby(["street", "mistake"])["loss"].mean().rename("loss_per_decision")
    table = table.merge(per_decision.reset_index(), on=["street", "mistake"])
    table["leak"] = "street " + (table["street"] + 1).astype(str) + ": " + table["mistake"]
    realised = []
    for row in table.to_dict("records"):
        seats = pd.DataFrame()
        if replays is not None and len(replays):
            at = named[(named["street"] == row["street"]) & (named["mistake"] == row["mistake"])]
            keys = set(zip(at["hand_key"], at["seat"], strict=True))
            here = replays[replays["first_deviation"] == row["street"]]
            mask = [k in keys for k in zip(here["hand_key"], here["seat"], strict=True)]
            seats = here[mask]
        gain, gain_se = _mean_se(seats["gain"]) if len(seats) else (float("nan"), float("nan"))
        claimed, _ = _mean_se(seats["claimed"]) if len(seats) else (float("nan"), float("nan"))
        realised.append(
            {
                "replayed_seats": len(seats),
                "claimed_per_seat": claimed,
                "realised_per_seat": gain,
                "realised_se": gain_se,
            }
        )
    table = pd.concat([table, pd.DataFrame(realised, index=table.index)], axis=1)
    table["claim_clear"] = table["clear"]
    table["clear"] = table["claim_clear"] & np.array(
        [
            confirmed(g, e)
            for g, e in zip(table["realised_per_seat"], table["realised_se"], strict=True)
        ]
    )
    columns = [
        "leak", "decisions", "per_100_hands", "se", "loss_per_decision", "replayed_seats",
        "claimed_per_seat", "realised_per_seat", "realised_se", "claim_clear", "clear",
    ]  # fmt: skip
    # claimed per seat: the grader's loss summed over every decision of the replayed seats
    # (the replay compares whole hands), so not the loss of this decision alone.
    return table.sort_values("per_100_hands", ascending=False)[columns].reset_index(drop=True)


def tied_decisions(streets: pd.DataFrame) -> int:
    """Decisions named as played otherwise than the grader's best but with no expected loss."""
    return int((streets["mistake"].notna() & (streets["loss"] <= 0)).sum())


CLEAR_MEANS = (
    "clear: the claim exceeds 2 SE and the replay confirms it (the advice gained on your "
    "own cards beyond 2 SE where it first played otherwise at this decision); otherwise "
    "not clear yet. A claim's SE is the rollouts' noise only: the way the grader plays the "
    "streets after a decision can be wrong by more, which only the replay measures"
)


def _leak_note(row: dict[Hashable, Any], over: str, replayed: bool = False) -> str:
    """A named leak in words: claimed and realised cost, each with its SE, and a verdict,
    "clear" or "not clear yet" (:data:`CLEAR_MEANS`)."""
    claim = (
        f"{row['leak'][0].upper()}{row['leak'][1:]}: claimed {row['per_100_hands']:.1f} ± "
        f"{row['se']:.1f} expected points lost per 100 hands {over} "
        f"({plural(int(row['decisions']), 'decision')}, {row['loss_per_decision']:.2f} "
        f"{'lost' if int(row['decisions']) == 1 else 'on average'})"
    )
    within = "" if row["claim_clear"] else "the claim is within 2 SE"
    if not row["replayed_seats"]:
        unreplayed = (
            "no replayed seat had the advice first play otherwise here"
            if replayed
            else "not replayed yet: `ofc-stats grade --replay`"
        )
        reasons = [r for r in (within, unreplayed) if r]
        return f"{claim}: not clear yet ({'; '.join(reasons)})."
    realised_se = row["realised_se"]
    se_text = f" ± {realised_se:.2f}" if realised_se == realised_se else " (no SE from one seat)"
    # like for like: a hand's claim (the seat's decisions from here on) against what the
    # advice won over the play on the same hands; + is the advice's gain
    seats = int(row["replayed_seats"])
    replay = (
        f"; on the {plural(seats, 'hand')} where the advice first played otherwise here, "
        f"the grader claimed {row['claimed_per_seat']:.2f} lost a hand (this decision and "
        f"the hand's later ones) and its advice won {signed(row['realised_per_seat'], 2)}"
        f"{se_text} a hand over your play on your own cards"
    )
    if row["clear"]:
        return f"{claim}{replay}: clear (beyond 2 SE and confirmed by the replay)."
    if confirmed(row["realised_per_seat"], realised_se):
        unconfirmed = ""
    else:
        unconfirmed = "the replay does not confirm it beyond 2 SE"
    reasons = [r for r in (within, unconfirmed) if r]
    return f"{claim}{replay}: not clear yet ({'; '.join(reasons)})."


def _total_note(total: pd.Series, over: str) -> str:
    """Every street decision's loss per 100 hands; with none charged, that in words, not
    "0 ± 0" (a loss within 2 SE of the grader's noise counts 0, so the hands' SE is 0 too:
    it says nothing of the noise)."""
    if total["per_100_hands"] == 0:
        return (
            f"Street decisions {over}: no decision lost expected points beyond 2 SE of the "
            "grader's noise against the best legal play, so none is charged (0 per 100 "
            "hands; the close calls are the decisions nearest to it)."
        )
    return (
        f"Street decisions {over}: "
        f"{total['per_100_hands']:.1f} ± {total['se']:.1f} expected points lost per 100 "
        "hands against the best legal play."
    )


def per_100(frame: pd.DataFrame, hands: pd.Index, keys: list[str]) -> pd.DataFrame:
    """Points lost per 100 hands for each group of ``keys``, with its SE and a 95% interval."""
    rows = []
    count = len(hands)
    for group, part in frame.groupby(keys, sort=True):
        per_hand = part.groupby("hand")["loss"].sum().reindex(hands, fill_value=0.0)
        values = per_hand.to_numpy(dtype=np.float64)
        mean = float(values.mean()) * 100
        se = float(values.std(ddof=1) / np.sqrt(count)) * 100 if count > 1 else float("nan")
        if not values.any():  # nothing charged: an SE of 0 would read as a measured 0
            se = float("nan")
        labels = group if isinstance(group, tuple) else (group,)
        rows.append(
            {
                **dict(zip(keys, labels, strict=True)),
                "decisions": len(part),
                "per_100_hands": mean,
                "se": se,
                "low": mean - Z95 * se,
                "high": mean + Z95 * se,
                "clear": bool(mean > CLEAR * se) if se == se else False,
            }
        )
    return pd.DataFrame(rows)


def _normal_hands(data: OfcData) -> int:
    """The player's normal (not Fantasyland) hands in the scope: what could be graded."""
    return int(data.sql(f"SELECT count(*) FROM {SEATS} WHERE NOT in_fantasy").fetchall()[0][0])


def _decision_note(row: dict[Hashable, Any], replayed: bool) -> str:
    """The costliest street and loss part (the by-decision table's first row) in words."""
    text = (
        f"Summed by street and what the loss was mainly to, the costliest is "
        f"{row['street_name']}, mainly {row['mainly_lost_to']}: {row['per_100_hands']:.1f} ± "
        f"{row['se']:.1f} expected points lost per 100 hands "
        f"({plural(int(row['decisions']), 'decision')})"
    )
    if row["clear"]:
        return f"{text}: clear (beyond 2 SE and confirmed by the replay)."
    beyond = row["per_100_hands"] > CLEAR * row["se"]
    why = ["beyond 2 SE" if beyond else "within 2 SE"]
    why.append(
        f"the replay does not confirm {row['street_name']}"
        if replayed
        else "not replayed yet: `ofc-stats grade --replay`"
    )
    return f"{text}: not clear yet ({', '.join(why)})."


NOT_GRADED_YET = "No graded decisions for these hands yet: run `ofc-stats grade` to grade them."


def _why_ungraded(data: OfcData, frame: pd.DataFrame) -> str:
    """Why the scope has no graded decision: never graded (the hint), or graded but these
    hands could not be (the reason, no hint: grading again would not change it)."""
    if not len(frame) and not data.sql("SELECT count(*) FROM grades").fetchall()[0][0]:
        return NOT_GRADED_YET
    normal, no_discards = data.sql(
        f"SELECT count(*) FILTER (WHERE NOT in_fantasy), "
        "count(*) FILTER (WHERE NOT in_fantasy AND coalesce(len(discards), 0) = 0) "
        f"FROM {SEATS}"
    ).fetchall()[0]
    reasons = sorted(
        {str(s).removeprefix("unplayable: ") for s in frame["status"] if str(s) != "graded"}
    )
    if not no_discards and not reasons:
        # Nothing says why: the grading may not have reached these hands (`--player`).
        return (
            "None of these hands is graded: run `ofc-stats grade` if it has not seen them "
            "(without `--player`); it skips hands whose streets, yours or your opponents', "
            "are not all recorded."
        )
    detail = (
        f"; {int(no_discards):,} of your {plural(int(normal), 'normal hand')} have no "
        "discards recorded"
        if no_discards
        else ""
    )
    if reasons:
        detail += f"; the grader's reasons: {', '.join(reasons)}"
    return (
        "Graded, but none of these hands could be: `ofc-stats grade` grades a hand only "
        "where every street's cards and discards are recorded, yours and your opponents' "
        "(it counts the rest as 'not graded (streets unknown)'), and a Fantasyland set only "
        f"where its discards are shown{detail}. No expected loss can be measured for them."
    )


def build(scope: Scope) -> Report:
    data = scope.data
    report = Report("regret", "Regret: expected points lost per decision")
    frame = _grades(data)
    graded = frame[frame["status"].isin(["graded", "forced"])]
    if graded.empty:
        report.notes.append(_why_ungraded(data, frame))
        return report
    graded = graded.assign(
        hand=graded["hand_key"] + "#" + graded["seat"].astype(str),
        loss=graded["loss"].astype(np.float64),
    )
    streets = graded[graded["kind"] == "street"].assign(
        street_name=lambda f: "street " + (f["street"] + 1).astype(str)
    )
    hands = pd.Index(streets["hand"].unique())
    # Every rate says what it is over: `ofc-stats grade` prints the same measure.
    over = f"over {plural(len(hands), 'graded hand')} of {_normal_hands(data):,} normal hands"
    if len(streets):
        by_street = per_100(streets, hands, ["street_name"])
        by_type = per_100(streets, hands, ["street_name", "decision"])
        by_type = by_type[by_type["decision"] != "none"]
        # The grades' "decision" is the loss part that dominated a decision's loss.
        by_type = by_type.rename(columns={"decision": "mainly_lost_to"}).assign(
            mainly_lost_to=lambda f: f["mainly_lost_to"].map(LOST_TO).fillna(f["mainly_lost_to"])
        )
        report.tables["by_street"] = by_street
        report.tables["by_decision"] = by_type.sort_values("per_100_hands", ascending=False)
        parts = {
            name.removeprefix("loss_"): float(streets[name].sum()) / len(hands) * 100
            for name in PART_COLUMNS
        }
        report.tables["loss_parts"] = pd.DataFrame(
            [{"part": k, "per_100_hands": v} for k, v in parts.items()]
        )
        replays = _replays(data)
        replayed = replays if len(replays) else None
        leaks = named_leaks(streets, hands, replayed)
        tied = tied_decisions(streets)
        tied_text = (
            f"; left out: {plural(tied, 'decision')} played otherwise than the grader's best "
            "with no expected loss (the best play, or within 2 SE of it: tied, not a leak)"
            if tied
            else ""
        )
        calls = close_calls(data)
        graded_streets = int((streets["status"] == "graded").sum())
        close_note = _close_note(calls, graded_streets) if len(calls) else ""
        if len(leaks):
            report.tables["leaks"] = leaks
            report.captions["leaks"] = (
                f"per 100 hands: {over}; loss per decision: the mean expected loss of this "
                "decision where you made it; claimed and realised per seat: over the replayed "
                "seats where the advice first played otherwise at this decision, the grader's "
                "loss summed over all of that seat's decisions and the advice's points minus "
                "yours on your own cards (`ofc-stats grade --replay`), each a whole hand; "
                f"{CLEAR_MEANS}{tied_text}"
            )
            # The summary leads with the three costliest named leaks, each marked clear or
            # not clear yet: the costliest are what to look at, and the verdict says how sure.
            report.notes += [
                _leak_note(row, over, replayed is not None)
                for row in leaks.head(3).to_dict("records")
            ]
            if close_note:
                report.notes.append(close_note)
        else:
            # With no leak, the close calls are what there is to look at: in the same note,
            # so the summary carries them.
            report.notes.append(
                "No decision of yours lost expected points beyond the grader's noise "
                f"{over}: each was its best play or within 2 SE of it, which its rollouts "
                "cannot tell apart"
                + (f" ({plural(tied, 'tied decision')}, not leaks)." if tied else ".")
                + (f" {close_note}" if close_note else "")
            )
        if len(calls):  # after the leaks, which they are not
            report.tables["close_calls"] = calls.head(CLOSE_CALLS)
            report.captions["close_calls"] = (
                f"the {plural(min(len(calls), CLOSE_CALLS), 'close call')} where the rollouts "
                f"favoured the other play most (in SEs), of {len(calls):,}; {CLOSE_MEANS}"
            )
            report.hands.add("close_calls")  # each opens its hand in the replayer
        if replayed is not None:
            table = replay_by_street(replays)
            report.tables["replay"] = table
            report.captions["replay"] = (
                "per seat (one hand each, not scaled to 100 hands: a street may hold one "
                "seat), by the street where the advice first played otherwise; claimed: the "
                "grader's expected loss summed over the seat's decisions; realised: what its "
                "advice won over you playing your own cards against the opponents' real final "
                "boards (their plays kept as they were); confirmed: realised beyond 2 SE"
            )
            report.notes.append(replay_note(table))
            confirmed_streets = {
                row["first_deviation"] for row in table.to_dict("records") if row["confirmed"]
            }
            for name in ("by_street", "by_decision"):
                frame = report.tables[name]
                frame["clear"] = frame["clear"] & frame["street_name"].isin(confirmed_streets)
        else:
            for name in ("by_street", "by_decision"):
                report.tables[name]["clear"] = False
        by_decision = report.tables["by_decision"]
        if len(by_decision):
            # The costliest street and loss part, beside the named leaks it sums: a part of
            # many one-decision leaks can pass 2 SE where none of them does.
            # (after the three leaks' notes, or after the note saying there is none)
            at = min(3, len(leaks)) if len(leaks) else 1
            note = _decision_note(by_decision.iloc[0].to_dict(), replayed is not None)
            report.notes.insert(at, note)
        total = per_100(streets.assign(all="all"), hands, ["all"]).iloc[0]
        report.notes.append(_total_note(total, over))
        street_clear = (
            "clear: the loss exceeds 2 SE and the replay confirms that street (the advice "
            "gained on your own cards beyond 2 SE where it first played otherwise there)"
            if replayed is not None
            else "clear: never before the replay confirms it (`ofc-stats grade --replay`)"
        )
        for key in ("by_street", "by_decision", "loss_parts"):
            report.captions[key] = f"per 100 hands: {over}, a hand with no such loss counting 0"
        for key in ("by_street", "by_decision"):
            report.captions[key] += f"; {street_clear}"
        report.captions["by_decision"] += (
            "; mainly lost to: the part of each decision's expected loss that dominated it"
        )
    # Only decisions that lost expected points: a best play, or one within the noise of
    # it (loss 0), is no mistake, however many there are to fill the table with.
    lost = graded[graded["loss"].fillna(0) > 0]
    worst = lost.sort_values("loss", ascending=False).head(MISTAKES)
    worst = worst.assign(street=worst["street"] + 1)
    report.tables["biggest_mistakes"] = worst[
        ["hand_key", "played_at", "kind", "street", "chosen_play", "best_play", "loss", "loss_se"]
    ].reset_index(drop=True)
    report.captions["biggest_mistakes"] = (
        f"the {plural(len(worst), 'decision')} that lost the most expected points, of "
        f"{len(lost):,} that lost any"
        if len(lost)
        else "none: no graded decision lost expected points (each was the best play or "
        "within 2 SE of it)"
    )
    report.hands.add("biggest_mistakes")  # each mistake opens its hand in the replayer
    keys = worst["hand_key"].tolist()
    if "close_calls" in report.tables:
        keys += report.tables["close_calls"]["hand_key"].tolist()
    report.replays = hand_details(data, list(dict.fromkeys(keys)))
    fantasy = graded[graded["kind"] == "fantasy"]
    if len(fantasy):
        rows = []
        for cards, part in fantasy.groupby("fantasy_cards"):
            loss = part["loss"].to_numpy(dtype=np.float64)
            se = float(loss.std(ddof=1) / np.sqrt(len(loss))) if len(loss) > 1 else float("nan")
            rows.append(
                {
                    "cards": int(cast(float, cards)),
                    "sets": len(part),
                    "loss_per_set": float(loss.mean()),
                    "se": se,
                    "optimal": float((loss <= 1e-9).mean()),
                    "missed_repeats": int(part["missed_repeat"].fillna(False).astype(bool).sum()),
                }
            )
        report.tables["fantasy_sets"] = pd.DataFrame(rows)
        report.captions["fantasy_sets"] = (
            f"per set, over {plural(len(fantasy), 'graded Fantasyland set')}; optimal: the "
            "share of sets the solver's set does not beat"
        )
    return report
