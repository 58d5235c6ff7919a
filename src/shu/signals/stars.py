"""Refreshes `star_signals` from `stars_daily`: a full refresh with numpy
(`star_arrays.py`), an incremental one with the SQL in `sql/star_signals.sql`.

Full: every observation read once (integer repository ids from `_star_signal_repos`), sorted by
(repository, day) in numpy, and computed slice by slice (whole repositories) on a thread of its
own, a few slices ahead of DuckDB, which inserts the stream of record batches into a build table
in one statement; the build table then replaces `star_signals` in one transaction (a SIGKILL
leaves the old table). Incremental: only days after the last computed one, for the
repositories that can have such days, reading the 100 days of input their velocity windows need
(90 + 7 days of staleness + margin) and taking the z-scores' trailing year from the stored rows
(`sql/star_zscores_incremental.sql`). When input on or before the last computed day changed
since (fingerprint in `signal_runs`), it falls back to a full refresh, so incremental and full
always agree (same integer sums and z formula in both).

Speed (issue 20, `benchmarks/bench_signals.py --runs 3`, the full 7.2M-row ranking store, 9.1M
rows out, a shared 2-core machine whose load varied). Full, the whole `shu signals --full`
against the naive window query of the issue, medians of the same run: 6.04 s vs 8.53 s, 0.72x
at load ~3.9; 3.46 s vs 4.20 s, 0.83x at load ~1.6; 3.73 s vs 4.16 s, 0.86x at load ~2.7 (CPU
5.4-5.8 s vs 7.7-8.8 s: 0.65-0.7x; 1.13x before this module moved to numpy). The naive query
keeps both cores busy (~1.9 of 2) where shu averages ~1.6, so on a quiet machine the wall ratio
sits above the CPU one and the 0.8x target is met only under load. Where the CPU goes: DuckDB
appending and compressing the 9.1M rows ~3 s (a cost per row and column: 13 columns), numpy
~1.1 s (on its own thread), the read and sort ~0.4 s, category/peer tables ~0.4 s, start-up and
checkpoint ~0.5 s. What each change measured: the vectorised sort of packed (key, row)
integers instead of ORDER BY in SQL (~0.8 -> ~0.3 s), insertion order not kept (-0.7 s),
bit-packing off for this write (-0.4 s, ~60 MiB more on disk), category_signals as a join of the
tracked repositories plus an anti-join instead of one left join (-0.1 s), numpy on its own
thread (computing and writing overlap). Measured and dropped: NULLs as Arrow validity and the
lifecycle phase computed in numpy (the insert saves what building the arrays costs),
uncompressed storage (-0.6 s CPU but 1.6x the file), other compression methods off (no
change), glibc malloc thresholds (no change); every slice computed first (two threads)
and inserted from one Arrow table, which DuckDB scans in parallel (1.11x vs 1.09x streamed,
at load ~1: no gain). On a quiet machine (load 0.6-0.9, `bench_signals.py --runs 3` at the
merge) the streamed refresh takes 3.86 s against the naive query's 3.55 s: 1.09x, CPU 5.65 s
vs 6.68 s.

Incremental, one new day (3,462 rows): 0.167 s at load ~2.7 (CPU 0.30 s; 0.33 s at load ~4,
where two cores cannot be had). The stored part of the z-scores' trailing years (~1.3M rows
summed per repository, `sql/star_year_common.sql`) runs on a connection of its own while the
velocity windows of the new days, which run on one core, do: 0.20 -> 0.17-0.19 s. Where the CPU
goes: the fingerprint scan of stars_daily 0.03 s, the 100-day slice of stars_daily 0.07 s,
windows over the slice 0.09 s, the trailing-year sums 0.10 s, the rest 0.02 s. Both big reads
are of rows spread over whole tables (stars_daily is in its importer's order, star_signals in
no order), so DuckDB decodes every row group of the columns it reads, however few rows match.
Tried and dropped: per-repository trailing-year sums kept in `star_signal_repos`, moved on by
the day entering and the day leaving the year: no gain (the one leaving day is itself spread
over all of star_signals: 0.08 s to read, as much as the year it replaces). Less CPU would need
star_signals (or a small table of the last ~400 days) clustered by day, at the cost of
reordering ~1.4M rows in every full refresh.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import date, timedelta

import duckdb
import numpy as np
import pyarrow as pa

from shu.errors import StoreError
from shu.schema.signals import STAR_SIGNALS
from shu.signals.lifecycle import sql_lifecycle_phase
from shu.signals.runs import TableRefresh, record_run
from shu.signals.sqlfiles import load_sql, run_sql
from shu.signals.star_arrays import DAY_BITS, star_signal_arrays
from shu.store import Store

EPOCH = date(1970, 1, 1)
LOOKBACK_DAYS = 100  # >= 90 (velocity_90d) + 7 (staleness) + 1
Z_WINDOW_DAYS = 365
Z_MIN_VALUES = 28    # fewest velocities in the trailing year for a z-score
FRESH_DAYS = 7       # an observation stays usable this many days
BUILD_TABLE = "_star_signals_build"
SLICE_ROWS = 1 << 16  # observations per slice of a full refresh (whole repositories)
# Writing the 9M rows of a full refresh: in no particular order (nothing reads star_signals by
# position; keeping the order cost ~0.7 s of CPU) and without bit-packing (its analysis cost
# ~0.4 s of CPU for ~60 MiB less on disk).
WRITE_SETTINGS = {"preserve_insertion_order": "false", "disabled_compression_methods": "bitpacking"}


def _last_run(store: Store) -> tuple[date, int, int] | None:
    row = store.con.execute(
        "SELECT to_day, source_rows, source_sum FROM signal_runs WHERE target = 'star_signals' "
        "ORDER BY finished_at DESC LIMIT 1").fetchone()
    return None if row is None or row[0] is None else (row[0], int(row[1]), int(row[2]))


def _sql_values(from_day: date, max_day: date, emit_from: date) -> dict[str, object]:
    return {"from_day": from_day.isoformat(), "max_dn": (max_day - EPOCH).days,
            "emit_from_dn": (emit_from - EPOCH).days,
            "lifecycle_phase": sql_lifecycle_phase("s.stars", "d28", "dd28")}


def _create_repos(store: Store) -> None:
    """_star_signal_repos: every repository with its id (dense, in repository order) and the day
    number of its first observation."""
    store.con.execute(f"""
        CREATE OR REPLACE TABLE _star_signal_repos AS
        SELECT repo, (row_number() OVER (ORDER BY repo))::INTEGER AS rid,
               (min(day) - DATE '{EPOCH}')::INTEGER AS first_dn
        FROM stars_daily WHERE stars IS NOT NULL GROUP BY repo""")


def _create_recent_repos(store: Store, from_day: date, emit_from: date) -> None:
    """For an incremental refresh: `_star_slice`, the stars_daily rows from `from_day` on (the
    one read of the big table), and `_star_signal_repos` (temp) for the repositories seen in
    the 7 days before `emit_from` or later, their first day from `star_signal_repos` (a
    repository it lacks is new: its slice holds its whole history, or older input changed and
    the refresh is a full one), which gains the new ones."""
    con = store.con
    con.execute("CREATE OR REPLACE TEMP TABLE _star_slice AS SELECT repo, day, stars "
                "FROM stars_daily WHERE day >= ? AND stars IS NOT NULL", [from_day])
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _star_signal_repos AS
        SELECT s.repo, (row_number() OVER (ORDER BY s.repo))::INTEGER AS rid,
               (coalesce(f.first_day, s.slice_first_day) - DATE '{EPOCH}')::INTEGER AS first_dn,
               f.first_day IS NULL AS is_new
        FROM (SELECT repo, min(day) AS slice_first_day FROM _star_slice GROUP BY repo
              HAVING max(day) >= DATE '{emit_from - timedelta(days=FRESH_DAYS)}') s
        LEFT JOIN star_signal_repos f USING (repo)""")
    con.execute(f"INSERT INTO star_signal_repos SELECT repo, DATE '{EPOCH}' + first_dn "
                "FROM _star_signal_repos WHERE is_new")


