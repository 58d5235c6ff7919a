"""Refreshes `commit_signals` from `commits` with `sql/commit_signals.sql` (always in full: the
table is small, and late-arriving commits can change any past day)."""

from __future__ import annotations

import time

from shu.signals.runs import TableRefresh, record_run
from shu.signals.sqlfiles import run_sql
from shu.store import Store

Z_MIN_VALUES = 28


def refresh_commit_signals(store: Store, run_id: str) -> TableRefresh:
    """Recompute `commit_signals` for every repository with commits."""
    t0 = time.perf_counter()
    con = store.con
    with store.transaction():
        run_sql(con, "commit_signals", target="TABLE commit_signals", z_min_values=Z_MIN_VALUES)
        rows, to_day = con.execute("SELECT count(*), max(day) FROM commit_signals").fetchone()
        source_rows = con.execute("SELECT count(*) FROM commits").fetchone()[0]
        result = TableRefresh("commit_signals", "full", "always full (small)", None, to_day,
                              int(rows), time.perf_counter() - t0, int(source_rows), 0)
        record_run(store, result, run_id)
    return result
