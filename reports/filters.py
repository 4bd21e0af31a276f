"""Which hands a report looks at: a player and optional filters, as bound SQL.

Every value is a bound parameter (``$name``); nothing a user typed is pasted
into SQL text.  The player is one account (``player``), several accounts
joined by an alias (``accounts``), or every seat the files mark as the hero's
(``hero``).  :func:`checked` turns what a user typed into filters that match
the stored values, or fails listing the closest names the dataset knows.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.errors import OfcError, RulesetError, UnknownFilter, UnknownPlayer
from ofc_stats.store.views import OfcData


@dataclass(frozen=True)
class Filters:
    """A report's scope; ``None`` leaves a dimension unfiltered."""

    player: str | None = None  # one player_key
    since: date | datetime | None = None
    until: date | datetime | None = None  # inclusive day when a date
    room: str | None = None  # matched case-insensitively
    ruleset: str | None = None
    seats: int | None = None
    opponent: str | None = None
    accounts: tuple[str, ...] = ()  # several player_keys: one person (an alias)
    hero: bool = False  # every seat marked hero in the files
    rulesets: tuple[str, ...] = ()  # stored ruleset names the ruleset filter stands for
    opponents: tuple[str, ...] = ()  # player_keys the opponent filter stands for
    session_gap: int = 30  # minutes between hands that end a session
    self_play: str = "once"  # hands where the player's accounts met: "once" or "skip"

    def where(self, alias: str = "s") -> tuple[str, dict[str, object]]:
        """A WHERE clause over ``seat_results`` (or the report's scope) and its parameters,
        the player left out."""
        parts = [f"{alias}.status = 'scored'"]
        params: dict[str, object] = {}
        if self.since is not None:
            parts.append(f"{alias}.played_at >= $since")
            params["since"] = _start(self.since)
        if self.until is not None:
            parts.append(f"{alias}.played_at < $until")
            params["until"] = _end(self.until)
        if self.room is not None:
            parts.append(f"lower({alias}.room) = lower($room)")
            params["room"] = self.room
        if self.rulesets:
            parts.append(f"list_contains($rulesets, {alias}.ruleset)")
            params["rulesets"] = list(self.rulesets)
        elif self.ruleset is not None:
            parts.append(f"{alias}.ruleset = $ruleset")
            params["ruleset"] = self.ruleset
        if self.seats is not None:
            parts.append(f"{alias}.seat_count = $seats")
            params["seats"] = self.seats
        if self.opponents:
            parts.append(
                f"{alias}.hand_id IN (SELECT hand_id FROM seats "
                "WHERE list_contains($opponents, coalesce(player_id, player))"
                f"{' AND NOT coalesce(hero, false)' if self.hero else ''})"
            )  # (a hero report: the hero seats are the player, never the opponent)
            params["opponents"] = list(self.opponents)
        elif self.opponent is not None:
            parts.append(
                f"{alias}.hand_id IN (SELECT hand_id FROM seats "
                "WHERE player = $opponent OR coalesce(player_id, player) = $opponent)"
            )
            params["opponent"] = self.opponent
        return " AND ".join(parts), params

    def me(self, alias: str = "s") -> tuple[str, dict[str, object]]:
        """The condition that a seat is this report's player's, and its parameters."""
        if self.hero:
            return f"coalesce({alias}.hero, false)", {}
        if self.accounts:
            return f"list_contains($accounts, {alias}.player_key)", {
                "accounts": list(self.accounts)
            }
        if self.player is None:
            raise OfcError("no player chosen")
        return f"{alias}.player_key = $player", {"player": self.player}

    def player_where(self, alias: str = "s") -> tuple[str, dict[str, object]]:
        """The filters and this report's player."""
        clause, params = self.where(alias)
        mine, mine_params = self.me(alias)
        return f"{clause} AND {mine}", {**params, **mine_params}


def _start(value: date | datetime) -> datetime:
    return value if isinstance(value, datetime) else datetime(value.year, value.month, value.day)


def _end(value: date | datetime) -> datetime:
    """The first moment after ``--until``: a day's end is the next midnight (the last day
    of the calendar, 9999-12-31, ends at its last microsecond: no day comes after it).

    >>> _end(date(2026, 3, 1)), _end(date.max)
    (datetime.datetime(2026, 3, 2, 0, 0), datetime.datetime(9999, 12, 31, 23, 59, 59, 999999))
    """
    if isinstance(value, datetime):
        return value
    if value == date.max:
        return datetime.max
    return datetime(value.year, value.month, value.day) + timedelta(days=1)


