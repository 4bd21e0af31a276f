"""`ofc-stats players`: who is in the dataset, and aliases that join accounts into one person."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from ofc_stats.cli.options import DATA_OPTION, AtLeast, data_option
from ofc_stats.cli.text import say, say_lines, terminal_safe
from ofc_stats.wording import plural

if TYPE_CHECKING:
    from ofc_stats.store.views import OfcData

LIST_SQL = """
SELECT person, count(*) AS accounts,
       -- the three busiest accounts' names: a person with 49 accounts stays one short line
       array_to_string(list(player ORDER BY hands DESC, player)[1:3], ', ')
         || CASE WHEN count(*) > 3 THEN ' +' || (count(*) - 3) || ' more' ELSE '' END AS names,
       -- the person's own counts: a hand two of their accounts played is one hand, and
       -- each room is named once (summing the accounts' counted both twice)
       any_value(person_hands) AS hands, sum(hero_hands) AS hero_hands,
       any_value(person_rooms) AS rooms,
       strftime(min(first_seen), '%Y-%m-%d') AS first_seen,
       strftime(max(last_seen), '%Y-%m-%d') AS last_seen
FROM players GROUP BY person HAVING NOT $hero OR sum(hero_hands) > 0
ORDER BY hands DESC, person LIMIT $limit
"""
# Every person, and those the list would show without a limit.
COUNT_SQL = """
SELECT count(*), count(*) FILTER (WHERE NOT $hero OR hero_hands > 0)
FROM (SELECT person, sum(hero_hands) AS hero_hands FROM players GROUP BY person)
"""


@click.group("players", invoke_without_command=True)
@DATA_OPTION
@click.option("--hero", is_flag=True, default=False, help="Only accounts with hero seats.")
@click.option(
    "--limit",
    type=AtLeast(1),
    default=50,
    show_default=True,
    help="At most this many.",
)
@click.pass_context
def players_command(ctx: click.Context, data: str, hero: bool, limit: int) -> None:
    """List players (an alias is one): accounts, hands, hero hands, rooms, first/last seen."""
    if ctx.invoked_subcommand is not None:
        return
    from ofc_stats.cli.sql import text_table
    from ofc_stats.store.views import open_dataset

    with open_dataset(data) as dataset:
        relation = dataset.sql(LIST_SQL, {"hero": hero, "limit": limit})
        columns, types, rows = (
            relation.columns,
            [str(t) for t in relation.types],
            relation.fetchall(),
        )
        total, listed = dataset.sql(COUNT_SQL, {"hero": hero}).fetchall()[0]
    if not rows:
        if hero and total:
            say("(no hero seat is marked in this dataset; `players` lists everyone)")
        else:
            say("(no players: import some hands first)")
        return
    say_lines(text_table(list(columns), types, rows))
    if listed > len(rows):
        say(f"… {listed - len(rows):,} more; --limit N shows more")


def _dataset_folder(ctx: click.Context, data: str) -> str:
    """The subcommand's --data, else the one given to `players` before it
    (`players --data X alias ...`), else the default."""
    given = ctx.get_parameter_source("data")
    if given is ParameterSource.DEFAULT and ctx.parent is not None:
        return str(ctx.parent.params.get("data") or data)
    return data


@contextmanager
def _naming(data: str) -> Iterator[None]:
    """An unknown player or alias names the dataset looked in (the default one is easy
    to search by mistake)."""
    from ofc_stats.errors import UnknownPlayer

    try:
        yield
    except UnknownPlayer as error:
        raise UnknownPlayer(f"{data}: {error}") from None


def _accounts(dataset: OfcData, names: tuple[str, ...]) -> list[str]:
    """Each ACCOUNT as a player_key: an account id as stored, or a stored player name."""
    from ofc_stats.errors import UnknownPlayer
    from reports.filters import resolve_player

    keys: list[str] = []
    for name in names:
        rows = dataset.sql(
            "SELECT DISTINCT coalesce(player_id, player) FROM seats "
            "WHERE coalesce(player_id, player) = $n OR player = $n",
            {"n": name},
        ).fetchall()
        if not rows:
            resolve_player(dataset, name)  # raises with the closest names
            raise UnknownPlayer(f"no account {name!r}")
        keys += sorted(str(r[0]) for r in rows)
    return keys


# alias and unalias: their own --data, or the one given to `players` before them.
SUBCOMMAND_DATA = data_option(
    "The dataset folder (`players --data DIRECTORY alias ...` works too)."
)


@players_command.command("alias")
@click.argument("name")
@click.argument("accounts", nargs=-1, required=True)
@SUBCOMMAND_DATA
@click.pass_context
def alias_command(ctx: click.Context, name: str, accounts: tuple[str, ...], data: str) -> None:
    """Join ACCOUNTS (ids or names) into one person NAME: `report --player NAME` covers all."""
    from ofc_stats.store.aliases import record
    from ofc_stats.store.views import open_dataset

    data = _dataset_folder(ctx, data)
    with _naming(data), open_dataset(data) as dataset:
        keys = _accounts(dataset, accounts)
        # An account whose key is NAME and that joins no one is that person already (the
        # players view names a person by the alias, else by the account's key).
        namesake = dataset.sql(
            "SELECT count(*) FROM players WHERE player_key = $n AND person = $n",
            {"n": name},
        ).fetchall()[0][0]
        before = dataset.sql(
            "SELECT account, name FROM player_aliases WHERE list_contains($keys, account) "
            "ORDER BY account",
            {"keys": keys},
        ).fetchall()
    already = sorted({str(account) for account, was in before if was == name})
    before = [(account, was) for account, was in before if was != name]
    new = [key for key in dict.fromkeys(keys) if key not in already]
    if already:  # joining again changes nothing: no event stored for them
        say(f"{name}: already joins {plural(len(already), 'account')} ({', '.join(already)})")
    if not new:
        return
    count = record(data, name, new, "join")
    joined = ", ".join(new)
    say(f"{name}: {plural(count, 'account')} joined ({joined})")
    for account, was in before:  # an account is one person's: joining moves it
        say(f"  {account} moved here from {was}")
    if namesake and name not in keys:
        say(
            f"  {name} is also an account: its hands count as {name}'s too "
            f"(`players alias OTHER {name}` keeps it apart)"
        )


@players_command.command("unalias")
@click.argument("name")
@click.argument("accounts", nargs=-1)
@SUBCOMMAND_DATA
@click.pass_context
def unalias_command(ctx: click.Context, name: str, accounts: tuple[str, ...], data: str) -> None:
    """Undo an alias: ACCOUNTS leave NAME (all of them when none is given)."""
    from ofc_stats.errors import UnknownPlayer
    from ofc_stats.store.aliases import record
    from ofc_stats.store.views import open_dataset

    data = _dataset_folder(ctx, data)
    with _naming(data), open_dataset(data) as dataset:
        joined = [
            str(r[0])
            for r in dataset.sql(
                "SELECT account FROM player_aliases WHERE name = $n ORDER BY account", {"n": name}
            ).fetchall()
        ]
        if not joined:
            raise UnknownPlayer(f"no alias {name!r}; `ofc-stats players` lists them")
        keys = _accounts(dataset, accounts) if accounts else joined
    leaving = [k for k in keys if k in joined]
    if not leaving:
        raise UnknownPlayer(f"{data}: none of those accounts belongs to {name!r}")
    count = record(data, name, leaving, "leave")
    gone = terminal_safe(", ".join(leaving))
    still = plural(len(joined) - count, "account")
    say(f"{name}: {plural(count, 'account')} taken out ({gone}); {still} still joined")
