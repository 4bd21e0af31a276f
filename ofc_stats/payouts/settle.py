"""Short-stack settlement: who gets paid first when a loser cannot pay all he owes.

A loser who has less money than he owes pays only what he has, and the room
must decide how the winners share it.  Rooms differ, so the audit models
three ways and infers each room's from its hands, as it infers the rake:

* ``action`` — winners are paid in full in order of action (seat 0 acts
  first) until the short stack's money runs out;
* ``rules`` — the settlement order of RULES.md §4: pair by pair, first the
  players after the button with each other, then each with the button, the
  short stack paying each pair's points (not his net) while money lasts;
* ``proportional`` — winners share what was paid in proportion to what the
  rules owe them.

Because the real rooms do not all follow the rules' pair order, the audit
also tries, on three-seat hands, every other order of the three pairs
(``pairs:02-01-12`` settles seats 0 and 2 first, then 0 and 1, then 1 and 2).

Only hands with a short loser can tell the kinds apart, and among those only
hands where the kinds give different amounts; :func:`infer_settlement` counts
those, and reports ties as ties.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import permutations

import numpy as np
import pandas as pd

from ofc_stats.engine.scoring import settlement_order

KINDS = ("action", "rules", "proportional")
KIND_TEXT = {
    "action": "winners paid in order of action",
    "rules": "pairs settled in the rules' order (after the button first, then the button)",
    "proportional": "winners share in proportion to their points",
}
TOLERANCE = 0.011
_PAIRS3 = tuple(settlement_order(3))


def _pair_kind(order: tuple[tuple[int, int], ...]) -> str:
    return "pairs:" + "-".join(f"{a}{b}" for a, b in order)


# Every order of the three pairs of a three-seat hand but the rules' own.
PAIR_KINDS = tuple(_pair_kind(order) for order in permutations(_PAIRS3) if order != _PAIRS3)
# Net amounts, winners paid starting from the seat acting just before the short stack and
# going backwards round the table (a room found paying so on real hands).
BEFORE = "before"
ALL_KINDS = (*KINDS, BEFORE, *PAIR_KINDS)


def is_kind(kind: str) -> bool:
    return kind in ALL_KINDS


def kind_text(kind: str) -> str:
    if kind == BEFORE:
        return "winners paid from the seat before the short stack, backwards"
    if kind.startswith("pairs:"):
        pairs = ", ".join(f"{p[0]}–{p[1]}" for p in kind[6:].split("-"))
        return f"pairs settled in the order {pairs} (seat 0 acts first)"
    return KIND_TEXT[kind]


def settle_hand(
    owed: np.ndarray,
    paid: np.ndarray,
    kind: str,
    pairwise: np.ndarray | None = None,
) -> np.ndarray:
    """Gross money of every seat (winners' before rake) under one settlement kind.

    ``owed[i]``: money the rules give seat i (negative for a loser); ``paid[i]``:
    money a loser actually gave up (>= 0, 0 for winners); ``pairwise[i, j]``:
    money j owes i by the pair's points (needed by ``rules``).  In the pool kinds
    losers keep their reported loss and the winners share it; in the pair kinds every
    seat's money follows the chips pair by pair (:func:`_pair_flow`).
    """
    owed = np.asarray(owed, dtype=np.float64)
    gross = owed.copy()
    winners = owed > 0
    losers = owed < 0
    gross[losers] = -np.asarray(paid, dtype=np.float64)[losers]
    pool = float(np.asarray(paid, dtype=np.float64)[losers].sum())
    due = float(owed[winners].sum())
    short = losers & (np.asarray(paid) < -owed - TOLERANCE)
    # Pair by pair a short loser's shortfall moves money even when another loser paid more
    # than his net (he pays the pair he loses in full, collects less from the short one).
    if due <= 0 or not short.any() or (pool >= due - TOLERANCE and not is_pair_kind(kind)):
        return owed.copy()
    if kind == "proportional":
        gross[winners] = owed[winners] * pool / due
    elif kind in ("action", BEFORE):
        payees = [int(seat) for seat in np.flatnonzero(winners)]
        if kind == BEFORE:
            behind = np.flatnonzero(short)
            loser = int(behind[0]) if len(behind) else int(np.flatnonzero(losers)[0])
            payees.sort(key=lambda seat: (loser - seat) % len(owed))
        left = pool
        for seat in payees:
            gross[seat] = min(owed[seat], left)
            left -= gross[seat]
    elif kind == "rules" or kind.startswith("pairs:"):
        if pairwise is None:
            raise ValueError("a pair order needs the pairwise amounts")
        order = settlement_order(len(owed))
        if kind.startswith("pairs:") and len(owed) == 3:
            order = [(int(p[0]), int(p[1])) for p in kind[6:].split("-")]
        gross = _pair_flow(np.asarray(paid, dtype=np.float64), short, order, pairwise)
    else:
        raise ValueError(f"unknown settlement kind {kind!r}")
    return gross


def _pair_flow(
    paid: np.ndarray, short: np.ndarray, order: list[tuple[int, int]], pairwise: np.ndarray
) -> np.ndarray:
    """Every seat's money when the pairs settle in ``order`` and each ``short`` loser ends
    down exactly ``paid`` (his stack found to fit: he may collect in a later pair what a
    short opponent can still pay, so his stack is his loss plus what he collects).

    Every seat's money follows the chips, not the winners' alone: a seat that nets 0 by
    the points pays in full the pair it loses but collects only what a short loser has
    left (Spartan hand 338269513: 120 / -105 / -15, seat 2 nets 0 by the points).

    >>> owes = np.array([[0, 90, 30], [-90, 0, -30], [-30, 30, 0]], dtype=float)
    >>> _pair_flow(np.array([0, 105, 0.0]), np.array([False, True, False]),
    ...            [(0, 1), (0, 2), (2, 1)], owes).tolist()
    [120.0, -105.0, -15.0]
    """
    stack = np.where(short, paid, np.inf)
    for _ in range(len(paid) + 1):  # a stack grows by what its seat collects: few rounds
        chips, flow = stack.copy(), np.zeros(len(paid))
        for a, b in order:
            amount = float(pairwise[a, b])
            payee, payer = (a, b) if amount > 0 else (b, a)
            amount = min(abs(amount), chips[payer])
            chips[payer] -= amount
            chips[payee] += amount
            flow[payee] += amount
            flow[payer] -= amount
        gap = np.where(short, flow + paid, 0.0)  # > 0: he lost less than he paid
        if not (gap > TOLERANCE).any():
            break
        stack = stack + np.maximum(gap, 0.0)
    return flow


def rule_source(given: bool) -> str:
    """Where a rake or settlement rule comes from, as every audit line says it."""
    return "from the rules file" if given else "inferred from these hands"


@dataclass(frozen=True)
class Settlement:
    """A room's inferred settlement kind and the hands that showed it."""

    room: str
    kind: str
    short_hands: int  # hands with a loser paying less than owed
    telling: int  # of those, hands where the kinds give different amounts
    explained: dict[str, int]  # kind -> telling hands it explains
    tied: tuple[str, ...] = ()  # kinds that explain as many telling hands as ``kind``
    given: bool = False  # from a ruleset file, not inferred

    @property
    def source(self) -> str:
        return rule_source(self.given)

    def support(self) -> str:
        """How many telling hands the kind explains: a winner's money judged by a kind
        that explains few of them may be the inference's error, not the room's."""
        if not self.telling:
            return "no short-stack hand tells the kinds apart"
        told = self.explained.get(self.kind, 0)
        return f"explains {told} of {self.telling} short-stack hands that tell the kinds apart"

    def describe(self) -> str:
        if not self.short_hands:
            return f"{self.room}: no short-stacked loser; settlement not observable"
        counts = ", ".join(
            f"{k} {n}" for k, n in self.explained.items() if k != self.kind and (k in KINDS or n)
        )
        if not self.telling:
            return (
                f"{self.room}: {self.short_hands} short-stack hand(s), none tells the kinds apart"
            )
        tie = f" (tied with {', '.join(self.tied)})" if self.tied else ""
        return (
            f"{self.room}: {kind_text(self.kind)}{tie} ({self.source}: {self.support()}; "
            f"others: {counts})"
        )


def short_hands(frame: pd.DataFrame) -> pd.Series:
    """Per seat row: its hand has a loser who paid less than the rules say (all losers known).

    A loser whose stack is recorded is never short: his points are already
    capped by it, so paying less is the room's error, not his stack.  Nor is a
    loser marked ``points_off`` (the room's points field got his points wrong,
    :func:`ofc_stats.audit.money.expected_money`): he paid by the room's points.
    """
    losing = frame["owed"] < 0
    short = losing & frame["reported_money"].notna()
    short &= -frame["reported_money"] < -frame["owed"] - TOLERANCE
    if "stack" in frame:
        short &= frame["stack"].isna()
    if "points_off" in frame:
        short &= ~frame["points_off"].astype(bool)
    codes = pd.factorize(frame["hand_key"])[0]
    known = ~_any_per_hand(losing & frame["reported_money"].isna(), codes)
    return pd.Series(_any_per_hand(short, codes) & known, index=frame.index)


def is_pair_kind(kind: str) -> bool:
    """Kinds that settle pair by pair (a short loser's chips pass through each pair)."""
    return kind == "rules" or kind.startswith("pairs:")


def explained_short(
    frame: pd.DataFrame,
    net_of_rake: Callable[[pd.Series], pd.Series],
    pairwise: dict[str, np.ndarray] | None = None,
    kinds: Sequence[str] = ALL_KINDS,
) -> pd.Series:
    """Per seat row: its hand has a short loser (:func:`short_hands`) *and* a short stack
    explains what the room paid: under some settlement kind, with each short loser's
    payment as his stack, every seat's money after the rake (``net_of_rake``) is what the
    room reported, no loser paid more than he owed, and no stack or winner's share is
    below nothing (money conserved: the winners share what the losers paid).

    A loser the room under-paid by mistake also pays less than he owes; without this
    test his shortfall was taken as his stack and the winners judged by it, so a hand
    paid with flipped signs (the "stack" negative) or a loss cut by a wrong royalty
    table was never flagged.  A hand no kind explains is judged as paid in full.
    Any kind, not only the room's: a short-stack hand the room paid in another order
    still has a short loser, and its winners are judged (and named) by the room's kind.
    """
    candidate = short_hands(frame)
    out = pd.Series(False, index=frame.index)
    if not candidate.any():
        return out
    sub = frame.loc[candidate, ["hand_key", "seat", "owed", "reported_money"]].assign(short=True)
    codes = pd.factorize(sub["hand_key"])[0]
    losing = sub["owed"] < 0
    overpaid = losing & (sub["reported_money"] < sub["owed"] - TOLERANCE)
    explained = np.zeros(len(sub), dtype=bool)
    # When the pool is shared, no loser pays more than he owes; pair by pair one may (he
    # pays the pair he loses in full and collects only what a short loser has left).
    overpaying = _any_per_hand(overpaid, codes)
    todo = np.ones(len(sub), dtype=bool)
    for kind in kinds:  # each kind settles only the hands no kind before it explained
        pair_kind = is_pair_kind(kind)
        tried = todo if pair_kind else todo & ~overpaying
        if not tried.any():
            continue
        rows = sub[tried]
        owed, money = rows["owed"], rows["reported_money"]
        gross = gross_by_kind(rows, kind, pairwise)
        wrong = (net_of_rake(gross) - money).abs() > TOLERANCE  # unknown money: no evidence
        if pair_kind:  # his chips: a stack is never negative
            wrong |= (owed < 0) & (money > owed + TOLERANCE) & (money > TOLERANCE)
        else:
            wrong |= (owed > 0) & (gross < -TOLERANCE)  # a winner's share of what was paid
        fits = ~_any_per_hand(wrong, codes[tried])
        at = np.flatnonzero(tried)[fits]
        explained[at] = True
        todo[at] = False
    out[candidate] = explained
    return out


def _any_per_hand(mask: pd.Series, codes: np.ndarray) -> np.ndarray:
    """Per row: does any row of its hand (same ``codes``) have ``mask``?  One bincount."""
    if not len(codes):
        return np.zeros(0, dtype=bool)
    hits = np.bincount(codes, weights=mask.to_numpy(dtype=np.float64), minlength=codes.max() + 1)
    return np.asarray(hits[codes] > 0)


def gross_by_kind(
    frame: pd.DataFrame, kind: str, pairwise: dict[str, np.ndarray] | None = None
) -> pd.Series:
    """Gross money per seat row under ``kind`` (frame needs hand_key, seat, owed, reported_money).

    Hands paid in full keep ``owed``; only short-stack hands are settled one
    by one, so the loop runs over the few hands that need it.
    """
    gross = frame["owed"].to_numpy(dtype=np.float64).copy()
    mask = (frame["short"] if "short" in frame else short_hands(frame)).to_numpy(dtype=bool)
    if mask.any():
        rows = np.flatnonzero(mask)
        sub = frame.iloc[rows]
        order = np.lexsort((sub["seat"].to_numpy(), sub["hand_key"].to_numpy()))
        rows = rows[order]
        keys = frame["hand_key"].to_numpy()[rows]
        owed_all = gross[rows]
        money = frame["reported_money"].to_numpy(dtype=np.float64)[rows]
        paid_all = np.where(owed_all < 0, -np.nan_to_num(money), 0.0)
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        ends = np.r_[starts[1:], len(rows)]
        pair_kind = is_pair_kind(kind)
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            owed = owed_all[start:end]
            pairs = None if pairwise is None else pairwise.get(str(keys[start]))
            if pair_kind and pairs is None:
                pairs = _pairwise_from_net(owed)
            gross[rows[start:end]] = settle_hand(owed, paid_all[start:end], kind, pairs)
    return pd.Series(gross, index=frame.index)


def _pairwise_from_net(owed: np.ndarray) -> np.ndarray:
    """Heads-up or one-loser hands: each winner's whole net is owed by the loser."""
    n = len(owed)
    pairs = np.zeros((n, n))
    losers = np.flatnonzero(owed < 0)
    if len(losers) == 1:
        for seat in np.flatnonzero(owed > 0):
            pairs[seat, losers[0]] = owed[seat]
            pairs[losers[0], seat] = -owed[seat]
    return pairs


def infer_settlement(
    room: str,
    frame: pd.DataFrame,
    net_of_rake: dict[str, pd.Series],
) -> Settlement:
    """The kind whose winners' money (after rake) explains the most telling short-stack hands.

    ``net_of_rake[kind]`` is each seat row's expected money under that kind.
    A hand *tells* when the kinds' expectations for its winners differ; a
    kind explains it when every winner's reported money is within a cent.
    """
    mask = frame["short"] if "short" in frame else short_hands(frame)
    winners = mask & (frame["owed"] > 0) & frame["reported_money"].notna()
    short_count = int(frame.loc[mask, "hand_key"].nunique())
    if not winners.any():
        return Settlement(room, "proportional", short_count, 0, {})
    keys = frame.loc[winners, "hand_key"]
    kinds = list(net_of_rake)
    expected = pd.DataFrame({k: net_of_rake[k][winners] for k in kinds})
    spread = (expected.max(axis=1) - expected.min(axis=1)).groupby(keys).max()
    telling = spread[spread > TOLERANCE].index
    money = frame.loc[winners, "reported_money"]
    explained: dict[str, int] = {}
    for kind in kinds:
        ok = ((expected[kind] - money).abs() <= TOLERANCE).groupby(keys).all()
        explained[kind] = int(ok[ok.index.isin(telling)].sum())
    best = max(kinds, key=lambda k: (explained[k], -kinds.index(k)))
    tied = tuple(k for k in kinds if k != best and explained[k] == explained[best])
    if not len(telling) or explained[best] == 0:
        best, tied = "proportional", ()
    return Settlement(room, best, short_count, len(telling), explained, tied)
