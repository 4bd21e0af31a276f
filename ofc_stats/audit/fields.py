"""Does a room's field measure what its name says?  A verdict per room and field.

The apps' ``result`` is meant to be the hand's points, but one room's is not:
it agrees with the rules on a few percent of hands and does not sum to zero.
Comparing such a field hand by hand floods the audit with "no single rule
explains it", so the audit first asks, per room, whether the field measures
this hand's points at all — agreement with the recomputed points, zero-sum
hands, correlation with the points and with the money — and, when it does
not, leaves it out of the per-hand mismatches and says so once, with the
evidence.  It also tries what such a field could measure instead
(:data:`HYPOTHESES`) and reports how often each one agrees.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import numpy.typing as npt
import pandas as pd

from ofc_stats.audit.chunks import each_share, share_seat_results, table_shares
from ofc_stats.store.views import TABLE_RUNS, OfcData

AGREES = 0.5  # a field that matches on at most half the hands is not the hand's points
MIN_HANDS = 20  # fewer hands cannot overrule the field's name: compare it hand by hand
LAWFUL = 0.9  # zero-sum and |correlation| this high: the hand's points, however wrong
EPS = 1e-6

# A player's hands at a table in turn (the running total, the last hand) stay within one
# table of one format and, where the table's hand ids were reused, one file (its run).
FIELDS_SHARE_SQL = (
    """
WITH runs AS ("""
    + TABLE_RUNS.format(hands="(SELECT * FROM hands WHERE {share})")
    + """), s AS (
  SELECT hand_key, format, room, table_id, runs.run, played_at, room_hand_id, seat,
         seat_count, player_key,
         reported_points AS field, net, net_capped, royalties, reported_money, stakes,
         sum(royalties) OVER (PARTITION BY hand_key) AS hand_royalties,
         sum(reported_points) OVER (PARTITION BY hand_key) AS field_sum,
         count(reported_points) OVER (PARTITION BY hand_key) AS field_seats
  FROM {seat_results} LEFT JOIN runs USING (hand_key) WHERE status = 'scored' AND {share}
), t AS (
  SELECT *,
    sum(net_capped) OVER in_turn AS running_total,
    field - lag(field) OVER in_turn AS field_change,
    lag(net_capped) OVER in_turn AS previous_points,
    lead(net_capped) OVER ring AS next_seat_points,
    lag(net_capped) OVER ring AS previous_seat_points
  FROM s
  WINDOW in_turn AS (PARTITION BY format, room, table_id, run, player_key
                     ORDER BY played_at, room_hand_id, hand_key ROWS UNBOUNDED PRECEDING),
         ring AS (PARTITION BY hand_key ORDER BY seat)
)
SELECT t.*, coalesce(w.won, 0) AS pairs_won
FROM t LEFT JOIN (SELECT h.hand_key, v.seat, sum(greatest(v.points, 0)) AS won
                  FROM (SELECT hand_id, seat, points FROM versus_stored
                        WHERE hand_id IN (SELECT hand_id FROM hands WHERE {share})
                        UNION ALL
                        SELECT hand_id, opponent, -points FROM versus_stored
                        WHERE hand_id IN (SELECT hand_id FROM hands WHERE {share})) v
                  JOIN (SELECT hand_id, hand_key FROM hands WHERE {share}) h USING (hand_id)
                  GROUP BY ALL) w USING (hand_key, seat)
