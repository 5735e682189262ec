"""SQLite's dialect, as the shared SQL of :mod:`memtracks.storage` speaks it, in Postgres's.

The statements the two stores share are written once, for SQLite. :func:`to_postgres`
rewrites the few things Postgres says differently, and nothing else:

- ``?`` placeholders become ``%s`` (and a literal ``%`` becomes ``%%``), outside quotes;
- ``INSERT OR IGNORE INTO t ...`` becomes ``INSERT INTO t ... ON CONFLICT DO NOTHING``;
- ``INSERT OR REPLACE INTO t [(columns)] VALUES ...`` becomes an upsert on ``t``'s primary key
  (``ON CONFLICT (key) DO UPDATE SET`` every other column);
- ``+user_id`` (SQLite's "do not use an index on this column") becomes ``user_id``;
- ``instr(a, b)`` becomes ``strpos(a, b)``;
- an empty list, ``IN ()``, is false (``NOT IN ()`` true), as SQLite reads it.

Statements Postgres cannot run this way (pragmas, ``json_extract``, SQLite's two-argument
``MAX``) are not translated: the Postgres store implements those methods itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Sized
from functools import lru_cache


def marks(values: Sized) -> str:
    """The placeholders of an ``IN (...)`` list of ``values``: ``?,?,?`` (``IN ()`` for none)."""
    return ",".join("?" * len(values))


_INSERT = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*(\([^)]*\))?", re.IGNORECASE)


class Tables:
    """Each table's columns in order and its primary key, read from the database once."""

    def __init__(self, columns: Mapping[str, Sequence[str]], keys: Mapping[str, Sequence[str]]):
        self.columns = {t: list(c) for t, c in columns.items()}
        self.keys = {t: list(k) for t, k in keys.items()}


def _placeholders(sql: str) -> str:
    """``?`` -> ``%s`` and ``%`` -> ``%%``, leaving quoted text and identifiers as they are
    (only the ``%`` in them is doubled, as the driver reads every ``%``)."""
    out: list[str] = []
    quote = ""
    for ch in sql:
        if ch == "%":
            out.append("%%")
        elif quote:
            out.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            out.append(ch)
        elif ch == "?":
            out.append("%s")
        else:
            out.append(ch)
    return "".join(out)


def _upsert(sql: str, tables: Tables) -> str:
    match = _INSERT.match(sql)
    if match is None:
        return sql
    verb, table, listed = match.group(1).upper(), match.group(2), match.group(3)
    rest = sql[match.end() :]
    head = f"INSERT INTO {table} {listed or ''}"
    if verb == "IGNORE":
        return f"{head}{rest} ON CONFLICT DO NOTHING"
    columns = [c.strip().strip('"') for c in listed[1:-1].split(",")] if listed else tables.columns[table]
    key = tables.keys[table]
    others = [c for c in columns if c not in key]
    conflict = f" ON CONFLICT ({', '.join(key)}) DO "
    if not others:
        return f"{head}{rest}{conflict}NOTHING"
    return f"{head}{rest}{conflict}UPDATE SET " + ", ".join(f'"{c}" = EXCLUDED."{c}"' for c in others)


@lru_cache(maxsize=2048)
def _translate(sql: str, tables: Tables) -> str:
    sql = _upsert(sql, tables)
    sql = re.sub(r"(?<![\w.])\+user_id\b", "user_id", sql)
    sql = re.sub(r"\binstr\(", "strpos(", sql)
    sql = re.sub(r"[\w.\"]+\s+NOT\s+IN\s*\(\)", "TRUE", sql)
    sql = re.sub(r"[\w.\"]+\s+IN\s*\(\)", "FALSE", sql)
    return _placeholders(sql)


def to_postgres(sql: str, tables: Tables) -> str:
    """``sql`` (SQLite's dialect, as written in this package) as Postgres runs it."""
    return _translate(sql, tables)
