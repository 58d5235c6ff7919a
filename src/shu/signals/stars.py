"""Refreshes `star_signals` from `stars_daily`: in full (`star_full.py`: every row recomputed
with numpy, only what differs written) or incrementally, with the SQL in `sql/star_signals.sql`.

Incremental: only days after the last computed one, for the repositories that can have such
days, reading the 100 days of input their velocity windows need (90 + 7 days of staleness +
margin) and taking the z-scores' trailing year from the stored rows
(`sql/star_zscores_incremental.sql`). When input on or before the last computed day changed
since (fingerprint in `signal_runs`), it falls back to a full refresh, so incremental and full
always agree (same integer sums and z formula in both).

The stored part of the z-scores' trailing years (`sql/star_year_common.sql`) runs on a
connection of its own while the velocity windows of the new days, which use one core, run on
the store's: the two cores share the work. Both big reads are of rows spread over whole tables
(stars_daily is in its importer's order, star_signals in no order), so DuckDB decodes every row
group of the columns it reads however few rows match; where the time goes, what was tried and
dropped, and the figures: `benchmarks/README.md`, "Signals: incremental refresh".
"""

from __future__ import annotations

import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta

import duckdb

from shu.errors import StoreError
from shu.signals.lifecycle import sql_lifecycle_phase
from shu.signals.runs import TableRefresh, record_run
from shu.signals.sqlfiles import load_sql, run_sql
from shu.signals.star_full import EPOCH, refresh_full
from shu.store import Store

LOOKBACK_DAYS = 100  # >= 90 (velocity_90d) + 7 (staleness) + 1
Z_WINDOW_DAYS = 365
Z_MIN_VALUES = 28  # fewest velocities in the trailing year for a z-score
FRESH_DAYS = 7  # an observation stays usable this many days


def _last_run(store: Store) -> tuple[date, int, int] | None:
    row = store.con.execute(
        "SELECT to_day, source_rows, source_sum FROM signal_runs WHERE target = 'star_signals' "
        "ORDER BY finished_at DESC LIMIT 1"
    ).fetchone()
    return None if row is None or row[0] is None else (row[0], int(row[1]), int(row[2]))


def _sql_values(from_day: date, max_day: date, emit_from: date) -> dict[str, object]:
    return {
        "from_day": from_day.isoformat(),
        "max_dn": (max_day - EPOCH).days,
        "emit_from_dn": (emit_from - EPOCH).days,
        "lifecycle_phase": sql_lifecycle_phase("s.stars", "d28", "dd28"),
    }