WHERE field IS NOT NULL
"""
)  # {share}: the tables read (chunks.table_shares).  The pairs are the stored versus both
# ways round, of the share's hands (each half cut to them before the join, which built on
# every pair of the dataset) and keyed by them: the keyed versus view joins every hand.
# {seat_results}: the view's rows of the share (chunks.share_seat_results); FIELDS_SQL reads
# the view (its {share} still to fill).
FIELDS_SQL = FIELDS_SHARE_SQL.replace("{seat_results}", "seat_results")

# The keys of the hands whose hand_id is in table {hands} (by key: the runs hold hand_id too).
HAND_KEYS = "SELECT hand_key FROM hands WHERE hand_id IN (SELECT hand_id FROM {hands})"

Hypothesis = Callable[[pd.DataFrame], pd.Series]
HYPOTHESES: dict[str, Hypothesis] = {
    "this hand's points": lambda f: f["net_capped"],
    "points before caps": lambda f: f["net"],
    "points with the sign flipped": lambda f: -f["net_capped"],
    "points before royalties": lambda f: (
        f["net"] - (f["seat_count"] * f["royalties"] - f["hand_royalties"])
    ),
    "royalties alone": lambda f: f["royalties"],
    "a running total of the player's points at the table": lambda f: f["running_total"],
    "points of the previous hand": lambda f: f["previous_points"],
    "the next seat's points": lambda f: f["next_seat_points"],
    "the previous seat's points": lambda f: f["previous_seat_points"],
    "points won from the pairs the seat won": lambda f: f["pairs_won"],
    "money divided by stakes": lambda f: f["reported_money"] / f["stakes"].fillna(1.0),
}


@dataclass(frozen=True)
class FieldVerdict:
    """One room's field against the rules, with the evidence and the alternatives tried."""

    room: str
    field: str  # the dataset column: reported_points
    name: str  # what the room calls it: result
    rows: int
    hands: int
    agree: float  # share of seat rows equal to this hand's points
    zero_sum: float  # share of fully reported hands whose field sums to 0
    corr_points: float
    corr_money: float
    tried: dict[str, float]  # hypothesis -> share of seat rows it reproduces
    change_is_points: float  # share of rows whose change since the last hand is its points

    @property
    def measures(self) -> bool:
        """Too few hands, most agree, or zero-sum and (anti)correlated: a points field."""
        lawful = self.zero_sum >= LAWFUL and abs(np.nan_to_num(self.corr_points)) >= LAWFUL
        return self.hands < MIN_HANDS or self.agree > AGREES or lawful

    @property
    def best(self) -> tuple[str, float]:
        name = max(self.tried, key=lambda k: self.tried[k])
        if self.change_is_points > self.tried[name]:
            return "a running total (its change since the last hand is the hand's points)", (
                self.change_is_points
            )
        return name, self.tried[name]

    def describe(self) -> str:
        evidence = (
            f"{self.agree:.1%} of {self.rows:,} seat rows agree, {self.zero_sum:.1%} of hands "
            f"sum to zero, correlation {_shown(self.corr_points)} with the points and "
            f"{_shown(self.corr_money)} with money / stakes"
        )
        if self.measures:
            return f"{self.room} `{self.name}`: this hand's points — {evidence}"
        name, share = self.best
        found = (
            f"it matches {name} on {share:.1%}"
            if share > AGREES
            else f"nothing tried explains it (best: {name}, {share:.1%})"
        )
        return (
            f"{self.room} `{self.name}`: not this hand's points — {evidence}; money used "
            f"instead; {found}"
        )


def _shown(correlation: float) -> str:
    """A correlation as the summary prints it; NaN (see :func:`_corr`) as words, not ``nan``."""
    return "n/a (too few hands)" if math.isnan(correlation) else f"{correlation:.2f}"


def _floats(column: pd.Series) -> npt.NDArray[np.float64]:
    """A column as float64, NaN for a missing value."""
    return np.asarray(column.astype("float64").to_numpy(np.float64, na_value=np.nan))


SCALE = 1126  # 2**-SCALE divides every float64 exactly (the least subnormal is 2**-1074)


def exact_sum(values: npt.NDArray[np.float64]) -> int:
    """The sum of finite ``values`` exactly, in units of 2**-SCALE: the same whatever their
    order or the shares they were summed in (a float sum's last bits follow the order)."""
    if not len(values):
        return 0
    fraction, exponent = np.frexp(values)
    mantissa = (fraction * 2.0**53).astype(np.int64)  # exact: 53 bits and a sign
    shift = exponent.astype(np.int64) - 53 + SCALE
    shifts, which = np.unique(shift, return_inverse=True)
    # 27-bit halves: a float sum of up to 2**26 of them is exact
    high = np.bincount(which, weights=(mantissa >> 26).astype(np.float64))
    low = np.bincount(which, weights=(mantissa & (2**26 - 1)).astype(np.float64))
    return sum(
        ((int(h) << 26) + int(lo)) << int(at)
        for h, lo, at in zip(high.tolist(), low.tolist(), shifts.tolist(), strict=True)
    )


