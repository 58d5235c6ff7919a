"""The full refresh of `star_signals`: every row recomputed from all of stars_daily, checked
against the stored table repository by repository, and only what differs written.

1. Observations: every stars_daily row read once, with integer repository ids (dense, in
   repository order, `_star_signal_repos`), and sorted by (repository, day) in numpy.
2. Rows: computed with numpy (`star_arrays.py`) slice by slice (whole repositories) on a thread
   of its own, a few slices ahead of DuckDB, as a stream of Arrow record batches that
   `sql/star_signal_rows.sql` turns into star_signals rows of the declared types.
3. Check: a digest per repository (its row count and the sum of a 64-bit hash of each of its
   rows) of the recomputed rows, streamed through DuckDB, against the same digest of the stored
   rows, taken meanwhile on a connection of its own. Two different sets of rows share a digest
   with a probability of about 2^-64.
4. Write, in one transaction (a SIGKILL leaves the old table): the rows of the repositories
   whose digests differ, after deleting their old rows and those of repositories no longer in
   stars_daily. When star_signals is empty, or when most of it changes (judged on the first
   slice, then on the whole), every row goes into a build table that replaces star_signals.

Why this shape: the windows of every repository are cheapest on arrays sorted once (a window
query over a calendar of every repository's days costs more), computing overlaps writing when
numpy runs on a thread of its own (it releases the GIL), and most full refreshes change few rows,
so checking digests and writing only what differs beats rewriting the whole table. What each
choice measured, what was tried and dropped, and the benchmark's figures:
`benchmarks/README.md`, "Signals: full refresh".
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date

import duckdb
import numpy as np
import pyarrow as pa

from shu.schema.signals import STAR_SIGNALS
from shu.signals.lifecycle import sql_lifecycle_phase
from shu.signals.runs import TableRefresh, record_run
from shu.signals.sqlfiles import load_sql
from shu.signals.star_arrays import DAY_BITS, star_signal_arrays
from shu.store import Store

EPOCH = date(1970, 1, 1)
BUILD_TABLE = "_star_signals_build"
SLICE_ROWS = 1 << 16  # observations per slice (whole repositories)
REBUILD_SHARE = 0.5  # rebuild the whole table when more than this share of its rows changes
# Writing many rows: in no particular order (nothing reads star_signals by position, and keeping
# the order costs CPU) and without bit-packing (its analysis costs more CPU than the little disk
# it saves is worth; benchmarks/README.md, "Signals: full refresh").
WRITE_SETTINGS = {"preserve_insertion_order": "false", "disabled_compression_methods": "bitpacking"}
VALUE_COLUMNS = [c for c in STAR_SIGNALS.column_names if c != "repo"]
Digest = dict[str, tuple[int, int]]  # repo -> (rows, sum of row hashes)


@dataclass
class Observations:
    """Every observation, sorted: key = rid << DAY_BITS | day number, with its star count."""

    key: np.ndarray
    stars: np.ndarray
    names: pa.Array  # the name of repository id r at names[r - 1]
    max_dn: int  # day number of the newest day of the input (no row after it)

    def rows_of(self, repos: set[str]) -> Observations:
        """The observations of these repositories only."""
        ids = (
            np.flatnonzero(
                np.isin(
                    self.names.to_numpy(zero_copy_only=False), np.array(sorted(repos), dtype=object)
                )
            )
            + 1
        )
        keep = np.isin(self.key >> DAY_BITS, ids)
        return Observations(self.key[keep], self.stars[keep], self.names, self.max_dn)


def refresh_full(
    store: Store, run_id: str, max_day: date, reason: str, t0: float, fingerprint: tuple[int, int]
) -> TableRefresh:
    """Recompute every row of star_signals; write what differs from the stored rows."""
    con = store.con
    try:
        _create_repos(store)
        observations = _read_observations(store, (max_day - EPOCH).days)
        stored_rows = con.execute("SELECT count(*) FROM star_signals").fetchall()[0][0]
        if not stored_rows or not len(observations.key):
            return _rebuild(
                store,
                run_id,
                observations,
                None,
                f"{reason}; every row written",
                max_day,
                t0,
                fingerprint,
            )
        batches = _batches(observations)
        first = next(batches)
        # a probe: the first slice against its stored rows (read by key range: cheap). When most
        # of it differs, so will the rest (new definitions): no checking, every row written
        names = first.column("repo").dictionary
        probe = _digest(
            con, "star_signals WHERE repo BETWEEN ? AND ?", [names[0].as_py(), names[-1].as_py()]
        )
        first_fresh = _digest_of(con, [first])
        if _changed_rows(first_fresh, probe, partial=True) > REBUILD_SHARE * first.num_rows:
            return _rebuild(
                store,
                run_id,
                observations,
                itertools.chain([first], batches),
                f"{reason}; most rows differed, every row written",
                max_day,
                t0,
                fingerprint,
            )
        with (  # the pool is left first: its digest ends before its cursor is closed
            contextlib.closing(con.cursor()) as reader,
            ThreadPoolExecutor(1, thread_name_prefix="star-digest") as pool,
        ):
            # the stored rows digested on a connection of their own while the recomputed ones
            # are (inside a caller's transaction: after, on its connection, the only one that
            # sees what that transaction wrote)
            stored_future = (
                None if store.in_transaction else pool.submit(_digest, reader, "star_signals")
            )
            # slices hold whole repositories: the first one's are in no other
            fresh = {**first_fresh, **_digest_of(con, batches)}
            stored = stored_future.result() if stored_future else _digest(con, "star_signals")
        changed = {repo for repo, digest in fresh.items() if stored.get(repo) != digest}
        gone = set(stored) - set(fresh)
        counted = f"{len(fresh):,} repositories recomputed, {len(changed) + len(gone):,} differed"
        if _changed_rows(fresh, stored) > REBUILD_SHARE * stored_rows:
            return _rebuild(
                store,
                run_id,
                observations,
                None,
                f"{reason}; {counted}, every row written",
                max_day,
                t0,
                fingerprint,
            )
        return _patch(
            store,
            run_id,
            observations.rows_of(changed),
            changed | gone,
            f"{reason}; {counted}",
            max_day,
            t0,
            fingerprint,
        )
    finally:
        con.execute(f"DROP TABLE IF EXISTS {BUILD_TABLE}")
        con.execute("DROP TABLE IF EXISTS _star_signal_repos")


def _create_repos(store: Store) -> None:
    """_star_signal_repos: every repository with its id (dense, in repository order) and the day
    number of its first observation."""
    store.con.execute(f"""
        CREATE OR REPLACE TABLE _star_signal_repos AS
        SELECT repo, (row_number() OVER (ORDER BY repo))::INTEGER AS rid,
               (min(day) - DATE '{EPOCH}')::INTEGER AS first_dn
        FROM stars_daily WHERE stars IS NOT NULL GROUP BY repo""")


def _read_observations(store: Store, max_dn: int) -> Observations:
    """Every observation, read once, sorted by (repository, day)."""
    con = store.con
    observed = con.execute(
        f"SELECT r.rid, (s.day - DATE '{EPOCH}')::INTEGER AS dn, s.stars::BIGINT AS stars "
        "FROM stars_daily s JOIN _star_signal_repos r USING (repo) WHERE s.stars IS NOT NULL"
    ).fetchnumpy()
    key, stars = _sorted_observations(
        np.asarray(observed.pop("rid")),
        np.asarray(observed.pop("dn")),
        np.asarray(observed.pop("stars")),
    )
    names = (
        con.sql("SELECT repo FROM _star_signal_repos ORDER BY rid")
        .to_arrow_table()
        .column(0)
        .combine_chunks()
    )
    return Observations(key, stars, names, max_dn)


def _sorted_observations(
    rid: np.ndarray, dn: np.ndarray, stars: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(key = rid << 20 | dn, stars), sorted by key (ties in input order). While key and row
    number fit in 63 bits together, the row number goes into the key's low bits and one plain
    sort of the packed integers does it (numpy's vectorised sort, much faster than a stable
    argsort); else one stable argsort. Works in place where it can (fresh memory costs)."""
    key = rid.astype(np.int64)
    key <<= DAY_BITS
    key |= dn
    row_bits = max(len(key) - 1, 1).bit_length()
    if not len(key) or int(key.max()).bit_length() + row_bits > 63 or dn.min() < 0:
        order = np.argsort(key, kind="stable")
        return key[order], stars[order]
    key <<= row_bits
    key |= np.arange(len(key))
    key.sort()
    order = key & ((1 << row_bits) - 1)
    key >>= row_bits
    return key, stars[order]