def _create_recent_repos(store: Store, from_day: date, emit_from: date) -> None:
    """For an incremental refresh: `_star_slice`, the stars_daily rows from `from_day` on (the
    one read of the big table), and `_star_signal_repos` (temp) for the repositories seen in
    the 7 days before `emit_from` or later, their first day from `star_signal_repos` (a
    repository it lacks is new: its slice holds its whole history, or older input changed and
    the refresh is a full one), which gains the new ones."""
    con = store.con
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _star_slice AS SELECT repo, day, stars "
        "FROM stars_daily WHERE day >= ? AND stars IS NOT NULL",
        [from_day],
    )
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _star_signal_repos AS
        SELECT s.repo, (row_number() OVER (ORDER BY s.repo))::INTEGER AS rid,
               (coalesce(f.first_day, s.slice_first_day) - DATE '{EPOCH}')::INTEGER AS first_dn,
               f.first_day IS NULL AS is_new
        FROM (SELECT repo, min(day) AS slice_first_day FROM _star_slice GROUP BY repo
              HAVING max(day) >= DATE '{emit_from - timedelta(days=FRESH_DAYS)}') s
        LEFT JOIN star_signal_repos f USING (repo)""")
    con.execute(
        f"INSERT INTO star_signal_repos SELECT repo, DATE '{EPOCH}' + first_dn "
        "FROM _star_signal_repos WHERE is_new"
    )


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
        detail = message[message.index("star_signals: ") :].splitlines()[0]
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
        [last[0] if last else None],
    ).fetchall()[0]
    if max_day is None:
        return TableRefresh(
            "star_signals", "full", "stars_daily is empty", None, None, 0, time.perf_counter() - t0
        )
    fingerprint = (int(rows), int(total))
    reason = "requested" if full else _why_full(store, last, (rows_before, sum_before))
    if reason:
        return refresh_full(store, run_id, max_day, reason, t0, fingerprint)
    assert last is not None  # without a last run _why_full gives a reason
    if last[0] >= max_day:
        return TableRefresh(
            "star_signals", "incremental", "up to date", None, last[0], 0, time.perf_counter() - t0
        )
    return _incremental(store, run_id, last[0] + timedelta(days=1), max_day, fingerprint, t0)


def _why_full(
    store: Store, last: tuple[date, int, int] | None, covered: tuple[int, int]
) -> str | None:
    """Why this refresh must be a full one, or None when an incremental one will do (`covered`:
    the fingerprint of today's input on or before the last run's day)."""
    con = store.con
    computed = con.execute("SELECT max(day) FROM star_signals").fetchall()[0][0]
    if last is None or computed is None or computed != last[0]:
        return "no previous run"
    recorded = con.execute("SELECT count(*) FROM (SELECT 1 FROM star_signal_repos LIMIT 1)")
    if not recorded.fetchall()[0][0]:
        return "first days of the repositories not recorded"
    if covered != (last[1], last[2]):
        return f"input on or before {last[0]} changed"
    return None


def _incremental(
    store: Store,
    run_id: str,
    emit_from: date,
    max_day: date,
    fingerprint: tuple[int, int],
    t0: float,
) -> TableRefresh:
    """Days from emit_from on, for repositories seen in the 7 days before it or later."""
    con = store.con
    from_day = emit_from - timedelta(days=LOOKBACK_DAYS)
    common_from = (max_day - timedelta(days=Z_WINDOW_DAYS - 1)).isoformat()
    (common_sums,) = load_sql("star_year_common")
    common_sums = common_sums.format(common_from=common_from, emit_from=emit_from.isoformat())
    outer = store.in_transaction
    try:
        with (
            ThreadPoolExecutor(1, thread_name_prefix="star-year") as pool,
            contextlib.closing(con.cursor()) as reader,
            store.transaction(),
        ):
            _create_recent_repos(store, from_day, emit_from)
            # the stored part of the trailing years, summed on a connection of its own while the
            # windows of the new days run on one core (inside a caller's transaction: on its
            # connection, the only one that sees what that transaction wrote)
            common = (
                None if outer else pool.submit(lambda: reader.sql(common_sums).to_arrow_table())
            )
            run_sql(con, "star_signals", **_sql_values(from_day, max_day, emit_from))
            con.register(
                "_star_year_common",
                common.result() if common else con.sql(common_sums).to_arrow_table(),
            )
            run_sql(
                con,
                "star_zscores_incremental",
                z_min_values=Z_MIN_VALUES,
                emit_from=emit_from.isoformat(),
                max_day=max_day.isoformat(),
                history_from=(emit_from - timedelta(days=Z_WINDOW_DAYS - 1)).isoformat(),
                common_from=common_from,
                common="_star_year_common",
            )
            con.execute("DELETE FROM star_signals WHERE day >= ?", [emit_from])
            con.execute("INSERT INTO star_signals SELECT * FROM _star_signals_new")
            written = con.execute("SELECT count(*) FROM _star_signals_new").fetchall()[0][0]
            result = TableRefresh(
                "star_signals",
                "incremental",
                "new days",
                emit_from,
                max_day,
                int(written),
                time.perf_counter() - t0,
                *fingerprint,
            )
            record_run(store, result, run_id)
    finally:
        con.unregister("_star_year_common")
        for table in ("_star_signals_new", "_star_obs", "_star_slice", "_star_signal_repos"):
            con.execute(f"DROP TABLE IF EXISTS {table}")
    return result
