"""The DuckDB store: opening, versioned migrations, transactions, upserts and the ingest log.

Every stage reads from and writes to one DuckDB file. Tables come from the declarations in
`shu.schema`; migrations are recorded in `_shu_migrations` and applied automatically and
idempotently on open (explicit migrations first, then additive reconciliation: declared tables or
columns that are missing are created, each recorded). Writes go through `upsert`, keyed on the
primary key, inside a transaction, so a re-run converges to the same store.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb

from shu.errors import StoreError
from shu.migrations import MIGRATIONS
from shu.schema import ALL_TABLES, TABLES_BY_NAME

MIGRATIONS_TABLE = "_shu_migrations"


def utcnow() -> datetime:
    """Naive UTC timestamp (DuckDB TIMESTAMP columns hold UTC)."""
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass
class UpsertResult:
    """What an upsert did."""

    inserted: int = 0
    updated: int = 0

    def __iadd__(self, other: UpsertResult) -> UpsertResult:
        self.inserted += other.inserted
        self.updated += other.updated
        return self


@dataclass
class Load:
    """A load in progress; its counters end up in `ingest_log`."""

    source: str
    target: str
    load_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    started_at: datetime = field(default_factory=utcnow)
    rows_read: int = 0
    rows_inserted: int = 0
    rows_updated: int = 0
    rows_rejected: int = 0
    status: str = "ok"
    message: str = ""
    failed_files: dict[Path, str] = field(default_factory=dict)

    def add(self, result: UpsertResult) -> None:
        """Count an upsert's effect."""
        self.rows_inserted += result.inserted
        self.rows_updated += result.updated


