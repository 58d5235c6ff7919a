"""Confined access to the store for analysts: every analyst-facing query path goes through here.

`shu sql`, `shu tables`, notebooks (`shu.connect()`) and `shu export` open the store with
`open_analyst` / `connect_analyst`, which give a read-only DuckDB connection with external access
disabled and the configuration locked:

- no statement reads or writes a file, URL or directory (`read_csv`, `read_parquet`, `glob`,
  `COPY ... TO`, `EXPORT DATABASE`, `https://...`), attaches another database, installs or loads
  an extension, creates a persistent secret, or scans a Python object by name;
- `SET`/`RESET`/`PRAGMA x = y` cannot loosen any of that (the configuration is locked);
- the store itself cannot be written (read-only).

`run_query` additionally accepts exactly one statement and only read statements (SELECT, FROM,
WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN, PRAGMA and CALL of table functions), and turns
every refusal or failure into a one-line `InputError`. Exports the user asks for go through shu
(`export_result`: CSV, JSON or Parquet written by Python to a path the user named), never
through SQL.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from shu.errors import InputError
from shu.snapshot import open_for_reading
from shu.store import Store

log = logging.getLogger("shu.analyst")

# DuckDB settings fixed when the connection opens; `lock_configuration` keeps them so.
ANALYST_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_persistent_secrets": False,
    "lock_configuration": True,
}
READ_STATEMENTS = frozenset(
    {
        duckdb.StatementType.SELECT,
        duckdb.StatementType.EXPLAIN,
        duckdb.StatementType.PRAGMA,
        duckdb.StatementType.CALL,
    }
)
EXPORT_FORMATS = ("csv", "json", "parquet")
REFUSED = "analyst SQL sees only the store's tables; export with --csv, --json or --out PATH"


def open_analyst(db: Path | str | None = None) -> tuple[Store, str | None]:
    """The store (or its snapshot while a flow writes it) on a confined read-only connection.

    Returns the store and a one-line note when the snapshot is read instead of the live file.
    Raises StoreError (one line) when there is no store.
    """
    if db is None:
        from shu.settings import get_settings

        db = get_settings().db
    return open_for_reading(db, config=ANALYST_CONFIG)


def connect_analyst(db: Path | str | None = None) -> duckdb.DuckDBPyConnection:
    """A confined, read-only DuckDB connection to the store at `db` (default: the configured
    one), for notebooks and other library callers. Close it when done.

    Reads the snapshot (and logs a warning saying so) while a flow holds the live store.
    """
    store, note = open_analyst(db)
    if note:
        log.warning(note)
    return store.con


@dataclass
class QueryResult:
    """A finished analyst query: column names and an Arrow table of the rows."""

    names: list[str]
    table: pa.Table

    def rows(self) -> list[tuple[Any, ...]]:
        """The rows as Python tuples."""
        columns = [c.to_pylist() for c in self.table.columns]
        return list(zip(*columns, strict=True)) if columns else []


def check_statement(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Raise InputError unless `query` is exactly one read statement."""
    try:
        statements = con.extract_statements(query)
    except duckdb.Error as exc:
        raise InputError(f"query failed: {_first_line(exc)}") from exc
    if len(statements) != 1:
        raise InputError(f"refused: one statement per query, got {len(statements)}")
    kind = statements[0].type
    if kind not in READ_STATEMENTS:
        raise InputError(
            f"refused: {statement_name(statements[0].query, kind.name)} statements are not "
            f"allowed; the store is read-only and {REFUSED}"
        )


# The statement's first keyword, after any comments and opening parentheses; its second, too.
_LEADING_WORDS = re.compile(r"(?:\s|--[^\n]*|/\*.*?\*/|\()*([A-Za-z]+)(?:\s+([A-Za-z]+))?", re.S)


def statement_name(query: str, kind: str) -> str:
    """The statement as its text names it (INSTALL, LOAD, RESET, TRUNCATE, FORCE INSTALL …),
    where DuckDB's statement type (`kind`) groups several; `kind` for a WITH … statement."""
    words = _LEADING_WORDS.match(query)
    if words is None or words.group(1).upper() == "WITH":
        return kind
    first, second = words.group(1).upper(), (words.group(2) or "").upper()
    return f"{first} {second}" if first == "FORCE" and second else first


def run_query(con: duckdb.DuckDBPyConnection, query: str) -> QueryResult | None:
    """Run one read statement on a confined connection; None when it returns no result set.

    Refusals (a file read, a write, an ATTACH, a SET, several statements) and SQL errors raise
    InputError with one line.
    """
    check_statement(con, query)
    try:
        relation = con.sql(query)
        if relation is None:
            return None
        names = list(relation.columns)
        table = relation.to_arrow_table()
    except duckdb.PermissionException as exc:
        reason = _first_line(exc).removeprefix("Permission Error: ")
        raise InputError(f"refused: {reason}; {REFUSED}") from exc
    except duckdb.Error as exc:
        first = _first_line(exc)
        if "read-only" in first or "configuration has been locked" in first:
            raise InputError(f"refused: {first}; {REFUSED}") from exc
        raise InputError(f"query failed: {first}") from exc
    return QueryResult(names, table)


def export_result(result: QueryResult, fmt: str, target: str | Path) -> None:
    """Write `result` as `fmt` (csv, json or parquet) to `target` ('-' = stdout for csv/json).

    Files are written to a temporary name beside the target and renamed into place, so an
    interrupted export never leaves a partial file under the name asked for.
    """
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    if str(target) == "-":
        if fmt == "parquet":
            raise InputError("Parquet needs a file path, not '-' (standard output)")
        _write_text(result, fmt, sys.stdout)
        return
    path = Path(target)
    if not path.parent.is_dir():
        raise InputError(f"{path}: directory {path.parent} does not exist")
    partial = path.with_name(f".{path.name}.partial")
    try:
        if fmt == "parquet":
            pq.write_table(result.table, partial)
        else:
            with open(partial, "w", encoding="utf-8", newline="") as out:
                _write_text(result, fmt, out)
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from exc


def _write_text(result: QueryResult, fmt: str, out: Any) -> None:
    rows = result.rows()
    if fmt == "csv":
        writer = csv.writer(out)
        writer.writerow(result.names)
        writer.writerows(rows)
    else:
        records = [dict(zip(result.names, r, strict=True)) for r in rows]
        out.write(json.dumps(records, default=str, indent=1) + "\n")


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
