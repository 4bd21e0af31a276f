"""The room's money rules, beside the game's: rake and short-stack settlement.

They are not rules of the game (the engine never needs them) but a room's
way of paying, so they live in a ``[room]`` table of the ruleset TOML that
the engine's loader skips:

    [room]
    rake_rate = 0.03          # share of each winner's money
    rake_tick = 0.1           # rounded to this many units of the currency
    rake_mode = "nearest"     # nearest | down | up
    rake_cap = 10             # optional: the most the room keeps of one winner
    settlement = "action"     # action | rules | proportional | pairs:02-01-12 (a pair order)

    room = "Ppp"              # optional: the room these rules are for (else every room)
    rule_string = "progressive17_nojokers"  # optional: and the room's rule string

    [room.rake.PHP]           # a currency the room rounds otherwise
    rate = 0.03
    tick = 1
    mode = "nearest"
    cap = 2                   # optional

The audit writes it (``--write-rules``) and reads it back (``--rules``); the
simulator plays rooms by it.  Simulated rooms can also report a non-standard
``result_field`` ("running_total") and give each player ``money_stack``.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ofc_stats.errors import RulesetError
from ofc_stats.payouts.rake import MODES
from ofc_stats.payouts.settle import ALL_KINDS, is_kind

RESULT_FIELDS = ("points", "running_total")


@dataclass(frozen=True)
class RoomRules:
    rake_rate: float = 0.0
    rake_tick: float = 0.01
    rake_mode: str = "nearest"
    settlement: str = "proportional"
    money_stack: float | None = None  # simulator: money each player brings to a hand
    result_field: str = "points"  # simulator: what the room writes as `result`
    rake_cap: float | None = None  # the most the room keeps of one winner; None: no cap
    # (currency, rate, tick, mode, cap or None)
    currencies: tuple[tuple[str, float, float, str, float | None], ...] = ()
    room: str | None = None  # the room these rules are for; None: every room
    rule_string: str | None = None  # the room's rule string they are for; None: every one

    def rake_for(self, currency: str) -> tuple[float, float, str]:
        """(rate, tick, mode) of ``currency``: its own table, else the room's."""
        for name, rate, tick, mode, _ in self.currencies:
            if name == currency:
                return rate, tick, mode
        return self.rake_rate, self.rake_tick, self.rake_mode

    def cap_for(self, currency: str) -> float | None:
        """The rake cap of ``currency``: its own table's, else the room's."""
        for name, *_, cap in self.currencies:
            if name == currency:
                return cap
        return self.rake_cap

    def __post_init__(self) -> None:
        if not 0 <= self.rake_rate < 1:
            raise RulesetError(f"room.rake_rate: {self.rake_rate} is not between 0 and 1")
        caps = [self.rake_cap, *(c[4] for c in self.currencies)]
        if any(cap is not None and cap <= 0 for cap in caps):
            raise RulesetError("room.rake_cap: a cap is a positive amount")
        if self.rake_tick <= 0:
            raise RulesetError(f"room.rake_tick: {self.rake_tick} is not positive")
        if self.rake_mode not in MODES:
            raise RulesetError(f"room.rake_mode: {self.rake_mode!r} is not one of {MODES}")
        if not is_kind(self.settlement):
            known = ", ".join(ALL_KINDS)
            raise RulesetError(f"room.settlement: {self.settlement!r} is not one of {known}")
        if self.result_field not in RESULT_FIELDS:
            raise RulesetError(f"room.result_field: {self.result_field!r} not in {RESULT_FIELDS}")

    def toml(self) -> str:
        """The ``[room]`` table (simulator-only keys only when set)."""
        lines = [
            "[room]",
            f"rake_rate = {self.rake_rate:g}",
            f"rake_tick = {self.rake_tick:g}",
            f'rake_mode = "{self.rake_mode}"',
            f'settlement = "{self.settlement}"',
        ]
        if self.rake_cap is not None:
            lines.insert(4, f"rake_cap = {self.rake_cap:g}")
        if self.money_stack is not None:
            lines.append(f"money_stack = {self.money_stack:g}")
        if self.result_field != "points":
            lines.append(f'result_field = "{self.result_field}"')
        if self.room is not None:
            lines.append(f"room = {_string(self.room)}")
        if self.rule_string is not None:
            lines.append(f"rule_string = {_string(self.rule_string)}")
        for name, rate, tick, mode, cap in self.currencies:
            key = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else '"' + _quoted(name) + '"'
            lines += ["", f"[room.rake.{key}]", f"rate = {rate:g}", f"tick = {tick:g}"]
            lines.append(f'mode = "{mode}"')
            if cap is not None:
                lines.append(f"cap = {cap:g}")
        return "\n".join(lines) + "\n"


def room_rules_from_mapping(table: Any, source: str = "") -> RoomRules:
    where = f"{source}: " if source else ""
    if not isinstance(table, dict):
        raise RulesetError(f"{where}room: expected a table")
    known = {f.name for f in fields(RoomRules) if f.name != "currencies"} | {"rake"}
    extra = sorted(set(table) - known)
    if extra:
        raise RulesetError(
            f"{where}room: unknown key {extra[0]!r}; known: {', '.join(sorted(known))}"
        )
    values = dict(table)
    currencies = []
    for name, rake in dict(values.pop("rake", {})).items():
        if not isinstance(rake, dict) or set(rake) - {"rate", "tick", "mode", "cap"}:
            raise RulesetError(f"{where}room.rake.{name}: expected rate, tick, mode (and cap)")
        try:
            cap = None if rake.get("cap") is None else float(rake["cap"])
            rule = (float(rake["rate"]), float(rake["tick"]), str(rake["mode"]))
            currencies.append((str(name), *rule, cap))
        except (KeyError, TypeError, ValueError):
            raise RulesetError(f"{where}room.rake.{name}: expected rate, tick and mode") from None
    values["currencies"] = tuple(currencies)
    for key in ("room", "rule_string"):
        if key in values and not isinstance(values[key], str):
            raise RulesetError(f"{where}room.{key}: {values[key]!r} is not a string")
    for key in ("rake_rate", "rake_tick", "money_stack", "rake_cap"):
        if key in values and (
            isinstance(values[key], bool) or not isinstance(values[key], int | float)
        ):
            raise RulesetError(f"{where}room.{key}: {values[key]!r} is not a number")
        if key in values:
            values[key] = float(values[key])
    try:
        return RoomRules(**values)
    except (RulesetError, TypeError) as error:
        raise RulesetError(f"{where}{error}") from None


def load_room_rules(path: str | Path) -> RoomRules | None:
    """The ``[room]`` table of a ruleset file, or None when it has none (or is no file)."""
    path = Path(path)
    if path.suffix.lower() != ".toml" or not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError) as error:
        raise RulesetError(f"{path}: cannot read: {error}") from None
    if "room" not in data:
        return None
    return room_rules_from_mapping(data["room"], str(path))


def _string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's (DEL too), so no room text can end it."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