class Store:
    """An open DuckDB store. Use `open_store()`; close it (or use it as a context manager)."""

    def __init__(
        self, path: Path | str, read_only: bool = False, config: dict[str, Any] | None = None
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.config = dict(config or {})
        self._depth = 0
        self.con = self._connect()
        if not read_only:
            self.migrate()

    # ---------------------------------------------------------------- connection
    def _connect(self) -> duckdb.DuckDBPyConnection:
        if str(self.path) != ":memory:":
            if self.read_only and not self.path.exists():
                raise StoreError(
                    f"no store at {self.path.absolute()}: load data first "
                    "(e.g. `shu ingest ranking PATH`)"
                )
            if not self.read_only:
                self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            lock = self.config.get("lock_configuration", False)
            con = duckdb.connect(
                str(self.path),
                read_only=self.read_only,
                config={k: v for k, v in self.config.items() if k != "lock_configuration"},
            )
            con.execute("SET enable_progress_bar = false")
            if lock:  # last: nothing may change the configuration after this
                con.execute("SET lock_configuration = true")
            return con
        except duckdb.IOException as exc:
            msg = str(exc).splitlines()[0]
            if "lock" in msg.lower():
                raise StoreError(
                    f"{self.path} is being written by another process; retry when it"
                    " finishes (or read the snapshot under data/snapshot/)"
                ) from exc
            raise StoreError(f"cannot open {self.path}: {msg}") from exc
        except duckdb.Error as exc:
            raise StoreError(f"cannot open {self.path}: {str(exc).splitlines()[0]}") from exc

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- migrations
    def migrate(self) -> list[str]:
        """Apply pending migrations and additive reconciliation; return what was applied."""
        applied: list[str] = []
        with self.transaction():
            self.con.execute(
                f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, "
                "name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)"
            )
            done = {
                r[0] for r in self.con.execute(f"SELECT version FROM {MIGRATIONS_TABLE}").fetchall()
            }
            for version, name, fn in MIGRATIONS:
                if version in done:
                    continue
                fn(self.con)
                self._record_migration(version, name)
                applied.append(name)
            applied += self._reconcile()
        return applied

    def _record_migration(self, version: int, name: str) -> None:
        self.con.execute(
            f"INSERT INTO {MIGRATIONS_TABLE} VALUES (?, ?, ?)", [version, name, utcnow()]
        )

    def _reconcile(self) -> list[str]:
        """Create declared tables/columns that the file lacks (additive changes only)."""
        existing: dict[str, set[str]] = {}
        for table_name, column_name in self.con.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'main'"
        ).fetchall():
            existing.setdefault(table_name, set()).add(column_name)
        changes: list[str] = []
        for table in ALL_TABLES:
            if table.name not in existing:
                self.con.execute(table.ddl())
                changes.append(f"auto: create table {table.name}")
                continue
            if table.view_sql:
                if set(table.column_names) - existing[table.name]:
                    self.con.execute(table.ddl())
                    changes.append(f"auto: replace view {table.name}")
                continue
            for c in table.columns:
                if c.name not in existing[table.name]:
                    self.con.execute(f'ALTER TABLE "{table.name}" ADD COLUMN "{c.name}" {c.type}')
                    changes.append(f"auto: add column {table.name}.{c.name}")
        if changes:
            top = self.con.execute(
                f"SELECT coalesce(max(version), 0) FROM {MIGRATIONS_TABLE}"
            ).fetchall()[0][0]
            for i, change in enumerate(changes, start=1):
                self._record_migration(max(top, 1000) + i, change)
        return changes

    def migrations(self) -> list[tuple[int, str, datetime]]:
        """Applied migrations, oldest first."""
        return self.con.execute(
            f"SELECT version, name, applied_at FROM {MIGRATIONS_TABLE} ORDER BY version"
        ).fetchall()

    @contextlib.contextmanager
    def settings(self, values: dict[str, str]) -> Iterator[None]:
        """DuckDB settings changed for a block, then put back as they were."""
        old = {
            name: self.con.execute("SELECT current_setting(?)", [name]).fetchall()[0][0]
            for name in values
        }
        for name, value in values.items():
            self.con.execute(f"SET {name} = '{value}'")
        try:
            yield
        finally:
            for name, value in old.items():
                self.con.execute(f"SET {name} = '{value}'")

    def bulk(self, memory_limit: str) -> contextlib.AbstractContextManager[None]:
        """Settings for a bulk load: DuckDB's memory capped at `memory_limit` (it spills to
        disk beyond it, so peak memory stays bounded) and insertion order not kept (nothing
        depends on it, and keeping it costs time); both restored after."""
        return self.settings({"memory_limit": memory_limit, "preserve_insertion_order": "false"})

    # ---------------------------------------------------------------- transactions
    @property
    def in_transaction(self) -> bool:
        """Whether a `transaction()` is open on this store's connection."""
        return self._depth > 0

    @contextlib.contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A transaction; nested uses join the outermost one. Rolls back on any exception."""
        if self._depth:
            self._depth += 1
            try:
                yield self.con
            finally:
                self._depth -= 1
            return
        self.con.execute("BEGIN TRANSACTION")
        self._depth = 1
        try:
            yield self.con
        except BaseException:
            self._depth = 0
            self.con.execute("ROLLBACK")
            raise
        self._depth = 0
        self.con.execute("COMMIT")

    # ---------------------------------------------------------------- writes
    def upsert(
        self, table: str, rows: Any, *, keys_unique: bool = False, scope: str = ""
    ) -> UpsertResult:
        """Insert new rows and update changed ones, keyed on `table`'s primary key.

        Args:
            table: a declared table name.
            rows: a pandas DataFrame, pyarrow Table or DuckDB relation whose columns are a
                subset of the table's and include its primary key. Duplicate keys are an error.
            keys_unique: the caller guarantees one row per key (e.g. rows from a GROUP BY on
                the key), so the duplicate check (a full distinct pass) is skipped.
            scope: a SQL condition on `table`'s columns that every row of `rows` satisfies
                (e.g. "repo IN (SELECT repo FROM some_temp_table)"): only stored rows within
                it are compared, a narrower scan of a big table.

        Only the columns present in `rows` are written; unchanged rows are left alone, so a
        re-run reports 0 inserted and 0 updated. New rows are exactly those whose key is not
        stored, which is what keeps a key unique in a table without a key index.
        """
        decl = TABLES_BY_NAME[table]
        pk = list(decl.primary_key)
        self.con.register("_shu_stage", rows)
        try:
            cols = [d[0] for d in self.con.execute("SELECT * FROM _shu_stage LIMIT 0").description]
            unknown = [c for c in cols if c not in decl.column_names]
            if unknown or not set(pk) <= set(cols):
                raise StoreError(
                    f"upsert into {table}: columns {cols} must include the key "
                    f"{pk} and be among {decl.column_names}"
                )
            q = ", ".join(f'"{c}"' for c in cols)
            on = " AND ".join(f't."{k}" = s."{k}"' for k in pk)
            values = [c for c in cols if c not in pk]
            differs = " OR ".join(f't."{c}" IS DISTINCT FROM s."{c}"' for c in values) or "FALSE"
            target = f'(SELECT * FROM "{table}" WHERE {scope})' if scope else f'"{table}"'
            with self.transaction():
                dupes = (
                    0
                    if keys_unique
                    else self.con.execute(
                        f"SELECT count(*) - count(DISTINCT ({', '.join(pk)})) FROM _shu_stage"
                    ).fetchall()[0][0]
                )
                if dupes:
                    raise StoreError(f"upsert into {table}: {dupes} duplicate key rows in input")
                if not self.con.execute(
                    f'SELECT count(*) FROM (SELECT 1 FROM "{table}" LIMIT 1)'
                ).fetchall()[0][0]:
                    # Empty table (a first load): everything is new, no comparison needed.
                    inserted = self.con.execute(
                        f'INSERT INTO "{table}" ({q}) SELECT {q} FROM _shu_stage'
                    ).fetchall()[0][0]
                    return UpsertResult(int(inserted), 0)
                self.con.execute(
                    "CREATE OR REPLACE TEMP TABLE _shu_changed AS "
                    f'SELECT s.*, t."{pk[0]}" IS NULL AS _is_new FROM _shu_stage s '
                    f'LEFT JOIN {target} t ON {on} WHERE t."{pk[0]}" IS NULL OR ({differs})'
                )
                inserted, updated = self.con.execute(
                    "SELECT count(*) FILTER (WHERE _is_new), count(*) FILTER (WHERE NOT _is_new) "
                    "FROM _shu_changed"
                ).fetchall()[0]
                if inserted:
                    self.con.execute(
                        f'INSERT INTO "{table}" ({q}) SELECT {q} FROM _shu_changed WHERE _is_new'
                    )
                if updated:
                    sets = ", ".join(f'"{c}" = s."{c}"' for c in values)
                    self.con.execute(
                        f'UPDATE "{table}" t SET {sets} FROM _shu_changed s '
                        f"WHERE NOT s._is_new AND {on}"
                    )
                self.con.execute("DROP TABLE IF EXISTS _shu_changed")
        finally:
            self.con.unregister("_shu_stage")
        return UpsertResult(int(inserted), int(updated))

    @contextlib.contextmanager
    def load(self, source: str, target: str) -> Iterator[Load]:
        """Run a load in one transaction and record it in `ingest_log`.

        On success the data and its log row commit together; on failure the data is rolled
        back (the store is as before) and a 'failed' log row is written on its own.
        """
        record = Load(source=source, target=target)
        t0 = time.perf_counter()
        try:
            with self.transaction():
                yield record
                if not record.message:
                    record.message = f"{time.perf_counter() - t0:.1f}s"
                self._log(record)
        except BaseException as exc:
            record.status = "failed"
            record.message = str(exc).splitlines()[0][:500] if str(exc) else type(exc).__name__
            record.rows_inserted = record.rows_updated = 0
            with contextlib.suppress(duckdb.Error), self.transaction():
                self._log(record)
            raise

    def log_failure(self, source: str, target: str, message: str) -> None:
        """Record a part of a load that failed on its own (a 'failed' `ingest_log` row), inside
        the current transaction, so it commits with the rest of the load."""
        record = Load(source=source, target=target, status="failed", message=message[:500])
        with self.transaction():
            self._log(record)

    def _log(self, r: Load) -> None:
        self.log_loads([r])

    def log_loads(self, records: list[Load]) -> None:
        """Write `ingest_log` rows for finished loads, in one statement per 500 (a load of
        thousands of files logs each without a statement per file)."""
        finished = utcnow()
        for start in range(0, len(records), 500):
            chunk = records[start : start + 500]
            self.con.execute(
                "INSERT OR REPLACE INTO ingest_log VALUES "
                + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(chunk)),
                [
                    v
                    for r in chunk
                    for v in (
                        r.load_id,
                        r.source,
                        r.target,
                        r.rows_read,
                        r.rows_inserted,
                        r.rows_updated,
                        r.rows_rejected,
                        r.started_at,
                        finished,
                        r.status,
                        r.message,
                    )
                ],
            )

    # ---------------------------------------------------------------- reads
    def duplicate_keys(self, table: str) -> int:
        """Rows of `table` beyond one per primary-key value (0 when the key is unique): the
        check for tables whose key is unique by construction rather than indexed."""
        keys = ", ".join(f'"{k}"' for k in TABLES_BY_NAME[table].primary_key)
        return int(
            self.con.execute(
                f'SELECT count(*) - count(DISTINCT ({keys})) FROM "{table}"'
            ).fetchall()[0][0]
        )

    def tables(self) -> list[tuple[str, str, int]]:
        """(name, kind, rows) for every user-facing table and view."""
        return list_tables(self.con)


def dicts(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """The rows of an executed DuckDB cursor as dicts keyed by column name."""
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def list_tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int]]:
    """(name, kind, rows) for every user-facing table and view of the store open on `con`."""
    out = []
    for name, kind in con.execute(
        "SELECT table_name, table_type FROM information_schema.tables "
        "WHERE table_schema = 'main' AND table_name NOT LIKE '\\_%' ESCAPE '\\' "
        "ORDER BY table_name"
    ).fetchall():
        rows = con.execute(f'SELECT count(*) FROM "{name}"').fetchall()[0][0]
        out.append((name, "view" if "VIEW" in kind else "table", int(rows)))
    return out


# What a store without data says, and the commands that load some (the daily run, its briefing
# and the commands asked about a day before any data all say the same).
NO_DATA = "the store holds no star counts or commits yet"
LOAD_COMMANDS = (
    (
        "shu ingest github --backfill",
        "from GitHub; offline, from its stand-in `python -m shu.testing.github_server` (README)",
    ),
    ("shu ingest ranking PATH", "daily ranking files or a long star table"),
    ("shu ingest history PATH", "git history exports"),
    ("shu demo", "the whole chain on a synthetic sample"),
)


def load_hint() -> str:
    """One line naming the commands that load data."""
    return "load some with " + ", ".join(f"`{c}` ({why})" for c, why in LOAD_COMMANDS)


def first_data_day(con: duckdb.DuckDBPyConnection) -> date | None:
    """The first day the store holds an observation of the outside world (a star count, or the
    signals computed from one, or a commit); None when it holds none."""
    row = con.execute(
        "SELECT least((SELECT min(day) FROM stars_daily), (SELECT min(day) FROM star_signals), "
        "(SELECT min(committed_at)::DATE FROM commits))"
    ).fetchone()
    return row[0] if row else None


def last_data_day(con: duckdb.DuckDBPyConnection) -> date | None:
    """The last day the store holds an observation of the outside world (a star count, the
    signals computed from one, or a commit); None when it holds none."""
    row = con.execute(
        "SELECT greatest((SELECT max(day) FROM stars_daily), (SELECT max(day) FROM star_signals),"
        " (SELECT max(committed_at)::DATE FROM commits))"
    ).fetchone()
    return row[0] if row else None


REFRESH_HINT = (
    "refresh it with `shu ingest github` (the tracked repositories) or `shu ingest ranking PATH`"
)


def stale_data_note(last: date | None, today: date) -> str | None:
    """One line saying how old the store's data is when its last day is before yesterday
    (the briefing's own rule for stale data), with how to refresh it; None when it is fresh."""
    if last is None or last >= today - timedelta(days=1):
        return None
    return (
        f"the store's data ends on {last}, {(today - last).days} days before today ({today}); "
        f"only questions resolving after today are issued; {REFRESH_HINT}"
    )


def open_store(path: Path | str, read_only: bool = False) -> Store:
    """Open (creating and migrating when writable) the store at `path` (the entry points pass
    the configured one, `settings.db`)."""
    return Store(path, read_only=read_only)
