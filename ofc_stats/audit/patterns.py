"""Patterns across the seats of a hand: how a room's payments differ from the rules' as a whole.

A money mismatch is rarely one seat's alone: when a room pays a hand another
way, two or more seats move together.  Seat by seat those read as separate
"room errors"; across the hand they are one difference with a name.  For each
hand with a money mismatch the audit tries, in this order:

* **short stack paid in another order** — a loser was short and another of the
  settlement orders it models (:mod:`.settle`) gives every seat what the room paid;
* **split between losers moved** — the winners got what the rules give and the
  losers paid the rules' total, split between them otherwise;
* **split between winners moved** — the losers paid what the rules say and the
  winners got the rules' total (to the rake's rounding), split otherwise;
* **rake capped** — a winner got more than the rule leaves and the room kept an
  amount no winning seat of the room was ever charged more than (a cap),
  with the room's hands that keep exactly it and those that contradict it;
* **rake rounded another way** — another rounding of the same rate (or none)
  gives what the room paid, with how many of the room's winners it explains;
* **rounding carried to one seat** — one seat off by less than a rounding step
  where rounding the hand's rake once, on its total, gives what the room paid.

Each explaining pattern comes with its evidence; a hand none explains says so.
The room-wide counts (how many winning seats a cap or rounding explains) are
what tell a pattern from a coincidence on one hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from ofc_stats.audit.money import TICKS, TOLERANCE, Rake, Winners, after_rake
from ofc_stats.payouts.rake import MODES, rounded
from ofc_stats.payouts.settle import ALL_KINDS, Settlement, gross_by_kind, kind_text
from ofc_stats.wording import plural

OTHER_ORDER = "short stack paid in another order"
LOSERS_SPLIT = "split between losers moved"
WINNERS_SPLIT = "split between winners moved"
RAKE_CAP = "rake capped"
RAKE_ROUNDING = "rake rounded another way"
ONE_SEAT = "rounding carried to one seat"
NOTHING = "no pattern explains it"
PATTERNS = (OTHER_ORDER, LOSERS_SPLIT, WINNERS_SPLIT, RAKE_CAP, RAKE_ROUNDING, ONE_SEAT)
TRIED = (
    "another settlement order, a split moved between losers or between winners, a rake cap, "
    "another rake rounding, rounding carried to one seat"
)


@dataclass(frozen=True)
class HandPattern:
    """The pattern that explains one hand's money (or ``NOTHING``), with its evidence."""

    hand_key: str
    name: str
    evidence: str
    also: tuple[str, ...] = ()  # other patterns that fit the hand too

    @property
    def explained(self) -> bool:
        return self.name != NOTHING


@dataclass(frozen=True)
class _Room:
    """What the patterns need of one room and currency."""

    rake: Rake
    settlement: Settlement
    pairwise: Mapping[str, npt.NDArray[np.float64]]
    unit: str
    # the room's winning seats of hands paid in full, as (gross, money) counted: all its
    # seats', however few of them the hands judged are
    winners: Winners


def hand_patterns(
    frame: pd.DataFrame,
    keys: list[str] | npt.NDArray[np.object_],
    rake: Rake,
    settlement: Settlement,
    pairwise: Mapping[str, npt.NDArray[np.float64]] | None = None,
    winners: Winners | None = None,
) -> dict[str, HandPattern]:
    """The pattern of each hand in ``keys`` (hands with a money mismatch) of one room's
    ``frame`` (room_money's seats of one room and currency: all of them, or those hands'
    with ``winners`` the room's winning seats paid in full, :meth:`Winners.of` its seats)."""
    currency = str(frame["currency"].iloc[0]) if "currency" in frame and len(frame) else ""
    unit = f" {currency}" if currency else ""
    room = _Room(rake, settlement, pairwise or {}, unit, winners or Winners.of(frame))
    by_hand = frame[frame["hand_key"].isin(list(keys))].sort_values(["hand_key", "seat"])
    out: dict[str, HandPattern] = {}
    for key, hand in by_hand.groupby("hand_key", sort=False):
        found = _try_all(room, hand)
        if not found:
            out[str(key)] = HandPattern(
                str(key), NOTHING, f"nothing the audit tries across the hand's seats ({TRIED}) "
                "gives what the room paid",
            )  # fmt: skip
            continue
        (name, evidence), *rest = found
        out[str(key)] = HandPattern(str(key), name, evidence, tuple(n for n, _ in rest))
    return out


