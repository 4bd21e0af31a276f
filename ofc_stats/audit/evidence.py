"""One option's evidence: hands rescored under each value, and the value most of them show.

:mod:`ofc_stats.audit.infer` and :mod:`ofc_stats.audit.max_loss` ask the same
question of every option: rescore every stored hand with one option changed,
keep the hands where the values disagree (the *telling* hands), and count
which value each of them supports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pandas as pd

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import RulesetError
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.hand_ids import hand_id_range
from ofc_stats.store.recompute import score_batch_files
from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural

EPS = 1e-6


def base_ruleset(name: str) -> Ruleset:
    """The preset a stored name means, else plain pineapple (an unknown rule string)."""
    try:
        return get_ruleset(name)
    except RulesetError:
        return get_ruleset("pineapple")


@dataclass(frozen=True)
class Evidence:
    """One option's inferred value and the hands that support and contradict it."""

    option: str
    value: str  # as written in the TOML file; "" when not observable
    support: int
    contradict: int
    alternatives: dict[str, int] = field(default_factory=dict)  # other value -> support
    note: str = ""
    # Judged on hands it was not inferred from (two folds by hand order): the telling hands
    # of each half the other half's pick explains and contradicts; and (the in-sample
    # runner-up, the hands the other half's second choice explains).
    held: tuple[int, int] | None = None
    runner_up: tuple[str, int] | None = None
    # What the counts count: hands for a game option; winning seats for the rake (as the
    # audit's rake lines count them), short-stack hands for the settlement.
    unit: str = "hand"

    @property
    def tied(self) -> list[str]:
        return [v for v, n in self.alternatives.items() if n == self.support and self.support]

    def describe(self) -> str:
        """``room.rake.USD = 0.03, nearest to 0.1: 824 winning seats support, 0 contradict``.

        >>> Evidence("deck", "standard52", 1, 1, {"joker54": 0}).describe()
        'deck = standard52: 1 hand supports, 1 contradicts; others: joker54 0'
        >>> Evidence("room.rake.USD", "0", 1409, 0, unit="winning seat").describe()
        'room.rake.USD = 0: 1,409 winning seats support, 0 contradict'
        """
        if not self.value:
            return f"{self.option}: not observable ({self.note})"
        tie = f"; tied with {', '.join(self.tied)}" if self.tied else ""
        others = ", ".join(f"{v} {n:,}" for v, n in self.alternatives.items() if v not in self.tied)
        others = f"; others: {others}" if others else ""
        note = f"; {self.note}" if self.note else ""
        return (
            f"{self.option} = {self.value}: {self.counts(self.support, self.contradict)}"
            f"{tie}{others}{note}{self.out_of_sample()}"
        )

    def counts(self, support: int, contradict: int) -> str:
        """'824 winning seats support, 0 contradict', '1 hand supports, 1 contradicts'."""
        return (
            f"{plural(support, self.unit)} {_verb('support', support)}, "
            f"{contradict:,} {_verb('contradict', contradict)}"
        )

    def out_of_sample(self) -> str:
        """How the option held on hands it was not inferred from, or that it was not tried."""
        if self.held is None:
            return ""
        support, contradict = self.held
        text = (
            f"; out of sample (each half's pick judged on the other half, by hand order): "
            f"{self.counts(support, contradict)}"
        )
        if self.runner_up is not None:
            second = self.runner_up[1]
            text += (
                f"; the other half's second choice: {plural(second, self.unit)} "
                f"{_verb('support', second)}"
            )
        return text


def _verb(verb: str, count: int) -> str:
    """The verb agreeing with a count: '1 hand supports', '0 hands support'."""
    return verb + "s" if count == 1 else verb


def scored(dataset: Dataset, batch: str, lookup: Callable[[str], Ruleset]) -> pd.DataFrame:
    """hand_key, seat, net_capped of one batch's scored seats under ``lookup``."""
    results = score_batch_files(dataset, batch, lookup, timeouts=False)["results"]
    frame: pd.DataFrame = results.select(["hand_key", "seat", "net_capped", "status"]).to_pandas()
    scored = frame[frame["status"].astype(str) == "scored"].drop(columns="status")
    return scored.reset_index(drop=True)


