"""The room's rules inferred option by option, with the hands for and against each.

Per room and rule string, starting from the ruleset the room's string names:

* **deck** — a joker on any board or discard, or none;
* **scoring**, **royalties**, **caps** — every hand rescored with one option
  changed at a time; the evidence is the ``result`` field where the data
  shows it is the hand's points (:mod:`.fields`), else the losers' money
  (losers pay no rake), and only hands where the candidates disagree count;
* **Fantasyland** — read off the room's own decisions in the ``fantasy``
  view: the cards dealt after each entry tier, whether a Fantasyland board
  stayed (each repeat rule tried), and the cards of a repeat;
* **maximum loss** — the largest loss seen, tested against no cap
  (:mod:`.max_loss`), or "not inferable" when no hand would lose more;
* **button on Fantasyland** — whether the order of action turned after a
  hand someone played in Fantasyland;
* **rake** and **short-stack settlement** — from :mod:`.money`.

:mod:`ofc_stats.audit.rules_file` writes each as a ruleset TOML (``[room]`` for the
money rules) that ``ofc-stats audit --rules FILE.toml`` audits with.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ofc_stats.audit.chunks import (
    each_share,
    share_fantasy,
    share_hands,
    share_seat_results,
    share_seats,
    share_table_runs,
    table_shares,
)
from ofc_stats.audit.evidence import (
    Evidence,
    HandOrder,
    Shown,
    base_ruleset,
    candidates,
    pick,
    setter,
)
from ofc_stats.audit.fields import field_verdicts, rooms_measuring
from ofc_stats.audit.guess import guess_rulesets, joker_groups
from ofc_stats.audit.max_loss import infer_max_loss, max_loss_value
from ofc_stats.audit.money import Rake, room_money
from ofc_stats.audit.rules_book import lookup_results
from ofc_stats.core.tables import tables
from ofc_stats.engine.presets import PRESETS
from ofc_stats.engine.rules import (
    ROYALTY_TABLES,
    STRICT_REPEAT,
    TRIPS_OR_QUADS,
    Combine,
    Deck,
    FantasyRules,
    FrozenMap,
    RepeatRule,
    Ruleset,
    Scoring,
    top_threshold,
)
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.payouts.settle import Settlement
from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural

REPEATS: dict[str, RepeatRule | None] = {
    "none": None,
    "trips on top or quads on bottom": TRIPS_OR_QUADS,
    "trips on top, full house middle and quads bottom": STRICT_REPEAT,
    "trips on top": RepeatRule("222", None, None, Combine.ANY),
}
# The units the room's money options count, as the audit's rake and settlement lines do.
SEAT = "winning seat"
SHORT = "short-stack hand"
INFER_STEPS = 4 + len(PRESETS)  # progress steps: the rescored options, each named ruleset


@dataclass(frozen=True)
class GroupRules:
    """The inferred rules of one room and rule string."""

    room: str
    rules_text: str
    base: str
    hands: int
    evidence: tuple[Evidence, ...]
    ruleset: Ruleset
    room_rules: RoomRules


@dataclass(frozen=True)
class Inferred:
    groups: tuple[GroupRules, ...]
    ranking: pd.DataFrame  # the named rulesets (:func:`guess_rulesets`)


def _groups(data: OfcData) -> pd.DataFrame:
    return data.df(
        """SELECT room, coalesce(rules_text, ruleset) AS rules_text, mode(ruleset) AS base,
                  count(*) AS hands
           FROM hands GROUP BY ALL ORDER BY room, rules_text"""
    )


def royalty_name(ruleset: Ruleset) -> str:
    for name, table in ROYALTY_TABLES.items():
        if table == ruleset.royalties:
            return name
    return "custom"


# The room's Fantasyland decisions the infer reads: a scored board whose player's next hand
# is the table's next, within the gap ({fantasy}, {hands}, {seat_results}: the views, or
# their rows of a share of the tables, chunks.table_shares).
TRACED_IN = """
FROM {fantasy} f JOIN {hands} h USING (hand_key) JOIN {seat_results} s USING (hand_key, seat)
WHERE f.status = 'scored' AND f.next_link = 'next' AND f.seconds_to_next <= $gap
"""
ENTRY_KEYS = ["room", "rules_text", "top_class", "room_fantasy", "room_cards"]


def _traced(share: str) -> str:
    """:data:`TRACED_IN` over the tables ``share`` holds (the fantasy view's windows stay
    within a table): DuckDB's window over the whole view held 120 MB at 100,000 hands."""
    return TRACED_IN.format(
        fantasy=share_fantasy(share),
        hands=share_hands(share),
        seat_results=share_seat_results(share),
    )


