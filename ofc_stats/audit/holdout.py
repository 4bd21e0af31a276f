"""Money rules validated out of sample: inferred on one half of a room's hands, judged on
the other.

The rake and the short-stack settlement are inferred from the very hands the
audit then judges; a rule that only fits the hands it came from would call
the room right (or wrong) for the inference's sake.  Per room and currency,
the hands are split by date at the middle (the earlier half, the later half)
and the rules are inferred on each half and applied to the other: two folds.
A rule *holds out of sample* when the hands it was not inferred from are
explained as well as by rules inferred on all of them.  The runner-up rake
is judged the same way, with its own figures.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.audit.chunks import each_share, table_shares
from ofc_stats.audit.money import (
    TOLERANCE,
    Rake,
    Ratios,
    RoomTally,
    after_rake,
    by_room,
    expected_money,
)
from ofc_stats.audit.money_seats import money_seats
from ofc_stats.payouts.settle import explained_short, gross_by_kind
from ofc_stats.store.views import OfcData

# What the halves are inferred and judged from (MONEY_SQL's names): no text per seat.
FOLD_COLUMNS = [
    "hand_key", "seat", "net_capped", "reported_points", "stakes", "reported_money", "stack",
]  # fmt: skip


UNTOLD = "proportional"  # a settlement no hand tells: the default, named as assumed


def _named(kind: str, told: bool) -> str:
    return kind if told else f"{kind} (assumed: no short-stack hand tells)"


@dataclass(frozen=True)
class Holdout:
    """One room and currency: money hands explained by rules inferred on the other half
    (out of sample) against rules inferred on all the hands (in sample)."""

    room: str
    hands: int
    in_sample: int  # hands explained by rules inferred on all the hands
    out_of_sample: int  # hands explained by rules inferred on the other half (both folds)
    rules: tuple[str, str]  # the rake and settlement inferred on each half
    agree: bool  # both halves infer the rule inferred on all
    runner_up: str = ""  # the rake runner-up and the hands it explains out of sample
    folds: int = 2  # halves judged: 0 when the room has too few money hands to split

    @property
    def allowed(self) -> int:
        """Hands out of sample may explain fewer than in sample: 1 money hand in 100,
        rounded down (none under 100)."""
        return self.hands // 100

    @property
    def fewer(self) -> int:
        """Hands in sample explains that out of sample does not (negative: more)."""
        return self.in_sample - self.out_of_sample

    @property
    def holds(self) -> bool:
        """Out of sample explains as many hands as in sample, :attr:`allowed` fewer at most
        (:data:`CRITERION`)."""
        return self.folds == 2 and self.fewer <= self.allowed

    @property
    def verdict(self) -> str:
        """holds | does not hold | not checked (a room of one money hand has no halves)."""
        if self.folds < 2:
            return "not checked (too few money hands to split)"
        return "holds" if self.holds else "does not hold"

    def figures(self) -> str:
        """Hands explained out of and in sample, in hands and percent, against the allowance.

        >>> Holdout("R USD", 148, 148, 146, ("", ""), False).figures()
        '146 of 148 money hands (98.6%) out of sample, 148 (100.0%) in sample: 2 fewer, 1 allowed'
        >>> Holdout("R BRL", 10, 10, 10, ("", ""), True).figures()
        '10 of 10 money hands (100.0%) out of sample, 10 (100.0%) in sample: 0 fewer, 0 allowed'
        """

        def share(count: int) -> str:
            return f"{count / self.hands:.1%}" if self.hands else "-"

        fewer = f"{self.fewer:,} fewer" if self.fewer >= 0 else f"{-self.fewer:,} more"
        return (
            f"{self.out_of_sample:,} of {self.hands:,} money hands ({share(self.out_of_sample)}) "
            f"out of sample, {self.in_sample:,} ({share(self.in_sample)}) in sample: "
            f"{fewer}, {self.allowed:,} allowed"
        )

    def describe(self) -> str:
        """One line: the verdict, the figures (:data:`CRITERION` says what they are judged
        by, once, above the rooms' lines), what the halves infer and the runner-up."""
        same = (
            "both halves infer the same rule"
            if self.agree
            else "the halves infer " + (" and ".join(f"'{r}'" for r in self.rules))
        )
        if self.folds < 2:
            return f"{self.room}: the money rule is {self.verdict} out of sample"
        text = (
            f"{self.room}: the money rule {self.verdict} out of sample — {self.figures()}; {same}"
        )
        return text + (f"; runner-up {self.runner_up}" if self.runner_up else "")


# What "holds out of sample" means, said once above the rooms' lines.
CRITERION = (
    "each room's money rule (rake and short-stack settlement) is inferred again from the "
    "earlier half of its money hands (by date) and tried on the later half, then the other way "
    "round ('out of sample'), and compared with the rule inferred from all of them ('in "
    "sample'); it holds when out of sample explains at most 1 money hand in 100 fewer than in "
    "sample, rounded down (a room with under 100 money hands may not explain even one fewer); "
    "a rule that does not hold may fit these hands only, so that room's money verdicts lean "
    "on the inference"
)


# When each money hand of a share of the tables was played ({share}: chunks.table_shares).
PLAYED_SQL = """
SELECT hand_key, played_at FROM hands
WHERE hand_key IN (SELECT hand_key FROM seats WHERE reported_money IS NOT NULL) AND {share}
"""


def holdout(
    data: OfcData,
    pairwise: Mapping[str, Mapping[str, npt.NDArray[np.float64]]] | None = None,
    seats: pd.DataFrame | None = None,
    points_rooms: Collection[str] = frozenset(),
) -> list[Holdout]:
    """Two-fold by date, per room and currency (``pairwise``: room_money's, by label).

    The money hands are read a share of the tables at a time, three times: when each
    hand was played (the halves' cut), the counts each half's rules are inferred from
    (:class:`~ofc_stats.audit.money.RoomTally`), and the hands each rule explains.
    ``seats``: room_money's seats of these very hands (MONEY_SQL's rows, in its order),
    folded whole instead (what the shares must add up to).  ``points_rooms``: room_money's
    (:attr:`~ofc_stats.audit.money.RoomMoney.points_rooms`), its short stacks found alike."""
    fields = frozenset(points_rooms)
    if seats is None:
        return _by_shares(data, pairwise or {}, fields)
    seats = seats[["room", "currency", *FOLD_COLUMNS]]
    played = data.df(PLAYED_SQL.format(share="true"))
    when = pd.Series(played["played_at"].to_numpy(), index=pd.Index(played["hand_key"]))
    out = []
    for (room, currency), group in by_room(seats):
        label = f"{room} {currency or '(no currency)'}"
        pairs = dict((pairwise or {}).get(label, {}))
        at = when.index.get_indexer(pd.Index(group["hand_key"]))
        group = group[FOLD_COLUMNS].assign(played_at=when.to_numpy()[at])[at >= 0]
        out.append(_fold(label, group.reset_index(drop=True), pairs, room in fields))
        del group
    return out


def _share_frames(data: OfcData, share: str) -> Iterator[tuple[str, str, pd.DataFrame]]:
    """Per room and currency: its money seats of one share (FOLD_COLUMNS and played_at)."""
    seats = money_seats(data, share)
    if seats.empty:
        return
    played = data.df(PLAYED_SQL.format(share=share))
    when = pd.Series(played["played_at"].to_numpy(), index=pd.Index(played["hand_key"]))
    for (room, currency), group in by_room(seats):
        at = when.index.get_indexer(pd.Index(group["hand_key"]))
        yield room, currency, group[FOLD_COLUMNS].assign(played_at=when.to_numpy()[at])[at >= 0]


def _folded(group: pd.DataFrame, multiplier: float, points_field: bool) -> pd.DataFrame:
    """The seats a fold infers and judges from: every seat but a loser of unknown money."""
    frame = expected_money(group, multiplier, points_field=points_field)
    frame = frame.assign(multiplier=multiplier)
    return frame[frame["reported_money"].notna() | (frame["owed"] >= 0)]


def _first_half(frame: pd.DataFrame, cut: tuple[int, str] | None) -> pd.Series:
    """Per row: its hand is in the earlier half, before ``cut`` in (played_at, hand key)
    order (an unknown time last); no cut, no earlier half."""
    if cut is None:
        return pd.Series(False, index=frame.index)
    played = _instants(frame["played_at"])
    keys = frame["hand_key"].astype(str)
    return (played < cut[0]) | ((played == cut[0]) & (keys < cut[1]))


def _instants(played: pd.Series) -> pd.Series:
    """Times as integers to sort by, an unknown time after every known one."""
    values = pd.to_datetime(played).astype("datetime64[ns]")
    known = values.notna()
    out = pd.Series(np.iinfo(np.int64).max, index=played.index, dtype=np.int64)
    out[known] = values[known].astype(np.int64)
    return out


@dataclass
class _Folds:
    """One room and currency's holdout, a share at a time: the rules inferred on all its
    hands and on each half, then the hands each explains."""

    room: str
    currency: str
    points_field: bool = False  # the room's `result` is the hand's points (RoomTally's)
    ratios: Ratios = field(default_factory=Ratios)
    keys: list[pa.Array] = field(default_factory=list)  # the hands, and when played
    played: list[pa.Array] = field(default_factory=list)
    hands: int = 0
    cut: tuple[int, str] | None = None
    tallies: tuple[RoomTally, ...] = ()  # all the hands, the earlier half, the later half
    rows: list[int] = field(default_factory=lambda: [0, 0, 0])
    rules: list[tuple[Rake, str, bool]] = field(default_factory=list)
    in_sample: int = 0
    out_of_sample: int = 0
    runner: int = 0

    @property
    def label(self) -> str:
        return f"{self.room} {self.currency or '(no currency)'}"

    def first(self, group: pd.DataFrame) -> None:
        """Pass 1: the multiplier's ratios, and each hand's time."""
        self.ratios.add(group)
        frame = _folded(group, 1.0, self.points_field)  # (a positive multiplier: every sign)
        played = frame.groupby("hand_key")["played_at"].min()
        self.keys.append(pa.array(played.index.astype(str).to_numpy(dtype=object)))
        self.played.append(pa.array(_instants(played).to_numpy()))

    def halve(self, pairs: Mapping[str, npt.NDArray[np.float64]]) -> None:
        """The cut between the halves: the first hand of the later half."""
        table = pa.table(
            {"played": pa.chunked_array(self.played, pa.int64()),
             "key": pa.chunked_array(self.keys, pa.string())}
        )  # fmt: skip
        self.keys, self.played = [], []
        self.hands = table.num_rows
        half = self.hands // 2
        if half:
            order = pc.sort_indices(
                table, sort_keys=[("played", "ascending"), ("key", "ascending")]
            )
            at = int(order[half].as_py())
            self.cut = (int(table["played"][at].as_py()), str(table["key"][at].as_py()))
        self.tallies = tuple(
            RoomTally(self.room, self.currency, self.points_field) for _ in range(3)
        )
        for tally in self.tallies:
            tally.ratios = self.ratios
            tally.pairwise = dict(pairs)

    def second(self, group: pd.DataFrame) -> None:
        """Pass 2: the counts each half's rules and the whole's are inferred from."""
        frame = _folded(group, self.ratios.multiplier(), self.points_field)
        first = _first_half(frame, self.cut)
        for index, part in enumerate((frame, frame[first], frame[~first])):
            self.rows[index] += len(part)
            if len(part):
                self.tallies[index].multiplier = self.ratios.multiplier()
                self.tallies[index].tally(part)

    def infer(self) -> None:
        for tally in self.tallies:
            self.rules.append(_inferred(tally))

    def folds(self) -> list[tuple[int, int]]:
        """(half inferred on, half judged) of each fold, both halves with seats."""
        earlier, later = 1, 2
        folds = ((earlier, later), (later, earlier))
        return [(a, b) for a, b in folds if self.rows[a] and self.rows[b]]

    def third(self, group: pd.DataFrame, pairs: dict[str, npt.NDArray[np.float64]]) -> None:
        """Pass 3: the hands each rule explains, in sample and out of it."""
        multiplier = self.ratios.multiplier()
        frame = _folded(group, multiplier, self.points_field)
        if frame.empty:
            return
        rake, kind, _ = self.rules[0]
        self.in_sample += int(_explained(frame, rake, kind, pairs).sum())
        first = _first_half(frame, self.cut)
        halves = {1: frame[first], 2: frame[~first]}
        for train, test in self.folds():
            judged = halves[test]
            if judged.empty:
                continue
            rake, kind, _ = self.rules[train]
            self.out_of_sample += int(_explained(judged, rake, kind, pairs).sum())
            if rake.runner_up is not None:
                rate, tick, mode, _ = rake.runner_up
                other = Rake(self.label, rate, tick, mode, 0, 0, multiplier)
                self.runner += int(_explained(judged, other, kind, pairs).sum())

    def result(self) -> Holdout:
        whole_rake, whole_kind, _ = self.rules[0]
        rules, agree = [], True
        for train, _ in self.folds():
            rake, kind, told = self.rules[train]
            rules.append(f"{rake.rule()}, settlement {_named(kind, told)}")
            agree &= (rake.rate, rake.tick, rake.mode, rake.cap, kind) == (
                whole_rake.rate, whole_rake.tick, whole_rake.mode, whole_rake.cap, whole_kind,
            )  # fmt: skip
        return _holdout(
            self.label, self.hands, self.in_sample, self.out_of_sample, rules, agree,
            whole_rake, self.runner, len(self.folds()),
        )  # fmt: skip


def _by_shares(
    data: OfcData,
    pairwise: Mapping[str, Mapping[str, npt.NDArray[np.float64]]],
    fields: frozenset[str],
) -> list[Holdout]:
    shares = table_shares(data)
    folds: dict[tuple[str, str], _Folds] = {}
    for share in each_share(data, shares):
        for room, currency, group in _share_frames(data, share):
            fold = folds.setdefault((room, currency), _Folds(room, currency, room in fields))
            fold.first(group)
    for fold in folds.values():
        fold.halve(pairwise.get(fold.label, {}))
    for share in each_share(data, shares):
        for room, currency, group in _share_frames(data, share):
            folds[(room, currency)].second(group)
    for fold in folds.values():
        fold.infer()
    for share in each_share(data, shares):
        for room, currency, group in _share_frames(data, share):
            fold = folds[(room, currency)]
            fold.third(group, dict(pairwise.get(fold.label, {})))
    return [folds[key].result() for key in sorted(folds)]


def _inferred(tally: RoomTally) -> tuple[Rake, str, bool]:
    """:func:`_infer` of the seats a tally counted."""
    tally.infer(None)
    rake, settlement = tally.rake, tally.settlement
    assert rake is not None and settlement is not None
    if settlement.telling:
        return rake, settlement.kind, True
    return rake, UNTOLD, False


def _explained(
    frame: pd.DataFrame, rake: Rake, kind: str, pairs: dict[str, npt.NDArray[np.float64]]
) -> pd.Series:
    """Per hand of ``frame``: every seat's money as the rule gives it."""
    short = explained_short(frame, partial(after_rake, rake=rake), pairs)
    expected = after_rake(gross_by_kind(frame.assign(short=short), kind, pairs), rake)
    ok = (expected - frame["reported_money"]).abs() <= TOLERANCE
    return ok.groupby(frame["hand_key"]).all()


def _fold(
    label: str,
    group: pd.DataFrame,
    pairs: dict[str, npt.NDArray[np.float64]],
    points_field: bool = False,
) -> Holdout:
    """The holdout of one room and currency's seats (``label``: "<room> <currency>") read
    whole: :class:`_Folds`' three passes over the one frame, the fold by shares' own."""
    room, _, currency = label.rpartition(" ")
    fold = _Folds(room, "" if currency == "(no currency)" else currency, points_field)
    fold.first(group)
    fold.halve(pairs)
    fold.second(group)
    fold.infer()
    fold.third(group, dict(pairs))
    return fold.result()


def _holdout(
    label: str,
    hands: int,
    in_sample: int,
    out: int,
    rules: list[str],
    agree: bool,
    whole_rake: Rake,
    runner: int,
    folds: int,
) -> Holdout:
    shown = ""
    if whole_rake.runner_up is not None:
        rate, tick, mode, count = whole_rake.runner_up
        name = Rake(label, rate, tick, mode, 0, 0).rule()
        shown = (
            f"'{name}' explains {count:,} of {whole_rake.winners:,} winning seats in sample, "
            f"{runner:,} money hands out of sample"
        )
    pair = [*rules, "", ""][:2]
    return Holdout(label, hands, in_sample, out, (pair[0], pair[1]), agree, shown, folds)


__all__ = ["CRITERION", "Holdout", "holdout"]
