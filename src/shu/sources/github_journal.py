"""The store side of a per-repository GitHub ingest split into a fetch and a write.

A fetch may run in another process (a Dask worker) that cannot open the store, so it works on
a `ScratchStore`: an in-memory store holding a read-only `RepoSnapshot` of the rows one
repository's ingest reads (its `repos`, `stars_daily`, `commits` and `releases` rows and the
ETags in `http_cache` for its URLs). The scratch store records every load (one per step) as a
`LoadRecord`: its `ingest_log` target, status, message, rows read and, in order, the upserts and
renames it made. `replay` applies one record to the real store in one `store.load(...)`: the
same transaction and `ingest_log` row as a direct write; a failed step writes only its 'failed'
row (its writes were rolled back). Records are plain data (pandas frames) and pickle.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from shu.errors import StoreError
from shu.repos import rename_repo
from shu.store import Load, Store, UpsertResult

SNAPSHOT_TABLES = ("repos", "stars_daily", "commits", "releases")
# The commits step reads only which SHAs exist, the newest/oldest commit time and the oldest
# commit's parent count, and only inserts unknown SHAs: those columns are all a fetch needs.
SNAPSHOT_COLUMNS = {"commits": "repo, sha, committed_at, parents"}
# Tables whose journaled rows of one load are written in one upsert: `http_cache` gets a row per
# response (a backfill: ~150 one-row upserts, then as many on the real store). No step of a load
# reads it back but the validator cache of the scratch store, so its rows are gathered into the
# load's first upsert of it (the last row per key kept) until a rename, which writes in order.
GATHERED_TABLES = {"http_cache": "url"}


@dataclass
class RepoSnapshot:
    """What one repository's ingest reads from the store, under its current name."""

    repo: str
    tables: dict[str, pd.DataFrame]


def read_snapshot(store: Store, repo: str) -> RepoSnapshot:
    """The rows of `repo` (already alias-folded) an ingest reads, and its cached ETags."""
    tables = {
        name: store.con.execute(
            f'SELECT {SNAPSHOT_COLUMNS.get(name, "*")} FROM "{name}" WHERE repo = ?', [repo]
        ).fetchdf()
        for name in SNAPSHOT_TABLES
    }
    tables["http_cache"] = store.con.execute(
        "SELECT * FROM http_cache WHERE strpos(lower(url), lower(?)) > 0", [f"/repos/{repo}"]
    ).fetchdf()
    return RepoSnapshot(repo, tables)


@dataclass
class Op:
    """One write of a load: an upsert (`table`, `rows`) or a rename (`old` -> `new`)."""

    kind: str
    table: str = ""
    rows: pd.DataFrame | None = None
    old: str = ""
    new: str = ""
    alias_source: str = ""  # a rename: how the old name became known (repo_aliases.source)


@dataclass
class LoadRecord:
    """One load a fetch made on its scratch store, to be replayed on the real store."""

    source: str
    target: str
    ops: list[Op] = field(default_factory=list)
    status: str = "ok"
    message: str = ""
    rows_read: int = 0


class ScratchStore(Store):
    """An in-memory store seeded with a snapshot that journals each load's writes."""

    def __init__(self, snapshot: RepoSnapshot) -> None:
        super().__init__(":memory:")
        self.journal: list[LoadRecord] = []
        self._record: LoadRecord | None = None
        for name, frame in snapshot.tables.items():
            if not frame.empty:
                self.con.register("_shu_seed", frame)
                self.con.execute(f'INSERT INTO "{name}" BY NAME SELECT * FROM _shu_seed')
                self.con.unregister("_shu_seed")

    @contextlib.contextmanager
    def load(self, source: str, target: str) -> Iterator[Load]:
        record = LoadRecord(source, target)
        self.journal.append(record)
        self._record = record
        loaded: Load | None = None
        try:
            with super().load(source, target) as loaded:
                yield loaded
        finally:
            self._record = None
            if loaded is not None:
                record.status, record.message = loaded.status, loaded.message
                record.rows_read = loaded.rows_read

    def upsert(
        self, table: str, rows: Any, *, keys_unique: bool = False, scope: str = ""
    ) -> UpsertResult:
        if self._record is None:
            raise StoreError(f"upsert into {table} outside a load: it would not be replayed")
        result = super().upsert(table, rows, keys_unique=keys_unique, scope=scope)
        self._journal(table, pd.DataFrame(rows).copy())
        return result

    def _journal(self, table: str, frame: pd.DataFrame) -> None:
        """Add an upsert to the current load's ops; `GATHERED_TABLES` rows join the load's
        earlier upsert of that table when no rename came between."""
        assert self._record is not None
        ops = self._record.ops
        if table in GATHERED_TABLES:
            for op in reversed(ops):
                if op.kind == "rename":
                    break
                if op.table == table and op.rows is not None:
                    if list(op.rows.columns) != list(frame.columns):
                        break
                    op.rows = (
                        pd.concat([op.rows, frame], ignore_index=True)
                        .drop_duplicates(GATHERED_TABLES[table], keep="last")
                        .reset_index(drop=True)
                    )
                    return
        ops.append(Op("upsert", table, frame))

    def rename(self, old: str, new: str, alias_source: str) -> None:
        """`rename_repo` here, journaled so the write renames the real store's rows too."""
        if self._record is None:
            raise StoreError(f"rename of {old} outside a load: it would not be replayed")
        rename_repo(self, old, new, alias_source)  # raw SQL and an alias row: no upsert journaled
        self._record.ops.append(Op("rename", old=old, new=new, alias_source=alias_source))


class _Replayed(Exception):
    """Re-raises a failed step's message inside `store.load` so it logs the same 'failed' row."""


def replay(store: Store, record: LoadRecord, counted: Callable[[str, UpsertResult], None]) -> None:
    """Apply one journaled load to `store` in one transaction with its `ingest_log` row.

    `counted(table, result)` is told every upsert into a data table (not `http_cache`), whose
    counts also go to the `ingest_log` row, as a direct write counts them.
    """
    if record.status != "ok":
        with contextlib.suppress(_Replayed), store.load(record.source, record.target) as load:
            load.rows_read = record.rows_read
            raise _Replayed(record.message)
        return
    with store.load(record.source, record.target) as load:
        load.rows_read = record.rows_read
        for op in record.ops:
            if op.kind == "rename":
                rename_repo(store, op.old, op.new, op.alias_source)
                continue
            result = store.upsert(op.table, op.rows)
            if op.table in SNAPSHOT_TABLES:
                load.add(result)
                counted(op.table, result)
        load.message = record.message