def refresh_star_signals(store: Store, run_id: str, full: bool = False) -> TableRefresh:
    """Recompute `star_signals` (all of it, or only the days after the last computed one).

    Raises StoreError (nothing written) when the computation's own checks fail.
    """
    try:
        return _refresh(store, run_id, full)
    except duckdb.Error as exc:
        message = str(exc)
        if "star_signals: " not in message:
            raise
        detail = message[message.index("star_signals: "):].splitlines()[0]
        raise StoreError(f"{detail}; star_signals left as it was") from exc


def _refresh(store: Store, run_id: str, full: bool) -> TableRefresh:
    t0 = time.perf_counter()
    con = store.con
    last = None if full else _last_run(store)
    # One scan of stars_daily: its newest day, and the fingerprint of the input the last run
    # covered and of all of it (an incremental refresh reads the big table only once more, for
    # its slice).
    max_day, rows_before, sum_before, rows, total = con.execute(
        "SELECT max(day), count(*) FILTER (WHERE day <= $1), coalesce(sum(stars) FILTER "
        "(WHERE day <= $1), 0), count(*), coalesce(sum(stars), 0) FROM stars_daily",
        [last[0] if last else None]).fetchall()[0]
    if max_day is None:
        return TableRefresh("star_signals", "full", "stars_daily is empty", None, None, 0,
                            time.perf_counter() - t0)
    fingerprint = (int(rows), int(total))
    if full:
        return _full(store, run_id, max_day, "requested", t0, fingerprint)
    computed = con.execute("SELECT max(day) FROM star_signals").fetchone()[0]
    if last is None or computed is None or computed != last[0]:
        return _full(store, run_id, max_day, "no previous run", t0, fingerprint)
    if not con.execute("SELECT count(*) FROM (SELECT 1 FROM star_signal_repos LIMIT 1)"
                       ).fetchall()[0][0]:
        return _full(store, run_id, max_day, "first days of the repositories not recorded",
                     t0, fingerprint)
    if (rows_before, sum_before) != (last[1], last[2]):
        return _full(store, run_id, max_day, f"input on or before {last[0]} changed", t0,
                     fingerprint)
    if last[0] >= max_day:
        return TableRefresh("star_signals", "incremental", "up to date", None, last[0], 0,
                            time.perf_counter() - t0)
    return _incremental(store, run_id, last[0] + timedelta(days=1), max_day, fingerprint, t0)