def _batches(observations: Observations) -> Iterator[pa.RecordBatch]:
    """The rows of the observations as record batches (repo as a dictionary of this batch's
    names, then the arrays of `star_signal_arrays`), one per slice of whole repositories,
    computed ahead on a thread of their own. Yields nothing when there are no observations."""
    key, stars, names = observations.key, observations.stars, observations.names
    if not len(key):
        return
    starts = np.flatnonzero(np.diff(key >> DAY_BITS, prepend=-1))  # each repository's first
    bounds = [
        *starts[np.unique(np.searchsorted(starts, np.arange(0, len(key), SLICE_ROWS)))],
        len(key),
    ]

    def batch(lo: int, hi: int) -> pa.RecordBatch:
        arrays = star_signal_arrays(key[lo:hi], stars[lo:hi], observations.max_dn)
        rid = arrays.pop("rid")  # ascending: the dictionary holds this slice's range of names
        first = int(rid[0])
        repo = pa.DictionaryArray.from_arrays(rid - first, names[first - 1 : int(rid[-1])])
        return pa.RecordBatch.from_pydict({"repo": repo, **arrays})

    yield from _computed_ahead(batch, itertools.pairwise(bounds))


def _computed_ahead(
    compute: Callable[[int, int], pa.RecordBatch], slices: Iterable[tuple[int, int]], ahead: int = 2
) -> Iterator[pa.RecordBatch]:
    """compute(lo, hi) for each slice, in order, on a thread of its own that keeps up to `ahead`
    batches ready: numpy (which lets go of the GIL) computes the next slices while DuckDB
    consumes the last one."""
    with ThreadPoolExecutor(1, thread_name_prefix="star-signals") as pool:
        pending: deque[Future[pa.RecordBatch]] = deque()
        for lo, hi in slices:
            pending.append(pool.submit(compute, lo, hi))
            if len(pending) > ahead:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