FANTASY_TRACED = _traced("true")  # the traced boards of every table


def _entry_counts(data: OfcData, max_gap_minutes: float) -> pd.DataFrame:
    """Boards played outside Fantasyland and not fouled, counted per room, rule string, top
    class and what the room dealt next: a row per class seen, never a row per board; a
    share of the tables at a time, the shares' counts added."""
    parts = [
        data.df(
            """SELECT f.room, coalesce(h.rules_text, h.ruleset) AS rules_text, s.top_class,
                      coalesce(f.room_fantasy, false) AS room_fantasy, f.room_cards,
                      count(*) AS boards"""
            + _traced(share)
            + """ AND NOT coalesce(f.in_fantasy, false) AND NOT coalesce(f.fouled, false)
               GROUP BY ALL""",
            {"gap": max_gap_minutes * 60},
        )
        for share in each_share(data, table_shares(data))
    ]
    counts = pd.concat(parts, ignore_index=True)
    summed = counts.groupby(ENTRY_KEYS, dropna=False, sort=True)["boards"].sum()
    return summed.reset_index()


def _stays(data: OfcData, max_gap_minutes: float) -> pd.DataFrame:
    """Boards played in Fantasyland (a few in a hundred), one row each in hand order: the
    repeat's evidence is per board, its two folds by hand order (:func:`pick`); a share
    of the tables at a time."""
    parts = [
        data.df(
            """SELECT f.room, coalesce(h.rules_text, h.ruleset) AS rules_text,
                      coalesce(f.fouled, false) AS fouled,
                      coalesce(f.room_fantasy, false) AS room_fantasy, f.room_cards,
                      f.fantasy_cards, s.top_class, s.middle_class, s.bottom_class,
                      h.hand_id AS hand_order, f.seat AS seat_order"""
            + _traced(share)
            + " AND coalesce(f.in_fantasy, false)",
            {"gap": max_gap_minutes * 60},
        )
        for share in each_share(data, table_shares(data))
    ]
    stays = pd.concat(parts, ignore_index=True).sort_values(["hand_order", "seat_order"])
    return stays.drop(columns=["hand_order", "seat_order"]).reset_index(drop=True)


def _entry_evidence(counts: pd.DataFrame, base: Ruleset) -> tuple[list[Evidence], FrozenMap[int]]:
    """Cards dealt after each entry tier, read off the room's boards (:func:`_entry_counts`).

    The tiers are the engine's (:meth:`FantasyRules.tiers`): a top row is in the strongest
    tier whose threshold it reaches, as :meth:`FantasyRules.entry_cards_for` deals."""
    t = tables()
    tiers = base.fantasy.tiers()
    thresholds = [key for key, _ in tiers]
    patterns = {top_threshold(pattern).key: pattern for pattern in base.fantasy.entry_cards}
    # each top class's tier, -1 below the entry threshold
    tier = counts["top_class"].astype(int).map(lambda c: bisect_right(thresholds, t.rank3[c].key))
    tier -= 1
    boards = counts["boards"].astype(int)
    dealt_fantasy = counts["room_fantasy"].astype(bool)
    found: dict[str, int] = {}
    evidence = []
    for index, (threshold, cards) in enumerate(tiers):
        pattern = patterns[threshold]
        mine = tier == index
        dealt = counts[mine & dealt_fantasy & counts["room_cards"].notna()]
        per_count = dealt.groupby(dealt["room_cards"].astype(int))["boards"].sum()
        missed = int(boards[mine & ~dealt_fantasy].sum())
        if per_count.empty:
            found[pattern] = cards
            evidence.append(
                Evidence(f"fantasy.entry_cards.{pattern}", "", 0, 0, note="no entry seen; kept")
            )
            continue
        # most boards first, then fewer cards
        tally = dict(
            sorted(
                zip(map(int, per_count.index.tolist()), map(int, per_count.tolist()), strict=True),
                key=lambda kv: (-kv[1], kv[0]),
            )
        )
        value = next(iter(tally))
        found[pattern] = value
        others = {str(k): n for k, n in tally.items() if k != value}
        note = f"{plural(missed, 'qualifying board')} got no Fantasyland" if missed else ""
        evidence.append(
            Evidence(
                f"fantasy.entry_cards.{pattern}",
                str(value),
                tally[value],
                sum(tally.values()) - tally[value] + missed,
                others,
                note,
            )
        )
    below = int(boards[(tier < 0) & dealt_fantasy].sum()) if tiers else 0
    if below:
        weakest = patterns[thresholds[0]]
        evidence.append(
            Evidence("fantasy entry threshold", weakest, 0, below, note="entries below it")
        )
    return evidence, FrozenMap(found)