def _try_all(room: _Room, hand: pd.DataFrame) -> list[tuple[str, str]]:
    found = []
    for name, attempt in (
        (OTHER_ORDER, _other_order),
        (LOSERS_SPLIT, _losers_split),
        (WINNERS_SPLIT, _winners_split),
        (RAKE_CAP, _rake_cap),
        (RAKE_ROUNDING, _rake_rounding),
        (ONE_SEAT, _one_seat),
    ):
        evidence = attempt(room, hand)
        if evidence:
            found.append((name, evidence))
    return found


def _near(a: npt.ArrayLike, b: npt.ArrayLike, tolerance: float = TOLERANCE) -> bool:
    gap = np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))
    return bool(np.all(gap <= tolerance))


def _amounts(hand: pd.DataFrame, column: str, mask: pd.Series, unit: str) -> str:
    return ", ".join(
        f"{float(v):g}{unit} (seat {int(s)})"
        for s, v in zip(hand.loc[mask, "seat"], hand.loc[mask, column], strict=True)
    )


def _other_order(room: _Room, hand: pd.DataFrame) -> str:
    """Another modelled settlement order gives every seat what the room paid."""
    if not bool(hand["short"].any()):
        return ""
    fits = []
    for kind in ALL_KINDS:
        if kind == room.settlement.kind:
            continue
        gross = gross_by_kind(hand, kind, dict(room.pairwise) if room.pairwise else None)
        if _near(after_rake(gross, room.rake), hand["reported_money"]):
            fits.append(kind)
    if not fits:
        return ""
    explained = room.settlement.explained
    telling = room.settlement.telling
    best = max(fits, key=lambda k: explained.get(k, 0))  # the order the room shows most
    others = f" ({plural(len(fits) - 1, 'other order')} fit too)" if len(fits) > 1 else ""
    return (
        f"a loser was short and the room paid the winners as '{kind_text(best)}' does "
        f"(it explains {explained.get(best, 0)} of the room's {telling} telling short-stack "
        f"hands){others}, not as the order judged by, '{kind_text(room.settlement.kind)}' "
        f"({explained.get(room.settlement.kind, 0)} of {telling})"
    )


def _losers_split(room: _Room, hand: pd.DataFrame) -> str:
    """Winners right, the losers' total right, the split between them not."""
    losers = hand["owed"] < 0
    winners = hand["owed"] > 0
    paid, owed = hand["reported_money"], hand["owed"]
    off = losers & ((paid - owed).abs() > TOLERANCE)
    if int(off.sum()) < 2 or not _near(paid[winners], hand.loc[winners, "expected_money"]):
        return ""
    if abs(float(paid[losers].sum() - owed[losers].sum())) > TOLERANCE:
        return ""
    return (
        f"the winners got what the rules give and the losers paid "
        f"{-float(paid[losers].sum()):g}{room.unit} in all, as the points say, but the room "
        f"split it {_amounts(hand, 'reported_money', losers, room.unit)} where the points "
        f"give {_amounts(hand, 'owed', losers, room.unit)}"
    )


def _winners_split(room: _Room, hand: pd.DataFrame) -> str:
    """Losers right, the winners' total right to the rake's rounding, the split not."""
    losers = hand["owed"] < 0
    winners = hand["owed"] > 0
    paid, expected = hand["reported_money"], hand["expected_money"]
    off = winners & ((paid - expected).abs() > TOLERANCE)
    if int(off.sum()) < 2 or not _near(paid[losers], expected[losers]):
        return ""
    slack = room.rake.tick * int(winners.sum()) if room.rake.rate else 0.0
    if abs(float(paid[winners].sum() - expected[winners].sum())) > slack + TOLERANCE:
        return ""
    short = (
        "; a loser was short, and none of the settlement orders the audit models gives this split"
        if bool(hand["short"].any())
        else ""
    )
    return (
        f"the losers paid what the rules say and the winners got "
        f"{float(paid[winners].sum()):g}{room.unit} in all, the rules' total to the rake's "
        f"rounding, but split {_amounts(hand, 'reported_money', winners, room.unit)} where "
        f"the rules give {_amounts(hand, 'expected_money', winners, room.unit)}{short}"
    )


def _winner_rows_off(hand: pd.DataFrame) -> pd.Series | None:
    """The off seats when every one of them is a winner paid in full, else None."""
    off = (hand["reported_money"] - hand["expected_money"]).abs() > TOLERANCE
    if not off.any() or bool(hand["short"].any()) or not bool((hand.loc[off, "gross"] > 0).all()):
        return None
    return off


