"""Rulesets as frozen, validated data (RULES.md §1-§8).

A :class:`Ruleset` holds every option on which rooms differ.  Nothing here
does I/O; :mod:`ofc_stats.engine.presets` names the shipped rulesets and
:mod:`ofc_stats.engine.ruleset_toml` reads TOML files into :func:`ruleset_from_mapping`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar

from ofc_stats.engine.cards import RANK_CHARS
from ofc_stats.engine.rank import Category, RowRank
from ofc_stats.errors import RulesetError

V = TypeVar("V")


class FrozenMap(Mapping[str, V]):
    """An immutable, hashable str-keyed mapping, so rulesets can be cache keys."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, V] | None = None) -> None:
        self._items: dict[str, V] = dict(items or {})

    def __getitem__(self, key: str) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._items.items())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other)

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"


class Variant(StrEnum):
    """How cards arrive (RULES.md §2)."""

    CLASSIC = "classic"
    TURBO = "turbo"
    PINEAPPLE = "pineapple"

    @property
    def streets(self) -> tuple[tuple[int, int], ...]:
        """(cards dealt, cards placed) per street, first street first."""
        later = {
            Variant.CLASSIC: ((1, 1),) * 8,
            Variant.TURBO: ((4, 4),) * 2,
            Variant.PINEAPPLE: ((3, 2),) * 4,
        }[self]
        return ((5, 5), *later)

    @property
    def max_seats(self) -> int:
        return 3 if self is Variant.PINEAPPLE else 4

    @property
    def standard_fantasy_cards(self) -> int:
        return 14 if self is Variant.PINEAPPLE else 13


class Deck(StrEnum):
    STANDARD52 = "standard52"
    JOKER54 = "joker54"

    @property
    def size(self) -> int:
        return 54 if self is Deck.JOKER54 else 52


class Scoring(StrEnum):
    """Row points (RULES.md §4)."""

    CLASSIC = "classic"  # 2 a row, no scoop bonus
    AMERICAN = "american"  # 1 a row, +3 for a scoop
    TWO_FOUR = "two-four"  # 1 a row, +1 for the majority of rows


class MajorityBonus(StrEnum):
    """When two-four's extra point is paid."""

    MORE_ROWS = "more-rows"  # won more rows than the opponent (RULES.md table)
    TWO_ROWS = "two-rows"  # won at least two of three rows (004's wording)


class FoulPolicy(StrEnum):
    """What a fouled board loses to a live one (RULES.md §4)."""

    SCOOP = "scoop"  # all three rows, scoop bonus included
    ROWS_ONLY = "rows-only"  # all three rows, no scoop bonus


class FantasyMode(StrEnum):
    NONE = "none"
    STANDARD = "standard"
    UNLIMITED = "unlimited"
    PROGRESSIVE = "progressive"
    ULTIMATE = "ultimate"
    TOURNAMENT = "tournament"


class Combine(StrEnum):
    ANY = "any"
    ALL = "all"


