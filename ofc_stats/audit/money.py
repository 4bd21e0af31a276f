"""Money against points × stakes, and each room's rake rule inferred from its hands.

Rooms pay winners the points times the stake minus a rake, and losers pay
points times the stake, or less when their chips run out.  Rather than assume
a rake, :func:`infer_rake` tries rates from 0 to 10% and three rounding rules
on every winning seat of hands paid in full and keeps the rule that explains
the most of them.  Hands where a loser paid less than he owed are settled by
the room's own short-stack rule (:mod:`ofc_stats.payouts.settle`), inferred
next, so a short-stacked loser does not make every winner look wrong.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.audit.chunks import each_share, table_shares
from ofc_stats.audit.fields import field_verdicts, rooms_measuring
from ofc_stats.audit.money_seats import (  # MONEY_SQL's rows, at less memory
    money_seats,
    table_seat_keys,
)
from ofc_stats.payouts.rake import MODES, rake_taken, rounded
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.payouts.settle import (
    ALL_KINDS,
    Settlement,
    explained_short,
    gross_by_kind,
    infer_settlement,
    rule_source,
    short_hands,
)
from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural

RATES = np.round(np.arange(0, 0.1001, 0.0025), 4)
TICKS = (0.01, 0.1, 1.0)
TOLERANCE = 0.011
# Kept to the cent: rules that explain as many winning seats within TOLERANCE are told
# apart by the seats each gives exactly (Upoker USD: 3% rounded up to 0.01 gives 105 of
# 106 to the cent, rounded to the nearest 97, and both 105 within a cent).
EXACT = 0.005
POINTS_EPS = 1e-6  # reported points this close to the rules' agree (as the points check)
CAP_CANDIDATES = 3  # the amounts kept most often below the rate, tried as a cap


@dataclass(frozen=True)
class Rake:
    room: str
    rate: float
    tick: float
    mode: str
    winners: int
    explained: int
    multiplier: float = 1.0  # money per point is stakes × this (1 unless the data says else)
    given: bool = False  # from a ruleset file, not inferred
    largest: float = 0.0  # the largest winning seat (gross) the rule explains
    # the best rule of another rate or rounding: (rate, tick, mode, winning seats explained)
    runner_up: tuple[float, float, str, int] | None = None
    cap: float | None = None  # the most the room keeps of one winner, when it has a cap
    # the cap's evidence: winning seats whose rate takes more than it, and of those the
    # ones the cap explains; the runner-up is the same rule without (or with) the cap
    capped: tuple[int, int] = (0, 0)
    cap_runner_up: tuple[float | None, int] | None = None

    def rule(self) -> str:
        rule = f"{self.rate:.2%} of the winnings, rounded {self.mode} to {self.tick:g}"
        if self.rate == 0:
            rule = "no rake"
        elif self.cap is not None:
            rule += f", at most {self.cap:g}"
        if self.multiplier != 1:
            rule += f"; money = points × stakes × {self.multiplier:g}"
        return rule

    @property
    def source(self) -> str:
        return rule_source(self.given)

    def support(self) -> str:
        """How much of the room the rule explains: a mismatch against a rule inferred from
        the same hands may be the inference's error, not the room's."""
        share = self.explained / self.winners if self.winners else 0.0
        return f"explains {self.explained:,} of {self.winners:,} winning seats, {share:.1%}"

    def describe(self) -> str:
        text = f"{self.room}: {self.rule()} ({self.source}: {self.support()}"
        if self.runner_up is not None and not self.given:
            rate, tick, mode, count = self.runner_up
            other = replace(self, rate=rate, tick=tick, mode=mode, multiplier=1.0, cap=None)
            # (the runner-up's own cap, if any, is in its count, not its words)
            text += f"; runner-up {other.rule()}, explains {count:,}"
        if self.cap is not None and self.cap_runner_up is not None and not self.given:
            reach, fit = self.capped
            text += (
                f"; the cap: {fit:,} of the {plural(reach, 'winning seat')} whose rate takes more "
                f"kept exactly {self.cap:g}, and without it the rule explains "
                f"{self.cap_runner_up[1]:,}"
            )
        return text + ")"


@dataclass(frozen=True)
class Winners:
    """A room's winning seats paid in full, as the rake sees them: each distinct (gross,
    money) and how many seats had it.  A rake rule explains a seat or not by these two
    numbers alone, so the rake inferred from the counts is the rake inferred from the
    seats, and the counts of the room's shares add up (:meth:`plus`): a few hundred
    pairs, not a row a seat (memory follows the share, not the dataset)."""

    gross: npt.NDArray[np.float64]
    money: npt.NDArray[np.float64]
    count: npt.NDArray[np.int64]

    @classmethod
    def of(cls, seats: pd.DataFrame) -> Winners:
        """The winning seats of ``seats`` (gross > 0) with money reported, paid in full
        (not ``short``)."""
        paid_in_full = ~seats["short"] if "short" in seats else True
        winners = (seats["gross"] > 0) & seats["reported_money"].notna() & paid_in_full
        return cls.pairs(
            seats.loc[winners, "gross"].to_numpy(dtype=np.float64),
            seats.loc[winners, "reported_money"].to_numpy(dtype=np.float64),
            np.ones(int(winners.sum()), dtype=np.int64),
        )

    @classmethod
    def pairs(
        cls,
        gross: npt.NDArray[np.float64],
        money: npt.NDArray[np.float64],
        count: npt.NDArray[np.int64],
    ) -> Winners:
        if not len(gross):
            return cls(np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64))
        both = np.column_stack([gross, money])
        unique, inverse = np.unique(both, axis=0, return_inverse=True)
        total = np.bincount(inverse.ravel(), weights=count, minlength=len(unique))
        return cls(unique[:, 0].copy(), unique[:, 1].copy(), total.astype(np.int64))

    def plus(self, other: Winners) -> Winners:
        return Winners.pairs(
            np.r_[self.gross, other.gross],
            np.r_[self.money, other.money],
            np.r_[self.count, other.count],
        )

    @property
    def seats(self) -> int:
        return int(self.count.sum())


# Losers who must pay one ratio of points × stakes before it is the room's multiplier: a
# lone Ppp hand's short loser (0.565) priced its winner's 21 points at 2.373 USD, not 4.2.
MULTIPLIER_LOSERS = 5


@dataclass
class Ratios:
    """A room's losers' money over points × stakes (to 3 decimals), counted share by share:
    :meth:`multiplier` is how many times points × stakes they pay (usually 1)."""

    counts: Counter[float] = field(default_factory=Counter)
    losers: int = 0  # losers with money reported, a ratio or not

    def add(self, seats: pd.DataFrame) -> None:
        losers = seats[(seats["net_capped"] < 0) & seats["reported_money"].notna()]
        owed = losers["net_capped"] * losers["stakes"].fillna(1.0)
        ratios = (losers["reported_money"] / owed).round(3)
        self.counts.update(ratios.dropna().tolist())
        self.losers += len(losers)

    def multiplier(self) -> float:
        """The most common ratio (the smallest of those as common), when it is positive,
        at least half the losers pay it and at least :data:`MULTIPLIER_LOSERS` do; else 1
        (one short-stacked loser of a one-hand dataset is no room's rule)."""
        if not self.counts:
            return 1.0
        most = max(self.counts.values())
        common = min(ratio for ratio, seen in self.counts.items() if seen == most)
        if common <= 0 or most / self.losers < 0.5 or most < MULTIPLIER_LOSERS:
            return 1.0
        return float(common)


def expected_money(
    seats: pd.DataFrame,
    multiplier: float = 1.0,
    kind: str = "proportional",
    pairwise: dict[str, npt.NDArray[np.float64]] | None = None,
    points_field: bool = False,
) -> pd.DataFrame:
    """Add ``owed`` (points × stakes × multiplier), ``short`` and ``gross`` to a seat frame.

    ``gross`` is what each seat wins or pays before rake when short stacks
    settle by ``kind``.  Needs columns hand_key, seat, net_capped, stakes,
    reported_money.  ``points_field``: the room's ``result`` is the hand's points
    (its field verdict, :mod:`.fields`); then a seat whose reported points differ
    from the rules' is marked ``points_off`` and is never a short stack
    (:func:`~ofc_stats.payouts.settle.short_hands`): a loser who paid by the room's
    wrong points paid less through that error, not for want of chips.
    """
    frame = seats.copy()
    if "seat" not in frame:
        frame["seat"] = frame.groupby("hand_key").cumcount()
    stakes = frame["stakes"].fillna(1.0)
    frame["owed"] = frame["net_capped"] * stakes * multiplier
    if points_field and "reported_points" in frame:
        reported = frame["reported_points"].astype(np.float64)
        frame["points_off"] = (reported - frame["net_capped"]).abs() > POINTS_EPS
    frame["short"] = short_hands(frame)
    frame["gross"] = gross_by_kind(frame, kind, pairwise)
    return frame


def after_rake(gross: pd.Series, rake: Rake) -> pd.Series:
    """Money a seat gets: winners' gross less the rounded (and capped) rake, losers' as is."""
    values = gross.to_numpy(dtype=np.float64).copy()
    winning = values > 0
    values[winning] -= rake_taken(values[winning], rake.rate, rake.tick, rake.mode, rake.cap)
    return pd.Series(values, index=gross.index)


def given_rake(
    room: str,
    seats: pd.DataFrame | Winners,
    multiplier: float,
    rule: tuple[float, float, str],
    cap: float | None = None,
) -> Rake:
    """The file's rake (rate, tick, mode, cap), with the winning seats paid in full it
    explains (``seats``: a seat frame, or its :class:`Winners`)."""
    rate, tick, mode = rule
    winners = seats if isinstance(seats, Winners) else Winners.of(seats)
    gross, money, weight = winners.gross, winners.money, winners.count
    rake = rake_taken(gross, rate, tick, mode, cap)
    ok = np.abs(gross - rake - money) <= TOLERANCE
    largest = float(gross[ok].max()) if ok.any() else 0.0
    return Rake(
        room, rate, tick, mode, winners.seats, int(weight[ok].sum()), multiplier, True, largest,
        cap=cap,
    )  # fmt: skip


def infer_cap(
    gross: npt.NDArray[np.float64],
    money: npt.NDArray[np.float64],
    rate: float,
    tick: float,
    mode: str,
    weight: npt.NDArray[np.int64] | None = None,
) -> tuple[float | None, int, int, int, int]:
    """The cap on the rake that explains the most winning seats under (rate, tick, mode).

    A candidate is an amount the room kept of winners whose rate takes more (the
    few kept most often); it is kept only when it explains more winning seats
    than no cap.  ``weight``: how many seats each (gross, money) stands for (one
    each without it).  Returns (cap or
    None, seats explained with it, seats explained without, seats whose rate
    takes more than the cap, of those the seats the cap explains).
    """
    seats = np.ones(len(gross), dtype=np.int64) if weight is None else weight
    rake = rounded(gross * rate, tick, mode)
    kept = gross - money
    plain = int(seats[np.abs(kept - rake) <= TOLERANCE].sum())
    below = (kept > TOLERANCE) & (kept < rake - TOLERANCE)
    best: tuple[float | None, int] = (None, plain)
    values, inverse = np.unique(np.round(kept[below], 6), return_inverse=True)
    seen = np.bincount(inverse.ravel(), weights=seats[below], minlength=len(values))
    for cap in values[np.argsort(-seen, kind="stable")[:CAP_CANDIDATES]].tolist():
        count = int(seats[np.abs(kept - np.minimum(rake, cap)) <= TOLERANCE].sum())
        if count > best[1]:
            best = (float(cap), count)
    cap = best[0]
    if cap is None:
        return None, plain, plain, 0, 0
    reach = rake > cap + TOLERANCE
    fit = int(seats[reach & (np.abs(kept - cap) <= TOLERANCE)].sum())
    return cap, best[1], plain, int(seats[reach].sum()), fit


def infer_rake(room: str, seats: pd.DataFrame | Winners, multiplier: float = 1.0) -> Rake:
    """The (rate, rounding) that explains the most winning seats of one room.

    ``room`` labels the group: the audit infers one rule per room and currency,
    since one app rounds dollars to 0.1 and pesos to 1.  ``seats``: a seat frame, or
    its :class:`Winners` (the counts a room's shares add up to: the same rule).
    """
    winners = seats if isinstance(seats, Winners) else Winners.of(seats)
    gross, money, weight = winners.gross, winners.money, winners.count
    # 369 candidate rules, each with its own best cap, if any: a capped room's big wins
    # would otherwise favour a lower rate that happens to round to the cap.
    counts: dict[tuple[float, float, str], int] = {}
    caps: dict[tuple[float, float, str], float | None] = {}
    exact: dict[tuple[float, float, str], int] = {}
    for tick in TICKS:
        for mode in MODES:
            for rate in RATES.tolist():
                found, count, *_ = infer_cap(gross, money, rate, tick, mode, weight)
                rule = (float(rate), tick, mode)
                counts[rule] = count
                caps[rule] = found
                off = np.abs(gross - rake_taken(gross, rate, tick, mode, found) - money)
                exact[rule] = int(weight[off <= EXACT].sum())
    # Stable: of rules that explain as many seats, the one that gives more of them to the
    # cent (a cent of slack must not let a rounding that is a cent out tie with the room's
    # own), then one without a cap, then the first found.
    ranked = sorted(counts, key=lambda rule: (-counts[rule], -exact[rule], caps[rule] is not None))
    best = ranked[0] if counts[ranked[0]] else (0.0, 0.01, "nearest")
    rate, tick, mode = best
    cap, _, without, reach, fit = infer_cap(gross, money, rate, tick, mode, weight)
    caps[best] = cap

    def explained(rate: float, tick: float, mode: str) -> npt.NDArray[np.bool_]:
        rake = rake_taken(gross, rate, tick, mode, caps.get((rate, tick, mode)))
        return np.asarray(np.abs(gross - rake - money) <= TOLERANCE)

    ok = explained(rate, tick, mode)
    cap_runner_up = (None, without) if cap is not None else None
    largest = float(gross[ok].max()) if ok.any() else 0.0
    # The runner-up: the best rule that differs from the winner's on some winning seat.
    runner_up = None
    for other in ranked[1:]:
        if counts[other] and (explained(*other) != ok).any():
            runner_up = (*other, int(weight[explained(*other)].sum()))
            break
    return Rake(
        room, rate, tick, mode, winners.seats, int(weight[ok].sum()), multiplier,
        largest=largest, runner_up=runner_up, cap=cap, capped=(reach, fit),
        cap_runner_up=cap_runner_up,
    )  # fmt: skip


def money_mismatches(seats: pd.DataFrame, rake: Rake) -> pd.DataFrame:
    """Seats of one room whose money differs from the rules' under ``rake`` and settlement.

    A short-stacked loser's own payment is his stack, not an error: it is
    checked through what the winners got.  ``expected_money`` is the column
    the ledger sums.
    """
    frame = seats[seats["reported_money"].notna()].copy()
    frame["expected_money"] = after_rake(frame["gross"], rake)
    short = (frame["owed"] < 0) & (frame["reported_money"] > frame["owed"] + TOLERANCE)
    frame["short_paid"] = short & (frame["reported_money"] <= 0)
    off = np.abs(frame["reported_money"] - frame["expected_money"]) > TOLERANCE
    result: pd.DataFrame = frame[off]
    return result


@dataclass(frozen=True)
class RoomMoney:
    """Every seat with reported money, its expected money, and each room's inferred rules."""

    seats: pd.DataFrame  # seat rows + owed, gross, expected_money, short, short_paid
    rakes: tuple[Rake, ...]
    settlements: tuple[Settlement, ...]
    # per room and currency (as rakes): money each seat owes each other in short-stack hands
    pairwise: tuple[dict[str, npt.NDArray[np.float64]], ...] = ()
    # the rooms whose `result` is the hand's points (field verdicts): a loser there whose
    # reported points are wrong is no short stack (expected_money's points_field)
    points_rooms: frozenset[str] = frozenset()
    # each room and currency's rules as inferred, in the rakes' order: what prices a share
    # of the seats (priced_shares) when ``seats`` is not kept
    rooms: tuple[RoomTally, ...] = ()

    def tallies(self) -> dict[tuple[str, str], RoomTally]:
        """The rooms' rules by (room, currency), for :func:`priced_shares`."""
        return {(t.room, t.currency): t for t in self.rooms}


MONEY_SQL = """
SELECT hand_key, hand_id, seat, player, player_key, hero, room, ruleset, scored_with,
       net_capped, reported_points, stakes, reported_money, stack,
       coalesce(currency, '') AS currency
FROM seat_results WHERE status = 'scored'
  AND hand_key IN (SELECT hand_key FROM seats WHERE reported_money IS NOT NULL)
ORDER BY hand_key, seat
"""


MoneyRules = RoomRules | Callable[[str], RoomRules | None] | None  # one for all, or per room


def room_money(
    data: OfcData,
    rules: MoneyRules = None,
    *,
    hands: str | None = None,
    points_rooms: Collection[str] | None = None,
    seats: bool = True,
) -> RoomMoney:
    """Per room and currency: the multiplier, the rake (from hands paid in full), then
    the short-stack settlement (from the rest), and every seat's expected money.

    With ``rules`` (a ruleset file's ``[room]`` table, or a function giving a
    room's) the rake and settlement are the file's, and the inference only
    counts the hands that agree.  With
    ``hands`` (a table or view with a ``hand_key`` column on the connection)
    only those hands are read, and the rules are inferred from them: what a
    ledger of one player's hands needs, at the cost of those hands only.

    The dataset's money hands are read a share of the tables at a time
    (:func:`~ofc_stats.audit.chunks.table_shares`), three times: the losers' ratios
    (the multiplier), then the winners paid in full as counts (:class:`Winners`) and
    the few hands with a short loser whole, then each seat priced by the rules.

    ``points_rooms``: the rooms whose ``result`` field is the hand's points (the
    field verdicts the audit printed); without it they are judged here, from the
    hands read (:func:`points_field_rooms`).  ``seats=False``: the rules only, no seat
    priced or kept (the audit prices a share at a time: :func:`priced_shares`).
    """
    if points_rooms is None:
        points_rooms = points_field_rooms(data, hands)
    fields = frozenset(points_rooms)
    if hands is not None:
        return _scoped_money(data, scoped_seats(data, hands), rules, fields)
    rooms = room_tallies(data, rules, fields)
    keys = sorted(rooms)
    if not seats:
        return _money(money_seats(data, "false"), [rooms[key] for key in keys], fields)
    parts: dict[tuple[str, str], list[pd.DataFrame]] = {key: [] for key in keys}
    empty = None
    for priced in priced_shares(data, rooms):
        empty = priced.iloc[:0] if empty is None else empty
        for key, group in by_room(priced):
            parts[key].append(group)
        del priced
    if not keys:
        assert empty is not None  # a share at least
        return RoomMoney(empty.assign(expected_money=0.0), (), (), points_rooms=fields)
    frames = [_in_order(parts.pop(key)) for key in keys]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    del frames
    if len(keys) == 1:
        frame = frame.reset_index(drop=True)
    return _money(frame, [rooms[key] for key in keys], fields)


def room_tallies(
    data: OfcData, rules: MoneyRules, points_rooms: frozenset[str]
) -> dict[tuple[str, str], RoomTally]:
    """Each room and currency's money rules, inferred (or given) from the dataset's money
    hands read a share of the tables at a time, twice: the losers' ratios, then the
    winners paid in full as counts and the few hands with a short loser whole."""
    shares = table_shares(data)
    rooms: dict[tuple[str, str], RoomTally] = {}
    for share in each_share(data, shares):
        for (room, currency), group in by_room(money_seats(data, share)):
            tally = rooms.setdefault(
                (room, currency), RoomTally(room, currency, room in points_rooms)
            )
            tally.ratios.add(group)
    for share in each_share(data, shares):
        for key, group in by_room(money_seats(data, share)):
            rooms[key].add(data, group)
    for key in sorted(rooms):
        rooms[key].infer(rules)
    return rooms


def priced_shares(data: OfcData, rooms: dict[tuple[str, str], RoomTally]) -> Iterator[pd.DataFrame]:
    """Each share's money seats priced by its room's rules (:meth:`RoomTally.priced`), the
    rooms in order, a share at a time: what a caller keeps of them is all it holds (the
    audit keeps the mismatches and a few counts; :func:`room_money` every seat).  ``rooms``
    by (room, currency), as :func:`by_room` names them (:meth:`RoomMoney.tallies`)."""
    for share in each_share(data, table_shares(data)):
        seats = money_seats(data, share)
        groups = [rooms[key].priced(group) for key, group in by_room(seats)]
        del seats
        if groups:
            yield pd.concat(groups) if len(groups) > 1 else groups[0]
        else:  # no money in this share: no seat, the priced frame's last column still
            yield money_seats(data, "false").assign(expected_money=0.0)


def points_field_rooms(data: OfcData, hands: str | None = None) -> frozenset[str]:
    """The rooms whose ``result`` field is the hand's points, by their field verdicts
    (:func:`~ofc_stats.audit.fields.field_verdicts`), of the hands in table ``hands``
    (all of them without it)."""
    return rooms_measuring(field_verdicts(data, hands))


def _money(seats: pd.DataFrame, rooms: list[RoomTally], fields: frozenset[str]) -> RoomMoney:
    rakes = tuple(r.rake for r in rooms if r.rake is not None)
    settlements = tuple(r.settlement for r in rooms if r.settlement is not None)
    assert len(rakes) == len(settlements) == len(rooms)  # every room inferred
    pairwise = tuple(r.pairwise for r in rooms)
    return RoomMoney(seats, rakes, settlements, pairwise, fields, tuple(rooms))


def by_room(seats: pd.DataFrame) -> list[tuple[tuple[str, str], pd.DataFrame]]:
    """A money frame's rows per room and currency (both as text)."""
    if seats.empty:
        return []
    groups = seats.groupby(["room", "currency"], sort=True, observed=True)
    return [((str(room), str(currency)), group) for (room, currency), group in groups]


def _in_order(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """A room's priced seats of every share, in MONEY_SQL's order (hand key, seat)."""
    if len(parts) == 1:
        return parts[0]
    frame = pd.concat(parts, ignore_index=True)
    parts.clear()  # the shares' copies go: two copies at most, not three
    keys = pa.table({"hand_key": pa.array(frame["hand_key"]), "seat": pa.array(frame["seat"])})
    order = pc.sort_indices(keys, sort_keys=[("hand_key", "ascending"), ("seat", "ascending")])
    return frame.take(np.asarray(order.to_numpy(), dtype=np.int64)).reset_index(drop=True)


_NO_SEATS = pd.DataFrame({"gross": [], "reported_money": []})


@dataclass
class RoomTally:
    """One room and currency's money rules, from what its shares add up to: the losers'
    ratios, the winners paid in full (:class:`Winners`) and, whole, the hands with a
    loser who paid less than owed (a few in a hundred), with their pairs' money."""

    room: str
    currency: str
    points_field: bool = False  # the room's `result` is the hand's points (expected_money)
    ratios: Ratios = field(default_factory=Ratios)
    multiplier: float = 1.0
    winners: Winners = field(default_factory=lambda: Winners.of(_NO_SEATS))
    short: list[pd.DataFrame] = field(default_factory=list)
    pairwise: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    column: str = "hand_key"  # what the seats' hand_key holds, for _pairwise
    rake: Rake | None = None
    settlement: Settlement | None = None
    short_keys: set[object] = field(default_factory=set)  # the hands a short stack explains

    @property
    def label(self) -> str:
        return f"{self.room} {self.currency or '(no currency)'}"

    def add(self, data: OfcData, group: pd.DataFrame) -> None:
        """One share's seats of the room (after the ratios of every share)."""
        self.multiplier = self.ratios.multiplier()
        self.tally(expected_money(group, self.multiplier, points_field=self.points_field), data)

    def tally(self, frame: pd.DataFrame, data: OfcData | None = None) -> None:
        """An :func:`expected_money` frame of whole hands: its winners paid in full counted,
        its hands with a short loser (:func:`short_hands`) kept whole, with their pairs'
        money read from ``data`` (without it, :attr:`pairwise` is given)."""
        candidate = short_hands(frame)
        self.winners = self.winners.plus(Winners.of(frame[~candidate]))
        short = frame[candidate]
        if len(short):
            self.short.append(short)
            if data is not None:
                self.pairwise.update(_pairwise(data, short, self.multiplier, self.column))

    def infer(self, rules: MoneyRules) -> None:
        """The rake from the winners paid in full, narrowed by the short-stack hands a
        settlement explains (:func:`short_stacks`), then the settlement."""
        self.multiplier = self.ratios.multiplier()
        given = rules(self.room) if callable(rules) else rules
        frame = pd.concat(self.short, ignore_index=True) if self.short else None
        self.short = []
        winners = self.winners

        def rake_of(seats: pd.DataFrame) -> Rake:
            return _room_rake(
                self.label, self.currency, self.multiplier, given, winners.plus(Winners.of(seats))
            )

        if frame is None:
            self.rake = _room_rake(self.label, self.currency, self.multiplier, given, winners)
            settlement = Settlement(self.label, "proportional", 0, 0, {})
        else:
            self.rake = short_stacks(frame, rake_of, self.pairwise)
            if frame["short"].any():
                net = {
                    k: after_rake(gross_by_kind(frame, k, self.pairwise), self.rake)
                    for k in ALL_KINDS
                }
                settlement = infer_settlement(self.label, frame, net)
            else:  # no hand's shortfall a short stack explains
                settlement = Settlement(self.label, "proportional", 0, 0, {})
            self.short_keys = set(frame.loc[frame["short"], "hand_key"].tolist())
        if given is not None:
            settlement = replace(settlement, kind=given.settlement, tied=(), given=True)
        self.settlement = settlement

    def priced(self, group: pd.DataFrame) -> pd.DataFrame:
        """The room's seats of one share with owed, short, gross, settlement and
        expected_money under the inferred (or given) rules."""
        assert self.rake is not None and self.settlement is not None
        frame = expected_money(group, self.multiplier, points_field=self.points_field)
        frame["short"] = frame["short"] & frame["hand_key"].isin(self.short_keys)
        frame["settlement"] = self.settlement.kind
        return settled(frame, self.rake, self.settlement.kind, self.pairwise)


def _scoped_money(
    data: OfcData, seats: pd.DataFrame, rules: MoneyRules, fields: frozenset[str]
) -> RoomMoney:
    """room_money of the seats of some hands (scoped_seats'), read whole."""
    rooms: list[RoomTally] = []
    parts = []
    for (room, currency), group in by_room(seats):
        tally = RoomTally(room, currency, room in fields, column="hand_id")
        tally.ratios.add(group)
        tally.add(data, group)
        tally.infer(rules)
        rooms.append(tally)
        parts.append(tally.priced(group))
    if not parts:
        return RoomMoney(seats.assign(expected_money=0.0), (), (), points_rooms=fields)
    del seats
    return _money(pd.concat(parts, ignore_index=True), rooms, fields)


def scoped_seats(data: OfcData, hands: str) -> pd.DataFrame:
    """MONEY_SQL's rows (no names) for the hands whose ``hand_id`` is in table ``hands``.

    Each table is read on its own, cut down to those hands, and joined here on
    (hand id, seat) by sorting: DuckDB's three-way join of a million rows cost
    ten times the three reads.
    """
    if not hands.isidentifier():
        raise ValueError(f"not a table name: {hands!r}")
    wanted = f"hand_id IN (SELECT hand_id FROM {hands})"
    hand = data.arrow(
        f"SELECT hand_id, room, stakes, coalesce(currency, '') AS currency FROM hands "
        f"WHERE {wanted} ORDER BY hand_id"
    )
    seat = data.arrow(
        f"SELECT hand_id, seat, reported_points, reported_money, stack FROM seats WHERE {wanted}"
    )
    result = data.arrow(
        f"SELECT hand_id, seat, net_capped FROM results WHERE status = 'scored' AND {wanted}"
    )
    seat_key = table_seat_keys(seat)
    result_key = table_seat_keys(result)
    order = np.argsort(result_key, kind="stable")
    result_key = result_key[order]
    at_result = np.minimum(np.searchsorted(result_key, seat_key), max(len(result_key) - 1, 0))
    ok = result_key[at_result] == seat_key if len(result_key) else np.zeros(len(seat_key), bool)
    rows = np.flatnonzero(ok)  # seat rows with a scored result
    net = result["net_capped"].to_numpy(zero_copy_only=False)[order[at_result[rows]]]
    sort = np.argsort(seat_key[rows], kind="stable")  # hand id, then seat
    rows, net = rows[sort], net[sort]
    ids = seat["hand_id"].to_numpy()[rows]
    money = seat["reported_money"].to_numpy(zero_copy_only=False).astype(np.float64)[rows]
    # Keep the hands with any money reported: runs of one id, flagged by one reduceat.
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else np.zeros(0, int)
    flagged = np.logical_or.reduceat(~np.isnan(money), starts) if len(ids) else starts > 0
    keep = np.repeat(flagged, np.diff(np.r_[starts, len(ids)]))
    rows, ids, net, money = rows[keep], ids[keep], net[keep], money[keep]
    hand_ids = hand["hand_id"].to_numpy()
    at = np.searchsorted(hand_ids, ids)
    stack = seat["stack"].to_numpy(zero_copy_only=False).astype(np.float64)[rows]
    points = seat["reported_points"].to_numpy(zero_copy_only=False).astype(np.float64)[rows]
    return pd.DataFrame(
        {
            "hand_key": ids,
            "hand_id": ids,
            "seat": seat["seat"].to_numpy()[rows].astype(np.int64),
            "room": _categorical(hand["room"], at),
            "net_capped": net.astype(np.float64),
            "reported_points": points,
            "stakes": hand["stakes"].to_numpy(zero_copy_only=False).astype(np.float64)[at],
            "reported_money": money,
            "stack": stack,
            "currency": _categorical(hand["currency"], at),
        }
    )


def _categorical(column: pa.ChunkedArray, at: npt.NDArray[np.intp]) -> pd.Categorical:
    """``column`` picked at ``at`` as a pandas categorical (null as ""), no string per row."""
    encoded = pa.chunked_array(column).fill_null("").combine_chunks().dictionary_encode()
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)[at]
    values = [str(v) for v in encoded.dictionary.to_pylist()]
    order = np.argsort(np.array(values, dtype=object), kind="stable")
    rank = np.empty(len(values), dtype=np.int64)
    rank[order] = np.arange(len(values))  # sorted categories: groups come out by name
    names = pd.Index([values[i] for i in order], dtype=object)
    categorical: pd.Categorical = pd.Categorical.from_codes(rank[codes], categories=names)
    return categorical


def _sort_key(key: object) -> tuple[int, str]:
    """Keys of one kind (texts, or integer ids) in their own order."""
    return (int(key), "") if isinstance(key, (int, np.integer)) else (0, str(key))


# The stored versus both ways round by hand id, as the ``versus`` view holds it without the
# hands' keys: that view joins every hand of the dataset for its key, whatever hands are asked.
VERSUS_BY_ID = """(
SELECT hand_id, seat, opponent, points FROM versus_stored WHERE {wanted}
UNION ALL
SELECT hand_id, opponent, seat, -points FROM versus_stored WHERE {wanted})"""


def _pairwise(
    data: OfcData,
    frame: pd.DataFrame,
    multiplier: float,
    column: str = "hand_key",
    versus: str = "versus",
    hands: str = "hands",
) -> dict[str, npt.NDArray[np.float64]]:
    """Money each seat owes each other by the pair's points, for the short-stack hands, by
    the frame's ``hand_key`` (``column`` says whether it holds the key or the integer id:
    either way the hands are read by their ``hand_id``, a few of them).

    ``versus`` and ``hands`` are the relations read (the views, or one batch's files:
    ``versus`` must hold each pair both ways round, as the view does)."""
    short = frame.loc[frame["short"], ["hand_key", "hand_id"]].drop_duplicates("hand_key")
    if not len(short):
        return {}
    ids = short["hand_id"].to_numpy(np.int64)
    data.connection.register("short_ids", pa.table({"hand_id": pa.array(np.unique(ids))}))
    wanted = "hand_id IN (SELECT hand_id FROM short_ids)"
    pairs_of = VERSUS_BY_ID.format(wanted=wanted) if versus == "versus" else versus
    try:
        pairs = data.df(
            f"""SELECT v.hand_id, v.seat, v.opponent,
                       v.points * coalesce(h.stakes, 1) AS money, h.seat_count
                FROM (SELECT * FROM {pairs_of} WHERE {wanted}) v
                JOIN (SELECT hand_id, stakes, seat_count FROM {hands} WHERE {wanted}) h
                  USING (hand_id)"""
        )
    finally:
        data.connection.unregister("short_ids")
    key_of = dict(zip(ids.tolist(), short["hand_key"].tolist(), strict=True))
    found: dict[object, npt.NDArray[np.float64]] = {}
    for _, hand in pairs.groupby("hand_id", sort=False):
        n = int(hand["seat_count"].iloc[0])
        matrix = np.zeros((n, n))
        seat = hand["seat"].to_numpy(dtype=int)
        opponent = hand["opponent"].to_numpy(dtype=int)
        ok = (seat < n) & (opponent < n)
        matrix[seat[ok], opponent[ok]] = hand["money"].to_numpy(dtype=float)[ok] * multiplier
        found[key_of[int(hand["hand_id"].iloc[0])]] = matrix
    # in the order of the hands' keys, as a groupby of the keys gave them
    return {str(key): found[key] for key in sorted(found, key=_sort_key)}


def _room_rake(
    label: str,
    currency: str,
    multiplier: float,
    given: RoomRules | None,
    frame: pd.DataFrame | Winners,
) -> Rake:
    """The rake inferred from ``frame``'s hands paid in full, or the rules file's."""
    if given is None:
        return infer_rake(label, frame, multiplier)
    return given_rake(label, frame, multiplier, given.rake_for(currency), given.cap_for(currency))


def short_stacks(
    frame: pd.DataFrame,
    rake_of: Callable[[pd.DataFrame], Rake],
    pairwise: dict[str, npt.NDArray[np.float64]] | None,
) -> Rake:
    """The room's rake, with ``short`` narrowed (in place) to the hands a short stack
    explains (:func:`ofc_stats.payouts.settle.explained_short`).

    The rake is inferred first from the hands where no loser paid less than owed; a
    hand whose shortfall no settlement explains is then paid in full, so its winners
    count for the rake too and it is inferred again.  Should that change the rule, the
    hands are judged again by the new one (at most three rounds: the few hands that
    move seldom change the rule).
    """
    rake = rake_of(frame)
    for _ in range(3):
        short = explained_short(frame, partial(after_rake, rake=rake), pairwise)
        if short.equals(frame["short"]):
            break
        frame["short"] = short
        # a hand no settlement explains is paid in full: its winners' gross is what they are owed
        frame["gross"] = frame["gross"].where(short | frame["owed"].isna(), frame["owed"])
        again = rake_of(frame)
        same = _rule(again) == _rule(rake)
        rake = again
        if same:
            break
    return rake


def _rule(rake: Rake) -> tuple[float, float, str, float | None, float]:
    return (rake.rate, rake.tick, rake.mode, rake.cap, rake.multiplier)


def settled(
    frame: pd.DataFrame,
    rake: Rake,
    kind: str,
    pairwise: dict[str, npt.NDArray[np.float64]] | None,
) -> pd.DataFrame:
    """Set ``gross`` (short stacks settled by ``kind``) and ``expected_money`` (less the
    rake) on an ``expected_money`` frame: what the rules give each seat."""
    frame["gross"] = gross_by_kind(frame, kind, pairwise)
    frame["expected_money"] = after_rake(frame["gross"], rake)
    return frame


def rules_money(
    data: OfcData,
    seats: pd.DataFrame,
    rake: Rake,
    kind: str,
    *,
    column: str = "hand_key",
    versus: str = "versus",
    hands: str = "hands",
    points_field: bool = False,
) -> pd.DataFrame:
    """One room's ``seats`` (MONEY_SQL's columns) priced under known rules (``rake``, its
    multiplier, short stacks settled by ``kind``): :func:`room_money`'s steps without
    the inference, so a ledger priced batch by batch is priced as it is whole.
    ``column``, ``versus``, ``hands``: as :func:`_pairwise`'s; ``points_field``: as
    :func:`expected_money`'s (the room is in :attr:`RoomMoney.points_rooms`)."""
    frame = expected_money(seats, rake.multiplier, points_field=points_field)
    pairwise = _pairwise(data, frame, rake.multiplier, column, versus, hands)
    frame["short"] = explained_short(frame, partial(after_rake, rake=rake), pairwise)
    return settled(frame, rake, kind, pairwise)