def _repeat_evidence(stays: pd.DataFrame, base: Ruleset) -> tuple[list[Evidence], FantasyRules]:
    """Whether and with how many cards the room's Fantasyland boards stayed (:func:`_stays`)."""
    t = tables()
    fantasy = base.fantasy
    if stays.empty:
        note = "no Fantasyland hand traced to the next"
        return [Evidence("fantasy.repeat", "", 0, 0, note=note)], fantasy
    live = ~stays["fouled"].astype(bool)
    per_rule = {}
    for name, rule in REPEATS.items():
        holds = [
            bool(ok) and rule is not None and rule.holds(t.rank3[a], t.rank5[b], t.rank5[c])
            for ok, a, b, c in zip(
                live,
                stays["top_class"].astype(int),
                stays["middle_class"].astype(int),
                stays["bottom_class"].astype(int),
                strict=True,
            )
        ]
        per_rule[name] = pd.Series(
            np.array(holds) == stays["room_fantasy"].astype(bool).to_numpy(), index=stays.index
        )
    default = next((n for n, r in REPEATS.items() if r == fantasy.repeat), "none")
    repeat = pick("fantasy.repeat", per_rule, default)
    evidence = [repeat]
    fantasy = replace(fantasy, repeat=REPEATS.get(repeat.value, fantasy.repeat))
    kept = stays[stays["room_fantasy"].astype(bool) & stays["room_cards"].notna()]
    if kept.empty:
        evidence.append(Evidence("fantasy.repeat_cards", "", 0, 0, note="no repeat seen"))
        return evidence, fantasy
    same = kept["room_cards"].astype(int) == kept["fantasy_cards"].fillna(-1).astype(int)
    counts = kept["room_cards"].astype(int).value_counts()
    fixed = int(counts.index[0])
    # A repeat tells "entry" from a fixed count only when this hand's cards differ from it.
    telling = kept["fantasy_cards"].fillna(-1).astype(int) != fixed
    entry_support = int((same & telling).sum())
    fixed_support = int(((kept["room_cards"].astype(int) == fixed) & telling).sum())
    total = int(telling.sum())
    if entry_support > fixed_support:
        value, support, others = "entry", entry_support, {str(fixed): fixed_support}
        fantasy = replace(fantasy, repeat_cards=None)
    else:
        value, support, others = str(fixed), fixed_support, {"entry": entry_support}
        fantasy = replace(fantasy, repeat_cards=fixed)
    note = "" if total else "every repeat had that many cards before; kept"
    evidence.append(Evidence("fantasy.repeat_cards", value, support, total - support, others, note))
    return evidence, fantasy