@dataclass(frozen=True)
class Player:
    """Whose report: the accounts it covers (empty with ``hero``) and a name for people."""

    name: str
    accounts: tuple[str, ...] = ()
    hero: bool = False

    def scope(self, filters: Filters) -> Filters:
        """``filters`` narrowed to this player."""
        if self.hero:
            return replace(filters, player=None, accounts=(), hero=True)
        if len(self.accounts) == 1:
            return replace(filters, player=self.accounts[0], accounts=(), hero=False)
        return replace(filters, player=None, accounts=self.accounts, hero=False)


def resolve_player(data: OfcData, name: str | None) -> tuple[str, str]:
    """(player_key, display name) for ``name``; the most frequent hero, else player, if None."""
    if name is None:
        rows = data.sql(
            "SELECT coalesce(player_id, player) AS key, any_value(player) FROM seats "
            "GROUP BY key ORDER BY bool_or(hero) DESC, "
            "count(*) FILTER (WHERE hero) DESC, count(*) DESC, key LIMIT 1"
        ).fetchall()
        if not rows:
            raise UnknownPlayer("the dataset has no hands yet; import some first")
        return str(rows[0][0]), str(rows[0][1])
    rows = data.sql(
        "SELECT coalesce(player_id, player) AS key, any_value(player) FROM seats "
        "WHERE player = $name OR coalesce(player_id, player) = $name GROUP BY key "
        "ORDER BY count(*) DESC",
        {"name": name},
    ).fetchall()
    if rows:
        return str(rows[0][0]), str(rows[0][1])
    raise unknown_player(data, name)


def unknown_player(data: OfcData, name: str) -> UnknownPlayer:
    """The refusal of a player name no seat has, with the closest names the dataset knows:
    one wording for every command that takes ``--player``."""
    return UnknownPlayer(f"no player {name!r} in this dataset{_closest(data, name)}")


HERO = "hero"  # the player who recorded the files, unless a player is called so


def _named(data: OfcData, name: str) -> bool:
    found = data.sql(
        "SELECT count(*) FROM seats WHERE player = $name OR coalesce(player_id, player) = $name",
        {"name": name},
    ).fetchall()
    return bool(found[0][0])


def hero_player(accounts: int = 1) -> Player:
    """Every hero seat as the report's player, named for the accounts they span.

    >>> hero_player().name, hero_player(49).name
    ('you (the hero)', 'you (the hero, 49 accounts)')
    """
    label = "you (the hero)" if accounts == 1 else f"you (the hero, {accounts:,} accounts)"
    return Player(label, hero=True)


def choose_player(data: OfcData, name: str | None, hero: bool | None = None) -> Player:
    """The report's player: ``--hero``, an alias, an account or a stored name.

    With neither a name nor ``hero=False``, every hero seat is "me" when the
    files mark any (the usual case: one's own hand histories), else the most
    frequent player.
    """
    if name is None:
        heroes = data.sql(
            "SELECT count(DISTINCT coalesce(player_id, player)), count(*) FROM seats WHERE hero"
        ).fetchall()[0]
        if hero is not False and heroes[1]:
            return hero_player(int(heroes[0]))
        if hero:
            raise UnknownPlayer("no seat in this dataset is marked as the hero's")
        key, shown = resolve_player(data, None)
        return Player(shown, (key,))
    aliased = data.sql(
        "SELECT account FROM player_aliases WHERE name = $name ORDER BY account", {"name": name}
    ).fetchall()
    if aliased:
        return Player(name, tuple(str(r[0]) for r in aliased))
    if name == HERO and not _named(data, name):  # as `audit --player hero` reads it
        return choose_player(data, None, hero=True)
    rows = data.sql(
        "SELECT coalesce(player_id, player) AS key, any_value(player), count(*) AS n FROM seats "
        "WHERE player = $name OR coalesce(player_id, player) = $name GROUP BY key "
        "ORDER BY n DESC, key",
        {"name": name},
    ).fetchall()
    if not rows:
        raise UnknownPlayer(f"no player {name!r} in this dataset{_closest(data, name)}")
    shown = name if len(rows) > 1 else str(rows[0][1])
    return Player(shown, tuple(str(r[0]) for r in rows))


