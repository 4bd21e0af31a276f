"""Grading a Fantasyland set against the exact solver's, and what a Fantasyland is worth.

The objective is the solver's: ``royalties + stay value x repeat``, the stay
value being the published value of the Fantasyland the repeat deals
(:func:`ofc_stats.engine.fantasy_value.documented_stay_value`).  The real set's
royalties and repeat come from the stored results, so it is judged by the
same engine.

:func:`room_values` is what a Fantasyland of each size is worth in a room
(ruleset) of a dataset, for the continuation policy, the rollouts and the
replay's yardstick: the Markov chain over "normal hand" and "Fantasyland of n
cards" on the room's own results (its points over a normal hand, repeats
included; :func:`ofc_stats.engine.fantasy_value.fantasy_values`).  A size
with fewer than :data:`MIN_HANDS` Fantasyland hands takes the self-play
figure of the ruleset (:mod:`ofc_stats.grade.fantasy_chain`: the same chain
under the continuation policy, the exact solver setting the Fantasylands,
weighted by the room's table sizes), given to the room's chain as known; a
room with no size seen enough takes self-play's figures for every size.  Only
a ruleset without self-play figures (not in the versioned file, or its
options differ from the preset of its name) keeps the older fallbacks: a thin
size pooled with the nearest smaller size the room has enough of, a room
with none at all the published figure.  Each value says where it comes from.
:func:`room_tables` gives every room of a dataset as the tables the core looks
up, the one source ``ofc-stats grade`` and its replay take their values from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from ofc_stats.core.fantasy import solve_fantasy
from ofc_stats.engine.fantasy_value import (
    documented_stay_value,
    fantasy_values,
    nearest_size,
    published_value,
)
from ofc_stats.engine.rules import Deck, Ruleset
from ofc_stats.grade.fantasy_chain import FIGURES, ChainWorth, chain_worth, worth_at
from ofc_stats.grade.position import FantasyDeal
from ofc_stats.store.fantasy import SEATS_SQL
from ofc_stats.store.views import OfcData

# Fantasyland hands of a size the chain needs before it is estimated on its own.
MIN_HANDS = 30


def stay_value(ruleset: Ruleset, cards: int) -> float:
    """Points a repeat of a ``cards``-card Fantasyland is worth: the value of what it deals."""
    return documented_stay_value(ruleset, cards)


@dataclass(frozen=True)
class FantasyGrade:
    best_board: tuple[int, ...]  # 13 cards: top, middle, bottom
    best_discards: tuple[int, ...]
    best_value: float
    best_stays: bool
    real_value: float
    loss: float
    missed_repeat: bool


def grade_set(deal: FantasyDeal, royalties: int, stays: bool) -> FantasyGrade:
    """The solver's set for the deal and what the real set (``royalties``, ``stays``) lost."""
    worth = stay_value(deal.ruleset, len(deal.cards))
    best = solve_fantasy(deal.cards, deal.ruleset, worth)
    real = royalties + worth * stays
    return FantasyGrade(
        best_board=tuple(best.top) + tuple(best.middle) + tuple(best.bottom),
        best_discards=tuple(best.discards),
        best_value=float(best.value),
        best_stays=bool(best.stays),
        real_value=float(real),
        loss=max(float(best.value) - real, 0.0),
        missed_repeat=bool(best.stays) and not stays,
    )


@dataclass(frozen=True)
class RoomValues:
    """Points a Fantasyland of each size is worth in one room, and where each comes from."""

    value: dict[int, float]  # by cards dealt; sizes not listed: the nearest smaller's
    source: dict[int, str]
    deck: Deck  # a room with no value at all takes the published figures

    def worth(self, cards: int) -> float:
        """Points a ``cards``-card Fantasyland is worth (0 for no entry)."""
        if not cards:
            return 0.0
        if not self.value:
            return published_value(cards, self.deck)[0]  # each size its own figure
        return worth_at(self.value, cards)


def _floor(counts: dict[int, int], cards: int) -> int:
    """The size a ``cards``-card Fantasyland is pooled with: itself when seen enough, else
    the largest well-seen smaller size, else the smallest well-seen size."""
    enough = {n for n, k in counts.items() if k >= MIN_HANDS}
    if cards in enough or not enough:
        return cards
    return nearest_size(enough, cards)


