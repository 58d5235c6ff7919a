"""Benchmark: the store-wide spike counts (`market_spikes`) over the real dataset.

Prints, with the load average (the machine is shared):
  1. the full refresh of market_spikes (every day of star_days), wall seconds, median of --runs;
  2. its incremental refresh after one new day (the last day's star_days rows held back, the
     table refreshed without them, then the day put back and refreshed), median of --runs;
  3. the figures it computes around the example's day: the counts of 12-28 Feb 2026, the
     ordinary day's count and the days it calls store-wide.

Usage:
  .venv/bin/python benchmarks/bench_market_spikes.py
      [--parquet ../shared/data/stars/stars_daily.parquet]
      [--store /tmp/shu-bench/market_spikes.duckdb] [--runs 3]
The store is built once (stars_daily from the parquet, aliases folded, then `refresh_signals`)
and reused.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from shu.settings import DEFAULT_ALIASES, get_settings
from shu.signals import refresh_signals
from shu.signals.market_spikes import refresh_market_spikes
from shu.signals.runs import TableRefresh
from shu.store import open_store

ROOT = Path(__file__).resolve().parents[1]


def build(parquet: Path, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    store = open_store(path)
    fold = " ".join(f"WHEN '{o}' THEN '{n}'" for o, n in DEFAULT_ALIASES.items())
    name = f"CASE repo {fold} ELSE repo END"
    store.con.execute(f"""
        INSERT INTO stars_daily (repo, day, stars, forks, open_issues, source)
        SELECT {name}, day, stars, forks, open_issues, 'ranking' FROM read_parquet('{parquet}')
        QUALIFY row_number() OVER (PARTITION BY {name}, day) = 1""")
    refresh_signals(store, full=True, settings=get_settings())
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--parquet", type=Path, default=ROOT.parent / "shared/data/stars/stars_daily.parquet"
    )
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/market_spikes.duckdb"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not args.store.exists():
        build(args.parquet, args.store)
    store = open_store(args.store)
    store.con.execute("SET enable_progress_bar = false")
    rows = store.con.execute("SELECT count(*) FROM star_days").fetchall()[0][0]
    full = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        refresh_market_spikes(store)
        full.append(time.perf_counter() - t0)
    last = store.con.execute("SELECT max(day) FROM star_days").fetchall()[0][0]
    store.con.execute("CREATE TEMP TABLE held AS SELECT * FROM star_days WHERE day = ?", [last])
    incremental = []
    for _ in range(args.runs):
        store.con.execute("DELETE FROM star_days WHERE day = ?", [last])
        refresh_market_spikes(store)
        store.con.execute("INSERT INTO star_days SELECT * FROM held")
        day = TableRefresh("star_days", "incremental", "new days", last, last, 1, 0.0)
        t0 = time.perf_counter()
        refresh_market_spikes(store, days=day)
        incremental.append(time.perf_counter() - t0)
    print(f"load average {os.getloadavg()[0]:.1f}; star_days rows {rows:,}")
    print(f"market_spikes full refresh: {statistics.median(full):.2f} s (median of {args.runs})")
    print(
        f"market_spikes after one new day: {statistics.median(incremental):.3f} s "
        f"(median of {args.runs})"
    )
    for row in store.con.execute(
        "SELECT day, repos_eligible, repos_spiking, ordinary_spiking, store_wide_spike, "
        "repos_removing, store_wide_removal FROM market_spikes "
        "WHERE day BETWEEN DATE '2026-02-12' AND DATE '2026-02-28' ORDER BY day"
    ).fetchall():
        print(*row)
    store.close()


if __name__ == "__main__":
    main()