# Far above any real table's 50: three rows of it against three opponents still fit
# the stored 16-bit royalty columns.
MAX_ROYALTY = 1000
NAME_LIMIT = 64  # characters: a ruleset's name is also a file name in a dataset


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a ruleset, or None.

    A dataset keeps a custom ruleset as ``rulesets/<name>.toml``, so a name is
    one plain file name: not empty, no path separator, no leading dot, no
    control character.

    >>> name_problem("my-room") is None
    True
    >>> name_problem("../../victim/config")
    'holds a path separator'
    >>> name_problem("")
    'is empty'
    """
    if not isinstance(name, str):
        return "is not text"
    if not name.strip():
        return "is empty"
    if len(name) > NAME_LIMIT:
        return f"is longer than {NAME_LIMIT} characters"
    if "/" in name or "\\" in name:
        return "holds a path separator"
    if name.startswith("."):
        return "starts with a dot"
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in name):
        return "holds a control character"
    return None


FIVE_CARD_KEYS = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)
TOP_PATTERNS = tuple(c * 2 for c in RANK_CHARS) + tuple(c * 3 for c in RANK_CHARS)
_TOP_ALIASES = {"trips": "222", "set": "222"}


def five_card_label(rank: RowRank) -> str:
    """The royalty-table key of a 5-card row: its category, or ``royal_flush``."""
    return "royal_flush" if rank.is_royal else rank.category.label


def five_card_order(label: str) -> int:
    """Position of a 5-card table key in strength order (royal flush last)."""
    return FIVE_CARD_KEYS.index(label)


def top_threshold(pattern: str, where: str = "") -> RowRank:
    """The weakest top row that counts as ``pattern`` (``"QQ"``, ``"222"``, ``"trips"``)."""
    text = _TOP_ALIASES.get(pattern.lower(), pattern.upper())
    if text not in TOP_PATTERNS:
        raise RulesetError(f"{where}unknown top pattern {pattern!r}; use one of 66..AA, 222..AAA")
    rank = RANK_CHARS.index(text[0])
    category = Category.PAIR if len(text) == 2 else Category.THREE_OF_A_KIND
    return RowRank(category, (rank,))


@dataclass(frozen=True)
class RoyaltyTable:
    """Points per row: top by pattern (``"QQ"``, ``"777"``), middle/bottom by category."""

    top: FrozenMap[int]
    middle: FrozenMap[int]
    bottom: FrozenMap[int]
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        for row, table, allowed in (
            ("top", self.top, TOP_PATTERNS),
            ("middle", self.middle, FIVE_CARD_KEYS),
            ("bottom", self.bottom, FIVE_CARD_KEYS),
        ):
            for key, points in table.items():
                if key not in allowed:
                    raise RulesetError(
                        f"royalties.{row}: unknown key {key!r}; known: {', '.join(allowed)}"
                    )
                if (
                    not isinstance(points, int)
                    or isinstance(points, bool)
                    or not 0 <= points <= MAX_ROYALTY
                ):
                    raise RulesetError(
                        f"royalties.{row}.{key}: {points!r} is not a whole number "
                        f"from 0 to {MAX_ROYALTY}"
                    )

    def top_points(self, rank: RowRank) -> int:
        return self.top.get(rank.top_pattern, 0) if rank.top_pattern else 0

    def five_points(self, row: str, rank: RowRank) -> int:
        table = self.middle if row == "middle" else self.bottom
        label = five_card_label(rank)
        if label == "royal_flush" and label not in table:
            label = "straight_flush"
        return table.get(label, 0)


def _top_table() -> FrozenMap[int]:
    pairs = {c * 2: points for c, points in zip("6789TJQKA", range(1, 10), strict=True)}
    trips = {c * 3: points for c, points in zip(RANK_CHARS, range(10, 23), strict=True)}
    return FrozenMap({**pairs, **trips})


_FIVE_ORDER: tuple[str, ...] = FIVE_CARD_KEYS[3:]  # three of a kind .. royal flush
CLASSIC_ROYALTIES = RoyaltyTable(
    top=_top_table(),
    middle=FrozenMap(dict(zip(_FIVE_ORDER, (2, 4, 8, 12, 16, 20, 30), strict=True))),
    bottom=FrozenMap(dict(zip(_FIVE_ORDER[1:], (2, 4, 6, 8, 10, 15), strict=True))),
    name="classic",
)
AMERICAN_ROYALTIES = RoyaltyTable(
    top=_top_table(),
    middle=FrozenMap(dict(zip(_FIVE_ORDER, (2, 4, 8, 12, 20, 30, 50), strict=True))),
    bottom=FrozenMap(dict(zip(_FIVE_ORDER[1:], (2, 4, 6, 10, 15, 25), strict=True))),
    name="american",
)
ROYALTY_TABLES = {"classic": CLASSIC_ROYALTIES, "american": AMERICAN_ROYALTIES}


@dataclass(frozen=True)
class RepeatRule:
    """When a Fantasyland board earns another Fantasyland hand (never when fouled).

    Each row condition is a minimum (a top pattern, or a 5-card table key);
    ``combine`` says whether any or all of the set conditions must hold.
    """

    top: str | None = "222"
    middle: str | None = None
    bottom: str | None = "four_of_a_kind"
    combine: Combine = Combine.ANY

    def __post_init__(self) -> None:
        if self.top is not None:
            top_threshold(self.top, "fantasy.repeat.top: ")
        for row, label in (("middle", self.middle), ("bottom", self.bottom)):
            if label is not None and label not in FIVE_CARD_KEYS:
                raise RulesetError(
                    f"fantasy.repeat.{row}: unknown category {label!r}; known: "
                    + ", ".join(FIVE_CARD_KEYS)
                )
        if self.top is None and self.middle is None and self.bottom is None:
            raise RulesetError("fantasy.repeat: set at least one of top, middle, bottom")

    def holds(self, top: RowRank, middle: RowRank, bottom: RowRank) -> bool:
        """Whether a Fantasyland board earns the repeat.

        >>> from ofc_stats.engine.cards import parse_cards
        >>> from ofc_stats.engine.rank import rank_row
        >>> rows = ("5s 5d 5c", "2h 3h 4h 6d 8c", "Ts Jd Qh Kc As")
        >>> rows = [rank_row(parse_cards(row)) for row in rows]
        >>> TRIPS_OR_QUADS.holds(*rows)  # trips on top
        True
        """
        checks = []
        if self.top is not None:
            checks.append(top.key >= top_threshold(self.top).key)
        for label, rank in ((self.middle, middle), (self.bottom, bottom)):
            if label is not None:
                checks.append(five_card_order(five_card_label(rank)) >= five_card_order(label))
        return any(checks) if self.combine is Combine.ANY else all(checks)


TRIPS_OR_QUADS = RepeatRule()  # 002 type 1-3: trips on top, or quads+ on bottom
STRICT_REPEAT = RepeatRule(  # 004's "infinite": all three at once
    top="222", middle="full_house", bottom="four_of_a_kind", combine=Combine.ALL
)


@dataclass(frozen=True)
class FantasyRules:
    """Entry and repeat of Fantasyland (RULES.md §6).

    ``entry_cards`` maps the weakest top row of each tier to the cards the next
    hand deals (``{"QQ": 14, "KK": 15, "AA": 16, "222": 17}``); its weakest
    key is the entry threshold.  ``repeat_cards`` of ``None`` means "as many
    as the Fantasyland hand being played" (the ultimate mode).
    """

    mode: FantasyMode = FantasyMode.STANDARD
    entry_cards: FrozenMap[int] = field(default_factory=lambda: FrozenMap({"QQ": 14}))
    repeat: RepeatRule | None = None
    repeat_cards: int | None = 14

    def __post_init__(self) -> None:
        if self.mode is FantasyMode.NONE:
            if self.entry_cards or self.repeat is not None:
                raise RulesetError("fantasy.mode = none takes no entry_cards and no repeat")
            return
        if not self.entry_cards:
            raise RulesetError(f"fantasy.mode = {self.mode}: entry_cards must not be empty")
        tiers = sorted(
            (top_threshold(pattern, "fantasy.entry_cards: ").key, cards)
            for pattern, cards in self.entry_cards.items()
        )
        for _, cards in tiers:
            _check_card_count("fantasy.entry_cards", cards)
        if self.repeat_cards is not None:
            _check_card_count("fantasy.repeat_cards", self.repeat_cards)

    def tiers(self) -> list[tuple[int, int]]:
        """(threshold key, cards) ascending by threshold."""
        return sorted(
            (top_threshold(pattern).key, cards) for pattern, cards in self.entry_cards.items()
        )

    def sizes(self) -> list[int]:
        """Card counts a Fantasyland hand can have: every entry's and the repeat's.

        >>> from ofc_stats.engine.presets import get_ruleset
        >>> get_ruleset("pineapple-progressive").fantasy.sizes()
        [14, 15, 16, 17]
        >>> get_ruleset("pineapple-tournament").fantasy.sizes()
        [13, 14, 15, 16]
        """
        if self.mode is FantasyMode.NONE:
            return []
        sizes = {int(cards) for cards in self.entry_cards.values()}
        if self.repeat is not None and self.repeat_cards is not None:
            sizes.add(self.repeat_cards)  # (None: a repeat deals as many as the hand played)
        return sorted(sizes)

    def entry_cards_for(self, top: RowRank) -> int | None:
        """Cards the next hand deals after this (unfouled) top row, or None.

        Progressive Pineapple: QQ 14, KK 15, AA 16, trips 17; JJ earns nothing.

        >>> from ofc_stats.engine.cards import parse_cards
        >>> from ofc_stats.engine.presets import get_ruleset
        >>> from ofc_stats.engine.rank import rank_row
        >>> fl = get_ruleset("pineapple-progressive").fantasy
        >>> tops = ("Js Jd Ac", "Ks Kd 2c", "5s 5d 5c")
        >>> [fl.entry_cards_for(rank_row(parse_cards(top))) for top in tops]
        [None, 15, 17]
        """
        cards = None
        for threshold, count in self.tiers():
            if top.key >= threshold:
                cards = count
        return cards


def _check_card_count(name: str, cards: object) -> None:
    if not isinstance(cards, int) or isinstance(cards, bool) or not 13 <= cards <= 18:
        raise RulesetError(f"{name}: {cards!r} is not a card count from 13 to 18")


def fantasy_preset(mode: FantasyMode | str, variant: Variant) -> FantasyRules:
    """The Fantasyland rules of ``mode`` as RULES.md §6 tabulates them."""
    mode = FantasyMode(mode)
    progressive = FrozenMap({"QQ": 14, "KK": 15, "AA": 16, "222": 17})
    if mode is FantasyMode.NONE:
        return FantasyRules(mode, FrozenMap({}), None, None)
    if mode is FantasyMode.STANDARD:
        cards = variant.standard_fantasy_cards
        return FantasyRules(mode, FrozenMap({"QQ": cards}), None, cards)
    if mode is FantasyMode.UNLIMITED:
        return FantasyRules(mode, FrozenMap({"QQ": 14}), TRIPS_OR_QUADS, 14)
    if mode is FantasyMode.PROGRESSIVE:
        return FantasyRules(mode, progressive, TRIPS_OR_QUADS, 14)
    if mode is FantasyMode.ULTIMATE:
        return FantasyRules(mode, progressive, TRIPS_OR_QUADS, None)
    tournament = FrozenMap({"QQ": 13, "KK": 14, "AA": 15, "222": 16})
    return FantasyRules(mode, tournament, None, None)


@dataclass(frozen=True)
class Ruleset:
    """Every option on which OFC rooms differ.  Build presets with :func:`get_ruleset`."""

    name: str
    variant: Variant = Variant.PINEAPPLE
    deck: Deck = Deck.STANDARD52
    scoring: Scoring = Scoring.AMERICAN
    royalties: RoyaltyTable = AMERICAN_ROYALTIES
    foul_policy: FoulPolicy = FoulPolicy.SCOOP
    majority_bonus: MajorityBonus = MajorityBonus.MORE_ROWS
    stack_cap: bool = True
    max_loss: int | None = None
    fantasy: FantasyRules = field(default_factory=FantasyRules)
    button_moves_on_fantasy: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        problem = name_problem(self.name)
        if problem is not None:
            raise RulesetError(f"name: {self.name!r} {problem}")
        for name, enum in (
            ("variant", Variant),
            ("deck", Deck),
            ("scoring", Scoring),
            ("foul_policy", FoulPolicy),
            ("majority_bonus", MajorityBonus),
        ):
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, enum(value))
            except ValueError:
                known = ", ".join(member.value for member in enum)
                raise RulesetError(f"{name}: {value!r} is not one of {known}") from None
        if self.max_loss is not None and (
            not isinstance(self.max_loss, int)
            or isinstance(self.max_loss, bool)
            or self.max_loss <= 0
        ):
            raise RulesetError(f"max_loss: {self.max_loss!r} is not a whole number > 0")
        for flag in ("stack_cap", "button_moves_on_fantasy"):
            if not isinstance(getattr(self, flag), bool):
                raise RulesetError(f"{flag}: {getattr(self, flag)!r} is not true or false")

    @property
    def min_seats(self) -> int:
        return 2

    @property
    def max_seats(self) -> int:
        return self.variant.max_seats

    def with_options(self, **options: Any) -> Ruleset:
        """A copy with some options changed (validated like any ruleset).

        >>> from ofc_stats.engine.presets import get_ruleset
        >>> get_ruleset("pineapple").with_options(max_loss=30).max_loss
        30
        >>> get_ruleset("pineapple").with_options(max_loss=-1)
        Traceback (most recent call last):
        ...
        ofc_stats.errors.RulesetError: max_loss: -1 is not a whole number > 0
        """
        return replace(self, **options)

    def summary(self) -> str:
        fl = self.fantasy
        entry = ", ".join(f"{p} {c}" for p, c in fl.entry_cards.items()) or "-"
        repeat = "no repeat"
        if fl.repeat is not None:
            parts = [
                f"{row} {value}"
                for row, value in (
                    ("top", fl.repeat.top),
                    ("middle", fl.repeat.middle),
                    ("bottom", fl.repeat.bottom),
                )
                if value
            ]
            cards = "as entry" if fl.repeat_cards is None else fl.repeat_cards
            joiner = " or " if fl.repeat.combine is Combine.ANY else " and "
            repeat = f"repeat on {joiner.join(parts)} ({cards} cards)"
        return (
            f"{self.variant} {self.deck}, {self.scoring} scoring, "
            f"{self.royalties.name} royalties, "
            f"fantasy {fl.mode} ({entry}; {repeat})"
        )