# A table's hands in turn, one table per file where its hand ids were reused (table_runs);
# {hands}, {seats}, {runs}: the views, or their rows of a share of the tables.
BUTTON_IN = """
WITH firsts AS (
  SELECT h.hand_key, h.format, h.room, coalesce(h.rules_text, h.ruleset) AS rules_text,
         h.table_id, r.run, h.played_at, h.room_hand_id, h.seat_count,
         bool_or(s.in_fantasy) AS any_fantasy,
         max(coalesce(s.player_id, s.player)) FILTER (WHERE s.seat = 0) AS first_player,
         string_agg(coalesce(s.player_id, s.player), ',' ORDER BY coalesce(s.player_id, s.player))
           AS players
  FROM {hands} h JOIN {seats} s USING (hand_key) LEFT JOIN {runs} r USING (hand_key)
  GROUP BY ALL
), linked AS (
  SELECT *, lead(hand_key) OVER w AS next_key, lead(players) OVER w AS next_players
  FROM firsts WINDOW w AS (PARTITION BY format, room, table_id, run
                           ORDER BY played_at, room_hand_id, hand_key)
)
SELECT l.room, l.rules_text, l.any_fantasy, l.seat_count, s.seat AS next_seat
FROM linked l JOIN {seats} s ON s.hand_key = l.next_key
  AND coalesce(s.player_id, s.player) = l.first_player
WHERE l.players = l.next_players AND l.seat_count > 2
"""
BUTTON_SQL = BUTTON_IN.format(hands="hands", seats="seats", runs="table_runs")


# Where the first to act sat in the table's next hand, counted per room and rule string and
# whether a seat played Fantasyland: a few rows a group, never a row per hand.
BUTTON_COUNTS_IN = """
SELECT room, rules_text, coalesce(any_fantasy, false) AS after_fantasy,
       coalesce(next_seat = seat_count - 1, false) AS moved,
       coalesce(next_seat = 0, false) AS stayed, count(*) AS hands
FROM ({button}) GROUP BY ALL
"""
BUTTON_COUNTS_SQL = BUTTON_COUNTS_IN.format(button=BUTTON_SQL) + "ORDER BY ALL"
BUTTON_KEYS = ["room", "rules_text", "after_fantasy", "moved", "stayed"]


def _button_counts(data: OfcData) -> pd.DataFrame:
    """:data:`BUTTON_COUNTS_SQL` a share of the tables at a time (a table's hands in turn
    stay within it), the shares' counts added: over every hand at once, its window and
    joins held 100 MB at 100,000 hands."""
    parts = [
        data.df(
            BUTTON_COUNTS_IN.format(
                button=BUTTON_IN.format(
                    hands=share_hands(share), seats=share_seats(share), runs=share_table_runs(share)
                )
            )
        )
        for share in each_share(data, table_shares(data))
    ]
    counts = pd.concat(parts, ignore_index=True)
    return counts.groupby(BUTTON_KEYS, dropna=False, sort=True)["hands"].sum().reset_index()


def _button_evidence(counts: pd.DataFrame, base: Ruleset) -> Evidence:
    """After a hand with a Fantasyland seat: did the first to act become the button?"""
    hands = counts["hands"].astype(int)
    moved, stayed = counts["moved"].astype(bool), counts["stayed"].astype(bool)
    after = counts["after_fantasy"].astype(bool)
    usual = int(hands[moved & ~after].sum()), int(hands[~after].sum())
    note = f"after other hands the button moved {usual[0]} of {usual[1]} times"
    yes, no = int(hands[moved & after].sum()), int(hands[stayed & after].sum())
    if not yes and not no:
        return Evidence("button_moves_on_fantasy", "", 0, 0, note="no Fantasyland hand followed")
    value = yes > no or (yes == no and base.button_moves_on_fantasy)
    support, contradict = (yes, no) if value else (no, yes)
    other = {str(not value).lower(): contradict}
    return Evidence("button_moves_on_fantasy", str(value).lower(), support, contradict, other, note)


