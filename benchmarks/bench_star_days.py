"""Benchmark: the facts layer (`star_days`, `market_days`) over the real dataset.

Prints:
  1. the full computation of both tables from star_signals (what `shu signals --full` adds),
     wall time, median of --runs;
  2. their incremental refresh after one new day for all repositories, in process (the last
     day is held back, star_signals and the facts computed without it, then it is added, the
     star_signals refresh run untimed and the facts' refresh timed), wall and CPU time, median of
     --runs: what the daily `shu signals` adds to the star_signals refresh.
The machine is shared: the load average is printed with the figures.

Usage:
  .venv/bin/python benchmarks/bench_star_days.py [--store /tmp/shu-bench/stars.duckdb] [--runs 3]
The store is the one bench_signals.py builds (built here the same way when absent).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from bench_signals import build_store
from cli_timing import load

if TYPE_CHECKING:
    from shu.store import Store

ROOT = Path(__file__).resolve().parents[1]


def full(store: Store, runs: int) -> None:
    from shu.signals.star_days import refresh_star_days

    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        days, market = refresh_star_days(store)
        walls.append(time.perf_counter() - t0)
    print(
        f"full computation of star_days ({days.rows_written:,} rows) and market_days "
        f"({market.rows_written:,} rows): median {statistics.median(walls):.2f} s (runs "
        f"{', '.join(f'{s:.2f}' for s in walls)}); {load()}"
    )


def incremental(store: Store, runs: int) -> None:
    from shu.signals.star_days import refresh_star_days
    from shu.signals.stars import refresh_star_signals

    con = store.con
    last = con.execute("SELECT max(day) FROM stars_daily").fetchall()[0][0]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _held AS SELECT * FROM stars_daily WHERE day = ?", [last]
    )
    con.execute("DELETE FROM stars_daily WHERE day = ?", [last])
    refresh_star_signals(store, str(uuid.uuid4()), full=True)
    refresh_star_days(store)
    con.execute("INSERT INTO stars_daily SELECT * FROM _held")
    walls, cpus = [], []
    for _ in range(runs):
        star = refresh_star_signals(store, str(uuid.uuid4()))
        assert star.mode == "incremental", star
        t0, c0 = time.perf_counter(), time.process_time()
        days, market = refresh_star_days(store, "", star)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        assert days.mode == "incremental", days
        # undo this run so the next one starts from the same state
        for table in ("star_signals", "star_days", "market_days"):
            con.execute(f"DELETE FROM {table} WHERE day = ?", [last])
        con.execute("DELETE FROM signal_runs WHERE target = 'star_signals' AND to_day = ?", [last])
    print(
        f"incremental refresh of star_days / market_days after one new day "
        f"({days.rows_written:,} / {market.rows_written:,} rows written): median "
        f"{statistics.median(walls):.3f} s (runs {', '.join(f'{s:.3f}' for s in walls)}), CPU "
        f"time median {statistics.median(cpus):.3f} s; {load()}"
    )
    refresh_star_signals(store, str(uuid.uuid4()))
    refresh_star_days(store)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parquet", type=Path, default=ROOT.parent / "shared/data/stars/stars_daily.parquet"
    )
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/stars.duckdb"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from shu.store import open_store

    if not args.store.exists():
        build_store(args.parquet, args.store)
    with open_store(args.store) as store:
        store.con.execute("SET enable_progress_bar = false")
        full(store, args.runs)
        incremental(store, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