# One batch's seats (by its hand_id range: batches take ranges in turn) with what the data
# shows of their points: the result field, and a loser's money over stakes.
SHOWN_SQL = """
SELECT s.hand_key, s.hand_id, s.seat, h.room, coalesce(h.rules_text, h.ruleset) AS rules_text,
       s.reported_points, s.reported_money / coalesce(h.stakes, 1) AS money_points,
       h.room || ' ' || coalesce(nullif(h.currency, ''), '(no currency)') AS label
FROM (SELECT * FROM seats WHERE hand_id BETWEEN $low AND $high) s
JOIN (SELECT * FROM hands WHERE hand_id BETWEEN $low AND $high) h USING (hand_key)
"""


@dataclass(frozen=True)
class Shown:
    """What each seat's points were, as far as the data tells, read a batch at a time: the
    result field in a room where it is the points (``points_rooms``), else a loser's money
    over stakes and the room's multiplier (no rake on losses).  A frame of every seat was
    the infer's biggest holding after the candidates' (75 MB at 100,000 hands)."""

    points_rooms: frozenset[str]
    multiplier: dict[str, float]

    def batches(self, data: OfcData) -> Iterator[tuple[str, pd.DataFrame]]:
        """(batch, its seats: hand_key, hand_id, seat, room, rules_text, shown), in turn."""
        dataset = Dataset(data.root)
        for batch in dataset.batches():
            low, high = hand_id_range(dataset.batch_file("hands", batch))
            yield batch, self.frame(data.df(SHOWN_SQL, {"low": low, "high": high}))
            data.give_back()

    def frame(self, frame: pd.DataFrame) -> pd.DataFrame:
        """:data:`SHOWN_SQL`'s rows with each seat's ``shown`` points (NaN: not shown)."""
        # as floats even with no seat (an empty map keeps the labels' string type)
        multiplier = frame["label"].map(self.multiplier).astype("float64").fillna(1.0)
        money_points = frame["money_points"] / multiplier
        use_points = frame["room"].isin(self.points_rooms) & frame["reported_points"].notna()
        frame["shown"] = np.where(
            use_points, frame["reported_points"], money_points.where(money_points < 0)
        )
        return frame[["hand_key", "hand_id", "seat", "room", "rules_text", "shown"]]


class HandOrder:
    """Each hand's place in hand_key order, by hand_id: the order the two folds of
    :func:`pick` halve the telling hands by, kept as 16 bytes a hand, not the keys."""

    def __init__(self, data: OfcData) -> None:
        by_key = data.arrow("SELECT hand_id FROM hands ORDER BY hand_key")["hand_id"]
        ids = np.asarray(by_key.to_numpy(), np.int64)
        self._places = np.argsort(ids, kind="stable")  # the key-order place of each id, sorted
        self._ids = ids[self._places]

    def __call__(self, ids: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        return np.asarray(self._places[np.searchsorted(self._ids, ids)], np.int64)


_Flags = tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]  # hands' places, and matched


def _changed(
    change: Callable[[Ruleset], Ruleset], current: dict[str, Ruleset]
) -> Callable[[str], Ruleset]:
    """A lookup by stored name: the rules inferred so far (else the named), changed."""
    return lambda name: change(current.get(name, base_ruleset(name)))