def _halves(x: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], ...]:
    """Each float as two of 26 bits that add up to it exactly (Veltkamp's split)."""
    scaled = x * 134217729.0  # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high


def _exact_product(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], ...]:
    """Four float columns whose sum is each product a × b exactly (a float product rounds,
    so a constant column's spread would not come out 0): the halves' products, of 52
    bits at most each."""
    (a_high, a_low), (b_high, b_low) = _halves(a), _halves(b)
    return a_high * b_high, a_high * b_low, a_low * b_high, a_low * b_low


@dataclass
class Moments:
    """A correlation's sums over rows shown a share at a time (no column kept): the rows
    with both values, the sums of x, y, x², y² and xy, each exact (:func:`exact_sum`, the
    products too), so the correlation is one number whatever the order of the rows and
    the shares, and a constant column has no spread at all."""

    rows: int = 0
    infinite: bool = False
    sums: list[int] = field(default_factory=lambda: [0] * 5)

    def add(self, x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> None:
        both = ~np.isnan(x) & ~np.isnan(y)
        x, y = x[both], y[both]
        if (
            not (np.isfinite(x).all() and np.isfinite(y).all())
            or max(np.abs(x).max(initial=0.0), np.abs(y).max(initial=0.0)) > 2.0**500
        ):  # too large to split (and to square) exactly: no correlation told
            self.infinite = True
            return
        self.rows += len(x)
        self.sums[0] += exact_sum(x)
        self.sums[1] += exact_sum(y)
        for at, (a, b) in enumerate(((x, x), (y, y), (x, y)), 2):
            self.sums[at] += sum(exact_sum(part) for part in _exact_product(a, b))

    def corr(self) -> float:
        """Pearson's correlation; NaN for fewer than 3 rows, a constant column or an
        infinite value (the summary says "n/a")."""
        if self.rows < 3 or self.infinite:
            return float("nan")
        n = self.rows
        x, y, xx, yy, xy = (Fraction(total, 2**SCALE) for total in self.sums)
        spread_x, spread_y = n * xx - x * x, n * yy - y * y
        if spread_x <= 0 or spread_y <= 0:
            return float("nan")
        together = n * xy - x * y
        value = float(together) / math.sqrt(float(spread_x) * float(spread_y))
        return max(-1.0, min(1.0, value))


@dataclass
class _Tally:
    """One room's field against the hypotheses, summed over the shares of its tables: the
    counts, and the three columns the correlations need (8 bytes a seat each)."""

    rows: int = 0
    hands: int = 0
    tried: dict[str, int] = field(default_factory=dict)
    changed: int = 0  # rows whose change since the player's last hand is its points
    with_previous: int = 0
    full: int = 0  # hands with every seat's field reported
    zero: int = 0  # of those, the ones summing to 0
    with_points: Moments = field(default_factory=Moments)  # the field against the points
    with_money: Moments = field(default_factory=Moments)  # against money / stakes

    def add(self, rows: pd.DataFrame) -> None:
        value = rows["field"].astype(float)
        self.rows += len(rows)
        self.hands += int(rows["hand_key"].nunique())
        for name, hypothesis in HYPOTHESES.items():
            agrees = (value - hypothesis(rows).astype(float)).abs() <= EPS
            self.tried[name] = self.tried.get(name, 0) + int(agrees.sum())
        change = rows["field_change"].astype(float)
        with_previous = change.notna()
        self.changed += int((((change - rows["net_capped"]).abs() <= EPS) & with_previous).sum())
        self.with_previous += int(with_previous.sum())
        full = rows[rows["field_seats"] == rows["seat_count"]].drop_duplicates("hand_key")
        self.full += len(full)
        self.zero += int((full["field_sum"].abs() <= EPS).sum())
        money = rows["reported_money"] / rows["stakes"].fillna(1.0)
        shown = _floats(value)
        self.with_points.add(shown, _floats(rows["net_capped"]))
        self.with_money.add(shown, _floats(money))

    def verdict(self, room: str) -> FieldVerdict:
        tried = {
            name: count / self.rows if self.rows else 0.0 for name, count in self.tried.items()
        }
        return FieldVerdict(
            room=room,
            field="reported_points",
            name="result",
            rows=self.rows,
            hands=self.hands,
            agree=tried["this hand's points"],
            zero_sum=self.zero / self.full if self.full else 0.0,
            corr_points=self.with_points.corr(),
            corr_money=self.with_money.corr(),
            tried=tried,
            change_is_points=float(self.changed / max(self.with_previous, 1)),
        )


def rooms_measuring(verdicts: Iterable[FieldVerdict]) -> frozenset[str]:
    """The rooms whose points field is the hand's points (a loser paid by the room's wrong
    points there is no short stack: :func:`~ofc_stats.audit.money.expected_money`)."""
    return frozenset(v.room for v in verdicts if v.measures)


def field_verdicts(data: OfcData, hands: str | None = None) -> list[FieldVerdict]:
    """One verdict per room for the points field (``result`` in the apps), read a share of
    the tables at a time (:func:`~ofc_stats.audit.chunks.table_shares`); with ``hands``
    (a table of hand_id on the connection) of those hands only."""
    if hands is not None and not hands.isidentifier():
        raise ValueError(f"not a table name: {hands!r}")
    tallies: dict[str, _Tally] = {}
    for share in each_share(data, table_shares(data)):
        if hands is not None:
            share = f"({share}) AND hand_key IN ({HAND_KEYS.format(hands=hands)})"
        seat_results = share_seat_results(share) if hands is None else "seat_results"
        frame = data.df(FIELDS_SHARE_SQL.format(share=share, seat_results=seat_results))
        for room, rows in frame.groupby("room", sort=True):
            tallies.setdefault(str(room), _Tally()).add(rows)
        del frame
    return [tallies[room].verdict(room) for room in sorted(tallies)]


@dataclass(frozen=True)
class MoneyVerdict:
    """One room's money field (``win`` in the apps) against the rules' money."""

    room: str
    rows: int
    agree: float  # share of seats within a cent of points × stakes, rake and settlement
    conserved: float  # share of hands paying out no more than they take in
    corr_points: float

    @property
    def measures(self) -> bool:
        return self.agree > AGREES

    def describe(self) -> str:
        what = "the money after the room's rake" if self.measures else "not the rules' money"
        return (
            f"{self.room} `win`: {what} — {self.agree:.1%} of {self.rows:,} seats agree, "
            f"{self.conserved:.1%} of hands pay out no more than they take in, "
            f"correlation {_shown(self.corr_points)} with points × stakes"
        )


@dataclass
class _MoneyTally:
    """One room's money field summed over the shares: counts, and the sums of the
    correlation with the money owed (:class:`Moments`), no column."""

    rows: int = 0
    agree: int = 0
    hands: int = 0
    conserved: int = 0
    moments: Moments = field(default_factory=Moments)

    def add(self, rows: pd.DataFrame, tolerance: float) -> None:
        """Whole hands' seats of the room with money reported."""
        self.rows += len(rows)
        off = (rows["reported_money"] - rows["expected_money"]).abs()
        self.agree += int((off <= tolerance).sum())
        sums = rows.groupby("hand_key")["reported_money"].sum()
        self.hands += len(sums)
        self.conserved += int((sums <= tolerance).sum())
        self.moments.add(_floats(rows["reported_money"]), _floats(rows["owed"]))

    def verdict(self, room: str) -> MoneyVerdict:
        return MoneyVerdict(
            room,
            self.rows,
            self.agree / self.rows if self.rows else 0.0,
            self.conserved / self.hands if self.hands else 0.0,
            self.moments.corr(),
        )


class MoneyTallies:
    """Each room's money verdict from seats shown a share of the tables at a time (each
    share holds whole hands): per room, what the verdict needs, not the seats."""

    def __init__(self, tolerance: float = 0.011) -> None:
        self.tolerance = tolerance
        self.rooms: dict[str, _MoneyTally] = {}

    def add(self, seats: pd.DataFrame) -> None:
        known = seats[seats["reported_money"].notna()]
        for room, rows in known.groupby("room", sort=True):
            self.rooms.setdefault(str(room), _MoneyTally()).add(rows, self.tolerance)

    def verdicts(self) -> list[MoneyVerdict]:
        return [self.rooms[room].verdict(room) for room in sorted(self.rooms)]