def _full(store: Store, run_id: str, max_day: date, reason: str, t0: float,
          fingerprint: tuple[int, int]) -> TableRefresh:
    """Every repository and day into a build table, swapped in atomically."""
    con = store.con
    columns = ", ".join(f'"{c.name}" {c.type}' for c in STAR_SIGNALS.columns)
    _create_repos(store)
    con.execute(f"CREATE OR REPLACE TABLE {BUILD_TABLE} ({columns})")
    try:
        _write_all_rows(store, (max_day - EPOCH).days)
        with store.transaction():
            con.execute("DROP TABLE IF EXISTS star_signals")
            con.execute(f"ALTER TABLE {BUILD_TABLE} RENAME TO star_signals")
            con.execute("DELETE FROM star_signal_repos")
            con.execute(f"INSERT INTO star_signal_repos SELECT repo, DATE '{EPOCH}' + first_dn "
                        "FROM _star_signal_repos")
            written = con.execute("SELECT count(*) FROM star_signals").fetchone()[0]
            result = TableRefresh("star_signals", "full", reason, None, max_day, int(written),
                                  time.perf_counter() - t0, *fingerprint)
            record_run(store, result, run_id)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {BUILD_TABLE}")
        con.execute("DROP TABLE IF EXISTS _star_signal_repos")
    return result


def _write_all_rows(store: Store, max_dn: int) -> None:
    """Read every observation in (repository, day) order once, and insert the rows into the
    build table in one statement whose source is a stream of record batches, each computed with
    numpy for a slice of whole repositories, a few slices ahead of DuckDB's writing."""
    con = store.con
    observed = con.execute(
        f"SELECT r.rid, (s.day - DATE '{EPOCH}')::INTEGER AS dn, s.stars::BIGINT AS stars "
        "FROM stars_daily s JOIN _star_signal_repos r USING (repo) WHERE s.stars IS NOT NULL"
    ).fetchnumpy()
    key, stars = _sorted_observations(np.asarray(observed.pop("rid")),
                                      np.asarray(observed.pop("dn")),
                                      np.asarray(observed.pop("stars")))
    if not len(key):
        return
    names = con.sql("SELECT repo FROM _star_signal_repos ORDER BY rid"
                    ).to_arrow_table().column(0).combine_chunks()
    starts = np.flatnonzero(np.diff(key >> DAY_BITS, prepend=-1))  # each repository's first
    bounds = [*starts[np.unique(np.searchsorted(starts, np.arange(0, len(key), SLICE_ROWS)))],
              len(key)]

    def batch(lo: int, hi: int) -> pa.RecordBatch:
        arrays = star_signal_arrays(key[lo:hi], stars[lo:hi], max_dn)
        rid = arrays.pop("rid")  # 1, 2, ...: the dictionary holds this slice's names only
        first = int(rid[0])
        repo = pa.DictionaryArray.from_arrays(rid - first, names[first - 1:int(rid[-1])])
        return pa.RecordBatch.from_pydict({"repo": repo, **arrays})

    batches = _computed_ahead(batch, itertools.pairwise(bounds))
    first = next(batches)
    rows = pa.RecordBatchReader.from_batches(first.schema, itertools.chain([first], batches))
    (insert,) = load_sql("star_signal_rows")
    con.register("_star_rows", rows)
    try:
        with store.settings(WRITE_SETTINGS):
            con.execute(insert.format(
                target=BUILD_TABLE, arrays="_star_rows",
                lifecycle_phase=sql_lifecycle_phase("a.stars", "a.d28", "a.dd28")))
    finally:
        con.unregister("_star_rows")


