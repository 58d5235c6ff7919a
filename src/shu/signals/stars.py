"""Refreshes `star_signals` from `stars_daily` with the SQL in `sql/star_signals.sql`.

Full: every repository and day. Incremental: only days after the last computed one, for the
repositories that can have such days, reading the trailing 400 days of input they depend on
(364 days of z-score history + 28-day velocity window + 7 days of staleness + 1). When input on
or before the last computed day changed since (fingerprint in `signal_runs`), it falls back to a
full refresh, so incremental and full always agree.
"""

from __future__ import annotations

import time
from datetime import date, timedelta

from shu.signals.lifecycle import sql_thresholds
from shu.signals.runs import TableRefresh, record_run
from shu.signals.sqlfiles import run_sql
from shu.store import Store

EPOCH = date(1970, 1, 1)
LOOKBACK_DAYS = 400  # 364 (z window) + 28 (velocity) + 7 (staleness) + 1
Z_MIN_VALUES = 28    # fewest velocities in the trailing year for a z-score
FRESH_DAYS = 7       # an observation stays usable this many days


def _fingerprint(store: Store, to_day: date) -> tuple[int, int]:
    rows, total = store.con.execute(
        "SELECT count(*), coalesce(sum(stars::HUGEINT), 0) FROM stars_daily WHERE day <= ?",
        [to_day]).fetchone()
    return int(rows), int(total)


def _last_run(store: Store) -> tuple[date, int, int] | None:
    row = store.con.execute(
        "SELECT to_day, source_rows, source_sum FROM signal_runs WHERE target = 'star_signals' "
        "ORDER BY finished_at DESC LIMIT 1").fetchone()
    return None if row is None or row[0] is None else (row[0], int(row[1]), int(row[2]))


def refresh_star_signals(store: Store, run_id: str, full: bool = False) -> TableRefresh:
    """Recompute `star_signals` (all of it, or only the days after the last computed one)."""
    t0 = time.perf_counter()
    con = store.con
    max_day = con.execute("SELECT max(day) FROM stars_daily").fetchone()[0]
    if max_day is None:
        return TableRefresh("star_signals", "full", "stars_daily is empty", None, None, 0,
                            time.perf_counter() - t0)
    mode, reason = ("full", "requested") if full else ("incremental", "")
    last = None if full else _last_run(store)
    if not full:
        computed = con.execute("SELECT max(day) FROM star_signals").fetchone()[0]
        if last is None or computed is None or computed != last[0]:
            mode, reason = "full", "no previous run"
        elif _fingerprint(store, last[0]) != (last[1], last[2]):
            mode, reason = "full", f"input on or before {last[0]} changed"
        elif last[0] >= max_day:
            mode, reason = "incremental", "up to date"
    if mode == "full":
        emit_from = None
        from_day = date(1, 1, 1)
        repo_filter = ""
    else:
        emit_from = last[0] + timedelta(days=1)
        from_day = emit_from - timedelta(days=LOOKBACK_DAYS)
        # only repositories observed recently enough to have a fresh day after the last one
        repo_filter = f" HAVING max(day) >= DATE '{emit_from - timedelta(days=FRESH_DAYS)}'"
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _signal_repos AS "
        "SELECT repo, (row_number() OVER (ORDER BY repo))::INTEGER AS rid, "
        f"(first_day - DATE '{EPOCH}')::INTEGER AS first_dn "
        "FROM (SELECT repo, min(day) AS first_day FROM stars_daily GROUP BY repo"
        f"{repo_filter})")
    values = {"from_day": from_day.isoformat(), "max_dn": (max_day - EPOCH).days,
              "emit_from_dn": (emit_from - EPOCH).days if emit_from else -(10**6),
              "z_min_values": Z_MIN_VALUES, **sql_thresholds()}
    with store.transaction():
        if mode == "full":
            run_sql(con, "star_signals", target="TABLE star_signals", **values)
        else:
            run_sql(con, "star_signals", target="TEMP TABLE _star_signals_new", **values)
            con.execute("DELETE FROM star_signals WHERE day >= ?", [emit_from])
            con.execute("INSERT INTO star_signals SELECT * FROM _star_signals_new")
        written = con.execute(
            "SELECT count(*) FROM " + ("star_signals" if mode == "full" else "_star_signals_new")
        ).fetchone()[0]
        rows, total = _fingerprint(store, max_day)
        result = TableRefresh("star_signals", mode, reason or "new days", emit_from, max_day,
                              int(written), 0.0, rows, total)
        result.seconds = time.perf_counter() - t0
        record_run(store, result, run_id)
    for temp in ("_star_obs", "_star_signals_new"):
        con.execute(f"DROP TABLE IF EXISTS {temp}")
    return result
