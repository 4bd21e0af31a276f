"""A dataset's own rulesets: the TOML files hands were imported under.

``ofc-stats import --rules ROOM.toml`` stores hands under the file's ruleset
name (``ROOM``), which no preset knows.  The file's text is kept in the
dataset as ``rulesets/<name>.toml``, so a later ``recompute`` (or the audit,
or the grader) on any machine scores those hands by the same rules instead
of marking them "unknown ruleset".  Names are looked up as presets first,
then among the dataset's files.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ofc_stats.engine.presets import get_ruleset
from ofc_stats.engine.rules import Ruleset, name_problem
from ofc_stats.engine.ruleset_toml import read_ruleset_file, ruleset_from_text
from ofc_stats.errors import OfcError, RulesetError
from ofc_stats.store.files import LocalStorage, Storage

FOLDER = "rulesets"


def keep_ruleset(root: str | Path, path: str | Path) -> Ruleset:
    """Copy the TOML ruleset at ``path`` into the dataset (the caller holds its lock).

    A preset's name is never shadowed; a different ruleset under a name the
    dataset already keeps is refused (its hands would change meaning).
    """
    text, ruleset = read_ruleset_file(path)
    try:
        preset = get_ruleset(ruleset.name)
    except RulesetError:
        preset = None
    if preset is not None:
        if preset != ruleset:
            raise RulesetError(
                f"{path}: the ruleset is named {ruleset.name!r} like a preset but differs "
                "from it; rename the file"
            )
        return ruleset
    folder = Path(root) / FOLDER
    target = folder / f"{ruleset.name}.toml"  # a valid name is one file name (Ruleset checks it)
    if target.is_file():
        if read_ruleset_file(target)[1] != ruleset:
            raise RulesetError(
                f"{path}: the dataset already keeps other rules named {ruleset.name!r} "
                f"({target}); rename the file"
            )
        return ruleset
    folder.mkdir(exist_ok=True)
    handle, name = tempfile.mkstemp(dir=folder, prefix=".", suffix=".toml")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(name, target)
    return ruleset


class DatasetRulesets:
    """A ruleset lookup (name → Ruleset): presets, then the dataset's own files.

    A plain object holding a path, so recompute's worker processes can take it.
    """

    def __init__(self, root: str | Path, kept: Mapping[str, Ruleset] | None = None) -> None:
        self.root = str(root)
        self._kept: dict[str, Ruleset] = dict(kept or {})
        # ``kept`` given: the dataset's rulesets were read already (Spark's driver reads a
        # URI dataset's, which workers cannot open as paths), and only those are known
        self._given = kept is not None

    def __call__(self, name: str) -> Ruleset:
        try:
            return get_ruleset(name)
        except RulesetError:
            pass
        if name not in self._kept:
            safe = name_problem(name) is None
            path = Path(self.root) / FOLDER / f"{name}.toml"
            if self._given or not safe or not path.is_file():  # a name is input: no path out
                raise RulesetError(
                    f"unknown ruleset {name!r}: not a preset, and the dataset keeps no "
                    f"{FOLDER}/{name}.toml"
                )
            try:
                self._kept[name] = read_ruleset_file(path)[1]
            except (OSError, OfcError) as error:
                raise RulesetError(f"{path}: {error}") from None
        return self._kept[name]

    def __getstate__(self) -> dict[str, object]:
        kept = self._kept if self._given else {}  # files read again where the copy lands
        return {"root": self.root, "_kept": kept, "_given": self._given}


def kept_rulesets(root: str | Path, storage: Storage | None = None) -> dict[str, Ruleset]:
    """The rulesets the dataset at ``root`` keeps as files, by name, read through ``storage``
    (the local disk by default; a URI dataset's filesystem for Spark).  A file that does not
    read is left out: a hand that needs it is then scored as of an unknown ruleset, as
    :class:`DatasetRulesets` would say."""
    storage = storage or LocalStorage()
    folder = f"{root}/{FOLDER}"
    kept: dict[str, Ruleset] = {}
    for file_name in sorted(storage.names(folder)):
        name = file_name.removesuffix(".toml")
        if name == file_name or name_problem(name) is not None:
            continue
        text = storage.read_text(f"{folder}/{file_name}")
        try:
            if text is not None:
                kept[name] = ruleset_from_text(text, f"{folder}/{file_name}")
        except OfcError:
            continue
    return kept


__all__ = ["DatasetRulesets", "keep_ruleset", "kept_rulesets"]
