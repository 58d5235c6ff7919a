"""Benchmark: star_signals over the real dataset (7.2M observed rows, 22.7k repositories).

Prints, as medians over --runs runs:
  1. full recompute of star_signals (`refresh_star_signals(full=True)`, SQL in DuckDB);
  2. incremental refresh after one new day for all repositories (the last day of the data is
     held back, the signals are computed without it, then it is added and refreshed);
  3. the pandas reference (`shu.signals.reference.star_signals_reference`, groupby/rolling) on
     the same data, once (it is slow), and the speed-up of 1. over it; plus a check that both
     give the same values on a sample of repositories.
Targets (issue 4): 1 <= 5 s, 3 >= 10x, 2 <= 0.5 s on the 2-core development machine.

Usage:
  .venv/bin/python benchmarks/bench_signals.py [--parquet ../shared/data/stars/stars_daily.parquet]
      [--store /tmp/shu-bench/stars.duckdb] [--runs 3] [--skip-reference]
The store is built once with the ranking importer (`shu ingest ranking`) and reused.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def build_store(parquet: Path, path: Path) -> None:
    from shu.sources.ranking import import_ranking
    from shu.store import open_store

    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open_store(path) as store:
        import_ranking(store, parquet)
        rows = store.con.execute("SELECT count(*) FROM stars_daily").fetchone()[0]
    print(f"built {path}: {rows:,} stars_daily rows in {time.perf_counter() - t0:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parquet", type=Path,
                        default=ROOT.parent / "shared/data/stars/stars_daily.parquet")
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/stars.duckdb"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-reference", action="store_true")
    args = parser.parse_args()

    from shu.signals.stars import refresh_star_signals
    from shu.store import open_store

    if not args.store.exists():
        build_store(args.parquet, args.store)
    print(f"cpus: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f} "
          "(other engineers share this machine)")
    with open_store(args.store) as store:
        con = store.con
        con.execute("SET enable_progress_bar = false")
        last = con.execute("SELECT max(day) FROM stars_daily").fetchone()[0]
        repos, rows = con.execute(
            "SELECT count(DISTINCT repo), count(*) FROM stars_daily").fetchone()
        print(f"stars_daily: {rows:,} rows, {repos:,} repositories, last day {last}")

        # 1. full recompute
        full, cpu = [], []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            result = refresh_star_signals(store, str(uuid.uuid4()), full=True)
            full.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        print(f"full recompute of star_signals: median {statistics.median(full):.2f} s "
              f"(runs {', '.join(f'{s:.2f}' for s in full)}), {result.rows_written:,} rows; "
              f"CPU time median {statistics.median(cpu):.2f} s; "
              f"load average now {os.getloadavg()[0]:.1f}")
        cpu_full = cpu

        # 2. incremental after one new day: hold the last day back, compute, add it back
        con.execute("CREATE OR REPLACE TEMP TABLE _held AS SELECT * FROM stars_daily "
                    "WHERE day = ?", [last])
        con.execute("DELETE FROM stars_daily WHERE day = ?", [last])
        refresh_star_signals(store, str(uuid.uuid4()), full=True)
        con.execute("INSERT INTO stars_daily SELECT * FROM _held")
        incremental, cpu = [], []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            result = refresh_star_signals(store, str(uuid.uuid4()))
            incremental.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            assert result.mode == "incremental", result
            # undo this run so the next one starts from the same state
            con.execute("DELETE FROM star_signals WHERE day = ?", [last])
            con.execute("DELETE FROM signal_runs WHERE target = 'star_signals' AND to_day = ?",
                        [last])
        print(f"incremental refresh after one new day ({result.rows_written:,} rows written): "
              f"median {statistics.median(incremental):.3f} s "
              f"(runs {', '.join(f'{s:.3f}' for s in incremental)}); "
              f"CPU time median {statistics.median(cpu):.3f} s")
        refresh_star_signals(store, str(uuid.uuid4()))

        if args.skip_reference:
            return 0
        # 3. the pandas reference on the same data
        from shu.signals.reference import star_signals_reference

        observations = con.execute("SELECT repo, day, stars FROM stars_daily").df()
        t0, c0 = time.perf_counter(), time.process_time()
        expected = star_signals_reference(observations)
        reference, reference_cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"pandas reference: {reference:.1f} s (CPU {reference_cpu:.1f} s), "
              f"{len(expected):,} rows; SQL is {reference / statistics.median(full):.1f}x faster "
              f"in wall time, {reference_cpu / statistics.median(cpu_full):.1f}x in CPU time")
        actual = con.execute("SELECT * FROM star_signals ORDER BY repo, day").df()
        expected = expected.sort_values(["repo", "day"]).reset_index(drop=True)
        same_keys = (len(actual) == len(expected)
                     and (actual["repo"].to_numpy() == expected["repo"].to_numpy()).all()
                     and (pd.to_datetime(actual["day"]).to_numpy()
                          == expected["day"].to_numpy()).all())
        mismatches = {}
        for c in ("stars", "stars_age_days", "velocity_7d", "velocity_28d", "acceleration_7d",
                  "acceleration_28d", "velocity_7d_z", "velocity_28d_z"):
            a, e = actual[c].astype(float).to_numpy(), expected[c].astype(float).to_numpy()
            close = np.isclose(a, e, rtol=1e-9, atol=1e-9, equal_nan=True)
            mismatches[c] = int((~close).sum())
        for c in ("gap", "lifecycle_phase"):
            mismatches[c] = int((actual[c].fillna("-").astype(str).to_numpy()
                                 != expected[c].fillna("-").astype(str).to_numpy()).sum())
        print(f"SQL vs reference on all {len(actual):,} rows: same (repo, day) keys: {same_keys}; "
              f"values differing beyond 1e-9: {sum(mismatches.values())} {mismatches}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