@contextlib.contextmanager
def _rows_from(
    con: duckdb.DuckDBPyConnection, batches: Iterable[pa.RecordBatch]
) -> Iterator[str | None]:
    """A SELECT (on `con`) of the star_signals rows, in the declared column types, of the
    batches, while they are registered; None when there are none."""
    batches = iter(batches)
    first = next(batches, None)
    if first is None:
        yield None
        return
    stream = pa.RecordBatchReader.from_batches(first.schema, itertools.chain([first], batches))
    (rows,) = load_sql("star_signal_rows")
    rows = rows.format(
        arrays="_star_rows", lifecycle_phase=sql_lifecycle_phase("a.stars", "a.d28", "a.dd28")
    )
    typed = ", ".join(f'CAST("{c.name}" AS {c.type}) AS "{c.name}"' for c in STAR_SIGNALS.columns)
    con.register("_star_rows", stream)
    try:
        yield f"SELECT {typed} FROM ({rows})"
    finally:
        con.unregister("_star_rows")


def _digest(
    con: duckdb.DuckDBPyConnection, source: str, parameters: list[object] | None = None
) -> Digest:
    """repo -> (rows, sum of row hashes) of the rows of `source` (a table or a subquery, either
    with a WHERE clause) with the star_signals columns."""
    hashed = ", ".join(f'"{c}"' for c in VALUE_COLUMNS)
    return {
        repo: (int(n), int(h))
        for repo, n, h in con.execute(
            f"SELECT repo, count(*), sum(hash({hashed})) FROM {source} GROUP BY repo", parameters
        ).fetchall()
    }


