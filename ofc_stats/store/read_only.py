"""What ``--read-only`` lets run: statements that read, named as the user wrote them.

One rule for the library (:meth:`ofc_stats.store.views.OfcData.read_only`) and the
``sql --read-only`` command.  DuckDB files statements under its own kinds (INSTALL and
LOAD are one, LOAD; CHECKPOINT is a CALL, USE a SET, IMPORT DATABASE a PRAGMA), and a newer
kind may have no name in its Python module yet (UPDATE EXTENSIONS): a refusal names the
statement's first words.  EXPLAIN ANALYZE runs the statement it explains, so that
statement is checked too (a COPY under it wrote the dataset's own files).
"""

from __future__ import annotations

import re

import duckdb

from ofc_stats.errors import OfcError

READING = {"SELECT", "EXPLAIN"}  # the statement types --read-only lets through


def only_reading(query: str) -> None:
    """Refuse a statement that does more than read (an OfcError naming it as written).

    >>> only_reading("SELECT 1; explain select 2")
    >>> only_reading("/* x */ install httpfs")
    Traceback (most recent call last):
    ...
    ofc_stats.errors.OfcError: --read-only runs queries that read (SELECT, EXPLAIN): INSTALL refused
    """
    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error:
        return  # DuckDB's own error, with its position, comes from running it
    for statement in statements:
        try:
            kind: str | None = statement.type.name
        except ValueError:  # "29 is not a valid StatementType"
            kind = None
        if kind not in READING:
            raise OfcError(
                "--read-only runs queries that read (SELECT, EXPLAIN): "
                f"{statement_name(statement.query, kind)} refused"
            )
        if kind == "EXPLAIN":  # EXPLAIN ANALYZE runs what it explains: a COPY writes
            explained = _explained(statement.query)
            if explained is None:
                raise OfcError(
                    "--read-only: an EXPLAIN whose statement cannot be told refused; "
                    "write EXPLAIN [ANALYZE] SELECT ..."
                )
            try:
                only_reading(explained)
            except OfcError as error:
                raise OfcError(f"{error} (EXPLAIN ANALYZE would run it)") from None


# EXPLAIN, ANALYZE and DuckDB's (options), in either order, after leading space and comments
_EXPLAIN = re.compile(
    r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*EXPLAIN\s*"
    r"(?:(?:ANALY[SZ]E\b|\([^()]*\))\s*){0,2}",
    re.IGNORECASE | re.DOTALL,
)


def _explained(text: str) -> str | None:
    """The statement an EXPLAIN explains (None: not an EXPLAIN this can read).

    >>> _explained("/* x */ explain analyze (format json) COPY t TO 'f'")
    "COPY t TO 'f'"
    """
    found = _EXPLAIN.match(text)
    return None if found is None else text[found.end() :]


_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_]+")


def statement_name(text: str, kind: str | None) -> str:
    """A statement's name for a person: its first keyword (two for FORCE INSTALL, UPDATE
    EXTENSIONS), or DuckDB's kind after a WITH.

    >>> statement_name("/* x */ install httpfs", "LOAD")
    'INSTALL'
    >>> statement_name("force install httpfs", "LOAD")
    'FORCE INSTALL'
    >>> statement_name("WITH a AS (SELECT 1) INSERT INTO t SELECT * FROM a", "INSERT")
    'INSERT'
    """
    words: list[str] = _WORD.findall(_COMMENT.sub(" ", text).upper())[:2]
    if not words or words[0] == "WITH":
        return kind or "this statement"
    if words[0] in ("FORCE", "UPDATE") and words[1:] in (["INSTALL"], ["EXTENSIONS"]):
        return " ".join(words)
    return words[0]