def candidates(
    data: OfcData,
    shown: Shown,
    option: str,
    values: dict[str, Callable[[Ruleset], Ruleset]],
    current: dict[str, Ruleset],
    order: HandOrder,
) -> dict[tuple[str, str], dict[str, pd.Series]]:
    """Per group: per value, whether each hand's shown points match (NaN = cannot tell),
    indexed by the hand's place in hand_key order (:class:`HandOrder`).

    A batch at a time: its seats' shown points and their scoring under each value, kept
    as a place and a flag per hand seen (the seats and their scores are the batch's)."""
    dataset = Dataset(data.root)
    lookups = {value: _changed(change, current) for value, change in values.items()}
    found: dict[tuple[str, str], dict[str, list[_Flags]]] = {}
    for batch, seats in shown.batches(data):
        for value, lookup in lookups.items():
            merged = seats.merge(scored(dataset, batch, lookup), on=["hand_key", "seat"])
            shown_points = merged["shown"]
            seen = shown_points.notna()
            merged["ok"] = ((shown_points - merged["net_capped"]).abs() <= EPS) | ~seen
            merged["seen"] = seen
            per_hand = merged.groupby(["room", "rules_text", "hand_id"]).agg(
                ok=("ok", "all"), seen=("seen", "any")
            )
            per_hand = per_hand[per_hand["seen"]]
            for (room, text), hands in per_hand.groupby(level=[0, 1]):
                ids = hands.index.get_level_values(2).to_numpy(np.int64)
                parts = found.setdefault((str(room), str(text)), {}).setdefault(value, [])
                parts.append((order(ids), hands["ok"].to_numpy(bool)))
            del merged, per_hand
    out: dict[tuple[str, str], dict[str, pd.Series]] = {}
    for key, per_value in found.items():
        for value in values:  # in the values' order: a tie goes to the first (pick)
            if value not in per_value:
                continue
            places = np.concatenate([p for p, _ in per_value[value]])
            oks = np.concatenate([ok for _, ok in per_value[value]])
            sort = np.argsort(places, kind="stable")
            out.setdefault(key, {})[value] = pd.Series(oks[sort], index=places[sort], name="ok")
    return out


def pick(option: str, per_value: dict[str, pd.Series], default: str, note: str = "") -> Evidence:
    """The value explaining the most telling hands (ties go to the room's named value)."""
    if not per_value:
        return Evidence(option, "", 0, 0, note=note or "no hand shows it")
    wide = pd.concat(per_value, axis=1).fillna(False)
    telling = wide[wide.nunique(axis=1) > 1]
    support = {v: int(telling[v].sum()) for v in wide.columns}
    best = max(support, key=lambda v: (support[v], v == default))
    if not len(telling):  # the data cannot tell: the preset's value, assumed, not a setting
        return Evidence(
            option, "", 0, 0, note=f"no hand tells the values apart; the preset's {default} assumed"
        )
    alternatives = {v: n for v, n in support.items() if v != best}
    held, runner_up = _two_folds(telling, default, best, support)
    return Evidence(
        option, best, support[best], len(telling) - support[best], alternatives, note,
        held, runner_up,
    )  # fmt: skip


def _two_folds(
    telling: pd.DataFrame, default: str, best: str, support: dict[str, int]
) -> tuple[tuple[int, int], tuple[str, int] | None]:
    """Each half of the telling hands (by hand order) judged by the other half's pick: the
    hands it explains and contradicts; and the hands the other half's second value explains
    (named by the in-sample runner-up)."""
    rows = telling.sort_index()
    half = len(rows) // 2
    halves = (rows.iloc[:half], rows.iloc[half:])
    others = [v for v in support if v != best]
    runner = max(others, key=lambda v: support[v]) if others else None
    held_support = held_contradict = runner_support = 0
    for train, test in (halves, halves[::-1]):
        if not len(train) or not len(test):
            continue
        counts = {v: int(train[v].sum()) for v in train.columns}
        ranked = sorted(counts, key=lambda v: (-counts[v], v != default))
        held_support += int(test[ranked[0]].sum())
        held_contradict += int((~test[ranked[0]].astype(bool)).sum())
        if len(ranked) > 1:
            runner_support += int(test[ranked[1]].sum())
    return (held_support, held_contradict), None if runner is None else (runner, runner_support)


def setter(option: str, value: object) -> Callable[[Ruleset], Ruleset]:
    return lambda ruleset: ruleset.with_options(**{option: value})