def _digest_of(con: duckdb.DuckDBPyConnection, batches: Iterable[pa.RecordBatch]) -> Digest:
    """The digest of the rows of the batches, as they would be stored."""
    with _rows_from(con, batches) as rows:
        return {} if rows is None else _digest(con, f"({rows})")


def _changed_rows(fresh: Digest, stored: Digest, partial: bool = False) -> int:
    """Rows that differ: of each changed repository, its new rows and (unless `partial`, where
    `fresh` covers some repositories only) the stored rows of repositories that are gone."""
    rows = sum(n for repo, (n, h) in fresh.items() if stored.get(repo) != (n, h))
    if not partial:
        rows += sum(n for repo, (n, _) in stored.items() if repo not in fresh)
    return rows


def _insert(store: Store, target: str, batches: Iterable[pa.RecordBatch]) -> None:
    with _rows_from(store.con, batches) as rows, store.settings(WRITE_SETTINGS):
        if rows is not None:
            store.con.execute(f"INSERT INTO {target} {rows}")


def _finish(
    store: Store,
    run_id: str,
    written: int,
    reason: str,
    max_day: date,
    t0: float,
    fingerprint: tuple[int, int],
) -> TableRefresh:
    """Inside the write's transaction: star_signal_repos brought up to date with
    _star_signal_repos (only the rows that differ: rewriting all its keys costs a primary-index
    rebuild at commit), and the run recorded."""
    con = store.con
    first_days = f"SELECT repo, DATE '{EPOCH}' + first_dn AS first_day FROM _star_signal_repos"
    con.execute(f"DELETE FROM star_signal_repos WHERE (repo, first_day) NOT IN ({first_days})")
    con.execute(
        f"INSERT INTO star_signal_repos SELECT * FROM ({first_days}) n "
        "WHERE n.repo NOT IN (SELECT repo FROM star_signal_repos)"
    )
    result = TableRefresh(
        "star_signals",
        "full",
        reason,
        None,
        max_day,
        written,
        time.perf_counter() - t0,
        *fingerprint,
    )
    record_run(store, result, run_id)
    return result


def _rebuild(
    store: Store,
    run_id: str,
    observations: Observations,
    batches: Iterable[pa.RecordBatch] | None,
    reason: str,
    max_day: date,
    t0: float,
    fingerprint: tuple[int, int],
) -> TableRefresh:
    """Every row into a build table, swapped in for star_signals in one transaction."""
    con = store.con
    columns = ", ".join(f'"{c.name}" {c.type}' for c in STAR_SIGNALS.columns)
    con.execute(f"CREATE OR REPLACE TABLE {BUILD_TABLE} ({columns})")
    _insert(store, BUILD_TABLE, batches if batches is not None else _batches(observations))
    with store.transaction():
        con.execute("DROP TABLE IF EXISTS star_signals")
        con.execute(f"ALTER TABLE {BUILD_TABLE} RENAME TO star_signals")
        written = con.execute("SELECT count(*) FROM star_signals").fetchall()[0][0]
        return _finish(store, run_id, int(written), reason, max_day, t0, fingerprint)


def _patch(
    store: Store,
    run_id: str,
    observations: Observations,
    repos: set[str],
    reason: str,
    max_day: date,
    t0: float,
    fingerprint: tuple[int, int],
) -> TableRefresh:
    """The stored rows of `repos` replaced by their recomputed ones (`observations` holds the
    repositories among them still in stars_daily), in one transaction."""
    con = store.con
    with store.transaction():
        if repos:
            con.register("_star_changed", pa.table({"repo": sorted(repos)}))
            try:
                con.execute(
                    "DELETE FROM star_signals WHERE repo IN (SELECT repo FROM _star_changed)"
                )
            finally:
                con.unregister("_star_changed")
        before = con.execute("SELECT count(*) FROM star_signals").fetchall()[0][0]
        _insert(store, "star_signals", _batches(observations))
        written = con.execute("SELECT count(*) FROM star_signals").fetchall()[0][0] - before
        return _finish(store, run_id, int(written), reason, max_day, t0, fingerprint)