def _computed_ahead(compute: Callable[[int, int], pa.RecordBatch],
                    slices: Iterable[tuple[int, int]], ahead: int = 2) -> Iterator[pa.RecordBatch]:
    """compute(lo, hi) for each slice, in order, on a thread of its own that keeps up to `ahead`
    batches ready: numpy (which lets go of the GIL) computes the next slices while DuckDB
    writes the last one."""
    with ThreadPoolExecutor(1, thread_name_prefix="star-signals") as pool:
        pending: deque[Future[pa.RecordBatch]] = deque()
        for lo, hi in slices:
            pending.append(pool.submit(compute, lo, hi))
            if len(pending) > ahead:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _sorted_observations(rid: np.ndarray, dn: np.ndarray, stars: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """(key = rid << 20 | dn, stars), sorted by key (ties in input order). While key and row
    number fit in 63 bits together, the row number goes into the key's low bits and one plain
    sort of the packed integers does it (numpy's vectorised sort: ~4x faster than a stable
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


def _incremental(store: Store, run_id: str, emit_from: date, max_day: date,
                 fingerprint: tuple[int, int], t0: float) -> TableRefresh:
    """Days from emit_from on, for repositories seen in the 7 days before it or later."""
    con = store.con
    from_day = emit_from - timedelta(days=LOOKBACK_DAYS)
    common_from = (max_day - timedelta(days=Z_WINDOW_DAYS - 1)).isoformat()
    (common_sums,) = load_sql("star_year_common")
    common_sums = common_sums.format(common_from=common_from, emit_from=emit_from.isoformat())
    outer = store.in_transaction
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="star-year") as pool, \
                contextlib.closing(con.cursor()) as reader, store.transaction():
            _create_recent_repos(store, from_day, emit_from)
            # the stored part of the trailing years, summed on a connection of its own while the
            # windows of the new days run on one core (inside a caller's transaction: on its
            # connection, the only one that sees what that transaction wrote)
            common = None if outer else pool.submit(
                lambda: reader.sql(common_sums).to_arrow_table())
            run_sql(con, "star_signals", **_sql_values(from_day, max_day, emit_from))
            con.register("_star_year_common", common.result() if common else
                         con.sql(common_sums).to_arrow_table())
            run_sql(con, "star_zscores_incremental", z_min_values=Z_MIN_VALUES,
                    emit_from=emit_from.isoformat(), max_day=max_day.isoformat(),
                    history_from=(emit_from - timedelta(days=Z_WINDOW_DAYS - 1)).isoformat(),
                    common_from=common_from, common="_star_year_common")
            con.execute("DELETE FROM star_signals WHERE day >= ?", [emit_from])
            con.execute("INSERT INTO star_signals SELECT * FROM _star_signals_new")
            written = con.execute("SELECT count(*) FROM _star_signals_new").fetchone()[0]
            result = TableRefresh("star_signals", "incremental", "new days", emit_from, max_day,
                                  int(written), time.perf_counter() - t0, *fingerprint)
            record_run(store, result, run_id)
    finally:
        con.unregister("_star_year_common")
        for table in ("_star_signals_new", "_star_obs", "_star_slice", "_star_signal_repos"):
            con.execute(f"DROP TABLE IF EXISTS {table}")
    return result