def _rake_cap(room: _Room, hand: pd.DataFrame) -> str:
    """A winner got more than the rule leaves; the room kept a constant no winner exceeded."""
    off = _winner_rows_off(hand)
    if off is None or not room.rake.rate:
        return ""
    rows = hand[off]
    kept = rows["gross"] - rows["reported_money"]
    rule = rounded(
        rows["gross"].to_numpy(dtype=float) * room.rake.rate, room.rake.tick, room.rake.mode
    )
    if (kept <= TOLERANCE).any() or not bool((kept.to_numpy() < rule - TOLERANCE).all()):
        return ""
    cap = float(kept.max())
    if not _near(kept, cap):
        return ""
    winners = room.winners
    kept_all = winners.gross - winners.money
    at_cap = np.abs(kept_all - cap) <= TOLERANCE
    above = winners.gross * room.rake.rate > cap + TOLERANCE
    support = int(winners.count[at_cap & above].sum())
    over = int(winners.count[kept_all > cap + TOLERANCE].sum())
    if over:
        return ""
    below = kept_all[~at_cap & (kept_all > TOLERANCE)]
    most = ""
    if len(below):
        most = f"; the most any other winning seat was charged is {float(below.max()):g}{room.unit}"
    return (
        f"the room kept {cap:g}{room.unit} of {_amounts(hand, 'gross', off, room.unit)} "
        f"where the rule ({room.rake.rule()}) takes {', '.join(f'{v:g}' for v in rule)}"
        f"{room.unit}: a rake capped at {cap:g}{room.unit}? {plural(support, 'winning seat')} of "
        f"the room kept exactly {cap:g}{room.unit} where the rate takes more, none was "
        f"charged more{most}"
    )


def _rake_rounding(room: _Room, hand: pd.DataFrame) -> str:
    """Another rounding of the rule's rate (or none) gives every winner of the hand his money."""
    off = _winner_rows_off(hand)
    if off is None or not room.rake.rate:
        return ""
    winning = hand["gross"] > 0
    gross = hand.loc[winning, "gross"].to_numpy(dtype=float)
    paid = hand.loc[winning, "reported_money"].to_numpy(dtype=float)
    winners = room.winners
    all_gross, all_paid, weight = winners.gross, winners.money, winners.count
    rate = room.rake.rate
    fits = []
    if _near(gross - gross * rate, paid):
        ok = np.abs(all_gross * (1 - rate) - all_paid) <= TOLERANCE
        fits.append(("the rate unrounded", int(weight[ok].sum())))
    for tick in TICKS:
        for mode in MODES:
            if (tick, mode) == (room.rake.tick, room.rake.mode):
                continue
            if _near(gross - rounded(gross * rate, tick, mode), paid):
                ok = np.abs(all_gross - rounded(all_gross * rate, tick, mode) - all_paid)
                fits.append((f"rounded {mode} to {tick:g}", int(weight[ok <= TOLERANCE].sum())))
    if not fits:
        return ""
    name, count = max(fits, key=lambda fit: fit[1])
    return (
        f"{rate:.2%} of the winnings {name} gives what the room paid; over the room's "
        f"{winners.seats:,} winning seats paid in full that rounding explains {count:,}, the "
        f"rule's (rounded {room.rake.mode} to {room.rake.tick:g}) {room.rake.explained:,}"
    )


def _one_seat(room: _Room, hand: pd.DataFrame) -> str:
    """One winner off by less than a step, and the hand's rake rounded once on its total."""
    if not room.rake.rate:
        return ""
    off = (hand["reported_money"] - hand["expected_money"]).abs() > TOLERANCE
    winners = hand["gross"] > 0
    if int(off.sum()) != 1 or int(winners.sum()) < 2 or not bool((off & winners).any()):
        return ""
    diff = float((hand.loc[off, "reported_money"] - hand.loc[off, "expected_money"]).iloc[0])
    if abs(diff) > room.rake.tick * int(winners.sum()) + TOLERANCE:
        return ""
    total = float(hand.loc[winners, "gross"].sum())
    once = total - float(
        rounded(np.array([total * room.rake.rate]), room.rake.tick, room.rake.mode)[0]
    )
    paid = float(hand.loc[winners, "reported_money"].sum())
    if abs(once - paid) > TOLERANCE:
        return ""
    return (
        f"the winners got {paid:g}{room.unit} in all: the hand's rake rounded once on its "
        f"{total:g}{room.unit} total, the rounding ({diff:+g}{room.unit}) carried to "
        f"seat {int(hand.loc[off, 'seat'].iloc[0])}"
    )


__all__ = ["NOTHING", "PATTERNS", "HandPattern", "hand_patterns"]