def checked(data: OfcData, filters: Filters) -> Filters:
    """Filters whose room, ruleset and opponent exist in the dataset, or an error.

    Rooms match case-insensitively; a ruleset may be named by any alias
    (``progressive``) and stands for every stored name of that preset; an
    opponent is a stored name, an account or an alias.
    """
    out = filters
    if filters.room is not None:
        rooms = _distinct(data, "SELECT DISTINCT room FROM hands WHERE room IS NOT NULL")
        if filters.room.lower() not in {r.lower() for r in rooms}:
            apps = dict(data.sql("SELECT room, app FROM app_names").fetchall())
            named = [f"{r} ({apps[r]})" if r in apps else r for r in sorted(rooms)]
            raise UnknownFilter(_unknown("room", filters.room, rooms, every=named))
    if filters.ruleset is not None:
        stored = _distinct(data, "SELECT DISTINCT ruleset FROM hands WHERE ruleset IS NOT NULL")
        wanted = _canonical(filters.ruleset)
        matching = tuple(
            r for r in stored if r == filters.ruleset or (wanted and _canonical(r) == wanted)
        )
        if not matching:
            # every ruleset, with the names the rooms' files give it (few, and people know
            # them by the room's name: "closest" to "progressive17" named another one)
            named = [
                f"{ruleset} ({texts})" if texts else str(ruleset)
                for ruleset, texts in data.sql(
                    "SELECT ruleset, string_agg(DISTINCT rules_text, ', ' ORDER BY rules_text) "
                    "FROM hands WHERE ruleset IS NOT NULL GROUP BY ruleset ORDER BY ruleset"
                ).fetchall()
            ]
            raise UnknownFilter(_unknown("ruleset", filters.ruleset, stored, every=named))
        out = replace(out, rulesets=matching)
    if filters.opponent is not None:
        mine = set(filters.accounts or (() if filters.player is None else (filters.player,)))
        others = tuple(a for a in _opponents(data, filters.opponent) if a not in mine)
        if not others:  # every hand of the player "has" the player at its table
            raise UnknownFilter(
                f"{filters.opponent!r} is this report's player; --opponent names someone "
                "the player played against"
            )
        out = replace(out, opponents=others)
    return out


def _opponents(data: OfcData, name: str) -> tuple[str, ...]:
    rows = data.sql(
        "SELECT account FROM player_aliases WHERE name = $n UNION "
        "SELECT DISTINCT coalesce(player_id, player) FROM seats "
        "WHERE player = $n OR coalesce(player_id, player) = $n",
        {"n": name},
    ).fetchall()
    if not rows:
        raise UnknownPlayer(f"no opponent {name!r} in this dataset{_closest(data, name)}")
    return tuple(sorted(str(r[0]) for r in rows))


def _canonical(name: str) -> str | None:
    try:
        return get_ruleset(name).name
    except RulesetError:
        return None


def _distinct(data: OfcData, query: str) -> list[str]:
    return sorted(str(r[0]) for r in data.sql(query).fetchall())


def _unknown(what: str, value: str, known: list[str], every: list[str] | None = None) -> str:
    """The refusal of a filter value: the closest known names, or ``every`` one when given."""
    if every:  # a short list people know by other names: all of it
        return f"no {what} {value!r} in this dataset; {what}s: {', '.join(every)}"
    lowered = {k.lower(): k for k in known}
    close = difflib.get_close_matches(value.lower(), list(lowered), n=5, cutoff=0.4)
    if close:
        hint = "closest: " + ", ".join(lowered[c] for c in close)
    elif known:
        hint = "known: " + ", ".join(known[:10]) + (" …" if len(known) > 10 else "")
    else:
        hint = "the dataset has none"
    return f"no {what} {value!r} in this dataset; {hint}"


def _closest(data: OfcData, name: str) -> str:
    known = _distinct(
        data,
        "SELECT DISTINCT player FROM seats WHERE player IS NOT NULL UNION "
        "SELECT DISTINCT player_id FROM seats WHERE player_id IS NOT NULL UNION "
        "SELECT DISTINCT name FROM player_aliases",
    )
    close = difflib.get_close_matches(name, known, n=5, cutoff=0.5)
    if close:
        return f"; closest: {', '.join(close)}"
    return (
        f"; no name close to it among {len(known):,} player names, ids and aliases"
        " (`ofc-stats players` lists them)"
    )
