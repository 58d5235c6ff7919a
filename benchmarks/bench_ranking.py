"""Benchmark: the full 7.2M-row ranking table into a fresh store, then the same again, against
a bare DuckDB `CREATE TABLE AS SELECT ... GROUP BY` of the same file.

Targets: fresh load <= 60 s and <= 2 GiB peak memory on a 2-core machine, a re-run changes
nothing and takes about as long or less (issue 2); the fresh load within 3x of the bare DuckDB
load (issue 14). Each run times the bare load and the shu load back to back (the machine is
shared, so their ratio per run is steadier than either figure).

    python benchmarks/bench_ranking.py [PATH] [--runs N]

Each load runs in its own process (`shu ingest ranking`), so the peak resident memory printed is
that process's whole footprint (Python, DuckDB, Arrow).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared/data/stars/stars_daily.parquet"


def run_load(path: Path, db: Path) -> tuple[float, float, str]:
    """Run one load in a child process; return (seconds, peak RSS GiB, its summary line)."""
    code = ("import resource, sys; from shu.cli import main; sys.argv = ['shu', 'ingest', "
            f"'ranking', {str(path)!r}, '--db', {str(db)!r}]\n"
            "try:\n    main()\nfinally:\n"
            "    print('maxrss_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "300"}, check=True)
    seconds = time.perf_counter() - t0
    lines = proc.stdout.strip().splitlines()
    rss_kb = int(lines[-1].split()[1])
    return seconds, rss_kb / 2**20, " ".join(lines[:-1])


BARE = ("import duckdb, sys\ncon = duckdb.connect(sys.argv[2])\n"
        "con.execute('CREATE TABLE stars AS SELECT repo, CAST(day AS DATE) AS day, max(stars) "
        "AS stars, max(forks) AS forks, max(open_issues) AS open_issues "
        "FROM read_parquet(?) GROUP BY repo, day', [sys.argv[1]])\n"
        "print(con.execute('SELECT count(*) FROM stars').fetchone()[0])\ncon.close()")


def run_bare(path: Path, db: Path) -> float:
    """The reference: DuckDB alone loads and dedupes the file (child process, like shu's)."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", BARE, str(path), str(db)], check=True,
                   capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3, help="fresh+rerun pairs to take")
    args = parser.parse_args()
    fresh, rerun, bare, ratios = [], [], [], []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            bare.append(run_bare(args.path, Path(tmp) / "bare.duckdb"))
            db = Path(tmp) / "bench.duckdb"
            fresh.append(run_load(args.path, db))
            rerun.append(run_load(args.path, db))
        ratios.append(fresh[-1][0] / bare[-1])
        print(f"run {i + 1}: bare duckdb {bare[-1]:.1f}s | fresh {fresh[-1][0]:.1f}s "
              f"{fresh[-1][1]:.2f} GiB (ratio {ratios[-1]:.2f}) | "
              f"re-run {rerun[-1][0]:.1f}s {rerun[-1][1]:.2f} GiB")
    print(f"summary fresh: {fresh[-1][2]}")
    print(f"summary re-run: {rerun[-1][2]}")
    for name, runs in (("fresh", fresh), ("re-run", rerun)):
        print(f"{name}: median {statistics.median(r[0] for r in runs):.1f} s, "
              f"max peak RSS {max(r[1] for r in runs):.2f} GiB over {len(runs)} runs "
              f"(cores: {os.cpu_count()}, load avg {os.getloadavg()[0]:.1f})")
    print(f"bare duckdb CREATE TABLE AS SELECT ... GROUP BY: median "
          f"{statistics.median(bare):.1f} s")
    print(f"ratio shu fresh / bare duckdb: median {statistics.median(ratios):.2f} "
          f"(target <= 3.00)")


if __name__ == "__main__":
    main()
