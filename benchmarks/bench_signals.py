"""Benchmark: signals over the real dataset (7.2M observed rows, 22.7k repositories).

Prints:
  1. `shu signals --full` (the whole command: start-up, star_signals, the facts layer over it,
     commit, category, peer and release signals) against the naive window query, back to back,
     each in its own process, medians of --runs: per repository a calendar of days, an ASOF
     join to stars_daily and lag(7)/lag(28) velocities into a temp table (the floor). Twice:
     over the store as it is (its signals current: every row is recomputed and checked against
     the stored one, none needs writing), and with star_signals emptied before the run
     (untimed), so that every row is written (a first full refresh, or one after the
     definitions changed). Each also less the facts layer (star_days, market_days,
     market_spikes: the seconds the command's --json reports for them), which the naive query
     has no part of. Target: shu less the facts layer <= 0.8x the naive query (the facts
     layer's own figures: bench_star_days.py, bench_market_spikes.py);
  2. the incremental refresh of star_signals after one new day for all repositories, in
     process (the last day is held back, the signals computed without it, then it is added
     and refreshed), wall and CPU time, median of --runs. Target: <= 0.2 s;
  3. the pandas reference (`shu.signals.reference.star_signals_reference`) on the same data,
     once (slow), and a check that SQL and reference agree on every row (exactness).
The machine is shared: the load average is printed with the figures; compare the ratios of
one run.

Usage:
  .venv/bin/python benchmarks/bench_signals.py [--parquet ../shared/data/stars/stars_daily.parquet]
      [--store /tmp/shu-bench/stars.duckdb] [--runs 3] [--skip-reference]
The store is built once with the ranking importer and its signals, then reused.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from cli_timing import Timed, load, ratio_table, run_line, shu_command, timed

from shu.settings import get_settings

if TYPE_CHECKING:
    from shu.store import Store

ROOT = Path(__file__).resolve().parents[1]
NAIVE = """
import duckdb, sys
con = duckdb.connect(sys.argv[1], read_only=True)
con.execute("SET enable_progress_bar = false")
con.execute(\"\"\"
CREATE TEMP TABLE naive AS
WITH calendar AS (
    SELECT repo, unnest(generate_series(min(day), max(day), INTERVAL 1 DAY))::DATE AS day
    FROM stars_daily GROUP BY repo),
filled AS (
    SELECT c.repo, c.day, s.stars FROM calendar c
    ASOF LEFT JOIN stars_daily s ON c.repo = s.repo AND c.day >= s.day)
SELECT repo, day, stars, (stars - lag(stars, 7) OVER w) / 7.0 AS velocity_7d,
       (stars - lag(stars, 28) OVER w) / 28.0 AS velocity_28d
FROM filled WINDOW w AS (PARTITION BY repo ORDER BY day)\"\"\")
print(con.execute("SELECT count(*) FROM naive").fetchall()[0][0])
"""


def build_store(parquet: Path, path: Path) -> None:
    from shu.signals import refresh_signals
    from shu.sources.ranking import import_ranking
    from shu.store import open_store

    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open_store(path) as store:
        import_ranking(store, parquet, settings=get_settings())
        refresh_signals(store, settings=get_settings())
        rows = store.con.execute("SELECT count(*) FROM stars_daily").fetchall()[0][0]
    print(
        f"built {path}: {rows:,} stars_daily rows and their signals in "
        f"{time.perf_counter() - t0:.1f} s"
    )


EMPTY_STAR_SIGNALS = """
import duckdb, sys
con = duckdb.connect(sys.argv[1])
con.execute("DELETE FROM star_signals")
con.execute("CHECKPOINT")
"""


def facts_seconds(run: Timed) -> float:
    """The seconds a `shu signals --json` run spent on the facts layer: star_days and
    market_days (one timer for both) and market_spikes."""
    tables = json.loads(run.stdout)
    return max(tables["star_days"]["seconds"], tables["market_days"]["seconds"]) + float(
        tables["market_spikes"]["seconds"]
    )


def less_facts(runs: list[Timed]) -> list[Timed]:
    """The runs' wall times less the facts layer's seconds (CPU and memory as measured)."""
    return [Timed(r.wall_s - facts_seconds(r), r.cpu_s, r.peak_gib, r.stdout) for r in runs]


def full_against_naive(store: Path, runs: int) -> None:
    """1. `shu signals --full` and the naive query, back to back, each in its own process."""
    shu_full = [*shu_command(), "signals", "--full", "--json", "--db", str(store)]
    current, written = "shu signals --full", "shu signals --full, every row written"
    results: dict[str, list[Timed]] = {"naive query": [], current: [], written: []}
    for i in range(runs):
        results["naive query"].append(timed([sys.executable, "-c", NAIVE, str(store)]))
        results[current].append(timed(shu_full))
        subprocess.run([sys.executable, "-c", EMPTY_STAR_SIGNALS, str(store)], check=True)
        results[written].append(timed(shu_full))
        print(run_line(i + 1, results, floor="naive query"), flush=True)
    naive = results["naive query"]
    print(f"medians over {runs} runs ({load()} now):")
    print(
        ratio_table(
            [
                (
                    "`shu signals --full` over the ranking store (its signals current: every row "
                    "recomputed and checked, none written)",
                    results[current],
                    results["naive query"],
                    "",
                ),
                ("the same less the facts layer", less_facts(results[current]), naive, "<= 0.8x"),
                (
                    "the same with star_signals emptied first (every row written)",
                    results[written],
                    results["naive query"],
                    "",
                ),
                ("the same less the facts layer", less_facts(results[written]), naive, "<= 0.8x"),
            ]
        )
    )
    for name in (current, written):
        print(
            f"{name}: the facts layer (star_days, market_days, market_spikes) median "
            f"{statistics.median(facts_seconds(r) for r in results[name]):.2f} s of the wall time"
        )
    for name, r in results.items():
        print(
            f"{name}: CPU median {statistics.median(x.cpu_s for x in r):.2f} s, peak RSS max "
            f"{max(x.peak_gib for x in r):.2f} GiB"
        )


def incremental(store: Store, runs: int) -> None:
    """2. star_signals after one new day: hold the last day back, compute, add it back."""
    from shu.signals.stars import refresh_star_signals

    con = store.con
    last = con.execute("SELECT max(day) FROM stars_daily").fetchall()[0][0]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _held AS SELECT * FROM stars_daily WHERE day = ?", [last]
    )
    con.execute("DELETE FROM stars_daily WHERE day = ?", [last])
    refresh_star_signals(store, str(uuid.uuid4()), full=True)
    con.execute("INSERT INTO stars_daily SELECT * FROM _held")
    walls, cpus = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        result = refresh_star_signals(store, str(uuid.uuid4()))
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        assert result.mode == "incremental", result
        # undo this run so the next one starts from the same state
        con.execute("DELETE FROM star_signals WHERE day = ?", [last])
        con.execute("DELETE FROM signal_runs WHERE target = 'star_signals' AND to_day = ?", [last])
    print(
        f"incremental refresh of star_signals after one new day ({result.rows_written:,} rows"
        f" written): median {statistics.median(walls):.3f} s (runs "
        f"{', '.join(f'{s:.3f}' for s in walls)}; target <= 0.2 s), CPU time median "
        f"{statistics.median(cpus):.3f} s; {load()}"
    )
    refresh_star_signals(store, str(uuid.uuid4()))


def against_reference(store: Store) -> None:
    """3. The pandas reference on the same data; every row and column compared."""
    from shu.signals.reference import star_signals_reference

    con = store.con
    observations = con.execute("SELECT repo, day, stars FROM stars_daily").df()
    t0 = time.perf_counter()
    expected = star_signals_reference(observations)
    print(f"pandas reference: {time.perf_counter() - t0:.1f} s, {len(expected):,} rows")
    actual = con.execute("SELECT * FROM star_signals ORDER BY repo, day").df()
    expected = expected.sort_values(["repo", "day"]).reset_index(drop=True)
    same_keys = (
        len(actual) == len(expected)
        and (actual["repo"].to_numpy() == expected["repo"].to_numpy()).all()
        and (pd.to_datetime(actual["day"]).to_numpy() == expected["day"].to_numpy()).all()
    )
    mismatches = {}
    for c in (
        "stars",
        "stars_age_days",
        "velocity_7d",
        "velocity_28d",
        "velocity_90d",
        "acceleration_7d",
        "acceleration_28d",
        "velocity_7d_z",
        "velocity_28d_z",
    ):
        a, e = actual[c].astype(float).to_numpy(), expected[c].astype(float).to_numpy()
        mismatches[c] = int((~np.isclose(a, e, rtol=1e-9, atol=1e-9, equal_nan=True)).sum())
    for c in ("gap", "lifecycle_phase"):
        mismatches[c] = int(
            (
                actual[c].fillna("-").astype(str).to_numpy()
                != expected[c].fillna("-").astype(str).to_numpy()
            ).sum()
        )
    print(
        f"SQL vs reference on all {len(actual):,} rows: same (repo, day) keys: {same_keys}; "
        f"values differing beyond 1e-9: {sum(mismatches.values())} {mismatches}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parquet", type=Path, default=ROOT.parent / "shared/data/stars/stars_daily.parquet"
    )
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/stars.duckdb"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-reference", action="store_true")
    args = parser.parse_args()

    from shu.store import open_store

    if not args.store.exists():
        build_store(args.parquet, args.store)
    full_against_naive(args.store, args.runs)
    with open_store(args.store) as store:
        store.con.execute("SET enable_progress_bar = false")
        incremental(store, args.runs)
        if not args.skip_reference:
            against_reference(store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
