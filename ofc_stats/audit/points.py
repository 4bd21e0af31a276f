"""Audit: the room's reported results against the rules, every difference explained.

Three checks, each over whole columns:

* **points** — reported points against recomputed (capped) points.  A hand
  that differs is scored again under each single hypothesis a buggy room
  could be following — signs flipped, caps not applied, another royalty
  table, one board's foul judged the other way — and the first hypothesis
  that reproduces the room's numbers names the class (``points``, ``caps``,
  ``royalties``, ``foul``).
* **Fantasyland** — from the ``fantasy`` view: did the player get the
  Fantasyland (``fantasy_entry``), the repeat (``repeat``) and the card count
  (``fantasy_cards``) the rules give?  Reported on the hand where the room's
  decision shows, the next one.
* **money** — reported money against points × stakes less the room's
  inferred rake (:mod:`ofc_stats.audit.money`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ofc_stats.audit.chunks import (
    each_share,
    in_share,
    share_fantasy,
    share_hands,
    share_seat_results,
    table_shares,
)
from ofc_stats.audit.coverage import (
    empty_coverage,
    fantasy_reasons,
    group_lines,
    reported_reasons,
    summarize,
)
from ofc_stats.audit.explain import (
    fantasy_text,
    foul_text,
    points_text,
    royalty_text,
    unchecked_text,
)
from ofc_stats.audit.fields import (
    FieldVerdict,
    MoneyTallies,
    MoneyVerdict,
    field_verdicts,
    rooms_measuring,
)
from ofc_stats.audit.holdout import CRITERION, Holdout, holdout
from ofc_stats.audit.money import MoneyRules, Rake, priced_shares, room_money
from ofc_stats.audit.money_rows import follow_points, money_rows
from ofc_stats.audit.money_seats import priced_frame, seat_keys
from ofc_stats.audit.rules_book import RulesBook, book_results
from ofc_stats.audit.timeouts import TimeoutEvidence, timeout_evidence
from ofc_stats.engine.rules import Ruleset
from ofc_stats.payouts.mistakes import ROYALTY_MISTAKES, RoyaltyMistake
from ofc_stats.payouts.room_rules import RoomRules
from ofc_stats.payouts.settle import Settlement, rule_source
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.recompute import RESCORE_HAND_COLUMNS, SEAT_COLUMNS, score_batch_files
from ofc_stats.store.rescore import score_tables
from ofc_stats.store.rulesets import DatasetRulesets
from ofc_stats.store.schema import RESULTS
from ofc_stats.store.views import OfcData
from ofc_stats.wording import plural

MISMATCH_COLUMNS = [
    "hand_key",
    "seat",
    "player",
    "room",
    "ruleset",
    "class",
    "cause",
    "room_value",
    "recomputed_value",
    "unit",
    "explanation",
    "basis",  # what the row is judged by: the ruleset, or a rake inferred and how well it fits
]
# A Fantasyland decision the files cannot check: the seat's hand, the player's next
# hand at the table, why (the fantasy view's next_link: 'sat out' or 'gap') in words.
UNCHECKED_COLUMNS = [
    "hand_key",
    "seat",
    "player",
    "room",
    "ruleset",
    "next_hand_key",
    "next_link",
    "explanation",
]
EPS = 1e-6
AUDIT_STEPS = 4  # progress steps of audit(): fields, points, Fantasyland, money
# The stages of audit(), each named to its ``stage`` callback as it starts.
AUDIT_STAGES = (
    "scoring by the rules given",
    "field verdicts",
    "points",
    "Fantasyland",
    "money rules",
    "money out of sample",
    "money rows",
    "timeouts",
    "hands not checked",
    "summary",
)


@dataclass(frozen=True)
class AuditReport:
    summary: pd.DataFrame  # one row per room and ruleset
    by_class: pd.DataFrame  # room, ruleset, class, hands, rate
    mismatches: pd.DataFrame  # one row per seat and class, MISMATCH_COLUMNS
    rakes: tuple[Rake, ...]
    rules: str  # "each hand's own" or the ruleset audited against
    settlements: tuple[Settlement, ...] = ()
    fields: tuple[FieldVerdict, ...] = ()
    # every seat with money: what the rules give it (hand_id, seat, expected_money), indexed
    # by the seats' keys (money_seats.priced_frame)
    money: pd.DataFrame | None = None
    timeouts: tuple[TimeoutEvidence, ...] = ()
    money_fields: tuple[MoneyVerdict, ...] = ()
    unchecked: pd.DataFrame | None = None  # Fantasyland decisions not checkable
    coverage: pd.DataFrame | None = None  # room, ruleset, check, reason, hands not checked
    holdouts: tuple[Holdout, ...] = ()  # inferred money rules judged on hands not inferred from
    cards: pd.DataFrame | None = None  # Fantasyland card counts dealt, CARD_COLUMNS

    def lines(self) -> list[str]:
        out = [f"audit against {self.rules}"]
        coverage = self.coverage if self.coverage is not None else empty_coverage()
        rows = self.summary.to_dict("records")
        for index, row in enumerate(rows):
            notes = {"fantasy_cards": card_departures(self.cards, row["room"], row["ruleset"])}
            out += group_lines(
                {str(k): v for k, v in row.items()}, coverage, self.by_class, notes=notes
            )
            room = str(row["room"])
            if index + 1 < len(rows) and str(rows[index + 1]["room"]) == room:
                continue
            # The rake and settlement are the room's, whatever the rule string: said once,
            # after its last group, as --guess-rules shows the room's own options.
            basis = self.money_basis(room)
            if basis:
                hands = sum(int(r["hands"]) for r in rows if str(r["room"]) == room)
                out.append(
                    f"{room} · every rule string: {plural(hands, 'hand')}; the room's money is "
                    f"{basis}"
                )
        for rake in self.rakes:
            out.append(f"rake {rake.describe()}")
        for settlement in self.settlements:
            out.append(f"short stacks {settlement.describe()}")
        if self.holdouts:
            out.append(f"out of sample: {CRITERION}")
        for held in self.holdouts:
            out.append(f"out of sample {held.describe()}")
        for verdict in self.fields:
            out.append(f"field {verdict.describe()}")
        for money in self.money_fields:
            out.append(f"field {money.describe()}")
        for evidence in self.timeouts:
            out += evidence.lines()
        return out

    def money_basis(self, room: str) -> str:
        """What a room's money is judged by: a rake and settlement inferred from these very
        hands (a mismatch may be the inference's) or given by a rules file."""
        rakes = [r for r in self.rakes if _of_room(r.room, room)]
        settled = [s for s in self.settlements if _of_room(s.room, room) and s.telling]
        if not rakes:
            return ""
        source = rule_source(all(r.given for r in rakes))
        fits = ", ".join(f"{r.room} explains {r.explained:,} of {r.winners:,}" for r in rakes)
        text = f"judged by a rake {source} ({fits} winning seats)"
        if settled:
            fits = ", ".join(
                f"{s.room} {s.explained.get(s.kind, 0)} of {s.telling}" for s in settled
            )
            text += (
                f" and a short-stack settlement likewise ({fits} short-stack hands that tell "
                "the kinds apart)"
            )
        held = [h for h in self.holdouts if _of_room(h.room, room)]
        if held:
            fits = ", ".join(
                f"{h.room} {h.verdict} ({h.figures()})" if h.folds == 2 else f"{h.room} {h.verdict}"
                for h in held
            )
            text += f"; validated out of sample, by date halves: {fits}"
        elif rakes and not all(r.given for r in rakes):
            text += "; not validated out of sample"
        return text


def _renamed(frame: pd.DataFrame, names: dict[tuple[str, str], str]) -> pd.DataFrame:
    """``frame`` with each (room, ruleset) group's ruleset replaced by its files' names."""
    if frame.empty or not names:
        return frame
    keys = zip(frame["room"].astype(str), frame["ruleset"].astype(str), strict=True)
    renamed = [names.get(key, key[1]) for key in keys]
    return frame.assign(ruleset=renamed)


def _of_room(label: str, room: str) -> bool:
    """Whether a money rule's label ("<room> <currency>", money.room_money) is this room's:
    room "X" is not room "X 2" (a currency has no space; "(no currency)" is the one label)."""
    rest = label.removeprefix(f"{room} ")
    return rest != label and (rest == "(no currency)" or " " not in rest)


def audit(
    data: OfcData,
    *,
    ruleset: Ruleset | None = None,
    max_gap_minutes: float = 15.0,
    all_fields: bool = False,
    room_rules: RoomRules | None = None,
    book: RulesBook | None = None,
    progress: Callable[[int], None] | None = None,
    stage: Callable[[str], None] | None = None,
) -> AuditReport:
    """Compare every stored hand's reported results with the recomputed ones.

    ``ruleset`` and ``room_rules`` apply to every hand; a ``book`` (``--rules``:
    a preset, a file or a folder of them) gives each room and rule string its
    own.  A room whose points field is not this hand's points (:mod:`.fields`)
    has its points left out of the per-hand mismatches unless ``all_fields``.
    ``progress`` is called with 1 after each of the :data:`AUDIT_STEPS` checks (fields,
    points, Fantasyland, money); ``stage`` with each of :data:`AUDIT_STAGES` as it starts,
    the last one (the summary) included: what a bar names while it runs.
    """
    step = progress or (lambda n: None)
    begin = stage or (lambda name: None)
    stages = iter(AUDIT_STAGES)
    money_rules: MoneyRules = room_rules if book is None else book.money_for
    with ExitStack() as scope:
        begin(next(stages))  # scoring by the rules given
        scored = data  # the hands' results under the rules judged by
        if ruleset is not None:
            scored = scope.enter_context(data.rescored(ruleset_results(data, ruleset)))
        elif book is not None:
            scored = scope.enter_context(data.rescored(book_results(data, book)))
        begin(next(stages))
        verdicts = tuple(field_verdicts(scored))
        step(1)
        begin(next(stages))
        points = _points(scored, ruleset, book)
        step(1)
        begin(next(stages))
        fantasy = _fantasy(scored, max_gap_minutes)
        step(1)
        begin(next(stages))
        # where `result` is the hand's points, a loser paid by wrong points is no short stack
        fields = rooms_measuring(verdicts)
        room = room_money(scored, money_rules, points_rooms=fields, seats=False)
        begin(next(stages))
        holdouts: tuple[Holdout, ...] = ()
        if money_rules is None:  # rules inferred from these hands: judge them on the others
            pairwise = {r.room: p for r, p in zip(room.rakes, room.pairwise, strict=True)}
            # a share of the tables at a time
            holdouts = tuple(holdout(scored, pairwise, points_rooms=fields))
        begin(next(stages))
        # a share of the tables' seats at a time: the rows kept, and of the seats what the
        # field verdicts, the summary and the ledger need, a few counts and numbers a seat
        seen = _MoneySeen()
        rows = money_rows(room, priced_shares(scored, room.tallies()), seen.add)
        money = _Check("money", seen.checked, rows)
        step(1)
        begin(next(stages))
        timeouts = tuple(timeout_evidence(scored))
        begin(next(stages))
        not_points = {v.room for v in verdicts if not v.measures}
        skip_rooms = set() if all_fields else not_points
        reasons = {
            "points": reported_reasons(scored, "reported_points", skip_rooms),
            "fantasy": fantasy_reasons(scored, max_gap_minutes),
            "money": reported_reasons(scored, "reported_money"),
        }
    if not all_fields and not_points and len(points.mismatches):
        points = points.without(not_points)
    money_found = follow_points(money.mismatches, points.mismatches, room.rakes)
    parts = [frame for frame in (points.mismatches, fantasy.mismatches, money_found)]
    found = [p[[c for c in MISMATCH_COLUMNS if c in p]] for p in parts if len(p)]
    mismatches = pd.concat(found, ignore_index=True) if found else pd.DataFrame()
    if mismatches.empty:
        mismatches = pd.DataFrame(columns=MISMATCH_COLUMNS)
    mismatches = mismatches[MISMATCH_COLUMNS].sort_values(["hand_key", "seat", "class"])
    begin(next(stages))
    checked = {check.name: check.keys() for check in (points, fantasy, money)}
    summary, by_class, coverage = summarize(data, mismatches, checked, reasons)
    cards = fantasy.cards
    if book is not None and ruleset is None:  # each group as the file that audited it
        names = book.group_names(data)
        summary, by_class, coverage = (_renamed(f, names) for f in (summary, by_class, coverage))
        cards = None if cards is None else _renamed(cards, names)
    unchecked = fantasy.unchecked
    assert unchecked is not None  # _fantasy always says which decisions it could not check
    counts = unchecked.groupby(["room", "ruleset"]).size().rename("fantasy_unchecked")
    summary = summary.merge(counts.reset_index(), on=["room", "ruleset"], how="left")
    summary["fantasy_unchecked"] = summary["fantasy_unchecked"].fillna(0).astype(int)
    label = f"ruleset {ruleset.name}" if ruleset is not None else "each hand's own ruleset"
    if ruleset is None and book is not None:
        label = book.label()
    return AuditReport(
        summary,
        by_class,
        mismatches.reset_index(drop=True),
        room.rakes,
        label,
        room.settlements,
        verdicts,
        seen.expected(),
        timeouts,
        tuple(seen.verdicts.verdicts()),
        unchecked.reset_index(drop=True),
        coverage,
        holdouts,
        cards,
    )


def ruleset_results(data: OfcData, ruleset: Ruleset) -> pa.Table:
    """Every stored hand's results scored under ``ruleset``, for :meth:`OfcData.rescored`."""
    dataset = Dataset(data.root)
    parts = [
        score_batch_files(dataset, batch, ruleset=ruleset)["results"] for batch in dataset.batches()
    ]
    return pa.concat_tables(parts, promote_options="permissive") if parts else RESULTS.empty_table()


def share_results(data: OfcData, share: str, ruleset: Ruleset) -> pa.Table:
    """The results of the hands of one share of the tables (chunks.table_shares) scored
    under ``ruleset``, as :func:`ruleset_results` scores a batch's but for the recorded
    timeouts (null: no check of a share reads them), for :meth:`OfcData.rescored` by a
    pass that reads that share only: ``--guess-rules`` scores every named ruleset, and
    the results of every hand at once were 25 MB at 100,000 hands."""
    share_rows = in_share(share)
    hands = data.arrow(
        f"SELECT {', '.join(RESCORE_HAND_COLUMNS)} FROM hands WHERE {share} ORDER BY hand_id"
    )
    seats = data.arrow(
        f"SELECT hand_key, {', '.join(SEAT_COLUMNS)} FROM seats WHERE {share_rows} "
        "ORDER BY hand_id, seat"
    )
    return score_tables(hands, seats, DatasetRulesets(data.root), ruleset=ruleset).results


@dataclass(frozen=True)
class _Check:
    name: str
    # per share of the tables (chunks.table_shares): hand_id and room (dictionary-coded) of
    # every hand this check looked at, once each: 12 bytes a hand, no key's text
    checked: list[pa.Table]
    mismatches: pd.DataFrame
    unchecked: pd.DataFrame | None = None  # decisions it could not check, UNCHECKED_COLUMNS
    cards: pd.DataFrame | None = None  # Fantasyland's card counts dealt, CARD_COLUMNS

    def keys(self) -> list[pa.Array]:
        """The ids of the hands looked at, share by share (coverage.summarize's)."""
        return [table["hand_id"].combine_chunks() for table in self.checked]

    def without(self, rooms: set[str] | frozenset[str]) -> _Check:
        """This check with these rooms' hands neither looked at nor mismatched."""
        names = pa.array(sorted(rooms), pa.string())
        checked = [t.filter(pc.invert(pc.is_in(t["room"], value_set=names))) for t in self.checked]
        found = self.mismatches
        if len(found):
            found = found[~found["room"].isin(rooms)]
        return replace(self, checked=checked, mismatches=found)


LOOKED_AT = pa.schema([("hand_id", pa.int64()), ("room", pa.dictionary(pa.int32(), pa.string()))])


def looked_at(frame: pd.DataFrame) -> pa.Table:
    """A check's hands of one share (a frame with hand_id and room), once each: the id and
    the room's code, kept for the whole audit (a hand's key as text was 5 times the size)."""
    once = frame[["hand_id", "room"]].drop_duplicates("hand_id")
    room = pa.array(once["room"].astype(object), pa.string(), from_pandas=True)
    ids = pa.array(once["hand_id"].to_numpy(np.int64))
    return pa.table([ids, room.dictionary_encode()], schema=LOOKED_AT)


class _MoneySeen:
    """What the audit keeps of the money seats, shown a share of the tables at a time
    (:func:`~ofc_stats.audit.money_rows.money_rows`'s ``seen``): the hands looked at, the
    money field's tallies and what the rules give each seat (the ledger's), not the seats:
    of a seat, its (hand id, seat) as one integer and its money, 16 bytes."""

    def __init__(self) -> None:
        self.checked: list[pa.Table] = []
        self.verdicts = MoneyTallies()
        self.keys: list[npt.NDArray[np.int64]] = []
        self.priced: list[npt.NDArray[np.float64]] = []

    def add(self, seats: pd.DataFrame) -> None:
        self.checked.append(looked_at(seats))
        self.verdicts.add(seats)
        ids = seats["hand_id"].to_numpy(np.int64)
        self.keys.append(seat_keys(ids, seats["seat"].to_numpy(np.int64)))
        self.priced.append(seats["expected_money"].to_numpy(np.float64, copy=True))

    def expected(self) -> pd.DataFrame:
        """Every priced seat's money by the rules, by hand id and seat, keyed by the seats'
        keys (the ledger looks seats up by them, not encoding them again)."""
        keys = np.concatenate(self.keys) if self.keys else np.zeros(0, np.int64)
        self.keys = []
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        values = np.concatenate(self.priced)[order] if self.priced else np.zeros(0)
        self.priced = []
        return priced_frame(keys, values)


# The seats the points check reads: every scored seat of a hand with reported points
# ({hands}: those hands' keys, all of them or one hand's).
POINTS_SEATS_SQL = """
SELECT hand_key, hand_id, seat, player, room, ruleset, scored_with, reported_points, net,
       net_capped, fouled, stack, top_class, middle_class, bottom_class,
       royalty_top, royalty_middle, royalty_bottom
FROM {seat_results}
WHERE status = 'scored' AND hand_key IN ({hands}) AND {share}
ORDER BY hand_key, seat
"""  # {share}: the share of the tables read (chunks.table_shares), "true" for all;
# {seat_results}: the view's rows of that share, each relation cut to it before the joins
# (chunks.share_seat_results: else the status filter may build a join on every result)
REPORTED = "SELECT hand_key FROM seats WHERE reported_points IS NOT NULL"


def _points(data: OfcData, override: Ruleset | None, book: RulesBook | None = None) -> _Check:
    """The points check, a share of the tables at a time (a hand's seats and its scoring
    under each hypothesis stay within its table): memory follows the share."""
    checks = [
        points_share(data, override, share, book) for share in each_share(data, table_shares(data))
    ]
    return _joined("points", checks)


def points_share(
    data: OfcData, override: Ruleset | None, share: str, book: RulesBook | None = None
) -> _Check:
    """The points check of the tables ``share`` holds (chunks.table_shares; "true": all)."""
    reported = f"{REPORTED} AND {in_share(share)}"
    query = POINTS_SEATS_SQL.format(
        seat_results=share_seat_results(share), hands=reported, share=share
    )
    seats = data.df(query)
    return points_check(data, seats, override, book)


def _joined(name: str, checks: list[_Check]) -> _Check:
    """The shares' checks as one: their hands, mismatches and explanations added (an
    empty share's frames have no dtypes of their own: left out unless every share's is)."""
    if len(checks) == 1:
        return checks[0]
    found = [c.mismatches for c in checks if len(c.mismatches)]
    unchecked = [c.unchecked for c in checks if c.unchecked is not None and len(c.unchecked)]
    unchecked = unchecked or [c.unchecked for c in checks[:1] if c.unchecked is not None]
    cards = [c.cards for c in checks if c.cards is not None]
    return _Check(
        name,
        [table for c in checks for table in c.checked],
        pd.concat(found, ignore_index=True) if found else pd.DataFrame(columns=MISMATCH_COLUMNS),
        pd.concat(unchecked, ignore_index=True) if unchecked else None,
        _counted(pd.concat(cards, ignore_index=True)) if cards else None,
    )


def hand_points(data: OfcData, hand_key: str) -> pd.DataFrame:
    """The points check of one hand under its own ruleset: its MISMATCH_COLUMNS rows."""
    hands = f"{REPORTED} AND hand_key = $k"
    query = POINTS_SEATS_SQL.format(seat_results="seat_results", hands=hands, share="true")
    seats = data.df(query, {"k": hand_key})
    return points_check(data, seats, None).mismatches


def points_check(
    data: OfcData, seats: pd.DataFrame, override: Ruleset | None, book: RulesBook | None = None
) -> _Check:
    """The points check of ``seats`` (:data:`POINTS_SEATS_SQL`'s rows): each seat whose
    reported points differ from the recomputed, with the rule change that explains it."""
    checked = [looked_at(seats)]
    off = ~_agrees(seats["reported_points"], seats["net_capped"])
    bad_keys = seats.loc[off, "hand_key"].unique()
    if not len(bad_keys):
        return _Check("points", checked, pd.DataFrame(columns=MISMATCH_COLUMNS))
    bad = seats[seats["hand_key"].isin(bad_keys)].copy()
    bad["off"] = off[bad.index]
    cause = pd.Series("", index=bad.index, dtype=object)
    klass = pd.Series("points", index=bad.index, dtype=object)
    detail = pd.Series("", index=bad.index, dtype=object)
    unexplained = pd.Series(True, index=bad.index)

    def settle(mask: pd.Series, name: str, why: str) -> None:
        whole = mask.groupby(bad["hand_key"]).transform("all") & unexplained
        klass[whole] = name
        cause[whole] = why
        unexplained[whole] = False

    reported = bad["reported_points"]
    settle(
        _agrees(reported, -bad["net_capped"])
        & (bad["net_capped"] != 0).groupby(bad["hand_key"]).transform("any"),
        "points",
        "sign flipped",
    )
    settle(
        _agrees(reported, bad["net"])
        & (bad["net"] != bad["net_capped"]).groupby(bad["hand_key"]).transform("any"),
        "caps",
        "caps not applied",
    )
    hands, seat_rows = _subset(data, bad_keys, book)
    lookup = DatasetRulesets(data.root) if book is None else book.lookup
    for mistake in ROYALTY_MISTAKES.values():

        def with_table(name: str, mistake: RoyaltyMistake = mistake) -> Ruleset:
            own = override or lookup(name)
            return own.with_options(royalties=mistake(own.royalties))

        scored = score_tables(hands, seat_rows, with_table)
        alt = scored.results.to_pandas()
        alt.index = bad.index
        before = unexplained.copy()
        settle(_agrees(reported, alt["net_capped"]), "royalties", "wrong royalty table")
        newly = before & ~unexplained
        for index in bad.index[newly & bad["off"]]:
            table_name = mistake((override or lookup(bad.loc[index, "scored_with"])).royalties).name
            detail[index] = royalty_text(bad.loc[index], alt.loc[index], table_name)
    position = bad.groupby("hand_key").cumcount().to_numpy()
    fouled = bad["fouled"].to_numpy(dtype=bool)
    for flip in range(int(position.max()) + 1):
        forced = np.where(position == flip, ~fouled, fouled)
        alt = score_tables(
            hands, seat_rows, lambda name: override or lookup(name), forced_fouls=forced
        ).results.to_pandas()
        alt.index = bad.index
        before = unexplained.copy()
        settle(_agrees(reported, alt["net_capped"]), "foul", "foul judged the other way")
        newly = before & ~unexplained & pd.Series(position == flip, index=bad.index)
        for index in bad.index[newly]:
            detail[index] = foul_text(bad.loc[index])
    rows = bad[bad["off"]].copy()
    rows["class"] = klass[rows.index]
    rows["cause"] = cause[rows.index].where(cause[rows.index] != "", "no single rule explains it")
    rows["room_value"] = rows["reported_points"].astype(float)
    rows["recomputed_value"] = rows["net_capped"].astype(float)
    rows["unit"] = "points"
    rows["explanation"] = [
        detail[i] or points_text(rows.loc[i], rows.loc[i, "cause"]) for i in rows.index
    ]
    rows["ruleset"] = rows["scored_with"]
    rows["basis"] = "ruleset " + rows["ruleset"].astype(str)
    return _Check("points", checked, rows)


def _agrees(reported: pd.Series, ours: pd.Series) -> pd.Series:
    """Reported equals ours, or the room reported nothing for that seat."""
    return reported.isna() | ((reported - ours).abs() <= EPS)


def _subset(
    data: OfcData, keys: np.ndarray, book: RulesBook | None = None
) -> tuple[pa.Table, pa.Table]:
    """The hands and seats (hand_key, seat order) of the given hand keys; with a ``book``,
    each hand's ruleset named as the book scores it."""
    data.connection.register("audit_keys", pa.table({"hand_key": pa.array(keys, pa.string())}))
    extra = ", room, rules_text" if book is not None else ""
    hands = data.arrow(
        f"SELECT {', '.join(RESCORE_HAND_COLUMNS)}{extra} FROM hands "
        "WHERE hand_key IN (SELECT hand_key FROM audit_keys) ORDER BY hand_key"
    )
    if book is not None:
        hands = book.relabel(hands)
    seats = data.arrow(
        f"SELECT {', '.join(SEAT_COLUMNS)} FROM seats "
        "WHERE hand_key IN (SELECT hand_key FROM audit_keys) ORDER BY hand_key, seat"
    )
    data.connection.unregister("audit_keys")
    return hands, seats


def _fantasy(data: OfcData, max_gap_minutes: float) -> _Check:
    """The Fantasyland check, a share of the tables at a time (the view's windows stay
    within a table): memory follows the share, not the dataset."""
    checks = [
        _fantasy_share(data, max_gap_minutes, share)
        for share in each_share(data, table_shares(data))
    ]
    return _joined("fantasy", checks)


def _fantasy_share(data: OfcData, max_gap_minutes: float, share: str) -> _Check:
    """The Fantasyland check of the tables ``share`` (a predicate on room and table_id)
    holds: the fantasy view's rows of those tables, from their hands only."""
    fantasy, seat_results = share_fantasy(share), share_seat_results(share)
    frame = data.df(
        f"""SELECT f.*, h.ruleset, h.room AS hand_room, t.description AS top_description,
                  n.hand_id AS next_hand_id
           FROM {fantasy} f JOIN {share_hands(share)} h USING (hand_key)
           LEFT JOIN (SELECT hand_key AS next_hand_key, hand_id FROM hands WHERE {share}) n
             USING (next_hand_key)
           LEFT JOIN (SELECT hand_key, seat, top_class FROM {seat_results} WHERE {share}) s
             USING (hand_key, seat)
           LEFT JOIN row_classes t ON t.cards = 3 AND t.class = s.top_class
           WHERE f.status = 'scored' AND f.next_hand_key IS NOT NULL
             AND f.seconds_to_next <= $gap""",
        {"gap": max_gap_minutes * 60},
    )
    at_stake = frame["rules_fantasy"].astype(bool) | frame["room_fantasy"].astype(bool)
    unchecked = frame[(frame["next_link"] != "next") & at_stake].copy()
    unchecked["explanation"] = [unchecked_text(row) for row in unchecked.to_dict("records")]
    frame = frame[frame["next_link"] == "next"]
    nexts = frame[["next_hand_id", "room"]].rename(columns={"next_hand_id": "hand_id"})
    checked = [looked_at(nexts)]
    rules_fl = frame["rules_fantasy"].astype(bool)
    room_fl = frame["room_fantasy"].astype(bool)
    entry = ~frame["in_fantasy"].astype(bool) & (rules_fl != room_fl)
    repeat = frame["in_fantasy"].astype(bool) & (rules_fl != room_fl)
    cards = (
        rules_fl
        & room_fl
        & frame["room_cards"].notna()
        & frame["rules_cards"].notna()
        & (frame["room_cards"].fillna(0) != frame["rules_cards"].fillna(0))
    )
    parts = []
    for name, mask in (("fantasy_entry", entry), ("repeat", repeat), ("fantasy_cards", cards)):
        rows = frame[mask].copy()
        if rows.empty:
            continue
        rows["class"] = name
        rows["cause"] = np.where(rows["room_fantasy"].astype(bool), "dealt", "not dealt")
        if name == "fantasy_cards":
            rows["cause"] = "card count"
        rows["room_value"] = rows["room_cards"].astype(float)
        rows["recomputed_value"] = rows["rules_cards"].astype(float)
        rows["unit"] = "cards"
        rows["explanation"] = [fantasy_text(name, row) for row in rows.to_dict("records")]
        rows["basis"] = "ruleset " + rows["ruleset"].astype(str)
        rows["previous_hand"] = rows["hand_key"]
        rows["hand_key"] = rows["next_hand_key"]
        rows["seat"] = rows["next_seat"]
        parts.append(rows)
    mismatches = pd.concat(parts) if parts else pd.DataFrame(columns=MISMATCH_COLUMNS)
    known = rules_fl & room_fl & frame["room_cards"].notna() & frame["rules_cards"].notna()
    dealt = _counted(frame.loc[known, CARD_COLUMNS[:-1]].assign(decisions=1))
    return _Check("fantasy", checked, mismatches, unchecked[UNCHECKED_COLUMNS], dealt)


# Every checked Fantasyland deal whose card count the rules and the room both give: how
# many times the room dealt room_cards where the rules give rules_cards.
CARD_COLUMNS = ["room", "ruleset", "rules_cards", "room_cards", "decisions"]
CONSISTENT = 3  # deals that must all depart alike before the departure is the room's own


def _counted(rows: pd.DataFrame) -> pd.DataFrame:
    """CARD_COLUMNS rows summed by (room, ruleset, rules_cards, room_cards)."""
    keys = CARD_COLUMNS[:-1]
    rows = rows.astype({"room": str, "ruleset": str, "rules_cards": float, "room_cards": float})
    summed: pd.DataFrame = rows.groupby(keys, as_index=False, sort=True).agg(
        decisions=("decisions", "sum")
    )
    return summed[CARD_COLUMNS]


def card_departures(cards: pd.DataFrame | None, room: str, ruleset: str) -> str:
    """The room's card counts, when it departs from the rules the same way every time: each
    count the rules give that the room ever dealt otherwise was dealt one other count, on
    :data:`CONSISTENT` deals at least (Ppp deals 16 cards for trips on top where the
    ultimate rules give 17): a rule of its own, which ``--guess-rules`` infers; "" else."""
    if cards is None or cards.empty:
        return ""
    mine = cards[(cards["room"] == room) & (cards["ruleset"] == ruleset)]
    off = mine[mine["rules_cards"] != mine["room_cards"]]
    if off.empty:
        return ""
    parts = []
    for _, deals in mine[mine["rules_cards"].isin(off["rules_cards"])].groupby("rules_cards"):
        if len(deals) != 1 or int(deals["decisions"].iloc[0]) < CONSISTENT:
            return ""
        given, dealt = int(deals["rules_cards"].iloc[0]), int(deals["room_cards"].iloc[0])
        times = int(deals["decisions"].iloc[0])
        parts.append(f"{dealt} cards all {times:,} times the rules give {given}")
    return (
        f"the same departure every time: the room dealt {', '.join(parts)} — a rule of its "
        f"own, not a slip; `ofc-stats audit --guess-rules` infers each room's rules"
    )


__all__ = ["AUDIT_STAGES", "AUDIT_STEPS", "AuditReport", "audit", "ruleset_results"]
