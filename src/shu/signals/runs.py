"""Bookkeeping of signal refreshes: what each table's refresh did, recorded in `signal_runs`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date

from shu.store import Store, utcnow


@dataclass
class TableRefresh:
    """What one table's refresh did."""

    target: str
    mode: str
    reason: str
    from_day: date | None
    to_day: date | None
    rows_written: int
    seconds: float
    source_rows: int = 0
    source_sum: int = 0

    def summary(self) -> dict[str, object]:
        """The figures `refresh_signals` returns for this table."""
        return {
            "mode": self.mode,
            "reason": self.reason,
            "rows": self.rows_written,
            "seconds": round(self.seconds, 3),
            "to_day": self.to_day.isoformat() if self.to_day else None,
        }


def record_run(store: Store, r: TableRefresh, run_id: str) -> None:
    """Append one `signal_runs` row for this table's refresh."""
    store.con.execute(
        "INSERT INTO signal_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run_id,
            r.target,
            r.mode,
            r.reason,
            r.from_day,
            r.to_day,
            r.rows_written,
            r.source_rows,
            r.source_sum,
            r.seconds,
            utcnow(),
        ],
    )


def record_full_refresh(
    store: Store, table: str, run_id: str, started: float, source_table: str | None = None
) -> TableRefresh:
    """Record the refresh of a small table rebuilt whole ("always full (small)") from
    `time.perf_counter()` value `started`; `source_table`'s rows are counted as its input."""
    rows, to_day = store.con.execute(f"SELECT count(*), max(day) FROM {table}").fetchall()[0]
    source_rows = (
        store.con.execute(f"SELECT count(*) FROM {source_table}").fetchall()[0][0]
        if source_table
        else 0
    )
    result = TableRefresh(
        table,
        "full",
        "always full (small)",
        None,
        to_day,
        int(rows),
        time.perf_counter() - started,
        int(source_rows),
        0,
    )
    record_run(store, result, run_id)
    return result
