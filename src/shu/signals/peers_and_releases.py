"""Refreshes the peer and release tables built on star_signals and commit_signals:
category_signals and peer_signals (configured categories, `sql/peer_signals.sql`),
release_signals and release_context (`sql/release_signals.sql`).

Peer tables are recomputed from `from_day` on (the first new star day on an incremental
refresh); release tables always in full (they are small, and a late release changes the past).
"""

from __future__ import annotations

import time
from datetime import date

from shu.settings import Settings
from shu.signals.runs import TableRefresh, record_full_refresh, record_run
from shu.signals.sqlfiles import run_sql
from shu.store import Store

EARLIEST = date(1, 1, 1)


def _replace_days(store: Store, table: str, staged: str, from_day: date) -> int:
    """Delete `table`'s days >= from_day and insert the staged rows; return rows written."""
    cols = ", ".join(
        f'"{d[0]}"' for d in store.con.execute(f"SELECT * FROM {staged} LIMIT 0").description
    )
    store.con.execute(f"DELETE FROM {table} WHERE day >= ?", [from_day])
    store.con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {staged}")
    store.con.execute(f"DROP TABLE {staged}")
    count_sql = f"SELECT count(*) FROM {table} WHERE day >= ?"
    return int(store.con.execute(count_sql, [from_day]).fetchall()[0][0])


def categories_changed(store: Store, settings: Settings) -> bool:
    """Whether category_signals holds a category the settings no longer configure."""
    stored = {
        c for (c,) in store.con.execute("SELECT DISTINCT category FROM category_signals").fetchall()
    }
    return bool(stored - {*settings.tracked_categories().values(), "untracked"})


def refresh_peer_signals(
    store: Store, run_id: str, star: TableRefresh, settings: Settings
) -> list[TableRefresh]:
    """Recompute category_signals and peer_signals from the first day star_signals rewrote
    (`star`: all of them after a full refresh; nothing when it wrote none), or for every day
    when the stored categories are not the configured ones (a category renamed or a repository
    moved: older days would keep the old names, which the forecaster's features and the cards
    join on)."""
    changed = categories_changed(store, settings)
    if not (star.mode == "full" or star.rows_written or changed):
        return []
    t0 = time.perf_counter()
    categories = settings.tracked_categories()
    con = store.con
    from_day = None if changed else star.from_day
    start = from_day or EARLIEST
    con.execute("CREATE OR REPLACE TEMP TABLE _signal_categories (repo VARCHAR, category VARCHAR)")
    if categories:
        con.executemany("INSERT INTO _signal_categories VALUES (?, ?)", list(categories.items()))
    mode = "full" if from_day is None else "incremental"
    out = []
    with store.transaction():
        run_sql(con, "peer_signals", from_day=start.isoformat())
        for table in ("category_signals", "peer_signals"):
            rows = _replace_days(store, table, f"_{table}_new", start)
            to_day = con.execute(f"SELECT max(day) FROM {table}").fetchall()[0][0]
            result = TableRefresh(
                table,
                mode,
                "the configured categories changed" if changed else "from the first new star day",
                from_day,
                to_day,
                rows,
                time.perf_counter() - t0,
            )
            record_run(store, result, run_id)
            out.append(result)
    return out


def refresh_release_signals(store: Store, run_id: str) -> list[TableRefresh]:
    """Recompute release_signals and release_context in full."""
    t0 = time.perf_counter()
    con = store.con
    end_day = con.execute(
        "SELECT greatest((SELECT max(day) FROM stars_daily), "
        "(SELECT max(committed_at)::DATE FROM commits), "
        "(SELECT max(published_at)::DATE FROM releases))"
    ).fetchall()[0][0]
    out = []
    with store.transaction():
        run_sql(con, "release_signals", end_day=(end_day or EARLIEST).isoformat())
        for table, staged in (
            ("release_signals", "_release_signals_new"),
            ("release_context", "_release_context_new"),
        ):
            cols = ", ".join(
                f'"{d[0]}"' for d in con.execute(f"SELECT * FROM {staged} LIMIT 0").description
            )
            con.execute(f"DELETE FROM {table}")
            con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {staged}")
            con.execute(f"DROP TABLE {staged}")
            out.append(record_full_refresh(store, table, run_id, t0))
    return out