def infer_rules(
    data: OfcData,
    *,
    max_gap_minutes: float = 15.0,
    progress: Callable[[int], None] | None = None,
) -> Inferred:
    """Every option of every room and rule string, with the hands for and against it."""
    step = progress or (lambda n: None)
    groups = _groups(data)
    # The audit's rule: a room whose field no verdict judged (no scored seat reports it)
    # is no points room; its points are read from the losers' money, and said so.
    verdicts = field_verdicts(data)
    points_rooms = set(rooms_measuring(verdicts))
    # the rules only (seats=False): no seat priced and kept, as the audit's
    money = room_money(data, points_rooms=points_rooms, seats=False)
    shown = Shown(frozenset(points_rooms), {r.room: r.multiplier for r in money.rakes})
    order = HandOrder(data)
    current = {str(g.base): base_ruleset(str(g.base)) for g in groups.itertuples()}
    per_group: dict[tuple[str, str], list[Evidence]] = {
        (str(g.room), str(g.rules_text)): [] for g in groups.itertuples()
    }
    for deck_row in joker_groups(data).to_dict("records"):
        key = (str(deck_row["room"]), str(deck_row["rules_text"]))
        jokers, hands = int(deck_row["joker_hands"]), int(deck_row["hands"])
        deck = Deck.JOKER54 if jokers else Deck.STANDARD52
        note = "the hands with a joker" if jokers else "none has a joker"
        per_group[key].append(Evidence("deck", str(deck), jokers or hands, 0, note=note))
    options: list[tuple[str, dict[str, Callable[[Ruleset], Ruleset]]]] = [
        ("scoring", {str(s): setter("scoring", s) for s in Scoring}),
        ("royalties", {n: setter("royalties", t) for n, t in ROYALTY_TABLES.items()}),
    ]
    if int(data.df("SELECT count(stack) AS n FROM seats")["n"].iloc[0]):
        caps = {v: setter("stack_cap", v == "true") for v in ("true", "false")}
        options.append(("stack_cap", caps))
    chosen: dict[tuple[str, str], dict[str, str]] = {key: {} for key in per_group}
    sizes = {(str(g.room), str(g.rules_text)): int(str(g.hands)) for g in groups.itertuples()}
    bases = {(str(g.room), str(g.rules_text)): str(g.base) for g in groups.itertuples()}
    updated: set[str] = set()
    for option, values in options:
        found = candidates(data, shown, option, values, current, order)
        for key in sorted(per_group, key=lambda k: -sizes[k]):
            base = base_ruleset(bases[key])
            default = {
                "scoring": str(base.scoring),
                "royalties": royalty_name(base),
                "stack_cap": str(base.stack_cap).lower(),
            }[option]
            source = "result" if key[0] in points_rooms else "the losers' money"
            source += " (the losers' money where it is missing)" if key[0] in points_rooms else ""
            evidence = pick(option, found.get(key, {}), default, f"read from {source}")
            per_group[key].append(evidence)
            chosen[key][option] = evidence.value or default
            # Later options are tried on top of this choice (the busiest group's, per base).
            name = bases[key]
            if evidence.value and name not in updated:
                current[name] = values[evidence.value](current[name])
                updated.add(name)
        updated.clear()
        step(1)
    step(3 - len(options))  # the caps step when no stack is recorded
    bases_rules = {k: base_ruleset(b) for k, b in bases.items()}
    losses = infer_max_loss(data, shown, current, bases_rules, order)
    del order
    step(1)
    entry_counts = _entry_counts(data, max_gap_minutes)
    stays = _stays(data, max_gap_minutes)
    button_counts = _button_counts(data)
    # The money rules from the points of the rules inferred so far, not the named preset's:
    # where the two disagree (another royalty table) the winners' shares of a short stack
    # differ too, and the settlement kind would be charged with the game's difference.
    inferred = lookup_results(data, lambda name: current.get(name, base_ruleset(name)))
    with data.rescored(inferred) as scored:
        money = room_money(scored, points_rooms=points_rooms, seats=False)
    del inferred, scored  # the handle holds the results: not through the ranking
    settlements = {s.room: s for s in money.settlements}
    rakes = {r.room: r for r in money.rakes}
    out = []
    for g in groups.itertuples():
        key = (str(g.room), str(g.rules_text))
        base = base_ruleset(str(g.base))
        picks = chosen[key]
        ruleset = base.with_options(
            name=_slug(f"{g.room}-{g.rules_text}"),
            deck=Deck(per_group[key][0].value),
            scoring=Scoring(picks.get("scoring", str(base.scoring))),
            royalties=ROYALTY_TABLES.get(picks.get("royalties", ""), base.royalties),
            stack_cap=picks.get("stack_cap", str(base.stack_cap).lower()) == "true",
            max_loss=max_loss_value(losses.get(key), base),
        )
        per_group[key].append(losses[key])
        if not base.fantasy.entry_cards:
            per_group[key].append(Evidence("fantasy", "none", 0, 0, note="the named rules"))
        else:
            entry, cards = _entry_evidence(_of(entry_counts, key), base)
            repeat, fantasy = _repeat_evidence(_of(stays, key), base)
            ruleset = ruleset.with_options(fantasy=replace(fantasy, entry_cards=cards))
            per_group[key] += entry + repeat
        button = _button_evidence(_of(button_counts, key), base)
        per_group[key].append(button)
        if button.value:
            ruleset = ruleset.with_options(button_moves_on_fantasy=button.value == "true")
        room_rules, money_evidence = _money_evidence(str(g.room), rakes, settlements)
        per_group[key] += money_evidence
        out.append(
            GroupRules(
                key[0], key[1], base.name, sizes[key], tuple(per_group[key]), ruleset, room_rules
            )
        )
    del stays
    data.give_back()  # the options' passes kept none of it: the ranking starts afresh
    ranking = guess_rulesets(
        data, max_gap_minutes=max_gap_minutes, progress=progress, fields=verdicts
    )
    return Inferred(tuple(out), ranking)