def room_values(
    data: OfcData, ruleset: Ruleset, self_play: ChainWorth | Literal["file"] | None = "file"
) -> RoomValues:
    """What each Fantasyland size is worth in ``ruleset``'s room of ``data`` (see the module);
    ``self_play``: the self-play figures for thin sizes (default: the versioned file's)."""
    played = chain_worth(ruleset) if self_play == "file" else self_play
    deck = ruleset.deck
    frame = data.df(SEATS_SQL, {"ruleset": ruleset.name})
    dealt = frame["cards"].to_numpy(dtype=np.int64)
    after = frame["next_cards"].to_numpy(dtype=np.int64)
    sizes, seen = np.unique(dealt[dealt > 0], return_counts=True)
    counts = {int(n): int(k) for n, k in zip(sizes, seen, strict=True)}
    if played is not None:
        return _with_self_play(frame, ruleset, counts, played)
    unplayed = f"; no self-play figures for {ruleset.name} ({FIGURES.name})"
    if frame.empty or not any(k >= MIN_HANDS for k in counts.values()):
        return RoomValues({}, _published(ruleset, unplayed), deck)
    pool = np.vectorize(lambda n: _floor(counts, int(n)) if n > 0 else 0, otypes=[np.int64])
    try:
        chain = fantasy_values(pool(dealt), frame["points"], pool(after))
    except ValueError:
        return RoomValues({}, _published(ruleset, unplayed), deck)
    value = dict(chain.value)
    source = {
        n: f"room chain, {chain.hands[n]} hands, stays {chain.stay_rate[n]:.0%}" for n in value
    }
    for n in sorted({*counts, *(int(a) for a in after if a > 0)} - set(value)):
        base = _floor(counts, n)
        if base in value:
            value[n] = value[base]
            source[n] = f"pooled with {base} cards (only {counts.get(n, 0)} hands){unplayed}"
    return RoomValues(value, source, deck)


def _published(ruleset: Ruleset, why: str) -> dict[int, str]:
    """The sources of a room valued by the published figures."""
    return {
        n: f"published: {published_value(n, ruleset.deck)[1]}{why}" for n in ruleset.fantasy.sizes()
    }


def _with_self_play(
    frame: pd.DataFrame, ruleset: Ruleset, counts: dict[int, int], played: ChainWorth
) -> RoomValues:
    """The room's chain for the sizes it has :data:`MIN_HANDS` hands of, self-play's
    figure (at the room's table sizes) for the others, taken into the chain as given."""
    shares = None
    if "seats" in frame:  # a hand whose seat count is not stored counts for none
        counted = frame["seats"].dropna().to_numpy(dtype=np.int64)
        tables, seats = np.unique(counted, return_counts=True)
        shares = {int(s): int(k) / len(counted) for s, k in zip(tables, seats, strict=True)}
    fallback, how = played.mixed(shares)
    thin = {n: v for n, v in fallback.items() if counts.get(n, 0) < MIN_HANDS}
    value = dict(thin)
    source = {n: f"{how}: {counts.get(n, 0)} hands in the room" for n in thin}
    if len(thin) < len(fallback) and not frame.empty:
        known = set(fallback)
        rows = frame[frame["cards"].isin([0, *known]) & frame["next_cards"].isin([0, *known])]
        try:
            chain = fantasy_values(rows["cards"], rows["points"], rows["next_cards"], thin)
        except ValueError:
            chain = None
        if chain is not None:
            for n, v in chain.value.items():
                value[n] = v
                source[n] = f"room chain, {chain.hands[n]} hands, stays {chain.stay_rate[n]:.0%}"
        else:
            value, source = dict(fallback), {n: f"{how}: the room's chain failed" for n in fallback}
    return RoomValues(value, source, ruleset.deck)


# Each ruleset's Fantasyland values by cards dealt (0..31), as the core looks them up.
RoomTables = tuple[tuple[str, tuple[float, ...]], ...]


def room_table(room: RoomValues) -> tuple[float, ...]:
    """``room.worth(n)`` for n = 0..31 cards, rounded to 6 places so a stamp reads alike."""
    return tuple(round(room.worth(n), 6) if n else 0.0 for n in range(32))


def room_tables(root: str | Path) -> RoomTables:
    """Every room (ruleset) of the dataset at ``root`` with its :func:`room_values`, sorted
    by name; a dataset without scored seats gives each ruleset the published figures."""
    from ofc_stats.store.rulesets import DatasetRulesets
    from ofc_stats.store.views import open_dataset

    lookup = DatasetRulesets(root)
    out = []
    with open_dataset(root) as db:
        names = sorted(str(r[0]) for r in db.sql("SELECT DISTINCT ruleset FROM hands").fetchall())
        for name in names:
            out.append((name, room_table(room_values(db, lookup(name)))))
    return tuple(out)
