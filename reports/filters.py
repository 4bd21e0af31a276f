"""Which hands a report looks at: a player and optional filters, as bound SQL.

Every value is a bound parameter (``$name``); nothing a user typed is pasted
into SQL text.  A player is matched on the stored name or the room's player
id; an unknown name fails with the closest names the dataset knows.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import date, datetime

from ofc_stats.errors import OfcError, UnknownPlayer
from ofc_stats.store.views import OfcData


@dataclass(frozen=True)
class Filters:
    """A report's scope; ``None`` leaves a dimension unfiltered."""

    player: str | None = None
    since: date | datetime | None = None
    until: date | datetime | None = None  # inclusive day when a date
    room: str | None = None
    ruleset: str | None = None
    seats: int | None = None
    opponent: str | None = None

    def where(self, alias: str = "s") -> tuple[str, dict[str, object]]:
        """A WHERE clause over ``seat_results`` and its parameters, the player left out."""
        parts = [f"{alias}.status = 'scored'"]
        params: dict[str, object] = {}
        if self.since is not None:
            parts.append(f"{alias}.played_at >= $since")
            params["since"] = _start(self.since)
        if self.until is not None:
            parts.append(f"{alias}.played_at < $until")
            params["until"] = _end(self.until)
        if self.room is not None:
            parts.append(f"{alias}.room = $room")
            params["room"] = self.room
        if self.ruleset is not None:
            parts.append(f"{alias}.ruleset = $ruleset")
            params["ruleset"] = self.ruleset
        if self.seats is not None:
            parts.append(f"{alias}.seat_count = $seats")
            params["seats"] = self.seats
        if self.opponent is not None:
            parts.append(
                f"{alias}.hand_key IN (SELECT hand_key FROM seat_results "
                "WHERE player = $opponent OR player_key = $opponent)"
            )
            params["opponent"] = self.opponent
        return " AND ".join(parts), params

    def player_where(self, alias: str = "s") -> tuple[str, dict[str, object]]:
        """The filters and this report's player."""
        if self.player is None:
            raise OfcError("no player chosen")
        clause, params = self.where(alias)
        params["player"] = self.player
        return f"{clause} AND {alias}.player_key = $player", params


def _start(value: date | datetime) -> datetime:
    return value if isinstance(value, datetime) else datetime(value.year, value.month, value.day)


def _end(value: date | datetime) -> datetime:
    if isinstance(value, datetime):
        return value
    from datetime import timedelta

    return datetime(value.year, value.month, value.day) + timedelta(days=1)


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
    known = [str(r[0]) for r in data.sql("SELECT DISTINCT player FROM seats").fetchall()]
    close = difflib.get_close_matches(name, known, n=5, cutoff=0.5)
    hint = f"; closest: {', '.join(close)}" if close else f"; {len(known)} players are known"
    raise UnknownPlayer(f"no player {name!r} in this dataset{hint}")