def _of(frame: pd.DataFrame, key: tuple[str, str]) -> pd.DataFrame:
    """The rows of one room and rule string."""
    return frame[(frame["room"] == key[0]) & (frame["rules_text"] == key[1])]


def _money_evidence(
    room: str, rakes: Mapping[str, Rake], settlements: Mapping[str, Settlement]
) -> tuple[RoomRules, list[Evidence]]:
    """The rake and settlement of the room's busiest currency (others named in the note)."""
    mine = [r for label, r in rakes.items() if label.startswith(room + " ")]
    if not mine:
        note = "no money reported"
        return RoomRules(), [Evidence("room.rake", "", 0, 0, note=note)]
    rake = max(mine, key=lambda r: r.winners)
    evidence = []
    for each in sorted(mine, key=lambda r: -r.winners):
        rate = f"{each.rate:g}, {each.mode} to {each.tick:g}"
        if each.multiplier != 1:
            rate += f" (money = points × stakes × {each.multiplier:g})"
        option = f"room.rake.{_currency(each.room, room) or '(no currency)'}"
        others = {}
        if each.runner_up is not None:  # the best rule of another rate or rounding
            r_rate, r_tick, r_mode, r_count = each.runner_up
            others[f"{r_rate:g}, {r_mode} to {r_tick:g}"] = r_count
        evidence.append(
            Evidence(option, rate, each.explained, each.winners - each.explained, others, unit=SEAT)
        )
        if each.cap is not None and each.cap_runner_up is not None:
            reach, fit = each.capped
            without = {"no cap": each.cap_runner_up[1]}
            note = (
                f"{plural(reach, SEAT)} whose rate takes more than the cap; with the cap the "
                f"rule explains {each.explained:,}, without it {each.cap_runner_up[1]:,}"
            )
            cap_option = option.replace("room.rake.", "room.rake_cap.")
            evidence.append(
                Evidence(cap_option, f"{each.cap:g}", fit, reach - fit, without, note, unit=SEAT)
            )
    currencies = tuple(
        (_currency(r.room, room), r.rate, r.tick, r.mode, r.cap)
        for r in mine
        if r is not rake
        and (r.rate, r.tick, r.mode, r.cap) != (rake.rate, rake.tick, rake.mode, rake.cap)
    )
    settlement = settlements.get(rake.room)
    kind = "proportional"
    if settlement is not None and settlement.telling:
        kind = settlement.kind
        alternatives = {k: n for k, n in settlement.explained.items() if k != kind}
        evidence.append(
            Evidence(
                "room.settlement",
                kind,
                settlement.explained[kind],
                settlement.telling - settlement.explained[kind],
                alternatives,
                f"{settlement.telling:,} of the {plural(settlement.short_hands, SHORT)} tell "
                "the kinds apart",
                unit=SHORT,
            )
        )
    else:
        evidence.append(
            Evidence("room.settlement", "", 0, 0, note="no short-stack hand tells the kinds apart")
        )
    rules = RoomRules(
        rake.rate, rake.tick, rake.mode, kind, rake_cap=rake.cap, currencies=currencies
    )
    return rules, evidence


def _currency(label: str, room: str) -> str:
    """The currency of a rake label "<room> <currency>" ("" for "(no currency)")."""
    currency = label[len(room) + 1 :]
    return "" if currency == "(no currency)" else currency


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "room"
