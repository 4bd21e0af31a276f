"""Files that are not the format they are read as: told apart from damaged ones.

A damaged file of a format keeps a quarantine row for each record it
refuses (its reason, file and line).  A file that is not that format at all
holds no hand of it, so it is *skipped*, as ``--format auto`` skips a file
of no known format: nothing read from it, nothing quarantined, not recorded
as imported (so the right format reads it later).  Two such cases:

* an SQLite database with no ``HttpOFCHands`` table (:func:`no_ofc_hands`,
  asked before the fpdb reader opens it: the reader's own refusal was one
  quarantine row counted as a hand seen);
* under a forced ``--format``, a file that gave no hand of it and does not
  look like it (``Importer._not_this_format``), summed up here in a few lines
  (:func:`wrong_format_lines`), not a refusal per record.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from parsers.fpdb import DAMAGED, read_only_uri

NOT_FPDB = "not an fpdb-3 database with OFC hands (it has no HttpOFCHands table): no hand seen"


def no_ofc_hands(path: str) -> str | None:
    """Why the SQLite file at ``path`` holds no fpdb-3 OFC hands, or None: it has their
    table (or a view of that name), or it cannot be asked here (not a database, damaged,
    locked), which the fpdb reader then says in a quarantine row.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "other.db")
    ...     with sqlite3.connect(path) as connection:
    ...         _ = connection.execute("CREATE TABLE notes (text)")
    ...     print(no_ofc_hands(path))
    ...     with sqlite3.connect(path) as connection:
    ...         _ = connection.execute("CREATE TABLE httpofchands (id)")
    ...     connection.close()
    ...     print(no_ofc_hands(path))
    not an fpdb-3 database with OFC hands (it has no HttpOFCHands table): no hand seen
    None
    """
    try:
        connection = sqlite3.connect(read_only_uri(path), uri=True, timeout=0)
    except (sqlite3.Error, ValueError):
        return None
    try:
        found = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name = 'HttpOFCHands' COLLATE NOCASE"
        ).fetchone()
    except DAMAGED:
        return None  # not a database, damaged or locked: the reader says which
    finally:
        connection.close()
    return None if found else NOT_FPDB


class _Skipped(Protocol):
    path: str
    not_format: str | None
    looks_like: str | None
    example: str | None


def wrong_format_lines(files: Sequence[_Skipped]) -> list[str]:
    """The summary of the files a forced ``--format`` did not fit: how many, what they
    look like, an example of each of the first two kinds with the reason, and the way out.

    >>> from types import SimpleNamespace as F
    >>> files = [F(path=f"a{n}.hh", not_format="swc", looks_like="app-json",
    ...            example=f"a{n}.hh:1: unreadable capture line") for n in range(3)]
    >>> files.append(F(path="notes.md", not_format="swc", looks_like=None, example=None))
    >>> print("\\n".join(wrong_format_lines(files)).replace(" (", "\\n  (", 1))
      4 files are not swc, the --format given: skipped
      (3 look like app-json, 1 like no known format)
        e.g. a0.hh:1: unreadable capture line
        e.g. notes.md: no swc record in it
      without --format each file is read as the format it looks like
    """
    if not files:
        return []
    forced = files[0].not_format
    kinds = Counter(f.looks_like for f in files)
    looks = ", ".join(
        f"{count} look{'s' if count == 1 and n == 0 else ''} like {kind or 'no known format'}"
        if n == 0
        else f"{count} like {kind or 'no known format'}"
        for n, (kind, count) in enumerate(kinds.most_common())
    )
    many = f"{len(files)} files are" if len(files) > 1 else "1 file is"
    out = [f"  {many} not {forced}, the --format given: skipped ({looks})"]
    for kind, _ in kinds.most_common(2):
        first = next(f for f in files if f.looks_like == kind)
        out.append(f"    e.g. {first.example or f'{first.path}: no {forced} record in it'}")
    out.append("  without --format each file is read as the format it looks like")
    return out
