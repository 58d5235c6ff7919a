"""Benchmark: the full 7.2M-row ranking table into a fresh store, then the same again.

Targets (issue 2): fresh load <= 60 s and <= 2 GiB peak memory on a 2-core machine; a re-run
changes nothing and takes about as long or less.

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3, help="fresh+rerun pairs to take")
    args = parser.parse_args()
    fresh, rerun = [], []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "bench.duckdb"
            fresh.append(run_load(args.path, db))
            rerun.append(run_load(args.path, db))
        print(f"run {i + 1}: fresh {fresh[-1][0]:.1f}s {fresh[-1][1]:.2f} GiB | "
              f"re-run {rerun[-1][0]:.1f}s {rerun[-1][1]:.2f} GiB")
    print(f"summary fresh: {fresh[-1][2]}")
    print(f"summary re-run: {rerun[-1][2]}")
    for name, runs in (("fresh", fresh), ("re-run", rerun)):
        print(f"{name}: median {statistics.median(r[0] for r in runs):.1f} s, "
              f"max peak RSS {max(r[1] for r in runs):.2f} GiB over {len(runs)} runs "
              f"(cores: {os.cpu_count()}, load avg {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
