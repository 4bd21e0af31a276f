"""Which rules audit which hands: ``--rules`` as a preset, one TOML file, or a folder of them.

``--write-rules DIR`` writes one file per room and rule string, and names
them in its ``[room]`` table (``room = "Ppp"``, ``rule_string = "…"``), so
that ``--rules DIR`` (or one of its files) audits each room and rule string
with its own options, game and money alike, and leaves the others to their
own named ruleset and inferred rake.  A file that names no room (written by
hand) applies its game rules to every hand, as a preset does; its ``[room]``
table (rake, settlement) is one room's money, so it is refused on a dataset
of several rooms unless given as ``--rules ROOM=FILE.toml``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow as pa

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Ruleset
from ofc_stats.engine.ruleset_toml import resolve_ruleset
from ofc_stats.errors import RulesetError
from ofc_stats.payouts.room_rules import RoomRules, load_room_rules
from ofc_stats.store.dataset import Dataset
from ofc_stats.store.recompute import rescore_inputs, score_batch_files, stored_timeouts
from ofc_stats.store.rescore import score_tables
from ofc_stats.store.schema import RESULTS
from ofc_stats.store.views import OfcData


@dataclass(frozen=True)
class RulesEntry:
    """One preset or file: its game rules, its money rules, and the hands it is for."""

    source: str
    ruleset: Ruleset
    money: RoomRules | None  # the file's [room] table (None: infer the rake and settlement)

    @property
    def room(self) -> str | None:
        return None if self.money is None else self.money.room

    @property
    def rule_string(self) -> str | None:
        return None if self.money is None else self.money.rule_string

    @property
    def name(self) -> str:
        """The file's own name (``spartan.toml``), or the preset's for a preset."""
        path = Path(self.source)
        return path.name if path.suffix == ".toml" else self.ruleset.name

    def covers(self, room: str, rule_string: str) -> bool:
        return self.room in (None, room) and self.rule_string in (None, rule_string)


@dataclass(frozen=True)
class RulesBook:
    entries: tuple[RulesEntry, ...]

    @classmethod
    def load(cls, name_or_path: str) -> RulesBook:
        """A preset name, a ruleset TOML file, a folder of them (``--write-rules``'s), or
        ``ROOM=FILE.toml``: the file's rules (its ``[room]`` table too) for that room only."""
        room, eq, path = name_or_path.partition("=")
        if eq and room and not Path(name_or_path).exists():
            entry = _entry(path)
            if entry.money is None:
                raise RulesetError(f"{path}: no [room] table to give room {room!r}")
            if entry.room not in (None, room):
                raise RulesetError(f"{path}: its [room] table is for room {entry.room!r}")
            return cls((replace(entry, money=replace(entry.money, room=room)),))
        folder = Path(name_or_path)
        if folder.is_dir():
            files = sorted(folder.glob("*.toml"))
            if not files:
                raise RulesetError(f"{folder}: no .toml ruleset file in this folder")
            return cls(tuple(_entry(str(f)) for f in files))
        return cls((_entry(name_or_path),))

    def for_hand(self, room: str, rule_string: str) -> RulesEntry | None:
        """The most specific entry for a room and rule string (room and string, room, any)."""
        covering = [e for e in self.entries if e.covers(room, rule_string)]
        if not covering:
            return None
        return max(covering, key=lambda e: (e.room is not None, e.rule_string is not None))

    def money_for(self, room: str) -> RoomRules | None:
        """The [room] table for a room's money (rake and settlement are the room's, not a
        rule string's): the first file for that room, else a file for every room."""
        entry = self._money_entry(room)
        return None if entry is None else entry.money

    def money_file(self, room: str) -> str | None:
        """The file :meth:`money_for` takes a room's [room] table from, as it was given."""
        entry = self._money_entry(room)
        return None if entry is None else entry.source

    def _money_entry(self, room: str) -> RulesEntry | None:
        mine = [e for e in self.entries if e.money is not None and e.room == room]
        anywhere = [e for e in self.entries if e.money is not None and e.room is None]
        found = mine or anywhere
        return found[0] if found else None

    def lookup(self, name: str) -> Ruleset:
        """A ruleset by name: an entry's (as :meth:`relabel` names hands), else a preset."""
        for entry in self.entries:
            if entry.ruleset.name == name:
                return entry.ruleset
        return get_ruleset(name)

    def relabel(self, hands: pa.Table) -> pa.Table:
        """``hands`` (with room and rules_text) with each covered hand's ruleset named as its
        entry's, for scoring by :meth:`lookup`; room and rules_text dropped.

        Hands are told apart by room and rule string, which the stored ruleset name is
        not, so the name is replaced rather than the lookup widened.
        """
        names = ["room", "rules_text", "ruleset"]  # as plain strings, even if read as dictionaries
        keys = pa.table({n: hands[n].cast(pa.string()) for n in names}).to_pandas()
        keys["rules_text"] = keys["rules_text"].fillna(keys["ruleset"])
        triples = list(zip(keys["room"], keys["rules_text"], keys["ruleset"], strict=True))
        chosen = {t: self._name(*t) for t in set(triples)}
        index = hands.schema.get_field_index("ruleset")
        named = pa.array([chosen[t] for t in triples], pa.string())
        return hands.set_column(index, "ruleset", named).drop_columns(["room", "rules_text"])

    def _name(self, room: object, rule_string: object, own: object) -> str | None:
        entry = self.for_hand(str(room or ""), str(rule_string or ""))
        if entry is not None:
            return entry.ruleset.name
        return None if own is None or own != own else str(own)

    def group_names(self, data: OfcData) -> dict[tuple[str, str], str]:
        """(room, stored ruleset name) -> the names of the files that audit its hands, so a
        group reads as the file it was audited by, not as the preset its hands are named."""
        rows = data.df(
            "SELECT DISTINCT room, ruleset, coalesce(rules_text, ruleset) AS rules_text FROM hands"
        )
        found: dict[tuple[str, str], set[str]] = {}
        for room, ruleset, text in rows.itertuples(index=False):
            entry = self.for_hand(str(room or ""), str(text or ""))
            if entry is not None:
                found.setdefault((str(room), str(ruleset)), set()).add(entry.name)
        return {key: " + ".join(sorted(names)) for key, names in found.items()}

    def unnamed_money(self) -> RulesEntry | None:
        """An entry whose ``[room]`` table names no room: its rake and settlement would be
        every room's, which no room's hands showed (the caller refuses it for several)."""
        return next((e for e in self.entries if e.money is not None and e.room is None), None)

    def label(self) -> str:
        if len(self.entries) == 1 and self.entries[0].room is None:
            return f"ruleset {self.entries[0].ruleset.name}"
        parts = [
            f"{e.name} for {e.room or 'every room'}"
            + (f" · {e.rule_string}" if e.rule_string else "")
            for e in self.entries
        ]
        return "the rules files: " + "; ".join(parts) + " (other hands: their own)"


def _entry(name_or_path: str) -> RulesEntry:
    return RulesEntry(name_or_path, resolve_ruleset(name_or_path), load_room_rules(name_or_path))


def lookup_results(data: OfcData, lookup: Callable[[str], Ruleset]) -> pa.Table:
    """Every hand's results scored by ``lookup`` (by the hand's stored ruleset name), for
    :meth:`OfcData.rescored`."""
    dataset = Dataset(data.root)
    return _joined([score_batch_files(dataset, b, lookup)["results"] for b in dataset.batches()])


def _joined(parts: list[pa.Table]) -> pa.Table:
    return pa.concat_tables(parts, promote_options="permissive") if parts else RESULTS.empty_table()


def book_results(data: OfcData, book: RulesBook) -> pa.Table:
    """Every hand's results scored under its entry's rules, for :meth:`OfcData.rescored`.

    Hands no entry covers keep their own named ruleset.
    """
    dataset = Dataset(data.root)
    parts = []
    for batch in dataset.batches():
        hands, seats = rescore_inputs(dataset, batch, extra=("room", "rules_text"))
        results = score_tables(book.relabel(hands), seats, book.lookup).results
        parts.append(stored_timeouts(dataset, batch, results))
    return _joined(parts)
